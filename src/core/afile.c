/*
 * afile.c -- atomic result files and the registry of unfinished files (see
 * afile.h).
 */
#include "core/afile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"

/* ---- unfinished files ------------------------------------------------------------ */

static const char *g_pending[CS_AFILE_MAX_PENDING];
static int g_atexit;

/* At exit: remove what is still registered (only remove(): exit() may come
 * from anywhere, out of memory among others). */
static void remove_pending(void) {
    for (size_t i = 0; i < CS_AFILE_MAX_PENDING; i++)
        if (g_pending[i]) {
            remove(g_pending[i]);
            g_pending[i] = NULL;
        }
}

void cs_afile_pending_add(const char *path) {
    if (!g_atexit) g_atexit = atexit(remove_pending) == 0;
    for (size_t i = 0; i < CS_AFILE_MAX_PENDING; i++)
        if (!g_pending[i]) {
            g_pending[i] = path;
            return;
        }
}

void cs_afile_pending_del(const char *path) {
    if (!path) return;
    for (size_t i = 0; i < CS_AFILE_MAX_PENDING; i++)
        if (g_pending[i] == path) {
            g_pending[i] = NULL;
            return;
        }
}

/* ---- the inputs a command read ------------------------------------------------------ */

typedef struct file_id {
    dev_t dev;
    ino_t ino;
} file_id;
static file_id *g_inputs;
static size_t g_ninputs, g_cap_inputs;

void cs_input_reset(void) {
    cs_free(g_inputs);
    g_inputs = NULL;
    g_ninputs = g_cap_inputs = 0;
}

void cs_input_note_stat(const struct stat *st) {
    if (!S_ISREG(st->st_mode) || g_ninputs >= CS_INPUT_MAX_NOTED) return;
    if (g_ninputs && g_inputs[g_ninputs - 1].dev == st->st_dev && g_inputs[g_ninputs - 1].ino == st->st_ino)
        return; /* (the same file read again in a row; other repeats cost one entry each) */
    CS_GROW(g_inputs, g_cap_inputs, g_ninputs + 1);
    g_inputs[g_ninputs++] = (file_id){st->st_dev, st->st_ino};
}

void cs_input_note(const char *path) {
    struct stat st;
    if (path && stat(path, &st) == 0) cs_input_note_stat(&st);
}

int cs_output_check(const char *path, cs_error *err) {
    struct stat st;
    if (!path || stat(path, &st) != 0) return CS_OK; /* not there: nothing of the inputs to lose */
    for (size_t i = 0; i < g_ninputs; i++)
        if (g_inputs[i].dev == st.st_dev && g_inputs[i].ino == st.st_ino)
            return CS_ERR(err, CS_EINVAL, "%s: is a file this command reads (an input); expected an output path "
                          "that is none of its inputs", path);
    return CS_OK;
}

int cs_output_is_device(const char *path) {
    struct stat st;
    return path && stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

int cs_remove_output(const char *path) {
    struct stat st;
    if (!path) return -1;
    if (stat(path, &st) != 0) return remove(path); /* (its errno: ENOENT, as callers expect) */
    if (!S_ISREG(st.st_mode)) return -1;            /* /dev/null is no result to remove */
    for (size_t i = 0; i < g_ninputs; i++)
        if (g_inputs[i].dev == st.st_dev && g_inputs[i].ino == st.st_ino) return -1; /* an input: kept */
    return remove(path);
}

/* ---- atomic files ------------------------------------------------------------------ */

int cs_afile_open(cs_afile *a, const char *path, cs_error *err) {
    memset(a, 0, sizeof *a);
    int rc0 = cs_output_check(path, err);
    if (rc0) return rc0;
    if (cs_output_is_device(path)) { /* /dev/null, /dev/stdout, a FIFO: written in place, never renamed over */
        a->f = fopen(path, "w");
        if (!a->f) return CS_ERR(err, CS_EIO, "%s: cannot write: %s", path, strerror(errno));
        a->path = cs_strdup(path);
        return CS_OK;
    }
    size_t n = strlen(path) + 32;
    a->path = cs_strdup(path);
    a->tmp = cs_malloc(n);
    snprintf(a->tmp, n, "%s.tmp.%ld", path, (long)getpid());
    a->f = fopen(a->tmp, "w");
    if (!a->f) {
        int e = errno;
        cs_free(a->path);
        cs_free(a->tmp);
        memset(a, 0, sizeof *a);
        return CS_ERR(err, CS_EIO, "%s: cannot write: %s", path, strerror(e));
    }
    cs_afile_pending_add(a->tmp);
    return CS_OK;
}

static void release(cs_afile *a) {
    cs_afile_pending_del(a->tmp);
    cs_free(a->path);
    cs_free(a->tmp);
    memset(a, 0, sizeof *a);
}

int cs_afile_commit(cs_afile *a, cs_error *err) {
    if (!a->f) return CS_OK;
    int bad = ferror(a->f);
    int e = errno;
    if (fclose(a->f) != 0) {
        bad = 1;
        e = errno;
    }
    a->f = NULL;
    int rc = CS_OK;
    if (bad)
        rc = CS_ERR(err, CS_EIO, "%s: write error: %s", a->path, strerror(e ? e : EIO));
    else if (!a->tmp) /* a device, written in place */
        ;
    else if ((rc = cs_output_check(a->path, err)) != CS_OK) /* an input read since the open */
        ;
    else if (rename(a->tmp, a->path) != 0)
        rc = CS_ERR(err, CS_EIO, "%s: cannot write: %s", a->path, strerror(errno));
    if (rc && a->tmp) remove(a->tmp);
    release(a);
    return rc;
}

void cs_afile_abort(cs_afile *a) {
    if (a->f) {
        fclose(a->f);
        if (a->tmp) remove(a->tmp);
    }
    release(a);
}

int cs_write_file_atomic(const char *path, const char *text, size_t len, cs_error *err) {
    cs_afile a;
    int rc = cs_afile_open(&a, path, err);
    if (rc) return rc;
    if (fwrite(text, 1, len, a.f) != len) {
        int e = errno;
        cs_afile_abort(&a);
        return CS_ERR(err, CS_EIO, "%s: write error: %s", path, strerror(e));
    }
    return cs_afile_commit(&a, err);
}

int cs_mkdir_p(const char *dir, const char *flag, cs_error *err) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return CS_ERR(err, CS_EIO, "%s %s: cannot create %s: %s", flag, dir, buf, strerror(errno));
            *p = '/';
        }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return CS_ERR(err, CS_EIO, "%s %s: cannot create directory: %s", flag, dir, strerror(errno));
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) return CS_ERR(err, CS_EIO, "%s %s: expected a directory", flag, dir);
    return CS_OK;
}

int cs_write_json_atomic(const char *path, const json_t *j, cs_error *err) {
    char *s = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    if (!s) return CS_ERR(err, CS_ENOMEM, "%s: cannot format the JSON", path);
    size_t n = strlen(s);
    char *t = cs_malloc(n + 2);
    memcpy(t, s, n);
    t[n] = '\n';
    t[n + 1] = '\0';
    cs_json_free(s);
    int rc = cs_write_file_atomic(path, t, n + 1, err);
    cs_free(t);
    return rc;
}
