/*
 * graph.c -- build a cs_graph from a Chakra ET stream (see graph.h).
 *
 * Steps: read every node (decoding the attributes we simulate), sort by id,
 * resolve parent ids to indices (a missing data parent is an error, a missing
 * control parent a warning), merge and de-duplicate parents, build the CSR
 * child lists, and check the graph is acyclic (Kahn); a cycle is reported with
 * the ids along it.
 *
 * Two shapes of PyTorch-derived traces (Chakra's feeder test trace has both)
 * are accepted as ASTRA-sim runs them:
 *  - a control dependency of a node on itself, or one that lies on a
 *    dependency cycle (found as a strongly connected component of the
 *    data + control graph; e.g. a CPU op whose control dependency names the
 *    GPU kernel that data-depends on it), can never be satisfied: it is
 *    ignored with a warning and a count.  A cycle of data dependencies stays
 *    an error naming the nodes along it;
 *  - a communication node (COMM_SEND/RECV/COLL) with is_cpu_op = true is the
 *    host-side record of a collective (c10d::allreduce_ ...): ASTRA-sim's
 *    Workload::issue runs every is_cpu_op node as compute, so it becomes a
 *    CPU COMP node replayed from duration_micros (CS_NF_HOST_COMM records
 *    what it was), with a warning and a count.
 *
 * A replayed duration_micros (COMP nodes, broadcasts) must fit the
 * simulated-time range: a negative number written into the unsigned field,
 * or a duration beyond 2^64 ps, is an error naming file, node and attribute.
 */
#include "workload/graph.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/time.h"
#include "system/coll_type.h"
#include "workload/et.h"

typedef struct raw_node {
    cs_node n;
    const uint64_t *deps; /* parent ids: data first, then ctrl (in builder.deps; set by finish) */
    size_t dep_off;       /* where they start in builder.deps */
    uint32_t ndata, nctrl;
} raw_node;

typedef struct builder {
    const char *name; /* file name for messages */
    const cs_graph_options *opt;
    raw_node *raw;
    size_t nraw, capraw;
    char *strings;
    size_t slen, scap;
    char **pgs;
    size_t npg, cappg;
    uint64_t *deps;   /* every node's parent ids, one after the other (raw_node.dep_off) */
    size_t ndeps, capdeps;
} builder;

static uint32_t add_string(builder *b, const char *s) {
    size_t n = strlen(s) + 1;
    CS_GROW(b->strings, b->scap, b->slen + n);
    memcpy(b->strings + b->slen, s, n);
    uint32_t off = (uint32_t)b->slen;
    b->slen += n;
    return off;
}

static uint32_t add_pg(builder *b, const char *pg) {
    for (size_t i = 0; i < b->npg; i++)
        if (strcmp(b->pgs[i], pg) == 0) return (uint32_t)i;
    CS_GROW(b->pgs, b->cappg, b->npg + 1);
    b->pgs[b->npg] = cs_strdup(pg);
    return (uint32_t)b->npg++;
}

/* The attributes decode_node reads, found in one pass over a node (the first
 * of each name wins, cs_et_attr_find's rule). */
enum { K_CPU, K_COMM_TYPE, K_NUM_OPS, K_TENSOR, K_COMM_SIZE, K_SRC, K_DST, K_TAG, K_PRIO, K_PG, K_INVOLVED, K_N };
typedef const ChakraProtoMsg__AttributeProto *attr_p;

static int attr_slot(const char *a) {
    switch (a[0]) {
    case 'i': return strcmp(a, "is_cpu_op") == 0 ? K_CPU : strcmp(a, "involved_dim") == 0 ? K_INVOLVED : -1;
    case 'n': return strcmp(a, "num_ops") == 0 ? K_NUM_OPS : -1;
    case 't': return strcmp(a, "tensor_size") == 0 ? K_TENSOR : -1;
    case 'p': return strcmp(a, "pg_name") == 0 ? K_PG : -1;
    case 'c':
        if (strncmp(a, "comm_", 5) != 0) return -1;
        a += 5;
        switch (a[0]) {
        case 't': return strcmp(a, "type") == 0 ? K_COMM_TYPE : strcmp(a, "tag") == 0 ? K_TAG : -1;
        case 's': return strcmp(a, "size") == 0 ? K_COMM_SIZE : strcmp(a, "src") == 0 ? K_SRC : -1;
        case 'd': return strcmp(a, "dst") == 0 ? K_DST : -1;
        case 'p': return strcmp(a, "priority") == 0 ? K_PRIO : -1;
        default: return -1;
        }
    default: return -1;
    }
}

static void find_attrs(const ChakraProtoMsg__Node *pn, attr_p at[K_N]) {
    for (int k = 0; k < K_N; k++) at[k] = NULL;
    for (size_t i = 0; i < pn->n_attr; i++) {
        attr_p a = pn->attr[i];
        if (!a || !a->name) continue;
        int k = attr_slot(a->name);
        if (k >= 0 && !at[k]) at[k] = a;
    }
}

