/*
 * system.c -- collective matching and the collectives that need no algorithm
 * (see system.h).
 *
 * Matching: each (communicator, per-rank sequence number) names one collective
 * instance; the instance records which members have arrived.  Instances live
 * in a small open hash keyed by (group, seq) and are freed when the last
 * member completes.
 */
#include "system/system.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "compute/compute.h"
#include "core/alloc.h"
#include "workload/graph.h"

typedef struct waiter {
    cs_sys_done_fn done;
    void *ctx;
    uint64_t cookie;
} waiter;

typedef struct instance {
    uint32_t group_id;
    uint64_t seq;
    int32_t comm_type;
    uint64_t bytes;
    uint32_t expected, arrived;
    waiter *waiters;
    uint64_t first_node_id;
    struct instance *next;
} instance;

/* Per-(rank, group) issue counter, in a hash keyed by (group << 32 | rank). */
typedef struct counter {
    uint64_t key;
    uint64_t next_seq;
    struct counter *next;
} counter;

struct cs_system {
    cs_eventq *q;
    cs_net *net;
    uint32_t nranks;
    instance **inst;
    size_t ninst_buckets;
    counter **ctr;
    size_t nctr_buckets;
    uint64_t live_instances;
};

#define BUCKETS 4096

int cs_system_new(cs_eventq *q, cs_net *net, uint32_t nranks, cs_system **out, cs_error *err) {
    (void)err;
    cs_system *s = cs_calloc(1, sizeof *s);
    s->q = q;
    s->net = net;
    s->nranks = nranks;
    s->ninst_buckets = BUCKETS;
    s->inst = cs_calloc(BUCKETS, sizeof *s->inst);
    s->nctr_buckets = BUCKETS;
    s->ctr = cs_calloc(BUCKETS, sizeof *s->ctr);
    *out = s;
    return CS_OK;
}

void cs_system_free(cs_system *s) {
    if (!s) return;
    for (size_t b = 0; b < s->ninst_buckets; b++) {
        instance *i = s->inst[b];
        while (i) {
            instance *n = i->next;
            cs_free(i->waiters);
            cs_free(i);
            i = n;
        }
    }
    for (size_t b = 0; b < s->nctr_buckets; b++) {
        counter *c = s->ctr[b];
        while (c) {
            counter *n = c->next;
            cs_free(c);
            c = n;
        }
    }
    cs_free(s->inst);
    cs_free(s->ctr);
    cs_free(s);
}

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static uint64_t next_seq(cs_system *s, uint32_t group, uint32_t rank) {
    uint64_t key = ((uint64_t)group << 32) | rank;
    size_t b = mix(key) % s->nctr_buckets;
    for (counter *c = s->ctr[b]; c; c = c->next)
        if (c->key == key) return c->next_seq++;
    counter *c = cs_malloc(sizeof *c);
    c->key = key;
    c->next_seq = 1;
    c->next = s->ctr[b];
    s->ctr[b] = c;
    return 0;
}

static instance *find_instance(cs_system *s, uint32_t group, uint64_t seq, int create) {
    size_t b = mix(((uint64_t)group << 40) ^ seq) % s->ninst_buckets;
    for (instance *i = s->inst[b]; i; i = i->next)
        if (i->group_id == group && i->seq == seq) return i;
    if (!create) return NULL;
    instance *i = cs_calloc(1, sizeof *i);
    i->group_id = group;
    i->seq = seq;
    i->next = s->inst[b];
    s->inst[b] = i;
    s->live_instances++;
    return i;
}

static void remove_instance(cs_system *s, instance *target) {
    size_t b = mix(((uint64_t)target->group_id << 40) ^ target->seq) % s->ninst_buckets;
    instance **pp = &s->inst[b];
    while (*pp && *pp != target) pp = &(*pp)->next;
    if (*pp) *pp = target->next;
    cs_free(target->waiters);
    cs_free(target);
    s->live_instances--;
}

typedef struct fire_ctx {
    cs_sys_done_fn done;
    void *ctx;
} fire_ctx;

