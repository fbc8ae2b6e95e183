/*
 * peq.c -- conservative windows over partitioned event queues with the
 * sequential run's order (see peq.h for the scheme and its argument).
 *
 * Per window each partition logs its pops (time, key, seq) and, for each of
 * its pushes (numbered ctr = 0, 1, ... in the window), the pop that made
 * it.  A provisional seq is PROV | ctr.  At the barrier one thread decides
 * how the mail is numbered: without a cross-partition tie on (time, key)
 * (mail_ties), seq = base + ctr * P + source (the source's push order;
 * different sources never compare), given by each thread to the mail it
 * delivers; with one, the pop logs are merged into the sequential order
 * (g = merged position of each pop) and that thread sorts the mail by (g of
 * its parent, ctr) and numbers it in that order, and finds the next
 * window's start: the earliest of every partition's queue and of the mail
 * (each mailbox keeps its earliest time).  Then every thread delivers the
 * mail addressed to its partitions and runs the window.  The mailboxes come
 * in two generations, written in alternate windows, so that a window's mail
 * can be delivered while the next window's is written.  The threads meet at
 * sync_all, twice per window; the model's own serial work runs in plan
 * (cs_peq_set_barrier).
 */
#include "core/peq.h"

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/alloc.h"

#define PROV (1ULL << 63)

/* Each partition's filter of the (time, key)s it mailed in a window
 * (mail_ties): 2^17 bits, 16 KiB, so that setting its bits stays in the L1
 * cache; about 9 % full at 12,400 events mailed by each of two partitions
 * in a window of the 16,384-NPU all-reduce, which sends 2,490 of the
 * window's 24,800 mailed events to the exact check (8,192 NPUs: 510 of
 * 12,000); a 2^20-bit filter sent fewer but cost 4 % of the run in cache
 * misses. */
#define BLOOM_LOG2 17
#define BLOOM_WORDS ((1u << BLOOM_LOG2) / 64)

/* A window whose sources mailed fewer events than this in all
 * (cs_peq_set_filter_from) skips the filter: every event goes into the
 * exact check, and the filters are cleared event by event (scanning and
 * clearing 2 x 16 KiB of filter took about 5 us per window, more than a
 * small window's mail: a generated 256-GPU plan mails 16,864 events in
 * 4,638 windows). */
#define SMALL_MAIL 1024

/* (time, key) mixed so that every bit of both reaches the high bits (keys
 * are rank << 32 | counter: a plain product left the rank above the bits
 * used). */
static inline uint64_t tk_hash(cs_time t, uint64_t key) {
    uint64_t h = (t * 0x9E3779B97F4A7C15ULL) ^ key;
    h ^= h >> 31;
    h *= 0xC2B2AE3D27D4EB4FULL;
    h ^= h >> 29;
    return h;
}

/* The filter bit of (time, key): set at a push (cs_peq_push), tested at the
 * barrier (mail_ties). */
static inline uint64_t bloom_bit(cs_time t, uint64_t key) { return tk_hash(t, key) >> (64 - BLOOM_LOG2); }

typedef struct mail {
    cs_event ev;     /* seq set at the barrier */
    uint64_t ctr;    /* the source's push number in the window */
    uint64_t parent; /* the source's pop that pushed it (index in its log) */
} mail;

typedef struct poplog {
    cs_time t;
    uint64_t key, seq;
} poplog;

typedef struct mailbox {
    mail *m;
    size_t n, cap;
    cs_time tmin; /* the earliest event's time (n > 0) */
} mailbox;

