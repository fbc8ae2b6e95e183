/*
 * system.c -- communicators, collective matching, instances, messages and
 * events of the system layer (see system.h; the structures are in
 * sys_int.h).  Owned by the system layer.
 *
 * Matching: each (communicator, per-member issue number) names one
 * collective instance.  The first member to issue it creates the instance:
 * the plan (planner.c), one cs_member per rank of the communicator and one
 * stream per member and chunk.  Instances live in a hash keyed by
 * (communicator, number) and are freed when every member has finished and
 * nothing of theirs is in flight.
 *
 * Messages: a collective message is identified by (instance, receiver,
 * chunk, phase, k), k being the sender's packet number (ring, direct,
 * halving-doubling) or the tree slot (double binary tree).  The receiver's
 * k-th receive of a phase matches the sender's k-th packet, which is what
 * ASTRA-sim's (tag, src, dst, size, sequence) matching amounts to for these
 * algorithms.  A message that arrives before its receive is posted waits in
 * the receiving stream's `early` list; posting the receive then delivers it
 * through a new event at the same instant (ASTRA-sim: sim_recv finds the
 * transmission finished and schedules the handler with delay 0).
 *
 * Bundles: every packet passes ASTRA-sim's PacketBundle: endpoint-delay
 * (10 ns on a communicator group's ring), then, if it is reduced, the local
 * reduction, then a "General" event to its stream's algorithm.
 *
 * Event keys: an event created while the queue dispatches another inherits
 * that event's key (cs_eventq_dispatching), so simultaneous events run in
 * the order of their causes, as in ASTRA-sim's FIFO queue; outside a
 * dispatch, params.next_key (rank << 32 | the executor's per-rank counter).
 *
 * Representative mode (system.h, symmetry.c): one member per instance and
 * one rank's queues; css_send delivers rank 0's send k back to rank 0 as its
 * receive k, from the rank that sends it in the full run; every event of
 * the system layer is registered with the simultaneous-event guard.
 *
 * Lifetime: every message, bundle and completion event holds a reference on
 * its instance (`live`); handlers drop it last, so an instance is never freed
 * under a running handler, even when a completion callback issues the next
 * collective from inside it.
 *
 * Invariants (core/invariant.h): a member finishes once, after it issued
 * the collective and after all of its chunks, and -- when the plan's
 * phases connect the whole communicator (every dimension, or one ring of
 * every member) -- only after every member issued it; the instance's
 * reference count never goes below zero; a bundle or a message reaches its
 * stream in the phase it belongs to (never one the stream has left); an
 * instance freed in a run that did not fail has delivered every byte its
 * members sent and holds no unmatched message.
 */
#include "system/sys_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compute/compute.h"
#include "core/alloc.h"
#include "core/invariant.h"
#include "core/peq.h"

/* ---- keys and failure ---------------------------------------------------- */

uint64_t css_key(cs_system *s, uint32_t rank) {
    uint64_t k;
    if (cs_eventq_dispatching(s->q, &k)) return k; /* inherit the cause's key */
    if (s->p.next_key) return s->p.next_key(s->p.key_ud, rank);
    return ((uint64_t)rank << 32) | s->ranks[rank].key_counter++;
}

void css_par_unsafe(cs_system *s, const char *why) {
    pthread_mutex_lock(&s->inst_mu);
    if (!s->par_unsafe) {
        s->par_unsafe = 1;
        snprintf(s->par_why, sizeof s->par_why, "%s", why);
    }
    pthread_mutex_unlock(&s->inst_mu);
    css_fail(s, CS_EUNSUPPORTED);
}

const char *cs_system_parallel_why(const cs_system *s) { return s->par_unsafe ? s->par_why : NULL; }

/* Messages: the pool, or with a parallel queue the running partition's
 * free list (a message is made in the sender's partition and freed in the
 * receiver's, onto the receiver's list; slabs are freed with the system).
 * Each message of a slab has a cache line of its own: neighbours end up in
 * different partitions. */
#define PMSG_SLAB 256
#define PMSG_LINE 64
_Static_assert(sizeof(cs_msg) <= PMSG_LINE, "a message fits a cache line");
static inline cs_msg *msg_get(cs_system *s) {
    if (__builtin_expect(!s->par, 1)) return cs_pool_get(s->msg_pool);
    union css_pmsg *p = &s->pmsgs[css_part(s)];
    if (!p->free) {
        char *slab = cs_malloc((PMSG_SLAB + 1) * PMSG_LINE);
        CS_GROW(p->slabs, p->capslabs, p->nslabs + 1);
        p->slabs[p->nslabs++] = slab;
        char *first = (char *)(((uintptr_t)slab + PMSG_LINE - 1) & ~(uintptr_t)(PMSG_LINE - 1));
        for (size_t i = 0; i < PMSG_SLAB; i++) {
            cs_msg *m = (cs_msg *)(void *)(first + i * PMSG_LINE);
            m->next = p->free;
            p->free = m;
        }
    }
    cs_msg *m = p->free;
    p->free = m->next;
    return m;
}
static inline void msg_put(cs_system *s, cs_msg *m) {
    if (__builtin_expect(!s->par, 1)) {
        cs_pool_put(s->msg_pool, m);
        return;
    }
    union css_pmsg *p = &s->pmsgs[css_part(s)];
    m->next = p->free;
    p->free = m;
}

/* The run fails with rc (the first failure's code stays); 1 when this call
 * set it (then the caller may write the message). */
static int fail_first(cs_system *s, int rc) {
    int none = 0;
    int first = atomic_compare_exchange_strong(&s->failed, &none, rc ? rc : CS_EINTERNAL);
    if (s->p.fail) s->p.fail(s->p.fail_ud, s->failed);
    return first;
}

void css_fail(cs_system *s, int rc) { (void)fail_first(s, rc); }

void css_fail_msg(cs_system *s, const cs_inst *in, uint32_t member, const cs_error *cause) {
    const cs_member *mb = &in->members[member];
    int rc = cause->code ? cause->code : CS_EINTERNAL, none = 0;
    if (atomic_compare_exchange_strong(&s->failed, &none, rc)) /* the first failure's message */
        cs_error_set(s->err, rc, cause->src_file, cause->src_line,
                     "%s: node %" PRIu64 " (COMM_COLL): %s of %" PRIu64 " bytes on communicator %s: %s",
                     mb->source ? mb->source : "(trace)", mb->node_id, cs_coll_type_label(in->comm_type), in->bytes,
                     in->grp->name, cause->msg);
    (void)fail_first(s, rc);
}

uint32_t css_inst_rank(const cs_inst *in, uint32_t member) {
    return in->grp->whole ? member : in->grp->ranks[member];
}

/* ---- communicators --------------------------------------------------------- */