static void fire_done(void *ctx, const cs_event *ev) {
    fire_ctx *f = ctx;
    cs_sys_done_fn done = f->done;
    void *dctx = f->ctx;
    cs_free(f);
    done(dctx, ev->arg);
}

static void schedule_done(cs_system *s, cs_time t, uint64_t key, cs_sys_done_fn done, void *ctx,
                          uint64_t cookie) {
    fire_ctx *f = cs_malloc(sizeof *f);
    f->done = done;
    f->ctx = ctx;
    cs_eventq_push(s->q, t, key, fire_done, f, cookie);
}

int cs_system_collective(cs_system *s, const cs_coll_req *req, cs_sys_done_fn done, void *ctx,
                         uint64_t cookie, cs_error *err) {
    uint32_t expected = req->members ? req->nmembers : s->nranks;
    uint64_t seq = next_seq(s, req->group_id, req->rank);
    instance *in = find_instance(s, req->group_id, seq, 1);
    if (in->arrived == 0) {
        in->comm_type = req->comm_type;
        in->bytes = req->bytes;
        in->expected = expected;
        in->first_node_id = req->node_id;
        in->waiters = cs_malloc(expected * sizeof *in->waiters);
    } else if (in->comm_type != req->comm_type || in->bytes != req->bytes) {
        return CS_ERR(err, CS_EINVAL,
                      "%s: rank %u node %" PRIu64 ": collective #%" PRIu64
                      " of communicator %u is %s of %" PRIu64
                      " bytes here but %s of %" PRIu64
                      " bytes on another rank (collectives are matched by issue order within "
                      "a communicator; expected every member to issue the same sequence)",
                      req->source, req->rank, req->node_id, seq, req->group_id,
                      cs_coll_type_label(req->comm_type), req->bytes,
                      cs_coll_type_label(in->comm_type), in->bytes);
    }
    switch (req->comm_type) {
    case CS_COLL_BROADCAST: {
        /* ASTRA-sim replays broadcasts from their recorded duration. */
        cs_time t = cs_time_add(cs_eventq_now(s->q), cs_compute_replay_time(req->duration_us));
        schedule_done(s, t, ((uint64_t)req->rank << 32) | (seq & 0xffffffffu), done, ctx, cookie);
        if (++in->arrived == in->expected) remove_instance(s, in);
        return CS_OK;
    }
    case CS_COLL_BARRIER: {
        in->waiters[in->arrived].done = done;
        in->waiters[in->arrived].ctx = ctx;
        in->waiters[in->arrived].cookie = cookie;
        if (++in->arrived == in->expected) {
            cs_time now = cs_eventq_now(s->q);
            for (uint32_t k = 0; k < in->expected; k++)
                schedule_done(s, now, ((uint64_t)k << 32) | (seq & 0xffffffffu), in->waiters[k].done,
                              in->waiters[k].ctx, in->waiters[k].cookie);
            remove_instance(s, in);
        }
        return CS_OK;
    }
    default:
        return CS_ERR(err, CS_EUNSUPPORTED,
                      "%s: rank %u node %" PRIu64 ": %s collective of %" PRIu64
                      " bytes: collective algorithms over the network are not implemented yet "
                      "(only BARRIER and BROADCAST replay are); remove the node or wait for the "
                      "system layer's algorithms",
                      req->source, req->rank, req->node_id, cs_coll_type_label(req->comm_type),
                      req->bytes);
    }
}

void cs_system_describe_pending(const cs_system *s, char *buf, unsigned bufsize) {
    size_t len = 0;
    buf[0] = '\0';
    for (size_t b = 0; b < s->ninst_buckets && len + 120 < bufsize; b++)
        for (instance *i = s->inst[b]; i && len + 120 < bufsize; i = i->next)
            len += (size_t)snprintf(buf + len, bufsize - len,
                                    "%s#%" PRIu64 " of communicator %u: %u of %u members arrived; ",
                                    cs_coll_type_label(i->comm_type), i->seq, i->group_id, i->arrived,
                                    i->expected);
}
