/*
 * custom_coll.c -- find, load, check and share the graphs of custom
 * collective implementations (see custom_coll.h; docs/collectives.md,
 * "Custom collectives").
 *
 * A table of the files read (bytes kept to recognise identical files, one
 * graph each) and of the (collective, communicator size, position) triples
 * looked up so far, each pointing at its checked graph.
 */
#include "workload/custom_coll.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/alloc.h"
#include "system/coll_type.h"
#include "workload/et.h"
#include "workload/workload.h"

typedef struct cfile {
    uint64_t hash;
    unsigned char *bytes;
    size_t len;
    cs_graph *g; /* owned */
} cfile;

typedef struct centry {
    const char *prefix; /* borrowed from the configuration or the node map */
    uint32_t n, pos;    /* communicator size, position */
    int dim;            /* looked up for a custom:PREFIX entry (custom_dim.h) */
    const cs_graph *g;  /* into files[] */
} centry;

/* A converted graph set of a custom:PREFIX entry (custom_dim.h). */
typedef struct dset {
    char *prefix;           /* owned copy */
    cs_cdim_set set;        /* set.g = graphs (owned) */
    cs_cdim_graph *graphs;  /* n, each with its nodes and children (owned) */
} dset;

struct cs_custom_colls {
    const cs_system_config *cfg;
    const cs_custom_node_map *nodes;
    cfile *files;
    size_t nfiles, capfiles;
    centry *ents;
    size_t nents, capents;
    dset *sets;
    size_t nsets, capsets;
};

static int cfg_index(int32_t ct) {
    switch (ct) {
    case CS_COLL_ALL_REDUCE: return CS_CFG_ALL_REDUCE;
    case CS_COLL_ALL_GATHER: return CS_CFG_ALL_GATHER;
    case CS_COLL_REDUCE_SCATTER: return CS_CFG_REDUCE_SCATTER;
    case CS_COLL_ALL_TO_ALL: return CS_CFG_ALL_TO_ALL;
    default: return -1;
    }
}

void cs_custom_node_map_free(cs_custom_node_map *m) {
    if (!m) return;
    for (size_t i = 0; i < m->n; i++) cs_free(m->prefix[i]);
    cs_free(m->prefix);
    cs_free(m->ids);
    cs_free(m->line);
    cs_free(m->path);
    memset(m, 0, sizeof *m);
}

const char *cs_custom_node_map_find(const cs_custom_node_map *m, uint64_t id) {
    if (!m) return NULL;
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->ids[mid] < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < m->n && m->ids[lo] == id ? m->prefix[lo] : NULL;
}

cs_custom_colls *cs_custom_colls_new(const cs_system_config *cfg, const cs_custom_node_map *nodes) {
    int any = nodes && nodes->n;
    for (int k = 0; cfg && k < CS_CFG_NCOLL; k++) {
        any |= cfg->custom_impl[k] != NULL;
        for (int d = 0; d < cfg->impl[k].n; d++) any |= cfg->impl[k].algo[d].text[0] != '\0';
    }
    if (!any) return NULL;
    cs_custom_colls *c = cs_calloc(1, sizeof *c);
    c->cfg = cfg;
    c->nodes = nodes;
    return c;
}

void cs_custom_colls_free(cs_custom_colls *c) {
    if (!c) return;
    for (size_t i = 0; i < c->nfiles; i++) {
        cs_free(c->files[i].bytes);
        cs_graph_free(c->files[i].g);
    }
    cs_free(c->files);
    cs_free(c->ents);
    for (size_t i = 0; i < c->nsets; i++) {
        for (uint32_t p = 0; p < c->sets[i].set.n; p++) {
            cs_free(c->sets[i].graphs[p].nodes);
            cs_free(c->sets[i].graphs[p].children);
        }
        cs_free(c->sets[i].graphs);
        cs_free(c->sets[i].prefix);
    }
    cs_free(c->sets);
    cs_free(c);
}

const char *cs_custom_coll_prefix(const cs_custom_colls *c, int32_t comm_type, uint64_t node_id, const char **key) {
    int k = cfg_index(comm_type);
    if (!c || k < 0) return NULL;
    const char *p = cs_custom_node_map_find(c->nodes, node_id);
    if (p) { /* ASTRA-sim: the per-node map comes first */
        if (key) *key = "per-node-custom-implementation";
        return p;
    }
    if (!c->cfg || !c->cfg->custom_impl[k]) return NULL;
    static const char *const keys[CS_CFG_NCOLL] = {
        "all-reduce-implementation-custom", "all-gather-implementation-custom",
        "reduce-scatter-implementation-custom", "all-to-all-implementation-custom"};
    if (key) *key = keys[k];
    return c->cfg->custom_impl[k];
}

