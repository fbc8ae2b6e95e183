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

/* ---- atomic files ------------------------------------------------------------------ */

int cs_afile_open(cs_afile *a, const char *path, cs_error *err) {
    memset(a, 0, sizeof *a);
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
    else if (rename(a->tmp, a->path) != 0)
        rc = CS_ERR(err, CS_EIO, "%s: cannot write: %s", a->path, strerror(errno));
    if (rc) remove(a->tmp);
    release(a);
    return rc;
}

void cs_afile_abort(cs_afile *a) {
    if (a->f) {
        fclose(a->f);
        remove(a->tmp);
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
