/*
 * coll_agg.c -- collective instances from per-rank records (see coll_agg.h):
 * a hash of the instances in flight keyed by (communicator id, size, issue
 * number), a small buffer of the instances completed at the current instant
 * (sorted before they are emitted), and per-type totals.
 */
#include "scenario/coll_agg.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "system/coll_type.h"

#define NTYPES 11 /* CS_COLL_* 0..9, then "other" */

typedef struct agg_inst {
    struct agg_inst *hnext;
    uint32_t group_id, nmembers;
    uint64_t seq;
    int32_t comm_type;
    uint32_t chunks, phases;
    uint64_t bytes;
    uint64_t records;          /* members accounted for */
    cs_time start, end;
    uint64_t bytes_sent, bytes_recv;
    char algos[64];
} agg_inst;

struct cs_coll_agg {
    agg_inst **bucket;
    size_t nbuckets, live;
    agg_inst **pending;        /* completed at pending_t, not yet written */
    size_t npending, cap_pending;
    cs_time pending_t;
    uint64_t emitted;
    int finished;
    const cs_comm_groups *groups;
    cs_coll_type_stats types[NTYPES];
    cs_coll_row_fn hook;
    void *hook_ud;
    char namebuf[16];
};

/* ---- conventions ------------------------------------------------------------- */

uint64_t cs_coll_data_bytes(int32_t comm_type, uint64_t comm_size, uint32_t nranks) {
    if (comm_type != CS_COLL_ALL_GATHER) return comm_size;
    /* ASTRA-sim's all-gather comm_size is one rank's part; the gathered buffer is n times it */
    uint64_t n = nranks ? nranks : 1;
    return comm_size > UINT64_MAX / n ? UINT64_MAX : comm_size * n;
}

double cs_coll_busbw_factor(int32_t comm_type, uint32_t nranks) {
    double n = nranks ? (double)nranks : 1.0;
    switch (comm_type) {
    case CS_COLL_ALL_REDUCE: return 2.0 * (n - 1.0) / n;
    case CS_COLL_ALL_GATHER:
    case CS_COLL_REDUCE_SCATTER:
    case CS_COLL_ALL_TO_ALL: return (n - 1.0) / n;
    default: return 1.0;
    }
}

/* ---- creation --------------------------------------------------------------- */

cs_coll_agg *cs_coll_agg_new(const cs_comm_groups *groups) {
    cs_coll_agg *a = cs_calloc(1, sizeof *a);
    a->nbuckets = 1024;
    a->bucket = cs_calloc(a->nbuckets, sizeof *a->bucket);
    a->groups = groups;
    for (int t = 0; t < NTYPES; t++) a->types[t].comm_type = t;
    return a;
}

void cs_coll_agg_free(cs_coll_agg *a) {
    if (!a) return;
    for (size_t b = 0; b < a->nbuckets; b++)
        for (agg_inst *i = a->bucket[b], *n; i; i = n) {
            n = i->hnext;
            cs_free(i);
        }
    for (size_t k = 0; k < a->npending; k++) cs_free(a->pending[k]);
    cs_free(a->pending);
    cs_free(a->bucket);
    cs_free(a);
}

cs_coll_observer cs_coll_agg_observer(cs_coll_agg *a) {
    cs_coll_observer o = {cs_coll_agg_record, a};
    return o;
}

void cs_coll_agg_set_row_hook(cs_coll_agg *a, cs_coll_row_fn hook, void *ud) {
    a->hook = hook;
    a->hook_ud = ud;
}

/* ---- the hash ----------------------------------------------------------------- */

static size_t hash_key(uint32_t group, uint32_t n, uint64_t seq, size_t nbuckets) {
    uint64_t x = ((uint64_t)group << 32 | n) * 0x9e3779b97f4a7c15ULL ^ seq;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)(x & (nbuckets - 1));
}

static void rehash(cs_coll_agg *a) {
    size_t nb = a->nbuckets * 2;
    agg_inst **b = cs_calloc(nb, sizeof *b);
    for (size_t k = 0; k < a->nbuckets; k++)
        for (agg_inst *i = a->bucket[k], *n; i; i = n) {
            n = i->hnext;
            size_t h = hash_key(i->group_id, i->nmembers, i->seq, nb);
            i->hnext = b[h];
            b[h] = i;
        }
    cs_free(a->bucket);
    a->bucket = b;
    a->nbuckets = nb;
}