/* Every node may run in a custom graph of an n-member communicator. */
static int check_graph(const cs_graph *g, uint32_t n, const char *key, const char *cfgpath, const char *noun,
                       cs_error *err) {
    for (uint32_t i = 0; i < g->nnodes; i++) {
        const cs_node *nd = &g->nodes[i];
        if (nd->type == CS_NODE_COMM_SEND) {
            if (!(nd->flags & CS_NF_HAS_DST))
                return CS_ERR(err, CS_EINVAL, "%s: node %" PRIu64 " (COMM_SEND): no comm_dst attribute; expected "
                              "the receiving position in the %s (custom collective of %s, %s)",
                              g->source, nd->id, noun, key, cfgpath);
            if (nd->comm_dst < 0 || (uint32_t)nd->comm_dst >= n)
                return CS_ERR(err, CS_EINVAL, "%s: node %" PRIu64 " (COMM_SEND): comm_dst %d is outside the "
                              "%s of %u ranks; expected 0..%u (custom collective of %s, %s)",
                              g->source, nd->id, nd->comm_dst, noun, n, n - 1, key, cfgpath);
        } else if (nd->type == CS_NODE_COMM_RECV) {
            if (!(nd->flags & CS_NF_HAS_SRC))
                return CS_ERR(err, CS_EINVAL, "%s: node %" PRIu64 " (COMM_RECV): no comm_src attribute; expected "
                              "the sending position in the %s (custom collective of %s, %s)",
                              g->source, nd->id, noun, key, cfgpath);
            if (nd->comm_src < 0 || (uint32_t)nd->comm_src >= n)
                return CS_ERR(err, CS_EINVAL, "%s: node %" PRIu64 " (COMM_RECV): comm_src %d is outside the "
                              "%s of %u ranks; expected 0..%u (custom collective of %s, %s)",
                              g->source, nd->id, nd->comm_src, noun, n, n - 1, key, cfgpath);
        } else if (nd->type != CS_NODE_COMP || (nd->flags & CS_NF_HOST_COMM)) {
            return CS_ERR(err, CS_EINVAL, "%s: node %" PRIu64 " (%s): a custom collective graph runs COMM_SEND, "
                          "COMM_RECV and COMP nodes only; expected one of those (custom collective of %s, %s)",
                          g->source, nd->id, (nd->flags & CS_NF_HOST_COMM) ? "host-side COMM" :
                          cs_node_type_label(nd->type), key, cfgpath);
        }
    }
    return CS_OK;
}

/* The graph of position pos of prefix's set for an nmembers group.  dim:
 * the set is one dimension's (custom:PREFIX), named by key as "what" says
 * (the system file, the list's key and entry), else a communicator's. */