struct cs_peq_part {
    cs_peq_hot h;          /* now, cur_key, idx (first: peq.h reads them inline) */
    cs_peq *q;
    cs_eventq *eq;
    cs_time wend;
    uint64_t cur_pop;
    uint64_t ctr;          /* pushes in this window */
    uint64_t *parent;      /* push number -> pop index in the log */
    size_t cap_parent;
    poplog *log;           /* this window's pops */
    size_t nlog, cap_log;
    uint64_t *g;           /* merged position of each pop (merge windows) */
    size_t cap_g;
    mailbox *box[2];       /* per destination partition; generation q->wgen is written in this window, the other
                              one (the last window's mail) is delivered at its start */
    uint64_t *bloom;       /* 2^BLOOM_LOG2 bits: one per hash of (time, key) of this window's mail and own
                              events beyond it (mail_ties) */
    struct own { cs_time t; uint64_t key, ctr; } *own; /* this window's own pushes beyond its end: in the
                              queue already, numbered as the barrier would number them (cs_peq_push) */
    size_t nown, cap_own;
    uint64_t *renum;       /* a merge window: push number -> its merged seq (number_mail) */
    size_t cap_renum;
    int mailed;            /* mail in this window (the filter has bits set) */
    uint64_t dispatched;
    int failed;
    char why[320];
};

struct cs_peq {
    uint32_t np;
    int plain;               /* handlers are cs_event_fn (cs_peq_set_plain) */
    int timing;              /* the CPU-time accounting of cs_peq_stats (cs_peq_set_timing) */
    int (*stop)(void *);     /* cs_peq_set_stop */
    void *stop_ud;
    int stopped;
    void (*barrier)(void *); /* cs_peq_set_barrier */
    void *barrier_ud;
    cs_time L;
    cs_peq_part *parts;
    uint64_t next_seq;
    uint32_t nthreads;
    struct spin_barrier { /* (sync_all) */
        atomic_uint count;
        char pad_[64];        /* (count and gen on different cache lines) */
        atomic_uint gen;
        unsigned n;
        pthread_mutex_t mu;
        pthread_cond_t cv;
    } bar;
    pthread_mutex_t gate_mu; /* the start gate (cs_peq_run) */
    pthread_cond_t gate_cv;
    int gate_open;
    int done;
    cs_time T;
    /* the barrier's scratch */
    struct tie {
        cs_time t;
        uint64_t key;
        uint32_t src1; /* source + 1; 0 = empty */
    } *ties;
    size_t cap_ties;
    struct tie *cand;     /* mail_ties' candidates */
    size_t cap_cand;
    struct order {
        uint64_t a, b;
        mail *m;        /* NULL: an own event beyond the window (push number b of partition part) */
        uint32_t part;
    } *ord;
    size_t cap_ord;
    uint32_t *head;
    uint64_t *twice;      /* BLOOM_WORDS: filter bits that two sources set (mail_ties) */
    uint64_t base;        /* the mail's numbers: base + ctr x P + source (no_merge), else set by the merge */
    int no_merge;
    int wgen;             /* the mailboxes' generation written in this window */
    size_t filter_from;   /* mail_ties uses the filter from this many events (cs_peq_set_filter_from) */
    double *tcpu; /* per thread: CPU seconds of its part of the current round */
    cs_peq_stats st;
};

cs_peq *cs_peq_new(uint32_t nparts, cs_time lookahead_ps) {
    if (nparts < 1) nparts = 1;
    if (lookahead_ps < 1) lookahead_ps = 1;
    cs_peq *q = cs_calloc(1, sizeof *q);
    q->np = nparts;
    q->L = lookahead_ps;
    q->filter_from = SMALL_MAIL;
    q->parts = cs_calloc(nparts, sizeof *q->parts);
    q->head = cs_calloc(nparts, sizeof *q->head);
    q->tcpu = cs_calloc(nparts, sizeof *q->tcpu);
    for (uint32_t i = 0; i < nparts; i++) {
        cs_peq_part *p = &q->parts[i];
        p->q = q;
        p->h.idx = i;
        p->eq = cs_eventq_new();
        p->box[0] = cs_calloc(nparts, sizeof *p->box[0]);
        p->box[1] = cs_calloc(nparts, sizeof *p->box[1]);
        if (nparts > 1) p->bloom = cs_calloc(BLOOM_WORDS, sizeof *p->bloom);
    }
    if (nparts > 1) q->twice = cs_calloc(BLOOM_WORDS, sizeof *q->twice);
    return q;
}