static int cmp_pair(const void *a, const void *b) {
    const uint32_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

static int group_init(cs_system *s, cs_group *g, const cs_comm_group *cg, cs_error *err) {
    g->id = cg->id;
    g->n = cg->nranks;
    g->name = cg->name;
    g->ranks = cg->ranks;
    g->whole = (uint64_t)cg->nranks == s->total_npus;
    g->by_rank = cs_malloc(2 * (size_t)g->n * sizeof *g->by_rank);
    for (uint32_t i = 0; i < g->n; i++) {
        g->by_rank[2 * i] = cg->ranks[i];
        g->by_rank[2 * i + 1] = i;
    }
    qsort(g->by_rank, g->n, 2 * sizeof *g->by_rank, cmp_pair);
    for (uint32_t i = 0; i + 1 < g->n; i++)
        if (g->by_rank[2 * i] == g->by_rank[2 * i + 2])
            return CS_ERR(err, CS_EINVAL, "communicator group \"%s\": rank %u listed twice", g->name,
                          g->by_rank[2 * i]);
    g->next_seq = cs_calloc(g->whole ? s->nlocal : g->n, sizeof *g->next_seq);
    return CS_OK;
}

/* Member index of rank in g, or UINT32_MAX when it is not a member. */
static uint32_t group_member(const cs_group *g, uint32_t rank) {
    if (g->whole) return rank;
    size_t lo = 0, hi = g->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->by_rank[2 * mid] < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < g->n && g->by_rank[2 * lo] == rank) return g->by_rank[2 * lo + 1];
    return UINT32_MAX;
}

/* ---- creation ---------------------------------------------------------------- */

#define INST_BUCKETS 4096

size_t cs_system_rank_bytes(int ndims) {
    return (size_t)(ndims > 0 ? ndims : 1) * sizeof(cs_rankq) + sizeof(cs_rank_sys) + sizeof(uint32_t);
}

int cs_system_new(cs_eventq *q, cs_net *net, uint32_t nranks, const cs_system_params *p,
                  cs_system **out, cs_error *err) {
    *out = NULL;
    if (!p || !p->network)
        return CS_ERR(err, CS_EINTERNAL, "system layer: no network configuration given");
    cs_system *s = cs_calloc(1, sizeof *s);
    s->q = q;
    s->net = net;
    s->err = err;
    s->nranks = nranks;
    s->rep = p->representative != 0;
    s->nlocal = s->rep && !p->axes ? 1 : nranks;
    s->p = *p;
    if (p->config)
        s->cfg = *p->config; /* shallow: strings stay the caller's */
    else
        cs_system_config_defaults(&s->cfg); /* owned: freed in cs_system_free */
    s->netcfg = p->network;
    s->total_npus = p->network->total_npus;
    s->ndims = p->network->ndims;
    uint64_t stride = 1;
    for (int d = 0; d < s->ndims; d++) {
        s->stride[d] = stride;
        stride *= p->network->npus[d];
    }
    double scale = p->injection_scale > 0 ? p->injection_scale : 1.0;
    /* ASTRA-sim: communication_delay = (int)(endpoint-delay * injection-scale) */
    double delay = (double)s->cfg.endpoint_delay_ns * scale;
    s->endpoint_delay_ns = delay < 2147483648.0 ? (uint64_t)(int)delay : 0; /* else refused below */
    s->local_mem_bw = s->cfg.local_mem_bw_gbps * 1000000000.0;
    s->queue_threshold = s->cfg.active_chunks_per_dimension > 0 ? (uint32_t)s->cfg.active_chunks_per_dimension : 1;
    s->nqueues = s->ndims > 0 ? s->ndims : 1;
    s->queues = cs_calloc((size_t)(s->nlocal ? s->nlocal : 1) * (size_t)s->nqueues, sizeof *s->queues);
    /* (cs_system_rank_bytes counts these three per-rank arrays) */
    s->per_comm = s->cfg.per_comm_queues;
    s->ranks = cs_calloc(s->nlocal ? s->nlocal : 1, sizeof *s->ranks);
    s->all.id = 0;
    s->all.n = nranks;
    s->all.whole = 1;
    s->all.name = "0";
    s->all.next_seq = cs_calloc(s->nlocal ? s->nlocal : 1, sizeof *s->all.next_seq);
    s->ninst_buckets = INST_BUCKETS;
    s->inst = cs_calloc(s->ninst_buckets, sizeof *s->inst);
    s->msg_pool = cs_pool_new(sizeof(cs_msg));
    s->bundle_pool = cs_pool_new(sizeof(cs_bundle));
    pthread_mutex_init(&s->inst_mu, NULL);
    s->npart = cs_eventq_nparts(q);
    s->par = cs_eventq_parallel(q) != NULL;
    s->pcq = cs_calloc(s->npart, sizeof *s->pcq);
    if (s->par) {
        s->pstats = cs_calloc(s->npart, sizeof *s->pstats);
        s->bundle_pools = cs_calloc(s->npart, sizeof *s->bundle_pools);
        for (uint32_t i = 0; i < s->npart; i++) s->bundle_pools[i] = cs_pool_new(sizeof(cs_bundle));
        s->pmsgs = cs_calloc(s->npart, sizeof *s->pmsgs);
        s->pcheck = cs_calloc(s->npart, sizeof *s->pcheck);
        cs_peq_set_barrier(cs_eventq_parallel(q), css_par_barrier, s);
    } else {
        s->bundle_pools = &s->bundle_pool;
    }
    css_themis_init(s);
    if (s->rep) css_sym_init(s);
    int rc = CS_OK;
    if (!(delay < 2147483648.0)) /* the (int) would be undefined */
        rc = CS_ERR(err, CS_EINVAL,
                    "%s: endpoint-delay x injection-scale = %d ns x %g = %.4g ns: expected at most 2147483647 ns "
                    "(ASTRA-sim keeps it in an int)",
                    s->cfg.path ? s->cfg.path : "system configuration", s->cfg.endpoint_delay_ns, scale, delay);
    if (rc == CS_OK && p->groups && p->groups->ngroups) {
        rc = cs_comm_groups_validate(p->groups, s->total_npus, err);
        if (rc == CS_OK) {
            s->ngroups = p->groups->ngroups;
            s->groups = cs_calloc(s->ngroups, sizeof *s->groups);
            for (size_t i = 0; i < s->ngroups && rc == CS_OK; i++)
                rc = group_init(s, &s->groups[i], &p->groups->groups[i], err);
        }
    }
    if (rc) {
        cs_system_free(s);
        return rc;
    }
    *out = s;
    return CS_OK;
}

static void free_inst(cs_inst *in) {
    for (uint64_t i = 0; in->streams && i < (uint64_t)inst_nmembers(in) * in->nchunks; i++) {
        cs_msg *m = in->streams[i].early;
        while (m) {
            cs_msg *nx = m->next;
            msg_put(in->sys, m);
            m = nx;
        }
    }
    cs_free(in->phase_begin);
    cs_free(in->phase_counts);
    cs_free(in->phase_times);
    cs_free(in->phase_counts2);
    for (size_t i = 0; i < in->nscratch; i++) cs_free(in->scratch[i]);
    cs_free(in->scratch);
    cs_free(in->phases);
    cs_free(in->members);
    cs_free(in->mbytes);
    cs_free(in->streams);
    cs_free(in->plive);
    cs_free(in);
}