static int graph_at(cs_custom_colls *c, const char *prefix, const char *key, int dim, uint32_t nmembers, uint32_t pos,
                    const cs_graph **out, cs_error *err) {
    for (size_t i = 0; i < c->nents; i++)
        if (c->ents[i].n == nmembers && c->ents[i].pos == pos && c->ents[i].dim == dim &&
            strcmp(c->ents[i].prefix, prefix) == 0) {
            *out = c->ents[i].g;
            return CS_OK;
        }
    const char *cfgpath = c->cfg && c->cfg->path ? c->cfg->path : "the system configuration";
    size_t plen = strlen(prefix) + 40;
    char *path = cs_malloc(plen);
    snprintf(path, plen, "%s.%" PRIu32 ".et", prefix, pos);
    struct stat st;
    if (stat(path, &st) != 0) { /* PREFIX.<p>.et.gz as the workload reader accepts it */
        snprintf(path, plen, "%s.%" PRIu32 ".et.gz", prefix, pos);
        if (stat(path, &st) != 0) {
            snprintf(path, plen, "%s.%" PRIu32 ".et", prefix, pos);
            char from[512];
            if (dim)
                snprintf(from, sizeof from, "%s", key);
            else if (c->nodes && strcmp(key, "per-node-custom-implementation") == 0)
                snprintf(from, sizeof from, "%s: per-node-custom-implementation %s names \"%s\"", cfgpath,
                         c->nodes->path ? c->nodes->path : "", prefix);
            else
                snprintf(from, sizeof from, "%s: %s = [\"%s\"]", cfgpath, key, prefix);
            int rc = CS_ERR(err, CS_EIO, "%s: custom collective graph for position %" PRIu32 " of a %" PRIu32
                            "-rank %s does not exist (%s); expected %s.0.et .. %s.%" PRIu32
                            ".et, relative to the working directory",
                            path, pos, nmembers, dim ? "dimension" : "communicator", from, prefix, prefix,
                            nmembers - 1);
            cs_free(path);
            return rc;
        }
    }
    unsigned char *bytes = NULL;
    size_t len = 0;
    int rc = cs_workload_read_trace(path, &bytes, &len, err);
    cs_graph *g = NULL;
    if (rc == CS_OK) {
        uint64_t h = cs_workload_hash(bytes, len);
        for (size_t i = 0; i < c->nfiles && !g; i++)
            if (c->files[i].hash == h && c->files[i].len == len && memcmp(c->files[i].bytes, bytes, len) == 0)
                g = c->files[i].g;
        if (g) {
            cs_free(bytes);
        } else {
            rc = cs_graph_load_mem(bytes, len, path, NULL, &g, err);
            if (rc) {
                if (dim)
                    cs_error_prefix(err, "%s: ", key);
                else
                    cs_error_prefix(err, "%s: %s: ", cfgpath, key);
                cs_free(bytes);
            } else {
                CS_GROW(c->files, c->capfiles, c->nfiles + 1);
                c->files[c->nfiles++] = (cfile){.hash = h, .bytes = bytes, .len = len, .g = g};
            }
        }
    }
    cs_free(path);
    if (rc) return rc;
    rc = check_graph(g, nmembers, key, dim ? "one dimension's phases" : cfgpath,
                     dim ? "dimension" : "communicator", err);
    if (rc) return rc;
    CS_GROW(c->ents, c->capents, c->nents + 1);
    c->ents[c->nents++] = (centry){.prefix = prefix, .n = nmembers, .pos = pos, .dim = dim, .g = g};
    *out = g;
    return CS_OK;
}

int cs_custom_coll_graph(cs_custom_colls *c, const char *prefix, const char *key, uint32_t nmembers, uint32_t pos,
                         const cs_graph **out, cs_error *err) {
    return graph_at(c, prefix, key, 0, nmembers, pos, out, err);
}

/* ---- per-dimension sets (custom:PREFIX, system/custom_dim.h) ----------------------------- */

/* The phase_bytes attribute of the file's GlobalMetadata -> *out (0 = absent). */
static int declared_bytes(const cs_custom_colls *c, const cs_graph *g, const char *what, uint64_t *out,
                          cs_error *err) {
    *out = 0;
    const cfile *f = NULL;
    for (size_t i = 0; i < c->nfiles && !f; i++)
        if (c->files[i].g == g) f = &c->files[i];
    if (!f) return CS_OK;
    cs_et_reader *r = NULL;
    int rc = cs_et_reader_open_mem(f->bytes, f->len, g->source, &r, err);
    if (rc) return rc;
    const ChakraProtoMsg__GlobalMetadata *md = cs_et_reader_metadata(r);
    for (size_t i = 0; md && i < md->n_attr && !*out; i++) {
        const ChakraProtoMsg__AttributeProto *a = md->attr[i];
        if (!a->name || strcmp(a->name, "phase_bytes") != 0) continue;
        int64_t v = -1;
        switch (a->value_case) {
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL: v = a->int64_val; break;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL: v = a->int32_val; break;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL: v = a->uint32_val; break;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL:
            v = a->uint64_val > INT64_MAX ? -1 : (int64_t)a->uint64_val;
            break;
        default: break;
        }
        if (v <= 0) {
            cs_et_reader_close(r);
            return CS_ERR(err, CS_EINVAL, "%s: metadata attribute phase_bytes: expected a positive integer (the "
                          "phase size in bytes the graph's comm_size values are written for) (%s)",
                          g->source, what);
        }
        *out = (uint64_t)v;
    }
    cs_et_reader_close(r);
    return CS_OK;
}

