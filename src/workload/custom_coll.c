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

typedef struct cfile {
    uint64_t hash;
    unsigned char *bytes;
    size_t len;
    cs_graph *g; /* owned */
} cfile;

typedef struct centry {
    const char *prefix; /* borrowed from the configuration or the node map */
    uint32_t n, pos;    /* communicator size, position */
    const cs_graph *g;  /* into files[] */
} centry;

struct cs_custom_colls {
    const cs_system_config *cfg;
    const cs_custom_node_map *nodes;
    cfile *files;
    size_t nfiles, capfiles;
    centry *ents;
    size_t nents, capents;
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
    for (int k = 0; cfg && k < CS_CFG_NCOLL; k++) any |= cfg->custom_impl[k] != NULL;
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

static uint64_t fnv1a(const unsigned char *p, size_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* The whole file at path -> *bytes (owned by the caller), or an error naming the file. */
static int slurp(const char *path, unsigned char **bytes, size_t *len, cs_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f) return CS_ERR(err, CS_EIO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 4096, n = 0;
    unsigned char *b = cs_malloc(cap);
    for (;;) {
        if (n == cap) b = cs_realloc(b, cap *= 2);
        size_t r = fread(b + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        cs_free(b);
        return CS_ERR(err, CS_EIO, "%s: read error", path);
    }
    *bytes = b;
    *len = n;
    return CS_OK;
}

/* Every node may run in a custom graph of an n-member communicator. */
static int check_graph(const cs_graph *g, uint32_t n, const char *key, const char *cfgpath, cs_error *err) {
    for (uint32_t i = 0; i < g->nnodes; i++) {
        const cs_node *nd = &g->nodes[i];
        if (nd->type == CS_NODE_COMM_SEND) {
            if (!(nd->flags & CS_NF_HAS_DST))
                return CS_ERR(err, CS_EINVAL, "%s: node %" PRIu64 " (COMM_SEND): no comm_dst attribute; expected "
                              "the receiving position in the communicator (custom collective of %s, %s)",
                              g->source, nd->id, key, cfgpath);
            if (nd->comm_dst < 0 || (uint32_t)nd->comm_dst >= n)
                return CS_ERR(err, CS_EINVAL, "%s: node %" PRIu64 " (COMM_SEND): comm_dst %d is outside the "
                              "communicator of %u ranks; expected 0..%u (custom collective of %s, %s)",
                              g->source, nd->id, nd->comm_dst, n, n - 1, key, cfgpath);
        } else if (nd->type == CS_NODE_COMM_RECV) {
            if (!(nd->flags & CS_NF_HAS_SRC))
                return CS_ERR(err, CS_EINVAL, "%s: node %" PRIu64 " (COMM_RECV): no comm_src attribute; expected "
                              "the sending position in the communicator (custom collective of %s, %s)",
                              g->source, nd->id, key, cfgpath);
            if (nd->comm_src < 0 || (uint32_t)nd->comm_src >= n)
                return CS_ERR(err, CS_EINVAL, "%s: node %" PRIu64 " (COMM_RECV): comm_src %d is outside the "
                              "communicator of %u ranks; expected 0..%u (custom collective of %s, %s)",
                              g->source, nd->id, nd->comm_src, n, n - 1, key, cfgpath);
        } else if (nd->type != CS_NODE_COMP || (nd->flags & CS_NF_HOST_COMM)) {
            return CS_ERR(err, CS_EINVAL, "%s: node %" PRIu64 " (%s): a custom collective graph runs COMM_SEND, "
                          "COMM_RECV and COMP nodes only; expected one of those (custom collective of %s, %s)",
                          g->source, nd->id, (nd->flags & CS_NF_HOST_COMM) ? "host-side COMM" :
                          cs_node_type_label(nd->type), key, cfgpath);
        }
    }
    return CS_OK;
}

int cs_custom_coll_graph(cs_custom_colls *c, const char *prefix, const char *key, uint32_t nmembers, uint32_t pos,
                         const cs_graph **out, cs_error *err) {
    for (size_t i = 0; i < c->nents; i++)
        if (c->ents[i].n == nmembers && c->ents[i].pos == pos && strcmp(c->ents[i].prefix, prefix) == 0) {
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
            if (c->nodes && strcmp(key, "per-node-custom-implementation") == 0)
                snprintf(from, sizeof from, "%s: per-node-custom-implementation %s names \"%s\"", cfgpath,
                         c->nodes->path ? c->nodes->path : "", prefix);
            else
                snprintf(from, sizeof from, "%s: %s = [\"%s\"]", cfgpath, key, prefix);
            int rc = CS_ERR(err, CS_EIO, "%s: custom collective graph for position %" PRIu32 " of a %" PRIu32
                            "-rank communicator does not exist (%s); expected %s.0.et .. %s.%" PRIu32
                            ".et, relative to the working directory",
                            path, pos, nmembers, from, prefix, prefix, nmembers - 1);
            cs_free(path);
            return rc;
        }
    }
    unsigned char *bytes = NULL;
    size_t len = 0;
    int rc = slurp(path, &bytes, &len, err);
    cs_graph *g = NULL;
    if (rc == CS_OK) {
        uint64_t h = fnv1a(bytes, len);
        for (size_t i = 0; i < c->nfiles && !g; i++)
            if (c->files[i].hash == h && c->files[i].len == len && memcmp(c->files[i].bytes, bytes, len) == 0)
                g = c->files[i].g;
        if (g) {
            cs_free(bytes);
        } else {
            rc = cs_graph_load_mem(bytes, len, path, NULL, &g, err);
            if (rc) {
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
    rc = check_graph(g, nmembers, key, cfgpath, err);
    if (rc) return rc;
    CS_GROW(c->ents, c->capents, c->nents + 1);
    c->ents[c->nents++] = (centry){.prefix = prefix, .n = nmembers, .pos = pos, .g = g};
    *out = g;
    return CS_OK;
}