void cs_system_free(cs_system *s) {
    if (!s) return;
    for (size_t b = 0; s->inst && b < s->ninst_buckets; b++) {
        cs_inst *i = s->inst[b];
        while (i) {
            cs_inst *n = i->hnext;
            free_inst(i);
            i = n;
        }
    }
    for (size_t i = 0; i < s->ngroups; i++) {
        cs_free(s->groups[i].by_rank);
        cs_free(s->groups[i].next_seq);
    }
    cs_free(s->groups);
    cs_free(s->all.next_seq);
    cs_free(s->nccl_memo);
    cs_free(s->inst);
    cs_free(s->queues);
    for (uint32_t p = 0; s->pcq && p < s->npart; p++) {
        for (size_t i = 0; i < s->pcq[p].cap; i++) cs_free(s->pcq[p].e[i].Q);
        cs_free(s->pcq[p].e);
    }
    cs_free(s->pcq);
    cs_free(s->ranks);
    cs_pool_free(s->msg_pool);
    cs_pool_free(s->bundle_pool);
    if (s->par) {
        for (uint32_t i = 0; i < s->npart; i++) cs_pool_free(s->bundle_pools[i]);
        for (uint32_t i = 0; i < s->npart; i++) {
            for (size_t k = 0; k < s->pmsgs[i].nslabs; k++) cs_free(s->pmsgs[i].slabs[k]);
            cs_free(s->pmsgs[i].slabs);
        }
        cs_free(s->pmsgs);
        for (uint32_t i = 0; i < s->npart; i++) cs_free(s->pcheck[i].v);
        cs_free(s->pcheck);
        cs_free(s->pfree);
        cs_free(s->bundle_pools);
        cs_free(s->pstats);
    }
    pthread_mutex_destroy(&s->inst_mu);
    css_sym_free(s);
    if (!s->p.config) cs_system_config_free(&s->cfg);
    cs_free(s);
}

int cs_system_take_seq(cs_system *s, uint32_t rank, const char *pg_name, uint32_t *group_id, uint64_t *seq,
                       cs_error *err) {
    cs_group *g = &s->all;
    const cs_comm_group *cg = NULL;
    if (pg_name && pg_name[0]) {
        int rc = cs_comm_groups_resolve(s->p.groups, pg_name, &cg, err);
        if (rc) return rc;
        if (cg) g = &s->groups[cg - s->p.groups->groups];
    }
    uint32_t m = group_member(g, rank);
    if (m == UINT32_MAX)
        return CS_ERR(err, CS_EINVAL, "rank %u is not in communicator group \"%s\" (%s); expected the group to list "
                      "rank %u", rank, g->name, s->p.groups && s->p.groups->path ? s->p.groups->path : "comm groups",
                      rank);
    *group_id = g->id;
    *seq = g->next_seq[m]++;
    return CS_OK;
}

void cs_system_report(cs_system *s, const cs_coll_record *rec) {
    if (s->p.observer && s->p.observer->coll_done) s->p.observer->coll_done(s->p.observer->ud, rec);
}

const cs_system_stats *cs_system_get_stats(const cs_system *s) { return &s->stats; }

void cs_system_collect_stats(cs_system *s) {
    if (!s->par) return;
    for (uint32_t i = 0; i < s->npart; i++) {
        cs_system_stats *p = &s->pstats[i].st;
        s->stats.messages += p->messages;
        s->stats.bytes_sent += p->bytes_sent;
        s->stats.bytes_recv += p->bytes_recv;
        s->stats.reductions += p->reductions;
        s->stats.collectives += p->collectives;
        memset(p, 0, sizeof *p);
    }
}

/* ---- instances ---------------------------------------------------------------- */

static size_t inst_bucket(const cs_system *s, uint32_t group, uint64_t seq) {
    uint64_t x = ((uint64_t)group << 40) ^ seq;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)(x % s->ninst_buckets);
}

static cs_inst *find_inst(cs_system *s, cs_group *g, uint64_t seq) {
    for (cs_inst *i = s->inst[inst_bucket(s, g->id, seq)]; i; i = i->hnext)
        if (i->grp == g && i->seq == seq) return i;
    return NULL;
}

static void maybe_free_inst(cs_inst *in) {
    cs_system *s = in->sys;
    if (!s->par && (in->finished < in->nsim || in->live)) return; /* (parallel: css_par_barrier decided) */
#ifdef CS_INVARIANTS
    if (!s->failed) {
        CS_ALWAYS(in->inv_msg_sent == in->inv_msg_recv, "collective #%" PRIu64 " of communicator %s ends with %" PRIu64
                  " bytes sent and %" PRIu64 " delivered", in->seq, in->grp->name, in->inv_msg_sent, in->inv_msg_recv);
        for (uint64_t i = 0; in->streams && i < (uint64_t)inst_nmembers(in) * in->nchunks; i++)
            CS_ALWAYS(!in->streams[i].early, "collective #%" PRIu64 " of communicator %s ends with a message for "
                      "member %u's chunk %u that no receive took", in->seq, in->grp->name, in->streams[i].member,
                      in->streams[i].chunk);
    }
#endif
    cs_inst **pp = &s->inst[inst_bucket(s, in->grp->id, in->seq)];
    while (*pp && *pp != in) pp = &(*pp)->hnext;
    if (*pp) *pp = in->hnext;
    s->live_instances--;
    s->stats.collectives++;
    free_inst(in);
}

/* With a parallel queue several partitions hold one instance.  Each counts
 * its own holds and releases in its css_plive record (a line of its own: one
 * shared counter, written at every message by both cores, cost more than
 * the parallelism gained); the members not finished count as holds of
 * partition 0 from the start.  The sum over the partitions -- what live
 * counts in a sequential run -- is only known while no partition runs, so a
 * partition that releases an instance lists it (once per window), and at
 * the barrier css_par_barrier sums the lists' instances and frees those at
 * zero.  Nothing uses an instance after its last release (every member has
 * finished and nothing is in flight), so freeing it at the barrier rather
 * than in the release changes no result. */
static void inst_hold(cs_inst *in) {
    if (__builtin_expect(in->par, 0))
        in->plive[cs_eventq_part(in->sys->q)].n++;
    else
        in->live++;
}
/* (also a member's finish, which drops its hold: it lists the instance
 * too, so that no last drop goes unsummed) */
__attribute__((noinline)) static void inst_release_par(cs_inst *in) {
    cs_system *s = in->sys;
    uint32_t p = cs_eventq_part(s->q);
    css_plive *l = &in->plive[p];
    l->n--;
    if (!l->queued) {
        l->queued = 1;
        union css_pcheck *c = &s->pcheck[p];
        CS_GROW(c->v, c->cap, c->n + 1);
        c->v[c->n++] = in;
    }
}

/* The barrier (core/peq.h, cs_peq_set_barrier; one thread, the partitions
 * stopped): the instances released in the window, each summed once, freed
 * when nothing holds them. */