/* Convert position p's checked graph into the system layer's form. */
static void convert(const cs_graph *g, cs_cdim_graph *out) {
    cs_cdim_node *nodes = cs_calloc(g->nnodes ? g->nnodes : 1, sizeof *nodes);
    uint32_t *children = cs_malloc((g->nchildren ? g->nchildren : 1) * sizeof *children);
    memcpy(children, g->children, (size_t)g->nchildren * sizeof *children);
    for (uint32_t i = 0; i < g->nnodes; i++) {
        const cs_node *nd = &g->nodes[i];
        cs_cdim_node *o = &nodes[i];
        uint32_t end = i + 1 < g->nnodes ? g->nodes[i + 1].child_begin : g->nchildren;
        o->id = nd->id;
        o->nparents = nd->nparents;
        o->child_begin = nd->child_begin;
        o->nchildren = end - nd->child_begin;
        if (nd->type == CS_NODE_COMM_SEND) {
            o->kind = CS_CDIM_SEND;
            o->peer = (uint32_t)nd->comm_dst;
            o->bytes = nd->comm_size;
        } else if (nd->type == CS_NODE_COMM_RECV) {
            o->kind = CS_CDIM_RECV;
            o->peer = (uint32_t)nd->comm_src;
            o->bytes = nd->comm_size;
        } else {
            o->kind = CS_CDIM_COMP;
            /* as the executor times a custom graph's COMP: duration_micros, 1 ns when 0 */
            o->dur_ns = nd->duration_us ? (nd->duration_us > UINT64_MAX / 1000 ? UINT64_MAX : nd->duration_us * 1000)
                                        : 1;
        }
    }
    out->source = g->source;
    out->nnodes = g->nnodes;
    out->nodes = nodes;
    out->children = children;
}

/* Match every send with its receive: the j-th send from p to q with tag t
 * (node order) is the j-th receive of q from p with tag t. */
static int match_all(const cs_graph *const *gs, cs_cdim_graph *cg, uint32_t n, const char *what, cs_error *err) {
    for (uint32_t p = 0; p < n; p++) {
        for (uint32_t i = 0; i < gs[p]->nnodes; i++) {
            const cs_node *snd = &gs[p]->nodes[i];
            if (snd->type != CS_NODE_COMM_SEND) continue;
            uint32_t q = (uint32_t)snd->comm_dst, j = 0;
            for (uint32_t x = 0; x < i; x++) {
                const cs_node *o = &gs[p]->nodes[x];
                j += o->type == CS_NODE_COMM_SEND && o->comm_dst == snd->comm_dst && o->comm_tag == snd->comm_tag;
            }
            uint32_t found = UINT32_MAX;
            for (uint32_t y = 0, seen = 0; y < gs[q]->nnodes && found == UINT32_MAX; y++) {
                const cs_node *rv = &gs[q]->nodes[y];
                if (rv->type == CS_NODE_COMM_RECV && rv->comm_src == (int32_t)p && rv->comm_tag == snd->comm_tag &&
                    seen++ == j)
                    found = y;
            }
            if (found == UINT32_MAX)
                return CS_ERR(err, CS_EINVAL, "%s: node %" PRIu64 " (COMM_SEND of %" PRIu64 " bytes to position %u, "
                              "tag %d): %s has no matching COMM_RECV; expected its send number %u to position %u "
                              "with that tag to be received there (%s)",
                              gs[p]->source, snd->id, snd->comm_size, q, snd->comm_tag, gs[q]->source, j + 1, q,
                              what);
            const cs_node *rv = &gs[q]->nodes[found];
            if (rv->comm_size != snd->comm_size)
                return CS_ERR(err, CS_EINVAL, "%s: node %" PRIu64 " sends %" PRIu64 " bytes but %s: node %" PRIu64
                              " receives %" PRIu64 "; expected the same size (%s)", gs[p]->source, snd->id,
                              snd->comm_size, gs[q]->source, rv->id, rv->comm_size, what);
            cg[p].nodes[i].match = found;
        }
    }
    /* and every receive has its send (the counts per (source, tag) must agree) */
    for (uint32_t q = 0; q < n; q++)
        for (uint32_t y = 0; y < gs[q]->nnodes; y++) {
            const cs_node *rv = &gs[q]->nodes[y];
            if (rv->type != CS_NODE_COMM_RECV) continue;
            uint32_t p = (uint32_t)rv->comm_src, j = 0, sends = 0;
            for (uint32_t x = 0; x < y; x++) {
                const cs_node *o = &gs[q]->nodes[x];
                j += o->type == CS_NODE_COMM_RECV && o->comm_src == rv->comm_src && o->comm_tag == rv->comm_tag;
            }
            for (uint32_t x = 0; x < gs[p]->nnodes; x++) {
                const cs_node *o = &gs[p]->nodes[x];
                sends += o->type == CS_NODE_COMM_SEND && o->comm_dst == (int32_t)q && o->comm_tag == rv->comm_tag;
            }
            if (j >= sends)
                return CS_ERR(err, CS_EINVAL, "%s: node %" PRIu64 " (COMM_RECV of %" PRIu64 " bytes from position %u, "
                              "tag %d): %s sends only %u such messages; expected a COMM_SEND for receive number %u "
                              "(%s)", gs[q]->source, rv->id, rv->comm_size, p, rv->comm_tag, gs[p]->source, sends,
                              j + 1, what);
        }
    return CS_OK;
}