void cs_peq_free(cs_peq *q) {
    if (!q) return;
    for (uint32_t i = 0; i < q->np; i++) {
        cs_peq_part *p = &q->parts[i];
        cs_eventq_free(p->eq);
        for (int g = 0; g < 2; g++) {
            for (uint32_t d = 0; d < q->np; d++) cs_free(p->box[g][d].m);
            cs_free(p->box[g]);
        }
        cs_free(p->bloom);
        cs_free(p->own);
        cs_free(p->renum);
        cs_free(p->parent);
        cs_free(p->log);
        cs_free(p->g);
    }
    cs_free(q->parts);
    cs_free(q->head);
    cs_free(q->tcpu);
    cs_free(q->ties);
    cs_free(q->cand);
    cs_free(q->twice);
    cs_free(q->ord);
    cs_free(q);
}

_Thread_local cs_peq_part *cs_peq_self_;


void cs_peq_set_plain(cs_peq *q) { q->plain = 1; }
void cs_peq_set_timing(cs_peq *q, int on) { q->timing = on != 0; }
void cs_peq_set_filter_from(cs_peq *q, size_t events) { q->filter_from = events; }

void cs_peq_set_stop(cs_peq *q, int (*stop)(void *ud), void *ud) {
    q->stop = stop;
    q->stop_ud = ud;
}

int cs_peq_stopped(const cs_peq *q) { return q->stopped; }

void cs_peq_set_barrier(cs_peq *q, void (*fn)(void *ud), void *ud) {
    q->barrier = fn;
    q->barrier_ud = ud;
}

uint32_t cs_peq_nparts(const cs_peq *q) { return q->np; }

cs_time cs_peq_part_now(const cs_peq *q, uint32_t part) { return q->parts[part].h.now; }

/* A handler type through the queue's (cast back before the call). */
static cs_event_fn as_event_fn(cs_peq_fn fn) { return (cs_event_fn)(void (*)(void))fn; }
static cs_peq_fn as_peq_fn(cs_event_fn fn) { return (cs_peq_fn)(void (*)(void))fn; }

void cs_peq_push_initial(cs_peq *q, uint32_t part, cs_time t, uint64_t key, cs_peq_fn fn, void *ctx,
                         uint64_t arg) {
    cs_eventq_push_seq(q->parts[part % q->np].eq, t, key, q->next_seq++, as_event_fn(fn), ctx, arg);
}

static void part_fail(cs_peq_part *p, const char *what, cs_time t, uint32_t part) {
    if (p->failed) return;
    p->failed = 1;
    snprintf(p->why, sizeof p->why,
             "parallel engine: partition %u scheduled an event for partition %u at %" PRIu64 " ps from %" PRIu64
             " ps: %s (lookahead %" PRIu64 " ps)",
             p->h.idx, part, t, p->h.now, what, p->q->L);
}

void cs_peq_push(cs_peq_part *p, uint32_t part, cs_time t, uint64_t key, cs_peq_fn fn, void *ctx, uint64_t arg) {
    cs_peq *q = p->q;
    if (part >= q->np) {
        part_fail(p, "no such partition", t, part);
        return;
    }
    if (t < p->h.now) {
        part_fail(p, "before now", t, part);
        return;
    }
    CS_GROW(p->parent, p->cap_parent, p->ctr + 1);
    p->parent[p->ctr] = p->cur_pop;
    if (part == p->h.idx && t < p->wend) {
        cs_eventq_push_seq(p->eq, t, key, PROV | p->ctr++, as_event_fn(fn), ctx, arg);
        return;
    }
    if (part != p->h.idx && (t < p->wend || t - p->h.now < q->L)) {
        part_fail(p, "sooner than the lookahead", t, part);
        return;
    }
    if (p->bloom) {
        uint64_t bit = bloom_bit(t, key);
        p->bloom[bit / 64] |= 1ULL << (bit % 64);
        p->mailed = 1;
    }
    if (part == p->h.idx) {
        /* Its own event beyond the window: into its queue now, with the number
         * the barrier gives mail without a merge (base = next_seq, not changed
         * during a window); a merge window renumbers it in place (number_mail). */
        CS_GROW(p->own, p->cap_own, p->nown + 1);
        p->own[p->nown++] = (struct own){t, key, p->ctr};
        cs_eventq_push_seq(p->eq, t, key, q->next_seq + p->ctr * q->np + p->h.idx, as_event_fn(fn), ctx, arg);
        p->ctr++;
        return;
    }
    mailbox *b = &p->box[q->wgen][part];
    if (!b->n || t < b->tmin) b->tmin = t;
    CS_GROW(b->m, b->cap, b->n + 1);
    mail *m = &b->m[b->n++];
    m->ev = (cs_event){t, key, 0, as_event_fn(fn), ctx, arg};
    m->ctr = p->ctr++;
    m->parent = p->cur_pop;
}