void css_par_barrier(void *ud) {
    cs_system *s = ud;
    uint64_t b = ++s->barriers;
    s->nfree = 0;
    for (uint32_t p = 0; p < s->npart; p++) {
        union css_pcheck *c = &s->pcheck[p];
        for (size_t i = 0; i < c->n; i++) {
            cs_inst *in = c->v[i];
            in->plive[p].queued = 0;
            if (in->plive_seen == b) continue; /* listed by another partition too */
            in->plive_seen = b;
            int64_t live = 0;
            for (uint32_t q = 0; q < s->npart; q++) live += in->plive[q].n;
            CS_ALWAYS(live >= 0, "collective #%" PRIu64 " of communicator %s released more often than held",
                      in->seq, in->grp->name);
            if (!live && !s->failed) { /* (a failed run's instances go with the system) */
                CS_GROW(s->pfree, s->pfree_cap, s->nfree + 1);
                s->pfree[s->nfree++] = in;
            }
        }
        c->n = 0;
    }
    for (size_t i = 0; i < s->nfree; i++) maybe_free_inst(s->pfree[i]);
}
static inline void inst_release(cs_inst *in) {
    if (__builtin_expect(in->par, 0)) {
        inst_release_par(in);
        return;
    }
    CS_ALWAYS(in->live > 0, "collective #%" PRIu64 " of communicator %s released more often than held", in->seq,
              in->grp->name);
    if (--in->live == 0 && in->finished >= in->nsim) maybe_free_inst(in);
}
void css_inst_hold(cs_inst *in) { inst_hold(in); }

uint32_t *css_inst_phase_counts(cs_inst *in) {
    if (!in->phase_counts)
        in->phase_counts = cs_calloc((size_t)in->phase_begin[in->nchunks] * in->grp->n, sizeof *in->phase_counts);
    return in->phase_counts;
}
cs_time *css_inst_phase_times(cs_inst *in) {
    if (!in->phase_times)
        in->phase_times = cs_calloc((size_t)in->phase_begin[in->nchunks] * in->grp->n, sizeof *in->phase_times);
    return in->phase_times;
}
uint32_t *css_inst_phase_counts2(cs_inst *in) {
    if (!in->phase_counts2)
        in->phase_counts2 = cs_calloc((size_t)in->phase_begin[in->nchunks] * in->grp->n, sizeof *in->phase_counts2);
    return in->phase_counts2;
}
void css_inst_release(cs_inst *in) { inst_release(in); }

void *css_inst_alloc(cs_inst *in, size_t bytes) {
    CS_GROW(in->scratch, in->capscratch, in->nscratch + 1);
    void *p = cs_calloc(1, bytes ? bytes : 1);
    in->scratch[in->nscratch++] = p;
    return p;
}

/* ---- member completion ------------------------------------------------------ */

/* Whether the phases of in's plan connect every member of its communicator
 * (so that no member can finish before all have issued): a phase over every
 * NPU or over the group, or, on the whole network, a phase in each of its
 * dimensions of more than one NPU. */
static int plan_connects_all(const cs_system *s, const cs_inst *in) {
    if (!in->nchunks) return 0;
    unsigned dims = 0;
    for (uint32_t p = in->phase_begin[0]; p < in->phase_begin[1]; p++) {
        if (in->phases[p].space == SP_GSTRIDE) return 0; /* rails: each ring a part of the members */
        if (in->phases[p].space != SP_DIM) return 1;
        dims |= 1u << in->phases[p].dim;
    }
    if (!in->grp->whole) return 0;
    for (int d = 0; d < s->ndims; d++)
        if (s->netcfg->npus[d] > 1 && !(dims >> d & 1u)) return 0;
    return 1;
}

static void member_finish(cs_inst *in, uint32_t m) {
    cs_system *s = in->sys;
    cs_member *mb = &in->members[m];
    CS_ALWAYS(cs_eventq_owns(s->q, css_inst_rank(in, m)), "parallel run: rank %u's collective finishes in another "
              "partition", css_inst_rank(in, m));
    CS_NEVER(mb->finished, "member %u of collective #%" PRIu64 " of communicator %s finishes twice", m, in->seq,
             in->grp->name);
    CS_ALWAYS(mb->issued, "member %u of collective #%" PRIu64 " of communicator %s finishes before issuing it", m,
              in->seq, in->grp->name);
    CS_ALWAYS(s->rep || __atomic_load_n(&in->arrived, __ATOMIC_RELAXED) == in->nsim || in->comm_type == CS_COLL_BROADCAST || !plan_connects_all(s, in),
              "member %u of collective #%" PRIu64 " of communicator %s finishes when %u of its %u members issued it", m,
              in->seq, in->grp->name, in->arrived, in->nsim);
    if (s->rep) css_sym_touch(s, sym_exec_token(s, css_inst_rank(in, m)), "the executor");
    mb->finished = 1;
    if (s->par) {
        __atomic_add_fetch(&in->finished, 1, __ATOMIC_RELAXED);
        inst_release_par(in); /* its hold (create_inst) */
    } else {
        in->finished++;
    }
    if (s->p.observer && s->p.observer->coll_done) {
        cs_coll_record r;
        memset(&r, 0, sizeof r);
        r.rank = css_inst_rank(in, m);
        r.node_id = mb->node_id;
        r.comm_type = in->comm_type;
        r.bytes = in->bytes;
        r.group_id = in->grp->id;
        r.nmembers = in->grp->n;
        r.seq = in->seq;
        r.chunks = in->nchunks;
        r.phases = in->nchunks ? chunk_nphases(in, 0) : 0;
        r.algorithms = in->algos;
        r.start = mb->start;
        r.end = cs_eventq_now(s->q);
        r.bytes_sent = *css_member_sent(in, m);
        r.bytes_recv = *css_member_recv(in, m);
        /* a representative's record stands for the members of this
         * communicator it mirrors: every member with one representative,
         * n / q with q (a group of q orbits of one axis, check_group_cls),
         * itself when every member is simulated (class mode, sym_q 0) */
        r.represents = !s->rep ? 1 : !s->sym.cls ? in->grp->n : in->sym_q ? in->grp->n / in->sym_q : 1;
        s->p.observer->coll_done(s->p.observer->ud, &r);
    }
    /* Last: the callback may issue the next collective from inside. */
    mb->done(mb->ctx, mb->cookie);
}

void css_member_chunk_done(cs_inst *in, uint32_t member) {
    cs_member *mb = &in->members[member];
    CS_ALWAYS(mb->chunks_done < in->nchunks, "member %u of collective #%" PRIu64 " finishes chunk %u of %u", member,
              in->seq, mb->chunks_done + 1, in->nchunks);
    if (in->sys->rep) css_sym_touch(in->sys, mb, "one collective's completion");
    if (++mb->chunks_done == in->nchunks) member_finish(in, member);
}

/* A member that completes through an event (zero phases, BARRIER, BROADCAST). */
static void finish_ev(void *ctx, const cs_event *ev) {
    cs_inst *in = ctx;
    cs_system *s = in->sys;
    if (s->rep) css_sym_tie_done(s, css_inst_rank(in, (uint32_t)ev->arg));
    if (!s->failed) member_finish(in, (uint32_t)ev->arg);
    inst_release(in);
}

static void schedule_finish(cs_inst *in, uint32_t m, cs_time t) {
    cs_system *s = in->sys;
    inst_hold(in);
    uint32_t rank = css_inst_rank(in, m);
    uint64_t key = css_key(s, rank);
    if (s->rep) css_sym_tie_add(s, rank, t, key, rank);
    cs_eventq_push(s->q, t, key, finish_ev, in, m);
}

/* ---- messages -------------------------------------------------------------------- */