/* An error of an attribute accessor (which names the node and the attribute),
 * prefixed with the file. */
static int attr_err(const builder *b, int rc, cs_error *err) {
    cs_error_prefix(err, "%s: ", b->name);
    return rc;
}

/* Read an integer attribute into *out (if present); sets flag bit. */
static int get_u64(builder *b, const ChakraProtoMsg__Node *pn, attr_p a, uint64_t *out, uint32_t *flags,
                   uint32_t flag, cs_error *err) {
    int rc = cs_et_attr_uint(pn, a, out, err);
    if (rc < 0) return attr_err(b, rc, err);
    if (rc == 1 && flags) *flags |= flag;
    return CS_OK;
}

static int get_i32(builder *b, const ChakraProtoMsg__Node *pn, attr_p a, int32_t *out, uint32_t *flags,
                   uint32_t flag, cs_error *err) {
    int64_t v = 0;
    int rc = cs_et_attr_int(pn, a, &v, err);
    if (rc < 0) return attr_err(b, rc, err);
    if (rc == 1) {
        if (v < INT32_MIN || v > INT32_MAX)
            return CS_ERR(err, CS_EFORMAT,
                          "%s: node %" PRIu64 ": attribute %s: expected a 32-bit integer, got %" PRId64,
                          b->name, (uint64_t)pn->id, a->name, v);
        *out = (int32_t)v;
        if (flags) *flags |= flag;
    }
    return CS_OK;
}

/* duration_micros of a node whose duration is replayed (COMP nodes, host-side
 * communication records, broadcasts): unsigned in the schema, so a negative
 * number written into it reads as 2^64 - |v|; either way it must fit the
 * simulated-time range (cs_compute_replay_time). */
static int check_duration(const builder *b, const ChakraProtoMsg__Node *pn, const cs_node *n, cs_error *err) {
    int replayed = n->type == CS_NODE_COMP ||
                   (n->type == CS_NODE_COMM_COLL && (n->flags & CS_NF_HAS_COMM_TYPE) && n->comm_type == CS_COLL_BROADCAST);
    uint64_t us = pn->duration_micros;
    if (!replayed || us <= CS_TIME_MAX_US) return CS_OK;
    const char *type = n->type == CS_NODE_COMP ? "COMP" : "COMM_COLL";
    if (us > (uint64_t)INT64_MAX)
        return CS_ERR(err, CS_EINVAL,
                      "%s: node %" PRIu64 " (%s): attribute duration_micros: expected 0 to %llu us, got %" PRId64
                      " (a negative duration)",
                      b->name, (uint64_t)pn->id, type, CS_TIME_MAX_US, (int64_t)us);
    return CS_ERR(err, CS_EINVAL,
                  "%s: node %" PRIu64 " (%s): attribute duration_micros: %" PRIu64 " us exceeds " CS_TIME_RANGE_TEXT
                  "; expected 0 to %llu us",
                  b->name, (uint64_t)pn->id, type, us, CS_TIME_MAX_US);
}

