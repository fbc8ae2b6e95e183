/*
 * error.c -- located error reports (see error.h).
 */
#include "core/error.h"

#include <stdio.h>
#include <string.h>

#include "core/alloc.h"

#ifndef CS_SOURCE_ROOT
#define CS_SOURCE_ROOT "" /* the build gives the source tree's path, ending in '/' */
#endif

const char *cs_src_path(const char *file) {
    static const char root[] = CS_SOURCE_ROOT;
    size_t n = sizeof root - 1;
    if (file && n && strncmp(file, root, n) == 0) return file + n;
    return file ? file : "?";
}

void cs_error_clear(cs_error *err) {
    if (!err) return;
    err->code = CS_OK;
    err->msg[0] = '\0';
    err->src_file = NULL;
    err->src_line = 0;
    err->detail = 0;
}

/* The one detail text the process keeps (error.h). */
static char *g_detail;
static unsigned g_detail_serial;

void cs_error_set_detail(cs_error *err, const char *text) {
    if (!err || err->code == CS_OK || !text) return;
    cs_free(g_detail);
    g_detail = cs_strdup(text);
    if (++g_detail_serial == 0) g_detail_serial = 1;
    err->detail = g_detail_serial;
}

const char *cs_error_detail(const cs_error *err) {
    return err && err->detail && err->detail == g_detail_serial ? g_detail : NULL;
}

int cs_error_vset(cs_error *err, int code, const char *src_file, int src_line,
                  const char *fmt, va_list ap) {
    if (!err) return code;
    if (err->code != CS_OK) return code; /* first error wins */
    err->code = code;
    err->src_file = src_file;
    err->src_line = src_line;
    err->detail = 0;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    return code;
}

int cs_error_set(cs_error *err, int code, const char *src_file, int src_line,
                 const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cs_error_vset(err, code, src_file, src_line, fmt, ap);
    va_end(ap);
    return code;
}

void cs_error_prefix(cs_error *err, const char *fmt, ...) {
    if (!err || err->code == CS_OK) return;
    char head[CS_ERROR_MSG_MAX];
    char old[CS_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    size_t h = strlen(head), o = strlen(old);
    if (h > sizeof err->msg - 1) h = sizeof err->msg - 1;
    if (o > sizeof err->msg - 1 - h) o = sizeof err->msg - 1 - h;
    memcpy(err->msg, head, h);
    memcpy(err->msg + h, old, o);
    err->msg[h + o] = '\0';
}

const char *cs_error_code_name(int code) {
    switch (code) {
    case CS_OK: return "ok";
    case CS_EINVAL: return "invalid input";
    case CS_EIO: return "i/o error";
    case CS_EFORMAT: return "malformed file";
    case CS_EUNSUPPORTED: return "unsupported";
    case CS_ENOMEM: return "out of memory";
    case CS_EDEADLOCK: return "deadlock";
    case CS_EINTERNAL: return "internal error";
    case CS_EINTR: return "interrupted";
    default: return "unknown error";
    }
}