static int recv_posted(const cs_stream *st, const cs_msg *m) {
    if (st->state != ST_RUNNING || st->phase != m->phase) return 0;
    const cs_coll_algo *a = css_phase_algo(stream_phase(st));
    return a->recv_posted ? a->recv_posted(st, m->k) : 0;
}

static void deliver(cs_system *s, cs_msg *m) {
    cs_inst *in = m->inst;
    cs_stream *st = inst_stream(in, m->dst_member, m->chunk);
    CS_ALWAYS(cs_eventq_owns(s->q, css_inst_rank(in, m->dst_member)), "parallel run: rank %u's stream gets a message "
              "in another partition", css_inst_rank(in, m->dst_member));
    CS_ALWAYS(st->state == ST_RUNNING && st->phase == m->phase, "member %u's chunk %u of collective #%" PRIu64
              " gets message %u of phase %u in phase %u (state %d)", m->dst_member, m->chunk, in->seq, m->k, m->phase,
              st->phase, st->state);
#ifdef CS_INVARIANTS
    __atomic_add_fetch(&in->inv_msg_recv, m->bytes, __ATOMIC_RELAXED);
#endif
    *css_member_recv(in, m->dst_member) += m->bytes;
    CSS_STATS(s)->bytes_recv += m->bytes;
    uint32_t k = m->k;
    msg_put(s, m);
    const cs_coll_algo *a = css_phase_algo(stream_phase(st));
    if (a->received)
        a->received(s, st, k);
    else
        a->run(s, st, EV_RECV);
}

static void msg_arrived(void *ctx, uint64_t cookie) {
    cs_system *s = ctx;
    cs_msg *m = (cs_msg *)(uintptr_t)cookie;
    cs_inst *in = m->inst;
    if (s->rep) css_sym_tie_done(s, css_inst_rank(in, m->dst_member));
    if (s->failed) {
        msg_put(s, m);
        inst_release(in);
        return;
    }
    if (m->src_k != UINT32_MAX) { /* css_send_notify: the send is complete on arrival */
        cs_stream *from = inst_stream(in, m->src_member, m->chunk);
        CS_ALWAYS(from->state == ST_RUNNING && from->phase == m->phase, "member %u's chunk %u of collective #%"
                  PRIu64 ": its message %u of phase %u arrives after the sender left the phase", m->src_member,
                  m->chunk, in->seq, m->k, m->phase);
        uint32_t src_k = m->src_k;
        m->src_k = UINT32_MAX;
        css_phase_algo(stream_phase(from))->arrived(s, from, src_k);
        if (s->failed) {
            msg_put(s, m);
            inst_release(in);
            return;
        }
    }
    cs_stream *st = inst_stream(in, m->dst_member, m->chunk);
    if (s->rep) css_sym_touch(s, st, "one stream");
    CS_NEVER(st->state == ST_DONE || (st->state != ST_IDLE && st->phase > m->phase),
             "member %u's chunk %u of collective #%" PRIu64 " gets message %u of phase %u after leaving that phase "
             "(now in phase %u, state %d): it would never be received", m->dst_member, m->chunk, in->seq, m->k,
             m->phase, st->phase, st->state);
    if (recv_posted(st, m)) {
        deliver(s, m);
        inst_release(in);
    } else {
        m->next = st->early; /* keeps its reference on the instance */
        st->early = m;
    }
}

static void early_ev(void *ctx, const cs_event *ev) {
    (void)ev;
    cs_msg *m = ctx;
    cs_inst *in = m->inst;
    cs_system *s = in->sys;
    if (s->rep) css_sym_tie_done(s, css_inst_rank(in, m->dst_member));
    if (s->failed)
        msg_put(s, m);
    else
        deliver(s, m);
    inst_release(in);
}

void css_post_recv(cs_stream *st, uint32_t k) {
    for (cs_msg **pp = &st->early; *pp; pp = &(*pp)->next) {
        cs_msg *m = *pp;
        if (m->phase == st->phase && m->k == k) {
            *pp = m->next;
            cs_inst *in = st->inst;
            cs_system *s = in->sys;
            uint32_t rank = css_inst_rank(in, m->dst_member);
            uint64_t key = css_key(s, rank);
            if (s->rep) css_sym_tie_add(s, rank, cs_eventq_now(s->q), key, rank);
            cs_eventq_push(s->q, cs_eventq_now(s->q), key, early_ev, m, 0);
            return;
        }
    }
}

/* Put message k of stream st for dst_member on the network, src -> dst,
 * with event key `key`. */
static void net_msg(cs_stream *st, uint32_t dst_member, uint32_t src, uint32_t dst, uint64_t bytes,
                    uint32_t k, uint64_t key, uint32_t src_k) {
    cs_inst *in = st->inst;
    cs_system *s = in->sys;
    cs_msg *m = msg_get(s);
    m->inst = in;
    m->next = NULL;
    m->dst_member = dst_member;
    m->chunk = stream_chunk(st);
    m->k = k;
    m->phase = st->phase;
    m->bytes = bytes;
    m->src_member = stream_member(st);
    m->src_k = src_k;
    inst_hold(in);
    *css_member_sent(in, stream_member(st)) += bytes;
    cs_system_stats *ps = CSS_STATS(s);
    ps->messages++;
    ps->bytes_sent += bytes;
    cs_error e;
    cs_error_clear(&e);
    cs_net_msg nm = {.src = src, .dst = dst, .bytes = bytes, .key = key, .done = msg_arrived, .ctx = s,
                     .cookie = (uint64_t)(uintptr_t)m, .channels = in->nccl_net_channels};
    int rc = cs_net_send(s->net, &nm, &e);
    if (rc) {
        msg_put(s, m);
        if (s->par)
            inst_release_par(in); /* (frees only at a barrier: in stays valid for the message below) */
        else
            in->live--;           /* (not inst_release: in must outlive css_fail_msg) */
        css_fail_msg(s, in, stream_member(st), &e);
    }
#ifdef CS_INVARIANTS
    else
        __atomic_add_fetch(&in->inv_msg_sent, bytes, __ATOMIC_RELAXED);
#endif
}

/* A mirrored message's arrival from -> to: *t (0), or the run stopped (-1)
 * when it takes no time (it would arrive in the instant it is sent, in an
 * order other ranks decide). */
static int sym_arrival(cs_system *s, uint32_t from, uint32_t to, uint64_t bytes, cs_time *t) {
    cs_time now = cs_eventq_now(s->q);
    *t = cs_time_add(now, cs_net_uncontended_time(s->net, from, to, bytes));
    if (*t != now) return 0;
    css_sym_break(s, "a message of %" PRIu64 " bytes from rank %u to rank %u takes no time: it "
              "arrives in the instant it is sent, in an order other ranks decide", bytes, from, to);
    return -1;
}

/* Representative mode: rank 0's send k stands for the message rank 0
 * receives as its receive k, from the member at src_idx (symmetry.c). */