static int decode_node(builder *b, const ChakraProtoMsg__Node *pn, cs_error *err) {
    CS_GROW(b->raw, b->capraw, b->nraw + 1);
    raw_node *r = &b->raw[b->nraw];
    memset(r, 0, sizeof *r);
    cs_node *n = &r->n;
    n->id = pn->id;
    n->type = (int32_t)pn->type;
    n->duration_us = pn->duration_micros;
    n->involved_dim = UINT32_MAX;
    n->name = add_string(b, pn->name ? pn->name : "");

    attr_p at[K_N];
    find_attrs(pn, at);
    int cpu = 0;
    int rc = cs_et_attr_bool(pn, at[K_CPU], &cpu, err);
    if (rc < 0) return attr_err(b, rc, err);
    if (cpu) n->flags |= CS_NF_CPU;
    if (cpu && (n->type == CS_NODE_COMM_SEND || n->type == CS_NODE_COMM_RECV || n->type == CS_NODE_COMM_COLL)) {
        n->flags |= CS_NF_HOST_COMM;
        n->type = CS_NODE_COMP;
    }
    int64_t ct = 0;
    rc = cs_et_attr_int(pn, at[K_COMM_TYPE], &ct, err);
    if (rc < 0) return attr_err(b, rc, err);
    if (rc == 1) {
        n->flags |= CS_NF_HAS_COMM_TYPE;
        n->comm_type = (ct < 0 || ct > INT32_MAX) ? -1 : (int32_t)ct;
    }
    if ((rc = get_u64(b, pn, at[K_NUM_OPS], &n->num_ops, &n->flags, CS_NF_HAS_NUM_OPS, err)) ||
        (rc = get_u64(b, pn, at[K_TENSOR], &n->tensor_size, &n->flags, CS_NF_HAS_TENSOR, err)) ||
        (rc = get_u64(b, pn, at[K_COMM_SIZE], &n->comm_size, &n->flags, CS_NF_HAS_COMM_SIZE, err)) ||
        (rc = get_i32(b, pn, at[K_SRC], &n->comm_src, &n->flags, CS_NF_HAS_SRC, err)) ||
        (rc = get_i32(b, pn, at[K_DST], &n->comm_dst, &n->flags, CS_NF_HAS_DST, err)) ||
        (rc = get_i32(b, pn, at[K_TAG], &n->comm_tag, NULL, 0, err)) ||
        (rc = get_i32(b, pn, at[K_PRIO], &n->comm_priority, NULL, 0, err)) ||
        (rc = check_duration(b, pn, n, err)))
        return rc;

    const char *pg = NULL;
    rc = cs_et_attr_string(pn, at[K_PG], &pg, err);
    if (rc < 0) return attr_err(b, rc, err);
    n->pg = (rc == 1 && pg) ? add_pg(b, pg) : 0;

    const protobuf_c_boolean *inv = NULL;
    size_t ninv = 0;
    rc = cs_et_attr_bool_list(pn, at[K_INVOLVED], &inv, &ninv, err);
    if (rc < 0) return attr_err(b, rc, err);
    if (rc == 1) {
        n->flags |= CS_NF_HAS_INVOLVED;
        n->involved_dim = 0;
        for (size_t i = 0; i < ninv && i < 32; i++)
            if (inv[i]) n->involved_dim |= 1u << i;
        /* dimensions beyond the list are not involved */
    }

    size_t nd = pn->n_data_deps, nc = b->opt && b->opt->ignore_ctrl_deps ? 0 : pn->n_ctrl_deps;
    if (nd + nc > UINT32_MAX)
        return CS_ERR(err, CS_EFORMAT, "%s: node %" PRIu64 ": too many dependencies", b->name,
                      (uint64_t)pn->id);
    r->ndata = (uint32_t)nd;
    r->nctrl = (uint32_t)nc;
    r->dep_off = b->ndeps;
    if (nd + nc) { /* into the builder's one array (no allocation per node) */
        CS_GROW(b->deps, b->capdeps, b->ndeps + nd + nc);
        if (nd) memcpy(b->deps + b->ndeps, pn->data_deps, nd * sizeof *b->deps);
        if (nc) memcpy(b->deps + b->ndeps + nd, pn->ctrl_deps, nc * sizeof *b->deps);
        b->ndeps += nd + nc;
    }
    b->nraw++;
    return CS_OK;
}

static int cmp_raw(const void *a, const void *b) {
    uint64_t x = ((const raw_node *)a)->n.id, y = ((const raw_node *)b)->n.id;
    return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static uint32_t find_raw(const raw_node *raw, size_t n, uint64_t id) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (raw[mid].n.id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < n && raw[lo].n.id == id) ? (uint32_t)lo : UINT32_MAX;
}

/* Find and report one cycle among nodes not consumed by Kahn's algorithm. */
static int report_cycle(const cs_graph *g, const uint32_t *indeg, const char *name, cs_error *err) {
    uint32_t n = g->nnodes;
    uint8_t *color = cs_calloc(n, 1); /* 0 white, 1 on stack, 2 done */
    uint32_t *stack = cs_malloc(n * sizeof *stack);
    uint32_t *iter = cs_malloc(n * sizeof *iter);
    int found = 0;
    char buf[600];
    size_t len = 0;
    for (uint32_t s = 0; s < n && !found; s++) {
        if (!indeg[s] || color[s]) continue;
        uint32_t sp = 0;
        stack[sp++] = s;
        color[s] = 1;
        iter[s] = g->nodes[s].child_begin;
        while (sp && !found) {
            uint32_t u = stack[sp - 1];
            if (iter[u] < cs_graph_child_end(g, u)) {
                uint32_t v = g->children[iter[u]++];
                if (!indeg[v]) continue;
                if (color[v] == 1) { /* back edge: cycle is v .. u -> v */
                    uint32_t k = sp;
                    while (k > 0 && stack[k - 1] != v) k--;
                    len = 0;
                    for (uint32_t j = k - 1; j < sp && len < sizeof buf - 40; j++)
                        len += (size_t)snprintf(buf + len, sizeof buf - len, "%" PRIu64 " -> ",
                                                g->nodes[stack[j]].id);
                    snprintf(buf + len, sizeof buf - len, "%" PRIu64, g->nodes[v].id);
                    found = 1;
                } else if (!color[v]) {
                    color[v] = 1;
                    iter[v] = g->nodes[v].child_begin;
                    stack[sp++] = v;
                }
            } else {
                color[u] = 2;
                sp--;
            }
        }
    }
    cs_free(color);
    cs_free(stack);
    cs_free(iter);
    if (!found) snprintf(buf, sizeof buf, "(not located)");
    return CS_ERR(err, CS_EFORMAT,
                  "%s: dependency cycle: %s (each node waits for the next); a trace must be a "
                  "directed acyclic graph",
                  name, buf);
}