/* ---- one window of one partition ------------------------------------------ */

static void part_window(cs_peq_part *p, cs_time wend) {
    p->wend = wend;
    p->nlog = 0;
    p->ctr = 0;
    p->nown = 0;
    cs_event ev;
    while (!p->failed && cs_eventq_pop_before(p->eq, wend, &ev)) {
        CS_GROW(p->log, p->cap_log, p->nlog + 1);
        p->log[p->nlog] = (poplog){ev.time, ev.key, ev.seq};
        p->cur_pop = p->nlog++;
        p->h.now = ev.time;
        p->h.cur_key = ev.key;
        if (p->q->plain) {
            cs_peq_self_ = p;
            ev.fn(ev.ctx, &ev);
            cs_peq_self_ = NULL;
        } else {
            as_peq_fn(ev.fn)(p, ev.ctx, &ev);
        }
        p->dispatched++;
    }
}

/* At a window's start: deliver the last window's mail addressed to d,
 * numbered (without a merge: base + ctr x P + source, the source's push
 * order; see number_mail). */
static void part_deliver(cs_peq *q, cs_peq_part *d) {
    for (uint32_t s = 0; s < q->np; s++) {
        mailbox *b = &q->parts[s].box[q->wgen ^ 1][d->h.idx];
        for (size_t i = 0; i < b->n; i++) {
            const cs_event *e = &b->m[i].ev;
            uint64_t seq = q->no_merge ? q->base + b->m[i].ctr * q->np + s : e->seq;
            cs_eventq_push_seq(d->eq, e->time, e->key, seq, e->fn, e->ctx, e->arg);
        }
        b->n = 0;
    }
}

/* ---- the barrier: numbering the mail ---------------------------------------- */

/* (mail_ties) (t, key) of source s joins the candidates at nc when two
 * sources set its bit, or always (all); the new count. */
static size_t cand_add(cs_peq *q, size_t nc, cs_time t, uint64_t key, uint32_t s, int all) {
    uint64_t bit = bloom_bit(t, key);
    if (!all && !(q->twice[bit / 64] >> (bit % 64) & 1)) return nc;
    CS_GROW(q->cand, q->cap_cand, nc + 1);
    q->cand[nc] = (struct tie){t, key, s + 1};
    return nc + 1;
}

/* Clear the filter words that source p's events of this window set: a
 * word per event, instead of the whole filter, when it mailed few. */
static void bloom_clear_events(cs_peq *q, cs_peq_part *p) {
    for (size_t i = 0; i < p->nown; i++) p->bloom[bloom_bit(p->own[i].t, p->own[i].key) / 64] = 0;
    const mailbox *bx = p->box[q->wgen];
    for (uint32_t d = 0; d < q->np; d++)
        for (size_t i = 0; i < bx[d].n; i++)
            p->bloom[bloom_bit(bx[d].m[i].ev.time, bx[d].m[i].ev.key) / 64] = 0;
}

/* 1 when two sources mailed events of one (time, key) (own events beyond
 * the window count as mailed).  Each source set a
 * bit of its filter per event it mailed (cs_peq_push); a tie can only be
 * among the events whose bit two sources set, so only those -- a tenth of
 * the mail in the 16,384-NPU all-reduce (BLOOM_LOG2) -- go into the exact
 * check, a hash of (time, key) -> source; with little mail (filter_from)
 * every event goes in.  The filters are cleared for the next window. */
