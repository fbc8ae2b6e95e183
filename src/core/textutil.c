/*
 * textutil.c -- file reading, value formatting and strict number parsing
 * shared by the config readers (see core/opts.h).
 */
#include "core/opts.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/afile.h"
#include "core/alloc.h"
#include "core/log.h"

static const char *file_kind(mode_t m) {
    if (S_ISDIR(m)) return "a directory";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISFIFO(m)) return "a FIFO (named pipe)";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}

int cs_read_file(const char *path, char **buf, size_t *len, cs_error *err) {
    *buf = NULL;
    *len = 0;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused
     * below, and reading a regular file ignores the flag. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return CS_ERR(err, CS_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return CS_ERR(err, CS_EIO, "%s: cannot read: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return CS_ERR(err, CS_EIO, "%s: cannot read: expected a regular file, got %s", path,
                      file_kind(st.st_mode));
    }
    if ((uintmax_t)st.st_size > CS_CONFIG_MAX_BYTES) {
        close(fd);
        return CS_ERR(err, CS_EIO,
                      "%s: cannot read: the file is %jd bytes, expected at most %zu bytes (64 MiB, "
                      "the size limit of a configuration file)",
                      path, (intmax_t)st.st_size, CS_CONFIG_MAX_BYTES);
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        return CS_ERR(err, CS_EIO, "%s: cannot read: %s", path, strerror(e));
    }
    cs_input_note(path); /* no result may overwrite it (core/afile.h) */
    /* the size was checked; a file that grows while read stops at the limit */
    size_t cap = (size_t)st.st_size + 2, n = 0;
    char *b = cs_malloc(cap);
    int too_big = 0;
    for (;;) {
        if (cap - n < 2) {
            cap *= 2;
            b = cs_realloc(b, cap);
        }
        size_t got = fread(b + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
        if (n > CS_CONFIG_MAX_BYTES) {
            too_big = 1;
            break;
        }
    }
    int bad = ferror(f);
    int saved = errno;
    fclose(f);
    if (bad || too_big) {
        cs_free(b);
        if (too_big)
            return CS_ERR(err, CS_EIO,
                          "%s: cannot read: the file grew past %zu bytes while read, expected at "
                          "most %zu bytes (64 MiB, the size limit of a configuration file)",
                          path, CS_CONFIG_MAX_BYTES, CS_CONFIG_MAX_BYTES);
        return CS_ERR(err, CS_EIO, "%s: cannot read: %s", path, strerror(saved));
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return CS_OK;
}

const char *cs_escape(const char *s, size_t max, char *buf, size_t n) {
    size_t o = 0, i = 0;
    if (n == 0) return buf;
    for (; s[i] && i < max && o + 8 < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n') {
            buf[o++] = '\\';
            buf[o++] = 'n';
        } else if (c == '\t') {
            buf[o++] = '\\';
            buf[o++] = 't';
        } else if (c < 0x20 || c == 0x7f) {
            o += (size_t)snprintf(buf + o, n - o, "\\x%02x", c);
        } else {
            buf[o++] = (char)c;
        }
    }
    if (s[i] && o + 4 <= n) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o < n ? o : n - 1] = '\0';
    return buf;
}

size_t cs_utf8_seq(const unsigned char *s) {
    unsigned c = s[0];
    if (c < 0x80) return 1;
    size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    if (n == 0 || c > 0xf4) return 0;
    uint32_t cp = c & (0x3fu >> (n - 1));
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3fu);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000)) return 0; /* overlong */
    if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return 0;
    return n;
}

json_t *cs_json_string_lossy(const char *s) {
    if (!s) return json_string("");
    json_t *j = json_string(s);
    if (j) return j;
    size_t len = strlen(s);
    char *fixed = cs_malloc(len * 3 + 1);
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t n = cs_utf8_seq((const unsigned char *)s + i);
        if (n) {
            memcpy(fixed + o, s + i, n);
            o += n;
            i += n;
        } else {
            memcpy(fixed + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        }
    }
    fixed[o] = '\0';
    j = json_string(fixed);
    cs_free(fixed);
    return j ? j : json_string("");
}

void cs_fmt_double(char *buf, size_t n, double d) {
    if (d == floor(d) && fabs(d) < 1e15) { /* 1600, not 1.6e+03 */
        snprintf(buf, n, "%.0f", d);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, d);
        if (strtod(buf, NULL) == d) return;
    }
}