/* Fill g's nodes (from raw), parent counts and CSR child lists from par. */
static void build_csr(cs_graph *g, const raw_node *raw, uint32_t *const *par, const uint32_t *npar, size_t n) {
    uint64_t nedges = 0;
    for (size_t i = 0; i < n; i++) nedges += npar[i];
    cs_free(g->children);
    g->nchildren = (uint32_t)nedges;
    g->children = cs_malloc((nedges ? nedges : 1) * sizeof *g->children);
    /* Count children per parent, prefix-sum, fill in child-index order. */
    uint32_t *cnt = cs_calloc(n + 1, sizeof *cnt);
    for (size_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < npar[i]; j++) cnt[par[i][j] + 1]++;
    for (size_t i = 0; i < n; i++) cnt[i + 1] += cnt[i];
    for (size_t i = 0; i < n; i++) {
        g->nodes[i] = raw[i].n;
        g->nodes[i].nparents = npar[i];
        g->nodes[i].child_begin = cnt[i];
    }
    for (size_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < npar[i]; j++) g->children[cnt[par[i][j]]++] = (uint32_t)i;
    cs_free(cnt);
}

/* Strongly connected components (Tarjan, iterative): comp[v] = component
 * number; returns 1 when some component has more than one node. */
static int find_sccs(const cs_graph *g, uint32_t *comp) {
    uint32_t n = g->nnodes;
    uint32_t *index = cs_malloc((n ? n : 1) * sizeof *index), *low = cs_malloc((n ? n : 1) * sizeof *low);
    uint32_t *iter = cs_malloc((n ? n : 1) * sizeof *iter), *call = cs_malloc((n ? n : 1) * sizeof *call);
    uint32_t *stk = cs_malloc((n ? n : 1) * sizeof *stk);
    uint8_t *on = cs_calloc(n ? n : 1, 1);
    const uint32_t UNSEEN = UINT32_MAX;
    for (uint32_t v = 0; v < n; v++) index[v] = UNSEEN;
    uint32_t next = 0, sp = 0, ncomp = 0;
    int nontrivial = 0;
    for (uint32_t root = 0; root < n; root++) {
        if (index[root] != UNSEEN) continue;
        uint32_t csp = 0;
        call[csp++] = root;
        index[root] = low[root] = next++;
        iter[root] = g->nodes[root].child_begin;
        stk[sp++] = root;
        on[root] = 1;
        while (csp) {
            uint32_t u = call[csp - 1];
            if (iter[u] < cs_graph_child_end(g, u)) {
                uint32_t v = g->children[iter[u]++];
                if (index[v] == UNSEEN) {
                    index[v] = low[v] = next++;
                    iter[v] = g->nodes[v].child_begin;
                    stk[sp++] = v;
                    on[v] = 1;
                    call[csp++] = v;
                } else if (on[v] && index[v] < low[u]) {
                    low[u] = index[v];
                }
                continue;
            }
            csp--;
            if (csp && low[u] < low[call[csp - 1]]) low[call[csp - 1]] = low[u];
            if (low[u] == index[u]) {
                uint32_t w, size = 0;
                do {
                    w = stk[--sp];
                    on[w] = 0;
                    comp[w] = ncomp;
                    size++;
                } while (w != u);
                if (size > 1) nontrivial = 1;
                ncomp++;
            }
        }
    }
    cs_free(index);
    cs_free(low);
    cs_free(iter);
    cs_free(call);
    cs_free(stk);
    cs_free(on);
    return nontrivial;
}

static int is_data_parent(const raw_node *r, uint64_t parent_id) {
    for (uint32_t j = 0; j < r->ndata; j++)
        if (r->deps[j] == parent_id) return 1;
    return 0;
}

/* Drop the control-only edges inside dependency cycles; returns how many,
 * and one of them in *child / *parent (ids) for the warning. */
static uint64_t drop_cyclic_ctrl(const cs_graph *g, const raw_node *raw, uint32_t **par, uint32_t *npar,
                                 uint64_t *child, uint64_t *parent) {
    uint32_t n = g->nnodes;
    uint32_t *comp = cs_malloc((n ? n : 1) * sizeof *comp);
    uint64_t dropped = 0;
    if (find_sccs(g, comp)) {
        for (uint32_t i = 0; i < n; i++) {
            uint32_t u = 0;
            for (uint32_t j = 0; j < npar[i]; j++) {
                uint32_t p = par[i][j];
                if (comp[p] == comp[i] && !is_data_parent(&raw[i], raw[p].n.id)) {
                    if (!dropped++) {
                        *child = raw[i].n.id;
                        *parent = raw[p].n.id;
                    }
                    continue;
                }
                par[i][u++] = p;
            }
            npar[i] = u;
        }
    }
    cs_free(comp);
    return dropped;
}

/* Kahn's algorithm: returns how many nodes can be ordered; indeg (n entries)
 * is left non-zero exactly on the nodes that lie on or behind a cycle. */