static int mail_ties(cs_peq *q) {
    uint32_t nsrc = 0;
    size_t nev = 0;
    for (uint32_t s = 0; s < q->np; s++) {
        const cs_peq_part *p = &q->parts[s];
        if (!p->mailed) continue;
        nsrc++;
        nev += p->nown;
        for (uint32_t d = 0; d < q->np; d++) nev += p->box[q->wgen][d].n;
    }
    int small = nev < q->filter_from;
    int tie = 0;
    if (nsrc >= 2) {
        size_t ncand = 0;
        for (uint32_t w = 0; !small && w < BLOOM_WORDS; w++) {
            uint64_t once = 0, twice = 0;
            for (uint32_t s = 0; s < q->np; s++) {
                if (!q->parts[s].mailed) continue;
                uint64_t f = q->parts[s].bloom[w];
                twice |= once & f;
                once |= f;
            }
            q->twice[w] = twice;
            ncand += (size_t)__builtin_popcountll(twice);
        }
        /* the candidates: every event (own beyond the window, or mailed) whose bit two sources set
         * (small: every event) */
        if (small) ncand = nev;
        size_t nc = 0;
        for (uint32_t s = 0; ncand && s < q->np; s++) {
            const cs_peq_part *p = &q->parts[s];
            for (size_t i = 0; i < p->nown; i++) nc = cand_add(q, nc, p->own[i].t, p->own[i].key, s, small);
            const mailbox *bx = p->box[q->wgen];
            for (uint32_t d = 0; d < q->np; d++)
                for (size_t i = 0; i < bx[d].n; i++)
                    nc = cand_add(q, nc, bx[d].m[i].ev.time, bx[d].m[i].ev.key, s, small);
        }
        if (nc) {
            size_t cap = 16;
            while (cap < 2 * nc) cap *= 2;
            if (cap > q->cap_ties) {
                cs_free(q->ties);
                q->ties = cs_malloc(cap * sizeof *q->ties);
                q->cap_ties = cap;
            }
            memset(q->ties, 0, cap * sizeof *q->ties);
            for (size_t c = 0; c < nc && !tie; c++) {
                const struct tie *e = &q->cand[c];
                size_t j = (size_t)tk_hash(e->t, e->key) & (cap - 1);
                for (;; j = (j + 1) & (cap - 1)) {
                    struct tie *x = &q->ties[j];
                    if (!x->src1) {
                        *x = *e;
                        break;
                    }
                    if (x->t == e->t && x->key == e->key) {
                        if (x->src1 != e->src1) tie = 1;
                        break;
                    }
                }
            }
        }
    }
    for (uint32_t s = 0; s < q->np; s++)
        if (q->parts[s].mailed) {
            if (small)
                bloom_clear_events(q, &q->parts[s]);
            else
                memset(q->parts[s].bloom, 0, BLOOM_WORDS * sizeof *q->parts[s].bloom);
            q->parts[s].mailed = 0;
        }
    return tie;
}

/* The position of log entry i of partition s in the sequential order,
 * compared through (time, key, a, b): a = 0, b = seq for numbered events;
 * a = 1 + g(parent), b = ctr for provisional ones. */
static void log_order(const cs_peq_part *p, size_t i, uint64_t *a, uint64_t *b) {
    uint64_t seq = p->log[i].seq;
    if (!(seq & PROV)) {
        *a = 0;
        *b = seq;
    } else {
        uint64_t c = seq & ~PROV;
        *a = 1 + p->g[p->parent[c]];
        *b = c;
    }
}

/* g for every pop of the window: a k-way merge of the partitions' logs. */
static void merge_logs(cs_peq *q) {
    uint64_t gi = 0;
    for (uint32_t s = 0; s < q->np; s++) {
        cs_peq_part *p = &q->parts[s];
        CS_GROW(p->g, p->cap_g, p->nlog + 1);
        q->head[s] = 0;
    }
    for (;;) {
        int best = -1;
        cs_time bt = 0;
        uint64_t bk = 0, ba = 0, bb = 0;
        for (uint32_t s = 0; s < q->np; s++) {
            const cs_peq_part *p = &q->parts[s];
            size_t i = q->head[s];
            if (i >= p->nlog) continue;
            uint64_t a, b;
            log_order(p, i, &a, &b);
            const poplog *l = &p->log[i];
            if (best < 0 || l->t < bt ||
                (l->t == bt && (l->key < bk || (l->key == bk && (a < ba || (a == ba && b < bb)))))) {
                best = (int)s;
                bt = l->t;
                bk = l->key;
                ba = a;
                bb = b;
            }
        }
        if (best < 0) break;
        q->parts[best].g[q->head[best]++] = gi++;
    }
}

