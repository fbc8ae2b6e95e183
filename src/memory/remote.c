/*
 * remote.c -- the analytical remote-memory models (see remote.h and
 * docs/memory.md).
 *
 * State: one FIFO per memory (per NPU, per node, or one for the pool), each
 * with a busy flag; requests are pooled and linked into the queues.  An
 * access that finds its memory idle starts at once; its completion event
 * (keyed with the caller's key) calls the requester back and then starts the
 * head of the queue.  NO_MEMORY_EXPANSION has a model too, whose access fails
 * with a message naming the configuration, so the executor can say which
 * node needed remote memory.
 *
 * This file owns the model state; the executor (workload/exec.c) owns the
 * cs_memory handle and calls cs_memory_init / cs_memory_destroy.
 */
#include "memory/remote.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/pool.h"

typedef struct remote remote;

typedef struct mreq {
    struct mreq *next; /* in its memory's queue */
    remote *m;
    cs_mem_done_fn done;
    void *ctx;
    uint64_t cookie;
    uint64_t bytes;
    uint64_t key;
    cs_time queued_at;
    uint32_t mem; /* index of the memory it uses */
    int is_store;
} mreq;

typedef struct memq {
    mreq *head, *tail; /* waiting accesses, first come first served */
    int busy;          /* an access is being served */
    cs_time free_at;   /* while busy: when the last access taken ends (FIFO: exact) */
} memq;

struct remote {
    cs_eventq *q;
    cs_pool *pool;
    cs_memory_type type;
    const char *path; /* borrowed, for messages */
    cs_time latency;  /* ps */
    double bw;        /* bytes per ns (= GB/s, 10^9 bytes/s) */
    uint32_t nranks;
    uint32_t npus_per_node;
    uint32_t nmem;
    memq *mems;
    cs_memory_stats st;
};

/* CS_TIME_MAX: beyond the simulated-time range. */
static cs_time access_time(cs_time latency, double bw, uint64_t bytes) {
    return cs_time_add(latency, cs_time_from_whole_ns_f((double)bytes / bw));
}

cs_time cs_memory_access_time(const cs_memory_config *cfg, uint64_t bytes) {
    if (!cfg || cfg->type == CS_MEM_NO_EXPANSION || !(cfg->remote_mem_bw_gbps > 0)) return 0;
    return access_time(cs_time_from_ns_f(cfg->remote_mem_latency_ns), cfg->remote_mem_bw_gbps,
                       bytes);
}

/* ---- the queueing models ---------------------------------------------------- */

static void start(remote *m, mreq *r);

static void access_done(void *ctx, const cs_event *ev) {
    (void)ev;
    mreq *r = ctx;
    remote *m = r->m;
    cs_mem_done_fn done = r->done;
    void *dctx = r->ctx;
    uint64_t cookie = r->cookie;
    memq *mq = &m->mems[r->mem];
    m->st.accesses++;
    cs_pool_put(m->pool, r);
    /* The requester first (ASTRA-sim registers the workload's completion
     * before the memory's own): an access it issues now finds the memory
     * still busy and queues behind those already waiting. */
    done(dctx, cookie);
    if (mq->head) {
        mreq *next = mq->head;
        mq->head = next->next;
        if (!mq->head) mq->tail = NULL;
        start(m, next);
    } else {
        mq->busy = 0;
    }
}

static void start(remote *m, mreq *r) {
    cs_time now = cs_eventq_now(m->q);
    cs_time wait = now - r->queued_at;
    if (wait) {
        m->st.waited++;
        m->st.wait_total = cs_time_add(m->st.wait_total, wait);
        if (wait > m->st.wait_max) m->st.wait_max = wait;
    }
    m->mems[r->mem].busy = 1;
    cs_eventq_push(m->q, cs_time_add(now, access_time(m->latency, m->bw, r->bytes)), r->key,
                   access_done, r, 0);
}