static uint32_t kahn(const cs_graph *g, uint32_t *indeg) {
    uint32_t n = g->nnodes;
    uint32_t *queue = cs_malloc((n ? n : 1) * sizeof *queue);
    for (uint32_t i = 0; i < n; i++) indeg[i] = g->nodes[i].nparents;
    uint32_t qh = 0, qt = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!indeg[i]) queue[qt++] = i;
    while (qh < qt) {
        uint32_t u = queue[qh++];
        for (uint32_t c = g->nodes[u].child_begin; c < cs_graph_child_end(g, u); c++)
            if (--indeg[g->children[c]] == 0) queue[qt++] = g->children[c];
    }
    cs_free(queue);
    return qt;
}

static int is_acyclic(const cs_graph *g) {
    uint32_t *indeg = cs_malloc((g->nnodes ? g->nnodes : 1) * sizeof *indeg);
    int ok = kahn(g, indeg) == g->nnodes;
    cs_free(indeg);
    return ok;
}

static int check_acyclic(const cs_graph *g, const char *name, cs_error *err) {
    uint32_t *indeg = cs_malloc((g->nnodes ? g->nnodes : 1) * sizeof *indeg);
    int rc = kahn(g, indeg) < g->nnodes ? report_cycle(g, indeg, name, err) : CS_OK;
    cs_free(indeg);
    return rc;
}

static void builder_free(builder *b) {
    cs_free(b->deps);
    cs_free(b->raw);
    cs_free(b->strings);
    for (size_t i = 0; i < b->npg; i++) cs_free(b->pgs[i]);
    cs_free(b->pgs);
}

static int finish(builder *b, cs_graph **out, cs_error *err) {
    size_t n = b->nraw;
    if (n > UINT32_MAX - 1) return CS_ERR(err, CS_EUNSUPPORTED, "%s: more than 2^32 nodes", b->name);
    if (n > 1) qsort(b->raw, n, sizeof *b->raw, cmp_raw); /* no nodes: b->raw is NULL, which qsort may not get */
    for (size_t i = 1; i < n; i++)
        if (b->raw[i].n.id == b->raw[i - 1].n.id)
            return CS_ERR(err, CS_EFORMAT, "%s: node id %" PRIu64 " appears twice; ids must be unique",
                          b->name, b->raw[i].n.id);

    /* Resolve parents to indices, merge, de-duplicate: each node's into its
     * stretch of one array (parbuf, as long as every node's dependencies). */
    for (size_t i = 0; i < n; i++) /* (no dependencies at all: NULL, not NULL + 0) */
        b->raw[i].deps = b->deps ? b->deps + b->raw[i].dep_off : NULL;
    uint32_t **par = cs_calloc(n ? n : 1, sizeof *par);
    uint32_t *npar = cs_calloc(n ? n : 1, sizeof *npar);
    uint32_t *parbuf = cs_malloc((b->ndeps ? b->ndeps : 1) * sizeof *parbuf);
    size_t paroff = 0;
    uint64_t missing_ctrl = 0, self_ctrl = 0, host_comm = 0, nedges = 0;
    int rc = CS_OK;
    for (size_t i = 0; i < n && rc == CS_OK; i++) {
        raw_node *r = &b->raw[i];
        if (r->n.flags & CS_NF_HOST_COMM) host_comm++;
        uint32_t total = r->ndata + r->nctrl, k = 0;
        par[i] = parbuf + paroff;
        paroff += total;
        for (uint32_t j = 0; j < total; j++) {
            uint32_t p = find_raw(b->raw, n, r->deps[j]);
            if (p == UINT32_MAX) {
                if (j < r->ndata) {
                    if (b->opt && b->opt->allow_missing_data_deps) {
                        cs_warn("%s: node %" PRIu64 ": data dependency on node %" PRIu64
                                " which is not in the file; dropped (--allow-missing-data-deps)",
                                b->name, r->n.id, r->deps[j]);
                        continue;
                    }
                    rc = CS_ERR(err, CS_EFORMAT,
                                "%s: node %" PRIu64 ": data dependency on node %" PRIu64
                                ", which is not in the file (expected every data parent to exist; "
                                "--allow-missing-data-deps drops such edges)",
                                b->name, r->n.id, r->deps[j]);
                    break;
                }
                missing_ctrl++;
                continue;
            }
            if (p == i && j >= r->ndata) { /* a control dependency on itself */
                self_ctrl++;
                continue;
            }
            if (p == i) {
                rc = CS_ERR(err, CS_EFORMAT,
                            "%s: dependency cycle: %" PRIu64 " -> %" PRIu64
                            " (node depends on itself); a trace must be a directed acyclic graph",
                            b->name, r->n.id, r->n.id);
                break;
            }
            par[i][k++] = p;
        }
        if (rc) break;
        if (k > 1) qsort(par[i], k, sizeof **par, cmp_u32);
        uint32_t u = 0;
        for (uint32_t j = 0; j < k; j++)
            if (!u || par[i][u - 1] != par[i][j]) par[i][u++] = par[i][j];
        npar[i] = u;
        nedges += u;
    }
    if (rc == CS_OK && nedges > UINT32_MAX) rc = CS_ERR(err, CS_EUNSUPPORTED, "%s: more than 2^32 edges", b->name);
    if (rc != CS_OK) {
        cs_free(parbuf);
        cs_free(par);
        cs_free(npar);
        return rc;
    }
    if (missing_ctrl)
        cs_warn("%s: %" PRIu64 " control dependencies name nodes that are not in the file; ignored "
                "(PyTorch-derived traces drop such parents)",
                b->name, missing_ctrl);
    if (self_ctrl)
        cs_warn("%s: %" PRIu64 " control dependencies name their own node; ignored", b->name, self_ctrl);
    if (host_comm)
        cs_warn("%s: %" PRIu64 " communication nodes have is_cpu_op = true (host-side records such as "
                "c10d::allreduce_); run as CPU compute replayed from duration_micros, as ASTRA-sim does",
                b->name, host_comm);

    cs_graph *g = cs_calloc(1, sizeof *g);
    g->source = cs_strdup(b->name);
    g->nnodes = (uint32_t)n;
    g->nodes = cs_malloc((n ? n : 1) * sizeof *g->nodes);
    g->missing_ctrl_deps = missing_ctrl;
    build_csr(g, b->raw, par, npar, n);
    /* Control dependencies on a cycle can never be satisfied: drop them (the
     * acyclic check below reports any cycle of data dependencies left). */
    uint64_t cyc_child = 0, cyc_parent = 0, cyclic_ctrl = 0;
    if (!is_acyclic(g) && (cyclic_ctrl = drop_cyclic_ctrl(g, b->raw, par, npar, &cyc_child, &cyc_parent))) {
        build_csr(g, b->raw, par, npar, n);
        cs_warn("%s: %" PRIu64 " control dependencies lie on dependency cycles (e.g. node %" PRIu64
                " on node %" PRIu64 ", which depends on it); ignored",
                b->name, cyclic_ctrl, cyc_child, cyc_parent);
    }
    cs_free(parbuf);
    cs_free(par);
    cs_free(npar);

    g->strings = b->strings;
    g->strings_len = b->slen;
    b->strings = NULL;
    if (!g->strings) g->strings = cs_calloc(1, 1);
    g->pg_names = b->pgs;
    g->npg = (uint32_t)b->npg;
    b->pgs = NULL;
    b->npg = 0;
    g->refcount = 1;

    rc = check_acyclic(g, b->name, err);
    if (rc) {
        cs_graph_free(g);
        return rc;
    }
    *out = g;
    return CS_OK;
}

