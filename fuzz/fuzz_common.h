/*
 * fuzz_common.h -- helpers shared by the libFuzzer targets of fuzz/.
 *
 * A reader that takes a path gets the fuzz input as a file: fz_input writes
 * it into this process's scratch directory (made once with mkdtemp under
 * $TMPDIR or /tmp, removed at exit) and returns its path.  fz_check aborts
 * with the target's name when a contract is broken (libFuzzer then keeps
 * the input as a crash); fz_check_error checks the error contract every
 * reader promises: a negative code, cs_error.code equal to it, and a
 * message that starts with the file's path.  Warnings (unknown keys) are
 * still formatted but dropped by the log sink fz_init installs, so that
 * runs print only libFuzzer's lines.
 */
#ifndef CS_FUZZ_COMMON_H
#define CS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Name used in contract messages; installs the dropping log sink. */
void fz_init(const char *target);
/* The scratch directory (absolute path, no trailing slash). */
const char *fz_scratch(void);
/* Write data to scratch/name and return the path (static storage, one per
 * name slot: valid until the next call with the same name). */
const char *fz_input(const char *name, const uint8_t *data, size_t size);
void fz_check(int ok, const char *what);
void fz_check_error(int rc, const cs_error *err, const char *path);

/* The part of data before the first line "%%" and the part after it (a
 * target reading two files from one input).  Returns 1 when split. */
int fz_split(const uint8_t *data, size_t size, size_t *len1, const uint8_t **rest, size_t *len2);

#endif