static int remote_access(void *state, uint32_t rank, uint64_t bytes, int is_store, uint64_t key,
                         cs_mem_done_fn done, void *ctx, uint64_t cookie, cs_error *err) {
    remote *m = state;
    if (rank >= m->nranks)
        return CS_ERR(err, CS_EINTERNAL, "remote memory: access by rank %u of a %u-NPU network",
                      rank, m->nranks);
    uint32_t mem = 0;
    if (m->type == CS_MEM_PER_NPU_EXPANSION)
        mem = rank;
    else if (m->type == CS_MEM_PER_NODE_EXPANSION)
        mem = rank / m->npus_per_node;
    memq *mq = &m->mems[mem];
    cs_time now = cs_eventq_now(m->q), end = cs_time_add(mq->busy ? mq->free_at : now, access_time(m->latency, m->bw, bytes));
    if (cs_time_beyond(end)) {
        return CS_ERR(err, CS_EINVAL,
                      "%s: %s of %" PRIu64 " bytes (remote-mem-latency %.4g ns + bytes / remote-mem-bw %g GB/s%s) ends "
                      "beyond " CS_TIME_RANGE_TEXT,
                      m->path ? m->path : "remote memory", is_store ? "store" : "load", bytes,
                      (double)m->latency / 1e3, m->bw, mq->busy ? ", after the accesses queued before it" : "");
    }
    mq->free_at = end;
    mreq *r = cs_pool_get(m->pool);
    memset(r, 0, sizeof *r);
    r->m = m;
    r->done = done;
    r->ctx = ctx;
    r->cookie = cookie;
    r->bytes = bytes;
    r->key = key;
    r->queued_at = cs_eventq_now(m->q);
    r->mem = mem;
    r->is_store = is_store;
    if (is_store) {
        m->st.stores++;
        m->st.bytes_stored += bytes;
    } else {
        m->st.loads++;
        m->st.bytes_loaded += bytes;
    }
    if (mq->busy) {
        if (mq->tail)
            mq->tail->next = r;
        else
            mq->head = r;
        mq->tail = r;
    } else {
        start(m, r);
    }
    return CS_OK;
}

static void remote_destroy(void *state) {
    remote *m = state;
    if (!m) return;
    cs_pool_free(m->pool);
    cs_free(m->mems);
    cs_free(m);
}

static const cs_mem_model remote_model = {
    .name = "analytical-remote",
    .access = remote_access,
    .destroy = remote_destroy,
};

/* ---- NO_MEMORY_EXPANSION ------------------------------------------------------ */

typedef struct none_state {
    const char *path;
} none_state;

static int none_access(void *state, uint32_t rank, uint64_t bytes, int is_store, uint64_t key,
                       cs_mem_done_fn done, void *ctx, uint64_t cookie, cs_error *err) {
    (void)rank, (void)bytes, (void)is_store, (void)key, (void)done, (void)ctx, (void)cookie;
    const none_state *n = state;
    const char *what = n->path ? n->path : "no --remote-memory-configuration given, so";
    return CS_ERR(err, CS_EUNSUPPORTED,
                  "%s%s memory-type is NO_MEMORY_EXPANSION: there is no remote memory to %s "
                  "(ASTRA-sim stops here too); expected a remote-memory configuration with "
                  "memory-type PER_NPU_MEMORY_EXPANSION, PER_NODE_MEMORY_EXPANSION or MEMORY_POOL",
                  what, n->path ? ":" : "", is_store ? "store to" : "load from");
}

static void none_destroy(void *state) { cs_free(state); }

static const cs_mem_model none_model = {
    .name = "none",
    .access = none_access,
    .destroy = none_destroy,
};

/* ---- setup ----------------------------------------------------------------------- */

static void warn_not_whole(const char *path, const char *key, double v, const char *unit) {
    if (v == floor(v)) return;
    cs_warn("%s: %s = %g %s is not a whole number: ASTRA-sim truncates it to %.0f %s%s; "
            "clustersim uses %g %s",
            path, key, v, unit, floor(v), unit,
            floor(v) == 0 && strcmp(key, "remote-mem-bw") == 0 ? " (and then divides by zero)" : "",
            v, unit);
}