static void rep_send(cs_stream *st, uint32_t src_idx, uint64_t bytes, uint32_t k) {
    cs_inst *in = st->inst;
    cs_system *s = in->sys;
    uint32_t me = stream_member(st);
    if (src_idx == UINT32_MAX) {
        css_sym_break(s, "an algorithm whose receives do not mirror its sends");
        return;
    }
    const cs_phase *ph = stream_phase(st);
    uint32_t src = css_inst_rank(in, css_topo_member(st, ph, src_idx)), dst = css_inst_rank(in, me);
    cs_time t;
    if (sym_arrival(s, src, dst, bytes, &t)) return;
    uint64_t key = css_sym_key(s, ph, src, css_key(s, dst));
    css_sym_tie_add(s, dst, t, key, src);
    net_msg(st, me, src, dst, bytes, k, key, UINT32_MAX);
}

/* Class mode, a group of q > 1 representatives (symmetry.c, check_group_cls):
 * the message src -> dst (dst not simulated) of this (phase, k) is, moved
 * back by dst's coordinate on the phase's axis, the message the
 * representative of dst (member dst_member mod q) receives in the full run
 * with that (phase, k), from src moved back the same way, at this instant
 * (src and its image are in one class), timed between the images and keyed
 * with src's key moved back. */
static void sym_redirect(cs_stream *st, uint32_t dst_member, uint32_t src, uint32_t dst, uint64_t bytes, uint32_t k) {
    cs_inst *in = st->inst;
    cs_system *s = in->sys;
    const cs_phase *ph = stream_phase(st);
    uint32_t rm = dst_member % in->sym_q, rep = css_inst_rank(in, rm);
    uint32_t from = css_sym_back(s, ph, dst, src);
    cs_time t;
    if (sym_arrival(s, from, rep, bytes, &t)) return;
    uint64_t key = css_key(s, src), r = key >> 32;
    key = ((uint64_t)css_sym_back(s, ph, dst, (uint32_t)r) << 32) | (key & 0xffffffffu);
    css_sym_tie_add(s, rep, t, key, from);
    net_msg(st, rm, from, rep, bytes, k, key, UINT32_MAX);
}

void css_send(cs_stream *st, uint32_t dst_member, uint32_t src_idx, uint64_t bytes, uint32_t k) {
    cs_inst *in = st->inst;
    cs_system *s = in->sys;
    uint32_t src = css_inst_rank(in, stream_member(st));
    if (s->rep) {
        uint32_t dst = css_inst_rank(in, dst_member);
        if (stream_phase(st)->axis != SYM_REAL && !css_sym_is_rep(s, dst)) {
            if (in->sym_q > 1)
                sym_redirect(st, dst_member, src, dst, bytes, k);
            else
                rep_send(st, src_idx, bytes, k); /* check_group_cls: dst is in src's class */
            return;
        }
        /* class mode: both ends are simulated, the message is real */
        uint64_t key = css_key(s, src);
        cs_time t = cs_time_add(cs_eventq_now(s->q), cs_net_uncontended_time(s->net, src, dst, bytes));
        css_sym_tie_add(s, dst, t, key, src);
        net_msg(st, dst_member, src, dst, bytes, k, key, UINT32_MAX);
        return;
    }
    uint32_t dst = css_inst_rank(in, dst_member);
    net_msg(st, dst_member, src, dst, bytes, k, css_key(s, src), UINT32_MAX);
}

void css_send_notify(cs_stream *st, uint32_t dst_member, uint64_t bytes, uint32_t k, uint32_t src_k) {
    cs_inst *in = st->inst;
    cs_system *s = in->sys;
    uint32_t src = css_inst_rank(in, stream_member(st)), dst = css_inst_rank(in, dst_member);
    net_msg(st, dst_member, src, dst, bytes, k, css_key(s, src), src_k);
}

/* ---- bundles ------------------------------------------------------------------------ */

/* A bundle's event carries the bundle in place when it fits: ctx = the
 * stream, arg = bytes | phase << 46 | processed << 62 (BUNDLE_INLINE).
 * Otherwise (bytes >= 2^46 = 64 TiB or phase >= 2^16) ctx is a pooled
 * cs_bundle.  Same events, same times and keys either way; the inline form
 * saves the pool object, which in a full simulation of thousands of ranks
 * has left the caches by the time its event fires. */
#define BUNDLE_BYTES_BITS 46
#define BUNDLE_BYTES_MAX ((UINT64_C(1) << BUNDLE_BYTES_BITS) - 1)

static void bundle_ev(void *ctx, const cs_event *ev);
static void bundle_inline_ev(void *ctx, const cs_event *ev);

static void bundle_push(cs_system *s, cs_stream *st, cs_bundle *b, uint16_t phase, int processed, uint64_t bytes,
                        cs_time t, uint64_t key) {
    if (b) {
        b->processed = (uint8_t)processed;
        cs_eventq_push(s->q, t, key, bundle_ev, b, 0);
    } else {
        cs_eventq_push(s->q, t, key, bundle_inline_ev, st,
                       bytes | (uint64_t)phase << BUNDLE_BYTES_BITS | (uint64_t)(processed != 0) << 62);
    }
}

/* The bundle (st, phase, processed, bytes; b when pooled) has passed its
 * endpoint delay or its reduction. */
static void bundle_fire(cs_system *s, cs_stream *st, cs_bundle *b, uint16_t phase, int processed, uint64_t bytes) {
    cs_inst *in = st->inst;
    uint32_t rank = css_inst_rank(in, st->member);
    CS_ALWAYS(cs_eventq_owns(s->q, rank), "parallel run: rank %u's bundle completes in another partition", rank);
    if (s->rep) css_sym_tie_done(s, rank);
    if (!s->failed && processed) {
        /* ASTRA-sim's PacketBundle: after the endpoint delay, the reduction. */
        CSS_STATS(s)->reductions++;
        cs_time t = cs_time_add(cs_eventq_now(s->q), cs_time_from_ns_sat(css_stream_reduction_ns(s, bytes)));
        if (cs_time_beyond(t)) {
            cs_error e;
            cs_error_clear(&e);
            CS_ERR(&e, CS_EINVAL,
                   "rank %u: the local reduction of %" PRIu64 " bytes (3 x bytes / local-mem-bw %g GB/s = %.4g ns) "
                   "ends beyond " CS_TIME_RANGE_TEXT,
                   rank, bytes, s->cfg.local_mem_bw_gbps, 3.0 * (double)bytes / s->local_mem_bw * 1e9);
            css_fail_msg(s, in, st->member, &e);
            return; /* (the bundle and its hold go with the failed run) */
        }
        uint64_t key = css_key(s, rank);
        if (s->rep) css_sym_tie_add(s, rank, t, key, rank);
        bundle_push(s, st, b, phase, 0, bytes, t, key);
        return;
    }
    if (s->rep) css_sym_touch(s, st, "one stream");
    if (b) cs_pool_put(CSS_BUNDLE_POOL(s), b);
    CS_ALWAYS(s->failed || (st->state == ST_RUNNING && st->phase == phase), "member %u's chunk %u of collective #%" PRIu64
              ": a bundle of phase %u completes in phase %u (state %d)", stream_member(st), stream_chunk(st), in->seq,
              phase, st->phase, st->state);
    if (!s->failed && st->state == ST_RUNNING && st->phase == phase) {
        css_phase_algo(stream_phase(st))->run(s, st, EV_GENERAL);
    }
    inst_release(in);
}