static void unlink_inst(cs_coll_agg *a, agg_inst *in) {
    agg_inst **pp = &a->bucket[hash_key(in->group_id, in->nmembers, in->seq, a->nbuckets)];
    while (*pp && *pp != in) pp = &(*pp)->hnext;
    if (*pp) *pp = in->hnext;
    a->live--;
}

/* ---- emission ----------------------------------------------------------------- */

static int cmp_inst(const void *x, const void *y) {
    const agg_inst *a = *(agg_inst *const *)x, *b = *(agg_inst *const *)y;
    if (a->end != b->end) return a->end < b->end ? -1 : 1;
    if (a->group_id != b->group_id) return a->group_id < b->group_id ? -1 : 1;
    if (a->nmembers != b->nmembers) return a->nmembers < b->nmembers ? -1 : 1;
    if (a->seq != b->seq) return a->seq < b->seq ? -1 : 1;
    return 0;
}

static const cs_comm_group *group_by_id(const cs_comm_groups *g, uint32_t id) {
    if (!g) return NULL;
    size_t lo = 0, hi = g->ngroups;
    while (lo < hi) { /* sorted by id */
        size_t mid = lo + (hi - lo) / 2;
        if (g->groups[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->ngroups && g->groups[lo].id == id ? &g->groups[lo] : NULL;
}

/* "all" for the default communicator, else the comm-group file's name.  Id 0
 * is both the default communicator and a file group "0" (pg_name "0" when the
 * file defines it); the size tells them apart unless group "0" lists every
 * NPU, which then behaves like the default communicator anyway. */
static const char *comm_name(cs_coll_agg *a, uint32_t id, uint32_t n) {
    const cs_comm_group *g = group_by_id(a->groups, id);
    if (g && (id != 0 || g->nranks == n)) return g->name;
    if (id == 0) return "all";
    snprintf(a->namebuf, sizeof a->namebuf, "%u", id);
    return a->namebuf;
}

static void emit(cs_coll_agg *a, agg_inst *in) {
    cs_coll_row w;
    memset(&w, 0, sizeof w);
    w.index = a->emitted++;
    w.comm_type = in->comm_type;
    w.comm_size = in->bytes;
    w.data_bytes = cs_coll_data_bytes(in->comm_type, in->bytes, in->nmembers);
    w.group_id = in->group_id;
    w.nranks = in->nmembers;
    w.communicator = comm_name(a, in->group_id, in->nmembers);
    w.seq = in->seq;
    w.start = in->start;
    w.end = in->end;
    cs_time dur = in->end - in->start;
    if (dur > 0) { /* bytes per ns = GB/s (1e9 bytes/s) */
        w.algbw_gbps = (double)w.data_bytes / cs_time_as_ns_f(dur);
        w.busbw_gbps = w.algbw_gbps * cs_coll_busbw_factor(in->comm_type, in->nmembers);
    }
    w.chunks = in->chunks;
    w.phases = in->phases;
    w.algorithms = in->algos;
    w.bytes_sent = in->bytes_sent;
    w.bytes_recv = in->bytes_recv;
    w.member_records = in->records;
    cs_coll_type_stats *t = &a->types[in->comm_type >= 0 && in->comm_type < NTYPES - 1 ? in->comm_type : NTYPES - 1];
    t->count++;
    t->bytes += in->bytes;
    if (in->bytes && dur > 0) {
        t->timed++;
        t->busbw_sum_gbps += w.busbw_gbps;
    }
    if (a->hook) a->hook(a->hook_ud, &w);
    cs_free(in);
}

static void flush_pending(cs_coll_agg *a) {
    if (a->npending > 1) qsort(a->pending, a->npending, sizeof *a->pending, cmp_inst);
    for (size_t k = 0; k < a->npending; k++) emit(a, a->pending[k]);
    a->npending = 0;
}

/* ---- records ------------------------------------------------------------------ */

/* Members a record stands for: 1, or in the system's representative mode
 * (a symmetric run, system/system.h) every member of the communicator. */
static uint64_t record_members(const cs_coll_record *r) { return r->represents ? r->represents : 1; }

void cs_coll_agg_record(void *ud, const cs_coll_record *r) {
    cs_coll_agg *a = ud;
    if (!a || a->finished) return;
    /* Instances complete in time order; everything completed before this
     * record's instant can be written. */
    if (a->npending && r->end > a->pending_t) flush_pending(a);
    uint32_t n = r->nmembers ? r->nmembers : 1;
    size_t h = hash_key(r->group_id, n, r->seq, a->nbuckets);
    agg_inst *in = a->bucket[h];
    while (in && !(in->group_id == r->group_id && in->nmembers == n && in->seq == r->seq)) in = in->hnext;
    if (!in) {
        in = cs_calloc(1, sizeof *in);
        in->group_id = r->group_id;
        in->nmembers = n;
        in->seq = r->seq;
        in->comm_type = r->comm_type;
        in->bytes = r->bytes;
        in->chunks = r->chunks;
        in->phases = r->phases;
        snprintf(in->algos, sizeof in->algos, "%s", r->algorithms ? r->algorithms : "");
        in->start = r->start;
        in->end = r->end;
        in->hnext = a->bucket[h];
        a->bucket[h] = in;
        if (++a->live > 2 * a->nbuckets) rehash(a);
    }
    if (r->start < in->start) in->start = r->start;
    if (r->end > in->end) in->end = r->end;
    /* a representative record: every member it stands for moved the same bytes */
    uint64_t k = record_members(r);
    in->bytes_sent += r->bytes_sent * k;
    in->bytes_recv += r->bytes_recv * k;
    in->records += k;
    if (in->records < n) return;
    unlink_inst(a, in);
    if (a->npending && in->end < a->pending_t) flush_pending(a); /* not in time order: keep arrival order */
    if (!a->npending) a->pending_t = in->end;
    CS_GROW(a->pending, a->cap_pending, a->npending + 1);
    a->pending[a->npending++] = in;
}

/* ---- the end ----------------------------------------------------------------- */

void cs_coll_agg_finish(cs_coll_agg *a) {
    if (!a || a->finished) return;
    flush_pending(a);
    /* instances some member never reported: after the others, in the same order */
    if (a->live) {
        agg_inst **rest = cs_malloc(a->live * sizeof *rest);
        size_t n = 0;
        for (size_t b = 0; b < a->nbuckets; b++) {
            for (agg_inst *i = a->bucket[b]; i; i = i->hnext) rest[n++] = i;
            a->bucket[b] = NULL;
        }
        a->live = 0;
        qsort(rest, n, sizeof *rest, cmp_inst);
        for (size_t k = 0; k < n; k++) emit(a, rest[k]);
        cs_free(rest);
    }
    a->finished = 1;
}

uint64_t cs_coll_agg_count(const cs_coll_agg *a) { return a ? a->emitted : 0; }

size_t cs_coll_agg_types(const cs_coll_agg *a, cs_coll_type_stats *out, size_t max) {
    size_t n = 0;
    for (int t = 0; a && t < NTYPES; t++)
        if (a->types[t].count) {
            if (n < max) out[n] = a->types[t];
            n++;
        }
    return n;
}

void cs_coll_row_public(const cs_coll_row *w, cs_collective_row *x) {
    memset(x, 0, sizeof *x);
    x->index = w->index;
    snprintf(x->type, sizeof x->type, "%s", cs_coll_type_label(w->comm_type));
    snprintf(x->communicator, sizeof x->communicator, "%s", w->communicator ? w->communicator : "");
    snprintf(x->algorithms, sizeof x->algorithms, "%s", w->algorithms ? w->algorithms : "");
    x->comm_size_bytes = w->comm_size;
    x->data_bytes = w->data_bytes;
    x->group_id = w->group_id;
    x->nranks = w->nranks;
    x->chunks = w->chunks;
    x->phases = w->phases;
    x->seq = w->seq;
    x->start_ps = w->start;
    x->end_ps = w->end;
    x->algbw_gbps = w->algbw_gbps;
    x->busbw_gbps = w->busbw_gbps;
    x->bytes_sent = w->bytes_sent;
    x->bytes_received = w->bytes_recv;
    x->member_records = w->member_records;
}