/* ---- building node by node (cs_graph_builder, graph.h) -------------------------- */

struct cs_graph_builder {
    builder b;
    char *name;
    cs_graph_options opt;
};

cs_graph_builder *cs_graph_builder_new(const char *name, const cs_graph_options *opt) {
    cs_graph_builder *gb = cs_calloc(1, sizeof *gb);
    gb->name = cs_strdup(name ? name : "");
    if (opt) gb->opt = *opt;
    gb->b.name = gb->name;
    gb->b.opt = &gb->opt;
    add_pg(&gb->b, ""); /* index 0 = default group */
    return gb;
}

int cs_graph_builder_add(cs_graph_builder *gb, const ChakraProtoMsg__Node *pn, cs_error *err) {
    return decode_node(&gb->b, pn, err);
}

int cs_graph_builder_finish(cs_graph_builder *gb, cs_graph **out, cs_error *err) {
    int rc = finish(&gb->b, out, err);
    cs_graph_builder_free(gb);
    return rc;
}

void cs_graph_builder_free(cs_graph_builder *gb) {
    if (!gb) return;
    builder_free(&gb->b);
    cs_free(gb->name);
    cs_free(gb);
}

static int load_from_reader(cs_et_reader *rd, const char *name, const cs_graph_options *opt,
                            cs_graph **out, cs_error *err) {
    cs_graph_builder *gb = cs_graph_builder_new(name, opt);
    int rc;
    for (;;) {
        ChakraProtoMsg__Node *pn = NULL;
        rc = cs_et_reader_next(rd, &pn, err);
        if (rc <= 0) break;
        rc = cs_graph_builder_add(gb, pn, err);
        cs_et_node_free(pn);
        if (rc) break;
    }
    if (rc == 0) return cs_graph_builder_finish(gb, out, err);
    cs_graph_builder_free(gb);
    return rc;
}

int cs_graph_load(const char *path, const cs_graph_options *opt, cs_graph **out, cs_error *err) {
    cs_et_reader *rd = NULL;
    int rc = cs_et_reader_open(path, &rd, err);
    if (rc) return rc;
    rc = load_from_reader(rd, path, opt, out, err);
    cs_et_reader_close(rd);
    return rc;
}