int cs_custom_colls_dim_set(cs_custom_colls *c, const char *prefix, const char *what, uint32_t n,
                            const cs_cdim_set **out, cs_error *err) {
    for (size_t i = 0; i < c->nsets; i++)
        if (c->sets[i].set.n == n && strcmp(c->sets[i].prefix, prefix) == 0) {
            *out = &c->sets[i].set;
            return CS_OK;
        }
    const cs_graph **gs = cs_calloc(n, sizeof *gs);
    uint64_t ref = 0;
    int rc = CS_OK;
    for (uint32_t p = 0; p < n && rc == CS_OK; p++) {
        rc = graph_at(c, prefix, what, 1, n, p, &gs[p], err);
        uint64_t b = 0;
        if (rc == CS_OK) rc = declared_bytes(c, gs[p], what, &b, err);
        if (rc == CS_OK && b == 0)
            rc = CS_ERR(err, CS_EINVAL, "%s: no metadata attribute phase_bytes; expected the phase size in bytes "
                        "that the graph's comm_size values are written for (a phase of B bytes scales them by "
                        "B / phase_bytes) (%s)", gs[p]->source, what);
        if (rc == CS_OK && p > 0 && b != ref)
            rc = CS_ERR(err, CS_EINVAL, "%s: metadata phase_bytes %" PRIu64 " differs from %s's %" PRIu64
                        "; expected one phase size for the whole set (%s)", gs[p]->source, b, gs[0]->source, ref,
                        what);
        ref = b;
    }
    if (rc == CS_OK) { /* the set has exactly n positions */
        size_t plen = strlen(prefix) + 40;
        char *path = cs_malloc(plen);
        struct stat st;
        snprintf(path, plen, "%s.%" PRIu32 ".et", prefix, n);
        int more = stat(path, &st) == 0;
        if (!more) {
            snprintf(path, plen, "%s.%" PRIu32 ".et.gz", prefix, n);
            more = stat(path, &st) == 0;
        }
        if (more)
            rc = CS_ERR(err, CS_EINVAL, "%s exists: the custom graph set %s has more positions than the "
                        "dimension's %" PRIu32 " NPUs (%s); expected %s.0.et .. %s.%" PRIu32 ".et and no more",
                        path, prefix, n, what, prefix, prefix, n - 1);
        cs_free(path);
    }
    if (rc) {
        cs_free(gs);
        return rc;
    }
    cs_cdim_graph *cg = cs_calloc(n, sizeof *cg);
    for (uint32_t p = 0; p < n; p++) convert(gs[p], &cg[p]);
    rc = match_all(gs, cg, n, what, err);
    cs_free(gs);
    if (rc) {
        for (uint32_t p = 0; p < n; p++) {
            cs_free(cg[p].nodes);
            cs_free(cg[p].children);
        }
        cs_free(cg);
        return rc;
    }
    CS_GROW(c->sets, c->capsets, c->nsets + 1);
    dset *d = &c->sets[c->nsets++];
    size_t plen = strlen(prefix) + 1;
    d->prefix = cs_malloc(plen);
    memcpy(d->prefix, prefix, plen);
    d->graphs = cg;
    d->set = (cs_cdim_set){.prefix = d->prefix, .n = n, .ref_bytes = ref, .g = cg};
    *out = &d->set;
    return CS_OK;
}