static void bundle_ev(void *ctx, const cs_event *ev) {
    (void)ev;
    cs_bundle *b = ctx;
    cs_inst *in = b->inst;
    bundle_fire(in->sys, inst_stream(in, b->member, b->chunk), b, b->phase, b->processed, b->bytes);
}

static void bundle_inline_ev(void *ctx, const cs_event *ev) {
    cs_stream *st = ctx;
    uint64_t a = ev->arg;
    bundle_fire(st->inst->sys, st, NULL, (uint16_t)(a >> BUNDLE_BYTES_BITS), (int)(a >> 62 & 1),
                a & BUNDLE_BYTES_MAX);
}

void css_stream_bundle(cs_system *s, cs_stream *st, uint64_t bytes, int processed, int fast) {
    cs_inst *in = st->inst;
    int proc = processed != 0 && !in->nccl; /* nccl: reduced in the kernel, at line rate */
    inst_hold(in);
    uint64_t d = fast ? 10 : in->nccl ? in->nccl_step_ns : s->endpoint_delay_ns;
    cs_time t = cs_time_add(cs_eventq_now(s->q), cs_time_from_ns(d));
    uint32_t rank = css_inst_rank(in, stream_member(st));
    if (cs_time_beyond(t)) {
        cs_error e;
        cs_error_clear(&e);
        CS_ERR(&e, CS_EINVAL, "rank %u: the endpoint delay of %" PRIu64 " ns ends beyond " CS_TIME_RANGE_TEXT, rank, d);
        css_fail_msg(s, in, stream_member(st), &e);
        return;
    }
    cs_bundle *b = NULL;
    if (bytes > BUNDLE_BYTES_MAX) {
        b = cs_pool_get(CSS_BUNDLE_POOL(s));
        b->inst = in;
        b->member = stream_member(st);
        b->chunk = stream_chunk(st);
        b->phase = st->phase;
        b->bytes = bytes;
    }
    uint64_t key = css_key(s, rank);
    if (s->rep) css_sym_tie_add(s, rank, t, key, rank);
    bundle_push(s, st, b, st->phase, proc, bytes, t, key);
}

uint64_t css_stream_reduction_ns(const cs_system *s, uint64_t bytes) {
    /* ASTRA-sim: three truncated terms of bytes / local_mem_bw (B/s) * 1e9 ns
     * (two reads and a write); UINT64_MAX when that passes 64 bits. */
    double one = (double)bytes / s->local_mem_bw * 1e9;
    if (!(one < 6.1e18)) return UINT64_MAX; /* 3 x one would not fit (and the cast is then defined) */
    return 3 * (uint64_t)one;
}

/* ---- issuing ------------------------------------------------------------------------ */

/* collective-model nccl: the launch cost of member b->member is over; its chunks start. */
static void launch_ev(void *ctx, const cs_event *ev) {
    (void)ev;
    cs_bundle *b = ctx;
    cs_inst *in = b->inst;
    cs_system *s = in->sys;
    uint32_t m = b->member;
    cs_pool_put(CSS_BUNDLE_POOL(s), b);
    if (!s->failed)
        for (uint32_t c = 0; c < in->nchunks; c++) css_stream_proceed(s, inst_stream(in, m, c));
    inst_release(in);
}

static int coll_kind(int32_t comm_type) {
    switch (comm_type) {
    case CS_COLL_ALL_REDUCE: return CT_AR;
    case CS_COLL_ALL_GATHER: return CT_AG;
    case CS_COLL_REDUCE_SCATTER: return CT_RS;
    case CS_COLL_ALL_TO_ALL: return CT_A2A;
    default: return CT_NONE;
    }
}

static int32_t next_priority(cs_system *s, uint32_t rank, int32_t explicit_priority) {
    cs_rank_sys *r = &s->ranks[rank];
    switch (s->cfg.scheduling_policy) {
    case CS_SCHED_LIFO: return r->priority_counter++;
    case CS_SCHED_FIFO: return r->priority_counter--;
    case CS_SCHED_EXPLICIT: return explicit_priority;
    }
    return 0;
}

static cs_inst *create_inst(cs_system *s, cs_group *g, uint64_t seq, const cs_coll_req *req,
                            int ct, cs_error *err) {
    cs_inst *in = cs_calloc(1, sizeof *in);
    in->sys = s;
    in->grp = g;
    in->seq = seq;
    in->comm_type = req->comm_type;
    in->bytes = req->bytes;
    if (ct != CT_NONE && req->bytes > 0) {
        uint32_t involved = g == &s->all ? req->involved_dim : UINT32_MAX;
        int rc = css_plan_collective(s, in, ct, involved, s->ranks[req->rank].round_robin, req->source,
                                 req->node_id, err);
        if (rc) {
            cs_free(in->phase_begin);
            cs_free(in->phases);
            cs_free(in);
            return NULL;
        }
    }
    uint32_t nm = s->rep && !s->sym.cls ? 1u : g->n;
    in->nmem = nm;
    in->nsim = nm;
    if (s->sym.cls) {
        in->nsim = 0;
        for (uint32_t m = 0; m < nm; m++) in->nsim += (uint32_t)css_sym_is_rep(s, css_inst_rank(in, m));
    }
    in->par = (uint8_t)s->par;
    if (s->par) { /* the members still to finish count as holds (inst_hold) */
        in->plive = cs_calloc(s->npart, sizeof *in->plive);
        in->plive[0].n = in->nsim;
    }
    in->members = cs_calloc(nm, sizeof *in->members);
    in->mbytes = cs_calloc(2 * (size_t)nm, sizeof *in->mbytes);
    if (in->nchunks) in->streams = cs_calloc((size_t)nm * in->nchunks, sizeof *in->streams);
    for (uint32_t m = 0; m < nm; m++)
        for (uint32_t c = 0; c < in->nchunks; c++) {
            cs_stream *st = &in->streams[(uint64_t)m * in->nchunks + c];
            st->inst = in;
            st->member = m;
            st->chunk = c;
        }
    size_t b = inst_bucket(s, g->id, seq);
    in->hnext = s->inst[b];
    s->inst[b] = in;
    s->live_instances++;
    return in;
}

/* A parallel run (docs/parallel.md): what one partition cannot do without
 * touching another's state at the same instant, or in an order the
 * partitions would decide.  Nonzero: the run stops (css_par_unsafe) and
 * runs again on one thread. */
static int par_check_req(cs_system *s, const cs_coll_req *req) {
    const char *why = NULL;
    if (req->comm_type == CS_COLL_BARRIER)
        why = "BARRIER: the last member to arrive completes every member at that instant";
    else if (s->cfg.inter_dim_scheduling != CS_INTER_ASCENDING && s->cfg.inter_dim_scheduling != CS_INTER_ONLINE_GREEDY)
        why = "inter-dimension-scheduling roundRobin/offlineGreedy: the plan depends on state of the first issuer or "
              "of the whole run";
    if (!why) return 0;
    css_par_unsafe(s, why);
    return 1;
}

static int par_check_inst(cs_system *s, const cs_inst *in) {
    for (uint32_t p = 0; in->nchunks && p < in->phase_begin[in->nchunks]; p++) {
        const cs_coll_algo *a = css_phase_algo(&in->phases[p]);
        if (a == &css_algo_inswitch || a->arrived) {
            char why[160];
            snprintf(why, sizeof why, "collective implementation %s: its members share state at the switch or "
                     "learn of each other's arrivals", a->name);
            css_par_unsafe(s, why);
            return 1;
        }
    }
    return 0;
}

