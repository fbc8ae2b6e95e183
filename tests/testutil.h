/*
 * testutil.h -- shared helpers for the cmocka tests.
 *
 * cmocka wants <stdarg.h>, <stddef.h>, <stdint.h> and <setjmp.h> before
 * <cmocka.h>; include this header instead of cmocka.h directly.
 */
#ifndef CS_TESTUTIL_H
#define CS_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* Path of ../shared, or NULL when it does not exist (a user's fresh clone). */
const char *tu_shared_dir(void);
/* Scratch directory for this test (created on first use). */
const char *tu_tmp_dir(void);
/* Source tree root. */
const char *tu_source_dir(void);
/* Join into a static rotating buffer (8 slots). */
const char *tu_path(const char *a, const char *b);
/* Skip the whole program (exit 77) with a message when ../shared is absent. */
void tu_require_shared(void);

#endif

/* Write a Chakra trace from a compact text spec (our own writer):
 *   "<id> <KIND> key=value ...; <id> <KIND> ...; ..."
 * KIND: COMP, CPU (COMP with is_cpu_op), SEND, RECV, COLL, HOSTCOLL (COLL with
 *       is_cpu_op: a PyTorch host-side record), LOAD, STORE, META, INVALID, or
 *       T<n> (raw node type n).
 * keys: dur (us), data=a,b  ctrl=a,b  size (comm_size)  src dst tag (int32)
 *       ops (num_ops)  tensor (tensor_size)  ctype (comm_type)  pg (pg_name)
 *       inv=1,0 (involved_dim)  name=<text without spaces>
 * A first segment "GLOBAL key=N key=N;" sets integer (int64) attributes of
 * the file's GlobalMetadata (e.g. phase_bytes of a custom:PREFIX graph).
 * Returns 0, or -1 with a message on stderr. */
int tu_write_trace(const char *path, const char *spec);
/* Same, for rank files PREFIX.<rank>.et: specs[r] for r < nranks. */
int tu_write_traces(const char *prefix, const char *const *specs, unsigned nranks);
/* Write text to a file; returns 0 or -1. */
int tu_write_file(const char *path, const char *text);
/* Set *a from an algorithm name as the system JSON spells it (ring, direct,
 * direct<N>, oneRing, ...: any entry of the registry, system/coll_algo.h;
 * anything else = ring). */
struct cs_coll_impl;
void tu_set_algo(struct cs_coll_impl *a, const char *name);
/* Write text to a file in this test's scratch directory; returns its path
 * (one of 8 rotating static buffers). Fails the test if it cannot. */
const char *tu_write_tmp(const char *name, const char *text);
/* Fail the test unless msg contains want (both printed). */
void tu_assert_has(const char *msg, const char *want);
/* The user-error contract: msg holds "path:line: ", the key (if not NULL),
 * the word "expected", and extra (if not NULL). */
void tu_assert_located(const char *msg, const char *path, int line, const char *key, const char *extra);
/* Capture warnings (cs_warn) from now on: resets the log, installs a sink that
 * keeps every warning, one per line. tu_warnings() is the text so far,
 * tu_warning_count() how many; tu_capture_end() restores stderr. */
void tu_capture_warnings(void);
const char *tu_warnings(void);
int tu_warning_count(void);
void tu_capture_end(void);