void cs_json_repr(const json_t *v, char *buf, size_t n) {
    if (!v) {
        snprintf(buf, n, "nothing");
        return;
    }
    switch (json_typeof(v)) {
    case JSON_STRING: {
        char esc[256];
        snprintf(buf, n, "\"%s\"", cs_escape(json_string_value(v), 48, esc, sizeof esc));
        break;
    }
    case JSON_INTEGER:
        snprintf(buf, n, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;
    case JSON_REAL:
        cs_fmt_double(buf, n, json_real_value(v));
        break;
    case JSON_TRUE: snprintf(buf, n, "true"); break;
    case JSON_FALSE: snprintf(buf, n, "false"); break;
    case JSON_NULL: snprintf(buf, n, "null"); break;
    case JSON_ARRAY:
        snprintf(buf, n, "a list of %zu entr%s", json_array_size(v),
                 json_array_size(v) == 1 ? "y" : "ies");
        break;
    case JSON_OBJECT: snprintf(buf, n, "an object"); break;
    default: snprintf(buf, n, "an unknown value"); break;
    }
}

int cs_parse_double(const char *s, double *out) {
    if (!s || !*s) return -1;
    /* only [+-] digits [.digits] [e[+-]digits]: no hex, inf, nan, spaces */
    const char *p = s;
    if (*p == '+' || *p == '-') p++;
    int digits = 0;
    for (; *p >= '0' && *p <= '9'; p++) digits++;
    if (*p == '.') {
        p++;
        for (; *p >= '0' && *p <= '9'; p++) digits++;
    }
    if (!digits) return -1;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!(*p >= '0' && *p <= '9')) return -1;
        while (*p >= '0' && *p <= '9') p++;
    }
    if (*p) return -1;
    errno = 0;
    char *end;
    double d = strtod(s, &end);
    if (*end || !isfinite(d)) return -1;
    *out = d;
    return 0;
}

int cs_parse_ll(const char *s, long long *out) {
    if (!s || !*s) return -1;
    const char *p = s;
    if (*p == '+' || *p == '-') p++;
    if (*p >= '0' && *p <= '9') {
        const char *q = p;
        while (*q >= '0' && *q <= '9') q++;
        if (!*q) {
            errno = 0;
            char *end;
            long long v = strtoll(s, &end, 10);
            if (errno == ERANGE || *end) return -1;
            *out = v;
            return 0;
        }
    }
    double d;
    if (cs_parse_double(s, &d) != 0) return -1;
    if (d != floor(d) || d < -9.2e18 || d > 9.2e18) return -1;
    *out = (long long)d;
    return 0;
}

int cs_json_ll(const json_t *v, long long *out) {
    if (json_is_integer(v)) {
        *out = (long long)json_integer_value(v);
        return 0;
    }
    if (json_is_real(v)) {
        double d = json_real_value(v);
        if (d != floor(d) || d < -9.2e18 || d > 9.2e18) return -1;
        *out = (long long)d;
        return 0;
    }
    return -1;
}

/* Edit distance, for "did you mean" (keys are short). */
static size_t edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63) return (size_t)-1;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] == b[j - 1] ? 0 : 1);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

void cs_warn_unknown_key(const char *path, int line, const char *key,
                          const char *const *known, size_t nknown) {
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < nknown; i++) {
        size_t d = edit_distance(key, known[i]);
        if (d < best_d) {
            best_d = d;
            best = known[i];
        }
    }
    size_t klen = strlen(key);
    char esc[256];
    cs_escape(key, 64, esc, sizeof esc);
    if (best && best_d <= 3 && best_d < klen)
        cs_warn("%s:%d: unknown key \"%s\" ignored (did you mean \"%s\"?)", path, line, esc,
                best);
    else
        cs_warn("%s:%d: unknown key \"%s\" ignored", path, line, esc);
}

int cs_parse_rank_range(const char *s, const char **end, unsigned long long *a, unsigned long long *b) {
    char *e;
    if (*s < '0' || *s > '9') return -1;
    errno = 0;
    *a = strtoull(s, &e, 10);
    if (e == s || errno) return -1;
    *b = *a;
    if (*e == '-') {
        const char *q = e + 1;
        if (*q < '0' || *q > '9') return -1;
        *b = strtoull(q, &e, 10);
        if (e == q || errno) return -1;
    }
    *end = e;
    return 0;
}

char *cs_path_near(const char *file, const char *p) {
    if (p[0] == '/') return cs_strdup(p);
    const char *slash = strrchr(file, '/');
    size_t dl = slash ? (size_t)(slash - file) + 1 : 0;
    char *out = cs_malloc(dl + strlen(p) + 1);
    memcpy(out, file, dl);
    strcpy(out + dl, p);
    return out;
}

int cs_str_index(const char *s, const char *const *list, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, list[i]) == 0) return (int)i;
    return -1;
}