static int ord_cmp(const void *x, const void *y) {
    const struct order *a = x, *b = y;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

/* (cs_eventq_renumber's map for partition p's own events of a merge window:
 * seq = base + ctr x P + p -> renum[ctr]) */
struct renum_ud {
    const cs_peq *q;
    const cs_peq_part *p;
    uint64_t base;
};
static uint64_t renum_own(void *ud, uint64_t seq) {
    const struct renum_ud *r = ud;
    return r->p->renum[(seq - r->base - r->p->h.idx) / r->q->np];
}

static void number_mail(cs_peq *q) {
    size_t nmail = 0, nown = 0;
    uint64_t maxctr = 0;
    for (uint32_t s = 0; s < q->np; s++) {
        const cs_peq_part *p = &q->parts[s];
        if (p->ctr > maxctr) maxctr = p->ctr;
        for (uint32_t d = 0; d < q->np; d++) nmail += p->box[q->wgen][d].n;
        nown += p->nown;
    }
    q->st.mailed += nmail;
    q->no_merge = 1;
    if (!nmail && !nown) return;
    uint64_t base = q->next_seq;
    if (!mail_ties(q)) { /* numbered as they are delivered (part_deliver); the own events already are */
        q->base = base;
        q->next_seq = base + (maxctr + 1) * q->np;
        return;
    }
    /* A merge: the mail and the own events beyond the window in the
     * sequential order of their parents, then push order, numbered so. */
    q->no_merge = 0;
    q->st.merges++;
    merge_logs(q);
    size_t n = nmail + nown;
    if (n > q->cap_ord) {
        cs_free(q->ord);
        q->ord = cs_malloc(n * sizeof *q->ord);
        q->cap_ord = n;
    }
    size_t k = 0;
    for (uint32_t s = 0; s < q->np; s++) {
        cs_peq_part *p = &q->parts[s];
        for (uint32_t d = 0; d < q->np; d++) {
            mailbox *b = &p->box[q->wgen][d];
            for (size_t i = 0; i < b->n; i++)
                q->ord[k++] = (struct order){p->g[b->m[i].parent], b->m[i].ctr, &b->m[i], s};
        }
        for (size_t i = 0; i < p->nown; i++)
            q->ord[k++] = (struct order){p->g[p->parent[p->own[i].ctr]], p->own[i].ctr, NULL, s};
        if (p->nown) CS_GROW(p->renum, p->cap_renum, p->ctr);
    }
    qsort(q->ord, n, sizeof *q->ord, ord_cmp);
    for (size_t i = 0; i < n; i++) {
        if (q->ord[i].m)
            q->ord[i].m->ev.seq = base + i;
        else
            q->parts[q->ord[i].part].renum[q->ord[i].b] = base + i;
    }
    for (uint32_t s = 0; s < q->np; s++) {
        cs_peq_part *p = &q->parts[s];
        if (!p->nown) continue;
        struct renum_ud r = {q, p, base};
        cs_eventq_renumber(p->eq, base, base + (maxctr + 1) * q->np, renum_own, &r);
    }
    q->next_seq = base + n;
}

/* Thread 0 between barriers, after number_mail: the next window, or the
 * end.  A partition's next time is the earlier of its queue's and of the
 * mail addressed to it (not yet delivered: each mailbox's earliest time);
 * then the mailboxes' generations swap. */
static void plan(cs_peq *q) {
    if (q->barrier) q->barrier(q->barrier_ud);
    int any = 0;
    cs_time T = 0;
    for (uint32_t d = 0; d < q->np; d++) {
        cs_peq_part *p = &q->parts[d];
        if (p->failed) {
            q->done = 1;
            return;
        }
        cs_time t;
        int has = cs_eventq_next_time(p->eq, &t);
        for (uint32_t s = 0; s < q->np; s++) {
            const mailbox *b = &q->parts[s].box[q->wgen][d];
            if (b->n && (!has || b->tmin < t)) {
                t = b->tmin;
                has = 1;
            }
        }
        if (has && (!any || t < T)) {
            T = t;
            any = 1;
        }
    }
    if (any && q->stop && q->stop(q->stop_ud)) {
        q->stopped = 1;
        any = 0;
    }
    q->done = !any;
    q->T = T;
    if (any) q->st.windows++;
    q->wgen ^= 1;
}

/* The threads meet here twice per window.  A thread that arrives early
 * spins SPIN_ROUNDS rounds before it sleeps, yielding the core every SPIN_YIELD
 * rounds: waking a sleeping thread took tens of microseconds on the shared
 * virtual machine, more than a small window's work (a generated plan on 32
 * GPUs: 5,300 windows of a few microseconds each took 0.82 s with sleeping,
 * 0.14 s with spinning), and the yield keeps a spinner from taking the core
 * of the thread it waits for when the machine is busy (two other jobs on
 * the two cores: 1.03 s without it, 0.55 s with it, 0.51 s sleeping, for
 * the 8,192-NPU all-reduce).  Then it sleeps: on an idle core the rounds
 * take about a millisecond, on a busy one longer (each yield may wait for
 * the other jobs).  The last to arrive starts the next generation and wakes the
 * sleepers (under the mutex that they test the generation under, so no
 * wake-up is lost). */
#define SPIN_ROUNDS 20000
#define SPIN_YIELD 32
static void sync_all(cs_peq *q) {
    if (q->nthreads <= 1) return;
    struct spin_barrier *b = &q->bar;
    unsigned g = atomic_load(&b->gen);
    if (atomic_fetch_add(&b->count, 1) == b->n - 1) {
        atomic_store(&b->count, 0);
        pthread_mutex_lock(&b->mu);
        atomic_store(&b->gen, g + 1);
        pthread_cond_broadcast(&b->cv);
        pthread_mutex_unlock(&b->mu);
        return;
    }
    for (unsigned i = 0; i < SPIN_ROUNDS; i++) {
        if (atomic_load_explicit(&b->gen, memory_order_acquire) != g) return;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        if (i % SPIN_YIELD == SPIN_YIELD - 1) sched_yield();
    }
    pthread_mutex_lock(&b->mu);
    while (atomic_load(&b->gen) == g) pthread_cond_wait(&b->cv, &b->mu);
    pthread_mutex_unlock(&b->mu);
}

/* This thread's CPU seconds, when the engine times its rounds (a system
 * call per reading: four per window on thread 0, which a run of thousands
 * of small windows notices), else 0. */
static double thread_cpu_s(const cs_peq *q) {
    if (!q->timing) return 0;
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Thread 0 between barriers: the slowest thread's CPU time of the round
 * joins the critical path. */
static void account_round(cs_peq *q) {
    double mx = 0;
    for (uint32_t t = 0; t < q->nthreads; t++)
        if (q->tcpu[t] > mx) mx = q->tcpu[t];
    q->st.parallel_cpu_s += mx;
}

/* Rounds: thread 0 plans the first window; then each window is the
 * partitions' deliveries and pops (every thread its partitions), a barrier,
 * thread 0's numbering of the mail and planning of the next window, a
 * barrier. */
static void run_thread(cs_peq *q, uint32_t tid) {
    if (tid == 0) plan(q); /* (no mail yet: the partitions' queues) */
    sync_all(q);
    while (!q->done) {
        double c0 = thread_cpu_s(q);
        cs_time wend = q->T > CS_TIME_MAX - q->L ? CS_TIME_MAX : q->T + q->L;
        for (uint32_t i = tid; i < q->np; i += q->nthreads) {
            part_deliver(q, &q->parts[i]);
            part_window(&q->parts[i], wend);
        }
        q->tcpu[tid] = thread_cpu_s(q) - c0;
        sync_all(q);
        if (tid == 0) {
            double s0 = thread_cpu_s(q);
            account_round(q);
            number_mail(q);
            plan(q);
            q->st.serial_cpu_s += thread_cpu_s(q) - s0;
        }
        sync_all(q);
    }
}

typedef struct worker {
    cs_peq *q;
    uint32_t tid;
} worker;

/* Workers wait at the gate until the thread count is known (a thread that
 * could not be created leaves fewer; the barrier counts those that run;
 * nthreads 0: no barrier, nobody runs but thread 0's error return). */
static void *worker_main(void *arg) {
    worker *w = arg;
    cs_peq *q = w->q;
    pthread_mutex_lock(&q->gate_mu);
    while (!q->gate_open) pthread_cond_wait(&q->gate_cv, &q->gate_mu);
    uint32_t n = q->nthreads;
    pthread_mutex_unlock(&q->gate_mu);
    if (n) run_thread(q, w->tid);
    return NULL;
}

int cs_peq_run(cs_peq *q, uint32_t nthreads, cs_error *err) {
    if (nthreads < 1) nthreads = 1;
    if (nthreads > q->np) nthreads = q->np;
    q->done = 0;
    pthread_t *th = cs_calloc(nthreads, sizeof *th);
    worker *ws = cs_calloc(nthreads, sizeof *ws);
    uint32_t started = 1;
    pthread_mutex_init(&q->gate_mu, NULL);
    pthread_cond_init(&q->gate_cv, NULL);
    q->gate_open = 0;
    pthread_mutex_lock(&q->gate_mu);
    cs_alloc_threads((int)nthreads - 1); /* before the first thread exists */
    for (uint32_t t = 1; t < nthreads; t++) {
        ws[t] = (worker){q, t};
        if (pthread_create(&th[t], NULL, worker_main, &ws[t])) break;
        started++;
    }
    q->nthreads = started;
    if (started > 1) {
        atomic_init(&q->bar.count, 0);
        atomic_init(&q->bar.gen, 0);
        q->bar.n = started;
        if (pthread_mutex_init(&q->bar.mu, NULL)) {
            q->nthreads = 0;
        } else if (pthread_cond_init(&q->bar.cv, NULL)) {
            pthread_mutex_destroy(&q->bar.mu);
            q->nthreads = 0;
        }
    }
    q->gate_open = 1;
    pthread_cond_broadcast(&q->gate_cv);
    pthread_mutex_unlock(&q->gate_mu);
    if (q->nthreads == 0) { /* no barrier: the workers did not run */
        for (uint32_t t = 1; t < started; t++) pthread_join(th[t], NULL);
        cs_alloc_threads(1 - (int)nthreads);
        cs_free(th);
        cs_free(ws);
        pthread_cond_destroy(&q->gate_cv);
        pthread_mutex_destroy(&q->gate_mu);
        return CS_ERR(err, CS_EINTERNAL, "parallel engine: cannot create a barrier for %u threads", started);
    }
    if (started < nthreads)
        fprintf(stderr, "clustersim: parallel engine: %u of %u threads started; running on %u\n", started, nthreads,
                started);
    run_thread(q, 0);
    for (uint32_t t = 1; t < started; t++) pthread_join(th[t], NULL);
    cs_alloc_threads(1 - (int)nthreads); /* every thread joined */
    if (started > 1) {
        pthread_cond_destroy(&q->bar.cv);
        pthread_mutex_destroy(&q->bar.mu);
    }
    pthread_cond_destroy(&q->gate_cv);
    pthread_mutex_destroy(&q->gate_mu);
    cs_free(th);
    cs_free(ws);
    for (uint32_t s = 0; s < q->np; s++)
        if (q->parts[s].failed) return CS_ERR(err, CS_EINTERNAL, "%s", q->parts[s].why);
    /* A run that ended by itself delivered all its mail (its window planning
     * counts the mail: an event left here would be an event lost). */
    for (uint32_t s = 0; !q->stopped && s < q->np; s++)
        for (int g = 0; g < 2; g++)
            for (uint32_t d = 0; d < q->np; d++)
                if (q->parts[s].box[g][d].n)
                    return CS_ERR(err, CS_EINTERNAL, "parallel engine: the run ended with %zu events of partition "
                                  "%u for partition %u undelivered", q->parts[s].box[g][d].n, s, d);
    return CS_OK;
}

void cs_peq_get_stats(const cs_peq *q, cs_peq_stats *st) {
    *st = q->st;
    st->dispatched = 0;
    for (uint32_t s = 0; s < q->np; s++) st->dispatched += q->parts[s].dispatched;
}