int cs_system_collective(cs_system *s, const cs_coll_req *req, cs_sys_done_fn done, void *ctx,
                         uint64_t cookie, cs_error *err) {
    const char *src = req->source ? req->source : "(trace)";
    int ct = coll_kind(req->comm_type);
    if (s->rep) css_sym_touch(s, sym_exec_token(s, req->rank), "the executor");
    if (ct == CT_NONE && req->comm_type != CS_COLL_BARRIER && req->comm_type != CS_COLL_BROADCAST)
        return CS_ERR(err, CS_EUNSUPPORTED,
                      "%s: node %" PRIu64 " (COMM_COLL): %s collectives are not supported (ASTRA-sim "
                      "does not simulate them either); expected ALL_REDUCE, ALL_GATHER, "
                      "REDUCE_SCATTER, ALL_TO_ALL, BROADCAST or BARRIER",
                      src, req->node_id, cs_coll_type_label(req->comm_type));
    /* communicator */
    cs_group *g = &s->all;
    const cs_comm_group *cg = NULL;
    if (req->pg_name && req->pg_name[0]) {
        cs_error e;
        cs_error_clear(&e);
        if (cs_comm_groups_resolve(s->p.groups, req->pg_name, &cg, &e) != CS_OK)
            return CS_ERR(err, CS_EINVAL, "%s: node %" PRIu64 " (COMM_COLL): %s", src, req->node_id, e.msg);
        if (cg) g = &s->groups[cg - s->p.groups->groups];
    }
    uint32_t m = group_member(g, req->rank);
    if (m == UINT32_MAX)
        return CS_ERR(err, CS_EINVAL,
                      "%s: node %" PRIu64 " (COMM_COLL): rank %u issues %s on communicator group "
                      "\"%s\" (%s), which does not contain it; expected the group to list rank %u",
                      src, req->node_id, req->rank, cs_coll_type_label(req->comm_type), g->name,
                      s->p.groups && s->p.groups->path ? s->p.groups->path : "comm groups", req->rank);
    if (s->rep && s->sym.cls && req->comm_type == CS_COLL_BARRIER) {
        css_sym_break(s, "%s: node %" PRIu64 ": BARRIER completes every member when the last one "
                  "arrives, in events of that member", src, req->node_id);
        return CS_EUNSUPPORTED;
    }
    if (s->rep && !s->sym.cls && (!g->whole || req->comm_type == CS_COLL_BARRIER || m != 0)) {
        if (!g->whole)
            css_sym_break(s, "%s: node %" PRIu64 ": communicator group \"%s\" has %u of %u ranks: ranks "
                      "outside it do something else", src, req->node_id, g->name, g->n, s->nranks);
        else if (m != 0)
            css_sym_break(s, "rank %u issues a collective: only rank 0 runs", req->rank);
        else
            css_sym_break(s, "%s: node %" PRIu64 ": BARRIER completes every member when the last one "
                      "arrives, in events of that member", src, req->node_id);
        return CS_EUNSUPPORTED;
    }
    if (s->par && par_check_req(s, req)) return CS_EUNSUPPORTED;
    uint64_t seq = g->next_seq[m]++;
    if (s->par) pthread_mutex_lock(&s->inst_mu);
    cs_inst *in = find_inst(s, g, seq);
    if (!in) {
        in = create_inst(s, g, seq, req, ct, err);
        if (s->par) {
            pthread_mutex_unlock(&s->inst_mu);
            if (in && par_check_inst(s, in)) return CS_EUNSUPPORTED;
        }
        if (!in) return err ? err->code : CS_EINVAL;
        if (s->rep && css_sym_check_inst(s, in, req->rank)) return CS_EUNSUPPORTED;
    } else if (in->comm_type != req->comm_type || in->bytes != req->bytes) {
        if (s->par) pthread_mutex_unlock(&s->inst_mu);
        return CS_ERR(err, CS_EINVAL,
                      "%s: rank %u node %" PRIu64 ": collective #%" PRIu64
                      " of communicator %s is %s of %" PRIu64
                      " bytes here but %s of %" PRIu64
                      " bytes on another rank (collectives are matched by issue order within "
                      "a communicator; expected every member to issue the same sequence)",
                      src, req->rank, req->node_id, seq, g->name, cs_coll_type_label(req->comm_type),
                      req->bytes, cs_coll_type_label(in->comm_type), in->bytes);
    } else if (s->par) {
        pthread_mutex_unlock(&s->inst_mu);
    }
    cs_member *mb = &in->members[m];
    mb->done = done;
    mb->ctx = ctx;
    mb->cookie = cookie;
    mb->node_id = req->node_id;
    mb->source = req->source;
    mb->start = cs_eventq_now(s->q);
    mb->issued = 1;
    if (s->par)
        __atomic_add_fetch(&in->arrived, 1, __ATOMIC_RELAXED);
    else
        in->arrived++;
    cs_time now = cs_eventq_now(s->q);
    if (req->comm_type == CS_COLL_BROADCAST) {
        /* ASTRA-sim replays broadcasts from their recorded duration. */
        cs_time t = cs_time_add(now, cs_compute_replay_time(req->duration_us));
        if (cs_time_beyond(t))
            return CS_ERR(err, CS_EINVAL,
                          "%s: node %" PRIu64 " (COMM_COLL): BROADCAST replayed for %" PRIu64 " us from %.3f us ends "
                          "beyond " CS_TIME_RANGE_TEXT, src, req->node_id, req->duration_us, cs_time_as_us_f(now));
        schedule_finish(in, m, t);
        return CS_OK;
    }
    if (req->comm_type == CS_COLL_BARRIER) {
        if (in->arrived == in->nsim)
            for (uint32_t k = 0; k < inst_nmembers(in); k++) schedule_finish(in, k, now);
        return CS_OK;
    }
    if (req->bytes > 0) /* ASTRA-sim takes a priority for every planned collective */
        mb->priority = next_priority(s, req->rank, req->priority);
    if (in->nchunks == 0) { /* nothing to move: 0 bytes, or no dimension involved */
        schedule_finish(in, m, now);
        return CS_OK;
    }
    cs_rank_sys *rs = &s->ranks[req->rank];
    rs->round_robin += in->nchunks;
    if (in->nccl && in->nccl_launch_ns > 0) { /* the streams start after the launch cost */
        cs_bundle *b = cs_pool_get(CSS_BUNDLE_POOL(s));
        memset(b, 0, sizeof *b);
        b->inst = in;
        b->member = m;
        inst_hold(in);
        cs_eventq_push(s->q, cs_time_add(now, cs_time_from_ns(in->nccl_launch_ns)), css_key(s, req->rank), launch_ev,
                       b, 0);
        return CS_OK;
    }
    inst_hold(in); /* the streams may start sending below */
    for (uint32_t c = 0; c < in->nchunks; c++) css_stream_proceed(s, inst_stream(in, m, c));
    inst_release(in);
    return s->failed ? s->failed : CS_OK;
}
