/*
 * comm_group.c -- reader for the ASTRA-sim communicator-group JSON (see
 * comm_group.h).
 *
 * The keys are data (group ids), so there is no option table: each member of
 * the top-level object is checked in file order (id syntax, list of ranks,
 * distinct ranks), then the groups are sorted by id and duplicate ids
 * ("1" and "01") are rejected.
 */
#include "config/comm_group.h"

#include <stdlib.h>
#include <string.h>

#include "core/opts.h"
#include "core/alloc.h"

#define MAX_GROUP_ID 2147483647LL

typedef struct rank_pos {
    uint32_t rank;
    uint32_t idx;
} rank_pos;

static int cmp_rank_pos(const void *a, const void *b) {
    const rank_pos *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return x->idx < y->idx ? -1 : (x->idx > y->idx);
}

static int cmp_group(const void *a, const void *b) {
    const cs_comm_group *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

static int parse_group(const cs_jdoc *doc, const cs_jmember *m, const json_t *v,
                       cs_comm_group *g, cs_error *err) {
    char got[320];
    long long id;
    g->line = m->key_line;
    if (cs_comm_group_parse_id(m->key, MAX_GROUP_ID, &id) != 0) {
        char esc[256];
        cs_escape(m->key, 48, esc, sizeof esc);
        return CS_ERR(err, CS_EINVAL,
                      "%s:%d: group \"%s\": expected a group id of decimal digits (0 to "
                      "2147483647), got \"%s\"",
                      doc->path, m->key_line, esc, esc);
    }
    g->id = (uint32_t)id;
    g->name = cs_strdup(m->key); /* as written; made canonical after the duplicate check */
    if (!json_is_array(v) || json_array_size(v) == 0) {
        cs_json_repr(v, got, sizeof got);
        return CS_ERR(err, CS_EINVAL,
                      "%s:%d: group \"%s\": expected a non-empty list of distinct NPU ranks (integers >= "
                      "0), got %s",
                      doc->path, m->key_line, m->key, got);
    }
    size_t n = json_array_size(v);
    if (n > UINT32_MAX)
        return CS_ERR(err, CS_EINVAL, "%s:%d: group \"%s\": expected at most 2^32-1 ranks, got %zu",
                      doc->path, m->key_line, m->key, n);
    g->ranks = cs_malloc(n * sizeof *g->ranks);
    g->rank_lines = cs_malloc(n * sizeof *g->rank_lines);
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_array_get(v, i);
        int line = i < m->nelem ? m->elem_lines[i] : m->key_line;
        long long r;
        if (cs_json_ll(e, &r) != 0 || r < 0 || r > (long long)UINT32_MAX) {
            cs_json_repr(e, got, sizeof got);
            return CS_ERR(err, CS_EINVAL,
                          "%s:%d: group \"%s\": expected an NPU rank (an integer from 0 to 4294967295) at "
                          "position %zu of the group, got %s",
                          doc->path, line, m->key, i, got);
        }
        g->ranks[i] = (uint32_t)r;
        g->rank_lines[i] = line;
        g->nranks = (uint32_t)(i + 1);
    }
    rank_pos *rp = cs_malloc(n * sizeof *rp);
    for (size_t i = 0; i < n; i++) {
        rp[i].rank = g->ranks[i];
        rp[i].idx = (uint32_t)i;
    }
    qsort(rp, n, sizeof *rp, cmp_rank_pos);
    int rc = CS_OK;
    for (size_t i = 1; i < n; i++) {
        if (rp[i].rank == rp[i - 1].rank) {
            rc = CS_ERR(err, CS_EINVAL,
                        "%s:%d: group \"%s\": expected distinct ranks in a group, got rank %u again "
                        "(first at line %d)",
                        doc->path, g->rank_lines[rp[i].idx], m->key, rp[i].rank,
                        g->rank_lines[rp[i - 1].idx]);
            break;
        }
    }
    cs_free(rp);
    return rc;
}

int cs_comm_groups_load(const char *path, cs_comm_groups *out, cs_error *err) {
    return cs_comm_groups_load_text(path, NULL, 0, out, err);
}

int cs_comm_groups_load_text(const char *path, const char *text, size_t len, cs_comm_groups *out, cs_error *err) {
    memset(out, 0, sizeof *out);
    if (!text && strcmp(path, "empty") == 0) return CS_OK;
    cs_jdoc doc;
    int rc = text ? cs_jdoc_load_text(path, text, len, "communicator group configuration", &doc, err)
                  : cs_jdoc_load(path, "communicator group configuration", &doc, err);
    if (rc) return rc;
    out->path = cs_strdup(path);
    if (doc.nm != json_object_size(doc.root)) {
        rc = CS_ERR(err, CS_EINTERNAL, "%s: line index has %zu keys, jansson %zu", path, doc.nm,
                    json_object_size(doc.root));
        goto out;
    }
    out->groups = cs_calloc(doc.nm ? doc.nm : 1, sizeof *out->groups);
    for (size_t i = 0; i < doc.nm; i++) {
        const cs_jmember *m = &doc.m[i];
        out->ngroups = i + 1;
        rc = parse_group(&doc, m, json_object_get(doc.root, m->key), &out->groups[i], err);
        if (rc) goto out;
    }
    qsort(out->groups, out->ngroups, sizeof *out->groups, cmp_group);
    for (size_t i = 1; i < out->ngroups; i++) {
        const cs_comm_group *a = &out->groups[i - 1], *b = &out->groups[i];
        if (a->id == b->id) {
            /* the keys differ in spelling only ("1" vs "01") */
            rc = CS_ERR(err, CS_EINVAL,
                        "%s:%d: group \"%s\": expected each group id once, got group %u again (first at "
                        "line %d as \"%s\")",
                        path, b->line, b->name, b->id, a->line, a->name);
            goto out;
        }
    }
    for (size_t i = 0; i < out->ngroups; i++) {
        cs_comm_group *cg = &out->groups[i];
        char name[16];
        snprintf(name, sizeof name, "%u", cg->id);
        cs_free(cg->name);
        cg->name = cs_strdup(name);
    }
out:
    cs_jdoc_free(&doc);
    if (rc) cs_comm_groups_free(out);
    return rc;
}

json_t *cs_comm_groups_to_json(const cs_comm_groups *g) {
    json_t *o = json_object();
    for (size_t i = 0; i < g->ngroups; i++) {
        json_t *a = json_array();
        for (uint32_t k = 0; k < g->groups[i].nranks; k++) json_array_append_new(a, json_integer(g->groups[i].ranks[k]));
        json_object_set_new(o, g->groups[i].name, a);
    }
    return o;
}
