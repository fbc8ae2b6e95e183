/*
 * jdoc.c -- JSON config files with line numbers (see core/opts.h).
 *
 * jansson parses and validates the text; it does not keep value positions,
 * so a second, tiny scanner walks the same (now known-valid) bytes and
 * records the line of every top-level key and of every element of a
 * top-level list.  The scanner also finds duplicate top-level keys, which
 * jansson would silently collapse to the last one.
 */
#include "core/opts.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

typedef struct scan {
    const char *b;
    size_t n, i;
    int line;
} scan;

static void skip_ws(scan *s) {
    while (s->i < s->n) {
        char c = s->b[s->i];
        if (c == '\n')
            s->line++;
        else if (c != ' ' && c != '\t' && c != '\r')
            break;
        s->i++;
    }
}

static int hex4(const char *p, unsigned *out) {
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p[k];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static void sb_put(sbuf *b, char c) {
    CS_GROW(b->p, b->cap, b->len + 2);
    b->p[b->len++] = c;
    b->p[b->len] = '\0';
}

static void sb_utf8(sbuf *b, unsigned cp) {
    if (cp < 0x80) {
        sb_put(b, (char)cp);
    } else if (cp < 0x800) {
        sb_put(b, (char)(0xC0 | (cp >> 6)));
        sb_put(b, (char)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        sb_put(b, (char)(0xE0 | (cp >> 12)));
        sb_put(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
        sb_put(b, (char)(0x80 | (cp & 0x3F)));
    } else {
        sb_put(b, (char)(0xF0 | (cp >> 18)));
        sb_put(b, (char)(0x80 | ((cp >> 12) & 0x3F)));
        sb_put(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
        sb_put(b, (char)(0x80 | (cp & 0x3F)));
    }
}

/* At '"': consume the string; decode it into *out when out != NULL. */
static int scan_string(scan *s, char **out) {
    sbuf b = {0};
    if (out) { /* an empty string decodes to "", not NULL */
        sb_put(&b, '\0');
        b.len = 0;
    }
    s->i++; /* opening quote */
    while (s->i < s->n) {
        char c = s->b[s->i];
        if (c == '"') {
            s->i++;
            if (out) *out = b.p;
            return 0;
        }
        if (c == '\\') {
            if (s->i + 1 >= s->n) break;
            char e = s->b[s->i + 1];
            s->i += 2;
            if (e == 'u') {
                unsigned cp;
                if (s->i + 4 > s->n || hex4(s->b + s->i, &cp) != 0) break;
                s->i += 4;
                if (cp >= 0xD800 && cp <= 0xDBFF && s->i + 6 <= s->n && s->b[s->i] == '\\' &&
                    s->b[s->i + 1] == 'u') {
                    unsigned lo;
                    if (hex4(s->b + s->i + 2, &lo) == 0 && lo >= 0xDC00 && lo <= 0xDFFF) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        s->i += 6;
                    }
                }
                if (out) sb_utf8(&b, cp);
                continue;
            }
            char d = e;
            switch (e) {
            case 'n': d = '\n'; break;
            case 't': d = '\t'; break;
            case 'r': d = '\r'; break;
            case 'b': d = '\b'; break;
            case 'f': d = '\f'; break;
            default: break; /* '"', '\\', '/' */
            }
            if (out) sb_put(&b, d);
            continue;
        }
        if (c == '\n') s->line++; /* not valid JSON, but keep counting */
        if (out) sb_put(&b, c);
        s->i++;
    }
    cs_free(b.p);
    return -1;
}

/* Skip one value of any kind. */
static int skip_value(scan *s) {
    skip_ws(s);
    if (s->i >= s->n) return -1;
    char c = s->b[s->i];
    if (c == '"') return scan_string(s, NULL);
    if (c == '{' || c == '[') {
        int depth = 0;
        while (s->i < s->n) {
            c = s->b[s->i];
            if (c == '"') {
                if (scan_string(s, NULL) != 0) return -1;
                continue;
            }
            if (c == '\n') s->line++;
            if (c == '{' || c == '[') depth++;
            if (c == '}' || c == ']') depth--;
            s->i++;
            if (depth == 0) return 0;
        }
        return -1;
    }
    while (s->i < s->n) {
        c = s->b[s->i];
        if (c == ',' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\r' || c == '\n')
            break;
        s->i++;
    }
    return 0;
}

/* Build the index of the top-level object.  Stops quietly on anything
 * unexpected (the text was validated by jansson first). */
static void build_index(cs_jdoc *doc, const char *buf, size_t len) {
    scan s = {buf, len, 0, 1};
    size_t cap = 0;
    skip_ws(&s);
    if (s.i >= s.n || s.b[s.i] != '{') return;
    doc->root_line = s.line;
    s.i++;
    for (;;) {
        skip_ws(&s);
        if (s.i >= s.n || s.b[s.i] != '"') return;
        cs_jmember m = {0};
        m.key_line = s.line;
        if (scan_string(&s, &m.key) != 0) return;
        CS_GROW(doc->m, cap, doc->nm + 1);
        doc->m[doc->nm++] = m;
        cs_jmember *mp = &doc->m[doc->nm - 1];
        skip_ws(&s);
        if (s.i >= s.n || s.b[s.i] != ':') return;
        s.i++;
        skip_ws(&s);
        if (s.i < s.n && s.b[s.i] == '[') {
            size_t ecap = 0;
            s.i++;
            skip_ws(&s);
            if (s.i < s.n && s.b[s.i] == ']') {
                s.i++;
            } else {
                for (;;) {
                    skip_ws(&s);
                    CS_GROW(mp->elem_lines, ecap, mp->nelem + 1);
                    mp->elem_lines[mp->nelem++] = s.line;
                    if (skip_value(&s) != 0) return;
                    skip_ws(&s);
                    if (s.i >= s.n) return;
                    if (s.b[s.i] == ',') {
                        s.i++;
                        continue;
                    }
                    if (s.b[s.i] == ']') {
                        s.i++;
                        break;
                    }
                    return;
                }
            }
        } else if (skip_value(&s) != 0) {
            return;
        }
        skip_ws(&s);
        if (s.i >= s.n) return;
        if (s.b[s.i] == ',') {
            s.i++;
            continue;
        }
        return; /* '}' or garbage */
    }
}

static int cmp_member_key(const void *a, const void *b) {
    const cs_jmember *x = *(const cs_jmember *const *)a;
    const cs_jmember *y = *(const cs_jmember *const *)b;
    int c = strcmp(x->key, y->key);
    if (c) return c;
    return (x->key_line > y->key_line) - (x->key_line < y->key_line);
}

/* jansson kept fewer keys than the file has: report the duplicate. */
static int report_duplicate(const cs_jdoc *doc, cs_error *err) {
    const cs_jmember **v = cs_malloc(doc->nm * sizeof *v);
    for (size_t i = 0; i < doc->nm; i++) v[i] = &doc->m[i];
    qsort(v, doc->nm, sizeof *v, cmp_member_key);
    int rc = CS_OK;
    for (size_t i = 1; i < doc->nm; i++) {
        if (strcmp(v[i - 1]->key, v[i]->key) == 0) {
            char esc[256];
            rc = CS_ERR(err, CS_EINVAL,
                        "%s:%d: %s: expected each key once, got a second definition "
                        "(first at line %d)",
                        doc->path, v[i]->key_line, cs_escape(v[i]->key, 64, esc, sizeof esc),
                        v[i - 1]->key_line);
            break;
        }
    }
    cs_free(v);
    return rc;
}

int cs_jdoc_load(const char *path, const char *what, cs_jdoc *doc, cs_error *err) {
    memset(doc, 0, sizeof *doc);
    char *buf;
    size_t len;
    int rc = cs_read_file(path, &buf, &len, err);
    if (rc) return rc;
    rc = cs_jdoc_load_text(path, buf, len, what, doc, err);
    cs_free(buf);
    return rc;
}

int cs_jdoc_load_text(const char *path, const char *buf, size_t len, const char *what, cs_jdoc *doc,
                      cs_error *err) {
    memset(doc, 0, sizeof *doc);
    int rc = CS_OK;
    doc->path = cs_strdup(path);
    doc->root_line = 1;
    json_error_t jerr;
    doc->root = json_loadb(buf, len, JSON_DECODE_ANY, &jerr);
    if (!doc->root) {
        char esc[512];
        rc = CS_ERR(err, CS_EINVAL, "%s:%d: expected a valid JSON %s file, got a syntax error at "
                    "column %d: %s",
                    path, jerr.line > 0 ? jerr.line : 1, what, jerr.column,
                    cs_escape(jerr.text, 160, esc, sizeof esc));
        goto out;
    }
    if (!json_is_object(doc->root)) {
        char got[320];
        cs_json_repr(doc->root, got, sizeof got);
        rc = CS_ERR(err, CS_EINVAL, "%s:1: expected a JSON object {\"key\": value, ...} as %s, got %s",
                    path, what, got);
        goto out;
    }
    build_index(doc, buf, len);
    if (doc->nm > json_object_size(doc->root)) {
        rc = report_duplicate(doc, err);
        if (rc) goto out;
    }
out:
    if (rc) cs_jdoc_free(doc);
    return rc;
}

void cs_jdoc_free(cs_jdoc *doc) {
    if (!doc) return;
    for (size_t i = 0; i < doc->nm; i++) {
        cs_free(doc->m[i].key);
        cs_free(doc->m[i].elem_lines);
    }
    cs_free(doc->m);
    if (doc->root) json_decref(doc->root);
    cs_free(doc->path);
    memset(doc, 0, sizeof *doc);
}

static const cs_jmember *find_member(const cs_jdoc *doc, const char *key) {
    /* the last definition wins in jansson; duplicates are rejected anyway */
    for (size_t i = doc->nm; i-- > 0;)
        if (strcmp(doc->m[i].key, key) == 0) return &doc->m[i];
    return NULL;
}

int cs_jdoc_key_line(const cs_jdoc *doc, const char *key) {
    const cs_jmember *m = find_member(doc, key);
    return m ? m->key_line : doc->root_line;
}

int cs_jdoc_elem_line(const cs_jdoc *doc, const char *key, size_t i) {
    const cs_jmember *m = find_member(doc, key);
    if (!m) return doc->root_line;
    if (i < m->nelem) return m->elem_lines[i];
    return m->key_line;
}