int cs_graph_load_mem(const void *data, size_t len, const char *name, const cs_graph_options *opt,
                      cs_graph **out, cs_error *err) {
    cs_et_reader *rd = NULL;
    int rc = cs_et_reader_open_mem(data, len, name, &rd, err);
    if (rc) return rc;
    rc = load_from_reader(rd, name, opt, out, err);
    cs_et_reader_close(rd);
    return rc;
}

void cs_graph_free(cs_graph *g) {
    if (!g) return;
    cs_free(g->source);
    if (!g->base) { /* a view borrows these */
        cs_free(g->nodes);
        cs_free(g->children);
        cs_free(g->strings);
    }
    for (uint32_t i = 0; i < g->npg; i++) cs_free(g->pg_names[i]);
    cs_free(g->pg_names);
    cs_free(g);
}

/* ---- sharing (graph.h) ---------------------------------------------------------------------- */

/* Node x as cs_graph_share compares it: a point-to-point node's peers left
 * out (they may differ by the view's offset). */
static cs_node share_form(const cs_node *n) {
    cs_node x = *n;
    if (x.type == CS_NODE_COMM_SEND || x.type == CS_NODE_COMM_RECV) {
        if (x.flags & CS_NF_HAS_SRC) x.comm_src = 0;
        if (x.flags & CS_NF_HAS_DST) x.comm_dst = 0;
    }
    return x;
}

#define CS_NODE_MEMBER(f) sizeof(((cs_node *)0)->f)
_Static_assert(sizeof(cs_node) == CS_NODE_MEMBER(id) + CS_NODE_MEMBER(duration_us) + CS_NODE_MEMBER(num_ops) +
                                      CS_NODE_MEMBER(tensor_size) + CS_NODE_MEMBER(comm_size) + CS_NODE_MEMBER(type) +
                                      CS_NODE_MEMBER(comm_type) + CS_NODE_MEMBER(comm_src) + CS_NODE_MEMBER(comm_dst) +
                                      CS_NODE_MEMBER(comm_tag) + CS_NODE_MEMBER(comm_priority) +
                                      CS_NODE_MEMBER(flags) + CS_NODE_MEMBER(involved_dim) + CS_NODE_MEMBER(pg) +
                                      CS_NODE_MEMBER(name) + CS_NODE_MEMBER(nparents) + CS_NODE_MEMBER(child_begin),
               "cs_node has no padding (hashed and compared as bytes; a new member must be added here)");
#undef CS_NODE_MEMBER

