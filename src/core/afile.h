/*
 * afile.h -- result files written atomically: the text goes to a temporary
 * name beside the destination (PATH.tmp.PID) and is renamed over PATH only
 * when complete, so a reader sees the old file or the whole new one, and a
 * run that fails or is interrupted leaves no partial file.
 *
 * Ownership: a cs_afile owns its FILE and names until cs_afile_commit or
 * cs_afile_abort (either may be called once; abort after commit is a no-op).
 *
 * Unfinished files at exit: an open cs_afile's temporary name sits in a
 * registry of pending files (cs_afile_pending_*), which a handler installed
 * with atexit() removes when the process exits with any still registered --
 * an out-of-memory exit (core/alloc.h) from the middle of writing leaves no
 * PATH.tmp.PID.  The registry is a fixed table (no allocation, only
 * remove() at exit); a file streamed to its final name (the timeline)
 * registers itself too.
 */
#ifndef CS_CORE_AFILE_H
#define CS_CORE_AFILE_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "core/error.h"

typedef struct cs_afile {
    FILE *f;      /* write here */
    char *path;   /* destination */
    char *tmp;    /* temporary name */
} cs_afile;

/* Open PATH.tmp.PID for writing (PATH itself when it is a device:
 * cs_output_is_device); refused when PATH is an input (cs_output_check);
 * on failure a->f is NULL and err names path. */
int cs_afile_open(cs_afile *a, const char *path, cs_error *err);
/* Close, check for write errors, rename over the destination. */
int cs_afile_commit(cs_afile *a, cs_error *err);
/* Close and remove the temporary file (the destination is untouched). */
void cs_afile_abort(cs_afile *a);

/* Register path (borrowed: it must stay valid until unregistered) as
 * unfinished: removed if the process exits before cs_afile_pending_del.  At
 * most CS_AFILE_MAX_PENDING at once (beyond that, not registered). */
#define CS_AFILE_MAX_PENDING 64
void cs_afile_pending_add(const char *path);
void cs_afile_pending_del(const char *path);

/* The files a command reads, by device and inode (so any spelling of the
 * path, a symlink or a hard link is the same file): cs_input_note records
 * a regular file read as input (the configuration reader cs_read_file and
 * the Chakra reader call it; at most CS_INPUT_MAX_NOTED files, later ones
 * unrecorded); cs_output_check refuses an output path that is one of them
 * (CS_EINVAL "PATH: is a file this command reads ..."), so a result never
 * overwrites, nor an unfinished one removes, what the command reads --
 * cs_afile_open and cs_afile_commit call it, as does every other writer of
 * a result.  cs_input_reset forgets them (clustersim_main, per command). */
#define CS_INPUT_MAX_NOTED (1u << 20)
void cs_input_reset(void);
void cs_input_note(const char *path);
struct stat;
void cs_input_note_stat(const struct stat *st); /* the same from an fstat of the open file */
int cs_output_check(const char *path, cs_error *err);
/* remove(path) unless path is one of those inputs (then -1, the file kept):
 * how a failed or stopped command removes its results, stale or partial
 * (stat and remove only: safe in an exit handler). */
int cs_remove_output(const char *path);
/* Whether path exists as neither a regular file nor a directory (a device
 * such as /dev/null or /dev/stdout, a FIFO): results go there in place,
 * never through a temporary renamed over it (which would replace the
 * device node by a file), and a failure never removes it. */
int cs_output_is_device(const char *path);

/* Create directory dir and its parents (as mkdir -p) for the results of
 * `flag` (named in messages: "--out DIR: ..."); CS_EIO when a part cannot
 * be made or dir is not a directory. */
int cs_mkdir_p(const char *dir, const char *flag, cs_error *err);

/* The whole of text[0..len) to path, atomically. */
int cs_write_file_atomic(const char *path, const char *text, size_t len, cs_error *err);
/* j as indented JSON (reals to 17 digits) and a newline, atomically; j is
 * the caller's (not consumed). */
int cs_write_json_atomic(const char *path, const json_t *j, cs_error *err);

#endif