int cs_memory_init(cs_memory *m, const cs_memory_config *cfg, cs_eventq *q, uint32_t nranks,
                   cs_error *err) {
    memset(m, 0, sizeof *m);
    const char *path = cfg && cfg->path ? cfg->path : "remote memory configuration";
    if (!cfg || cfg->type == CS_MEM_NO_EXPANSION) {
        none_state *n = cs_calloc(1, sizeof *n);
        n->path = cfg ? cfg->path : NULL;
        m->model = &none_model;
        m->state = n;
        return CS_OK;
    }
    if ((unsigned)cfg->type > CS_MEM_POOL)
        return CS_ERR(err, CS_EINVAL, "%s: memory-type: unknown value %d", path, (int)cfg->type);
    if (!(cfg->remote_mem_bw_gbps > 0) || !isfinite(cfg->remote_mem_bw_gbps))
        return CS_ERR(err, CS_EINVAL,
                      "%s: remote-mem-bw: expected a bandwidth > 0 in GB/s for memory-type %s, "
                      "got %g",
                      path, cs_memory_type_name(cfg->type), cfg->remote_mem_bw_gbps);
    if (!(cfg->remote_mem_latency_ns >= 0) || !isfinite(cfg->remote_mem_latency_ns))
        return CS_ERR(err, CS_EINVAL, "%s: remote-mem-latency: expected a latency >= 0 in ns, got %g",
                      path, cfg->remote_mem_latency_ns);
    uint32_t nmem = 1;
    if (cfg->type == CS_MEM_PER_NPU_EXPANSION) {
        nmem = nranks;
    } else if (cfg->type == CS_MEM_PER_NODE_EXPANSION) {
        uint64_t covered = (uint64_t)(cfg->num_nodes > 0 ? cfg->num_nodes : 0) *
                           (uint64_t)(cfg->num_npus_per_node > 0 ? cfg->num_npus_per_node : 0);
        if (cfg->num_nodes < 1 || cfg->num_npus_per_node < 1 || covered != nranks) {
            char at[32] = "";
            if (cfg->num_nodes_line > 0) snprintf(at, sizeof at, ":%d", cfg->num_nodes_line);
            return CS_ERR(err, CS_EINVAL,
                          "%s%s: num-nodes, num-npus-per-node: expected num-nodes x "
                          "num-npus-per-node = %u, the number of NPUs of the network (NPU r "
                          "uses the memory of node r / num-npus-per-node), got %d x %d = %llu",
                          path, at, nranks, cfg->num_nodes, cfg->num_npus_per_node,
                          (unsigned long long)covered);
        }
        nmem = (uint32_t)cfg->num_nodes;
    }
    warn_not_whole(path, "remote-mem-bw", cfg->remote_mem_bw_gbps, "GB/s");
    warn_not_whole(path, "remote-mem-latency", cfg->remote_mem_latency_ns, "ns");

    remote *r = cs_calloc(1, sizeof *r);
    r->q = q;
    r->pool = cs_pool_new(sizeof(mreq));
    r->type = cfg->type;
    r->path = cfg->path;
    r->latency = cs_time_from_ns_f(cfg->remote_mem_latency_ns);
    r->bw = cfg->remote_mem_bw_gbps;
    r->nranks = nranks;
    r->npus_per_node = cfg->type == CS_MEM_PER_NODE_EXPANSION ? (uint32_t)cfg->num_npus_per_node : 1;
    r->nmem = nmem;
    r->mems = cs_calloc(nmem ? nmem : 1, sizeof *r->mems);
    r->st.memories = nmem;
    m->model = &remote_model;
    m->state = r;
    return CS_OK;
}

void cs_memory_destroy(cs_memory *m) {
    if (m->model && m->state) m->model->destroy(m->state);
    m->model = NULL;
    m->state = NULL;
}

void cs_memory_get_stats(const cs_memory *m, cs_memory_stats *out) {
    memset(out, 0, sizeof *out);
    if (m->model == &remote_model && m->state) *out = ((const remote *)m->state)->st;
}
