/*
 * coll_algo.c -- the registry of collective algorithms (see coll_algo.h):
 * the one table that lists them, and the parsing and naming of
 * *-implementation entries built on it.  Owned by the system layer.
 *
 * To register an algorithm, add one line naming its table (exported by its
 * algo_*.c) to REGISTRY below: the line both declares the table and lists
 * it.  The order is the order of messages and --help.
 */
#include "system/coll_algo.h"

#include <stdio.h>
#include <string.h>

/* The registry: one X(table) line per algorithm. */
#define REGISTRY(X)                                                                    \
    X(css_algo_ring)     /* algo_ring.c: ring, oneRing */                              \
    X(css_algo_direct)   /* algo_direct.c: direct, direct<N>, oneDirect, oneDirect<N> */ \
    X(css_algo_hd)       /* algo_hd.c: halvingDoubling, oneHalvingDoubling */          \
    X(css_algo_dbt)      /* algo_dbt.c: doubleBinaryTree */                            \
    X(css_algo_inswitch) /* algo_inswitch.c: inSwitch */                          \
    X(css_algo_custom)   /* algo_custom.c: custom:PREFIX */

#define DECLARE(t) extern const cs_coll_algo t;
#define ENTRY(t) &t,
REGISTRY(DECLARE)
const cs_coll_algo *const cs_coll_algo_table_[] = {REGISTRY(ENTRY)};
#define ALGOS cs_coll_algo_table_
#undef DECLARE
#undef ENTRY
#define NALGOS (sizeof ALGOS / sizeof ALGOS[0])

size_t cs_coll_algo_count(void) { return NALGOS; }

const cs_coll_algo *cs_coll_algo_at(size_t i) { return i < NALGOS ? ALGOS[i] : NULL; }

int cs_coll_algo_index(const cs_coll_algo *a) {
    for (size_t i = 0; i < NALGOS; i++)
        if (ALGOS[i] == a) return (int)i;
    return -1;
}

const cs_coll_algo *cs_coll_algo_find(const char *name) {
    for (size_t i = 0; i < NALGOS; i++)
        if (strcmp(ALGOS[i]->name, name) == 0) return ALGOS[i];
    return NULL;
}

/* "one" + the name with its first letter capitalised: oneRing. */
static const char *one_name(const cs_coll_algo *a, char *buf, size_t n) {
    char first = a->name[0];
    if (first >= 'a' && first <= 'z') first = (char)(first - 'a' + 'A');
    snprintf(buf, n, "one%c%s", first, a->name[0] ? a->name + 1 : "");
    return buf;
}

/* s starts with a's name (or its one form): 0 with the rest, else -1. */
static int match(const cs_coll_algo *a, const char *s, const char **rest, bool *one) {
    char buf[64];
    size_t len = strlen(a->name);
    if (strncmp(s, a->name, len) == 0) {
        *rest = s + len;
        *one = false;
        return 0;
    }
    if (a->flags & CS_ALGO_ONE) {
        one_name(a, buf, sizeof buf);
        len = strlen(buf);
        if (strncmp(s, buf, len) == 0) {
            *rest = s + len;
            *one = true;
            return 0;
        }
    }
    return -1;
}

int cs_coll_impl_parse(const char *s, cs_coll_impl *out) {
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < NALGOS; i++) {
        const cs_coll_algo *a = ALGOS[i];
        const char *rest;
        bool one;
        if (a->flags & CS_ALGO_TEXT) { /* <name>:TEXT, TEXT non-empty */
            size_t len = strlen(a->name);
            if (strncmp(s, a->name, len) != 0 || s[len] != ':' || !s[len + 1] ||
                strlen(s + len + 1) > CS_COLL_IMPL_TEXT_MAX)
                continue;
            out->algo = a;
            snprintf(out->text, sizeof out->text, "%s", s + len + 1);
            return 0;
        }
        if (match(a, s, &rest, &one) != 0) continue;
        uint32_t param = 0;
        if (*rest && (!a->parse_param || a->parse_param(rest, &param) != 0)) continue;
        out->algo = a;
        out->one = one;
        out->param = param;
        return 0;
    }
    return -1;
}

const char *cs_coll_impl_name(const cs_coll_impl *e, char *buf, size_t n) {
    if (!e->algo)
        snprintf(buf, n, "unknown");
    else if (e->one)
        one_name(e->algo, buf, n);
    else
        snprintf(buf, n, "%s", e->algo->name);
    return buf;
}

const char *cs_coll_impl_format(const cs_coll_impl *e, char *buf, size_t n) {
    char name[64];
    cs_coll_impl_name(e, name, sizeof name);
    if (e->algo && (e->algo->flags & CS_ALGO_TEXT))
        snprintf(buf, n, "%s:%s", name, e->text);
    else if (e->param > 0)
        snprintf(buf, n, "%s%u", name, e->param);
    else
        snprintf(buf, n, "%s", name);
    return buf;
}

/* Append text to buf (length *len, capacity n), truncating. */
static void cat(char *buf, size_t n, size_t *len, const char *text) {
    if (*len >= n) return;
    int w = snprintf(buf + *len, n - *len, "%s", text);
    if (w > 0) *len += (size_t)w;
    if (*len >= n) *len = n - 1;
}

const char *cs_coll_algo_forms(char *buf, size_t n) {
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NALGOS; i++) {
        const cs_coll_algo *a = ALGOS[i];
        char one[64], form[160];
        one_name(a, one, sizeof one);
        if (i) cat(buf, n, &len, ", ");
        cat(buf, n, &len, a->name);
        if (a->flags & CS_ALGO_TEXT) { /* only as <name>:TEXT */
            cat(buf, n, &len, a->param ? a->param : ":TEXT");
            continue;
        }
        if (a->param) {
            snprintf(form, sizeof form, ", %s%s", a->name, a->param);
            cat(buf, n, &len, form);
            if (a->param_help) {
                snprintf(form, sizeof form, " (%s)", a->param_help);
                cat(buf, n, &len, form);
            }
        }
        if (a->flags & CS_ALGO_ONE) {
            snprintf(form, sizeof form, ", %s", one);
            cat(buf, n, &len, form);
            if (a->param) {
                snprintf(form, sizeof form, ", %s%s", one, a->param);
                cat(buf, n, &len, form);
            }
        }
    }
    return buf;
}

const char *cs_coll_algo_one_forms(char *buf, size_t n) {
    size_t len = 0, count = 0, total = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NALGOS; i++) total += (ALGOS[i]->flags & CS_ALGO_ONE) != 0;
    for (size_t i = 0; i < NALGOS; i++) {
        if (!(ALGOS[i]->flags & CS_ALGO_ONE)) continue;
        char one[64];
        if (count) cat(buf, n, &len, count + 1 == total ? " or " : ", ");
        cat(buf, n, &len, one_name(ALGOS[i], one, sizeof one));
        count++;
    }
    return buf;
}