static uint64_t mix(uint64_t h, const void *p, size_t len) { /* 8 bytes a step, multiply-xorshift */
    const unsigned char *b = p;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 29;
    }
    for (; i < len; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

/* The hash covers what cs_graph_share compares, the peers as their
 * differences from the graph's first peer (equal for graphs whose peers
 * differ by one offset), so graphs of one hash are nearly always shareable:
 * ranks whose peers differ otherwise (a hand-made all-to-all) do not all
 * land on one hash and get compared with each other. */
uint64_t cs_graph_share_hash(const cs_graph *g) {
    uint64_t h = 0xcbf29ce484222325ULL;
    uint32_t head[3] = {g->nnodes, g->nchildren, g->npg};
    h = mix(h, head, sizeof head);
    int have = 0;
    int64_t first = 0;
    for (uint32_t i = 0; i < g->nnodes; i++) {
        const cs_node *n = &g->nodes[i];
        cs_node x = share_form(n);
        h = mix(h, &x, sizeof x); /* no padding in cs_node (asserted above) */
        if (n->type != CS_NODE_COMM_SEND && n->type != CS_NODE_COMM_RECV) continue;
        for (int f = 0; f < 2; f++) {
            if (!(n->flags & (f ? CS_NF_HAS_DST : CS_NF_HAS_SRC))) continue;
            int64_t v = f ? n->comm_dst : n->comm_src;
            if (!have) {
                have = 1;
                first = v;
            }
            int64_t d = v - first;
            h = mix(h, &d, sizeof d);
        }
    }
    h = mix(h, g->children, g->nchildren * sizeof *g->children);
    return mix(h, g->strings, g->strings_len);
}

/* The offset that moves base's peer a to g's b, or 0 with *ok = 0 when it is
 * not the one already seen. */
static void share_peer(int32_t a, int32_t b, int *have, int64_t *shift, int *ok) {
    int64_t d = (int64_t)b - a;
    if (!*have) {
        *have = 1;
        *shift = d;
    } else if (d != *shift) {
        *ok = 0;
    }
}

cs_graph *cs_graph_share(const cs_graph *base, cs_graph *g) {
    if (base->base || g->base || base->nnodes != g->nnodes || base->nchildren != g->nchildren ||
        base->npg != g->npg || base->strings_len != g->strings_len ||
        base->missing_ctrl_deps != g->missing_ctrl_deps)
        return NULL;
    if (memcmp(base->children, g->children, g->nchildren * sizeof *g->children) != 0 ||
        (g->strings_len && memcmp(base->strings, g->strings, g->strings_len) != 0))
        return NULL;
    int have = 0, ok = 1;
    int64_t shift = 0;
    for (uint32_t i = 0; i < g->nnodes && ok; i++) {
        const cs_node *a = &base->nodes[i], *b = &g->nodes[i];
        cs_node x = share_form(a), y = share_form(b);
        if (memcmp(&x, &y, sizeof x) != 0) return NULL;
        if (b->type != CS_NODE_COMM_SEND && b->type != CS_NODE_COMM_RECV) continue;
        if (b->flags & CS_NF_HAS_SRC) share_peer(a->comm_src, b->comm_src, &have, &shift, &ok);
        if (b->flags & CS_NF_HAS_DST) share_peer(a->comm_dst, b->comm_dst, &have, &shift, &ok);
    }
    if (!ok || shift < INT32_MIN || shift > INT32_MAX) return NULL;
    cs_graph *v = cs_calloc(1, sizeof *v);
    *v = *base;
    v->base = base;
    v->peer_shift = (int32_t)shift;
    v->refcount = g->refcount; /* it stands for g */
    v->source = g->source;
    v->pg_names = g->pg_names;
    v->npg = g->npg;
    g->source = NULL;
    g->pg_names = NULL;
    g->npg = 0;
    cs_graph_free(g);
    return v;
}

struct cs_graph_sharer { /* open addressing on the share hash */
    const cs_graph **base;
    uint64_t *hash;
    size_t n, cap; /* cap: 0 or a power of two, at least twice n */
};

cs_graph_sharer *cs_graph_sharer_new(void) { return cs_calloc(1, sizeof(cs_graph_sharer)); }

void cs_graph_sharer_free(cs_graph_sharer *sh) {
    if (!sh) return;
    cs_free(sh->base);
    cs_free(sh->hash);
    cs_free(sh);
}

static void sharer_insert(cs_graph_sharer *sh, const cs_graph *g, uint64_t h) {
    size_t t = (size_t)(h ^ (h >> 32)) & (sh->cap - 1);
    while (sh->base[t]) t = (t + 1) & (sh->cap - 1);
    sh->base[t] = g;
    sh->hash[t] = h;
}

/* Bases of one hash compared with a new graph before it becomes a base
 * itself: the hash covers what the comparison checks, so a second one of a
 * hash is a collision or a graph that differs only in missing_ctrl_deps;
 * the limit keeps such graphs from being compared with every earlier one. */
#define SHARER_TRIES 4

cs_graph *cs_graph_sharer_put(cs_graph_sharer *sh, cs_graph *g) {
    if (g->base) return g; /* a view already (not a base for others) */
    uint64_t h = cs_graph_share_hash(g);
    if (sh->cap) {
        int tries = 0;
        for (size_t t = (size_t)(h ^ (h >> 32)) & (sh->cap - 1); sh->base[t] && tries < SHARER_TRIES;
             t = (t + 1) & (sh->cap - 1)) {
            if (sh->hash[t] != h) continue;
            tries++;
            cs_graph *v = cs_graph_share(sh->base[t], g);
            if (v) return v;
        }
    }
    if (2 * (sh->n + 1) > sh->cap) { /* grow, then reinsert */
        size_t ocap = sh->cap;
        const cs_graph **ob = sh->base;
        uint64_t *oh = sh->hash;
        sh->cap = ocap ? 2 * ocap : 64;
        sh->base = cs_calloc(sh->cap, sizeof *sh->base);
        sh->hash = cs_calloc(sh->cap, sizeof *sh->hash);
        for (size_t i = 0; i < ocap; i++)
            if (ob[i]) sharer_insert(sh, ob[i], oh[i]);
        cs_free(ob);
        cs_free(oh);
    }
    sharer_insert(sh, g, h);
    sh->n++;
    return g;
}

uint32_t cs_graph_find(const cs_graph *g, uint64_t id) {
    uint32_t lo = 0, hi = g->nnodes;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->nodes[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < g->nnodes && g->nodes[lo].id == id) ? lo : UINT32_MAX;
}

const char *cs_node_type_label(int32_t type) {
    static const char *const names[] = {"INVALID", "METADATA", "MEM_LOAD", "MEM_STORE",
                                        "COMP",    "COMM_SEND", "COMM_RECV", "COMM_COLL"};
    return (type >= 0 && type <= 7) ? names[type] : "UNKNOWN";
}

int cs_compute_time(const cs_compute_model *m, const cs_node *n, cs_time *t) {
    cs_compute_work w = {.duration_us = n->duration_us,
                         .num_ops = n->num_ops,
                         .tensor_size = n->tensor_size,
                         .is_cpu = (n->flags & CS_NF_CPU) != 0,
                         .has_num_ops = (n->flags & CS_NF_HAS_NUM_OPS) != 0,
                         .duration_in_ns = (n->flags & CS_NF_DURATION_NS) != 0};
    return cs_compute_work_time(m, &w, t);
}
