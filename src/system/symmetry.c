/*
 * symmetry.c -- representative mode of the system layer (see system.h and
 * sys_int.h): the checks that keep a rank-0-only run exact, the relabelling
 * of event keys, and the guard against simultaneous events whose order only
 * the full run can decide.  Owned by the system layer.
 *
 * Why rank 0 can stand for every rank.  Give rank x the coordinates
 * (x_0, .., x_{D-1}) of the network's dimensions and let every dimension d
 * carry one group operation: cyclic shift (x_d + s_d mod n_d) when its
 * phases run ring or direct, XOR (x_d ^ s_d) when they run halving-doubling
 * (the same thing when n_d <= 2).  g_s, "move by s", maps rank 0 to rank s
 * and maps every phase's pattern onto itself: ring and direct send from
 * index i to i + j, halving-doubling to i ^ off.  The analytical backend's
 * time depends only on the dimension and the ring distance, which g_s keeps
 * for these pairs.  So, when all ranks run one graph on the default
 * communicator, rank s does at every instant what rank 0 does, and the event
 * it causes where rank 0 causes one keyed (R, c) -- keys are rank << 32 |
 * counter, inherited along causal chains -- is keyed (g_s(R), c).
 *
 * The representative run keeps rank 0's events and replaces every message
 * rank 0 would receive by rank 0's own send of the same (phase, k): sent by
 * src(k) at the instant rank 0 sends k, timed src(k) -> 0 by the backend,
 * keyed g_src(k)(key).  Rank 0's events then have the full run's times and
 * keys.  Their order is the full run's too, because (with messages that take
 * time) only rank 0's handlers insert events of rank 0 at the current
 * instant, so the full run's order restricted to rank 0 is decided by keys
 * and, for equal (time, key), by insertion order -- which agrees between the
 * runs for two events inserted by the same rank's handlers.  The guard below
 * watches the remaining case, two pending events of rank 0 at one
 * (time, key) inserted by different ranks in the full run, and stops the
 * run when it happens (then the caller runs the full simulation).
 *
 * Executor events (compute, memory) carry fresh keys of rank 0 that no
 * message shares while they are pending (a chain's first event fires before
 * anything inherits its key), so only the system layer's events are
 * registered: bundles, early deliveries, member completions, and the
 * messages.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "system/sys_int.h"

static void table_init(sym_table *tb);
static void table_free(sym_table *tb, cs_pool *pool);

void sym_init(cs_system *s) {
    cs_symmetry *y = &s->sym;
    y->tie_pool = cs_pool_new(sizeof(sym_tie));
    table_init(&y->by_key);
}

void sym_free(cs_system *s) {
    cs_symmetry *y = &s->sym;
    if (!y->tie_pool) return;
    table_free(&y->by_key, y->tie_pool);
    cs_free(y->toks);
    y->toks = NULL;
    cs_pool_free(y->tie_pool);
    y->tie_pool = NULL;
}

void sym_break(cs_system *s, const char *fmt, ...) {
    cs_symmetry *y = &s->sym;
    if (!y->broken) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(y->why, sizeof y->why, fmt, ap);
        va_end(ap);
        y->broken = y->why;
    }
    sys_fail(s, CS_EUNSUPPORTED);
}

const char *cs_system_symmetry_broken(const cs_system *s) { return s->sym.broken; }

/* The network dimension a phase's ring lives on, or -1. */
static int phase_dim(const cs_system *s, const cs_phase *ph) {
    if (ph->space == SP_DIM) return ph->dim;
    if (ph->space != SP_ALL) return -1;
    int dim = -1;
    for (int d = 0; d < s->ndims; d++)
        if (s->netcfg->npus[d] > 1) {
            if (dim >= 0) return -1; /* two dimensions of more than one NPU */
            dim = d;
        }
    return dim;
}

static const char *algo_label(int a) {
    static const char *const names[] = {"ring", "direct", "halvingDoubling", "doubleBinaryTree", "inSwitch"};
    return a >= 0 && a <= ALG_INSW ? names[a] : "?";
}

int sym_check_inst(cs_system *s, cs_inst *in) {
    if (!in->grp->whole) {
        sym_break(s, "collective #%" PRIu64 " runs on communicator group \"%s\" (%u of %u ranks): "
                  "ranks outside it do something else", in->seq, in->grp->name, in->grp->n, s->nranks);
        return -1;
    }
    uint32_t nph = in->nchunks ? in->phase_begin[in->nchunks] : 0;
    for (uint32_t i = 0; i < nph; i++) {
        const cs_phase *ph = &in->phases[i];
        if (ph->algo == ALG_INSW) {
            sym_break(s, "inSwitch: the switch waits for every member's contribution (simulated in full)");
            return -1;
        }
        if (ph->algo == ALG_DBT) {
            sym_break(s, "doubleBinaryTree: ranks hold different positions in the tree and finish "
                      "at different times");
            return -1;
        }
        int d = phase_dim(s, ph);
        if (d < 0) {
            sym_break(s, "one%s over every NPU of a network with several dimensions: ring neighbours "
                      "cross dimensions at some positions only",
                      ph->algo == ALG_HD ? "HalvingDoubling" : ph->algo == ALG_DIRECT ? "Direct" : "Ring");
            return -1;
        }
        if (s->netcfg->npus[d] <= 2) continue; /* shift and XOR coincide */
        uint8_t op = ph->algo == ALG_HD ? SYM_XOR : SYM_ADD;
        if (s->sym.op[d] == SYM_UNSET) {
            s->sym.op[d] = op;
        } else if (s->sym.op[d] != op) {
            sym_break(s, "dimension %d runs both %s and %s: no relabelling of ranks maps both "
                      "patterns onto themselves", d, op == SYM_XOR ? "ring/direct" : "halvingDoubling",
                      algo_label(ph->algo));
            return -1;
        }
    }
    return 0;
}

uint64_t sym_key(const cs_system *s, const cs_phase *ph, uint32_t src, uint64_t key) {
    int d = phase_dim(s, ph);
    uint64_t n = s->netcfg->npus[d], stride = s->stride[d];
    uint64_t r = key >> 32;
    uint64_t rd = (r / stride) % n, sd = ((uint64_t)src / stride) % n;
    uint64_t nd = ph->algo == ALG_HD ? (rd ^ sd) : (rd + sd) % n;
    r = r - rd * stride + nd * stride;
    return (r << 32) | (key & 0xffffffffu);
}

/* ---- the guard ------------------------------------------------------------- */

static size_t tie_bucket(const sym_table *tb, cs_time t, uint64_t key) {
    uint64_t x = t * 0x9e3779b97f4a7c15ULL ^ key;
    x ^= x >> 31;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 29;
    return (size_t)(x & (tb->nbuckets - 1));
}

static void table_init(sym_table *tb) {
    tb->nbuckets = 256;
    tb->b = cs_calloc(tb->nbuckets, sizeof *tb->b);
    tb->n = 0;
}

static void table_free(sym_table *tb, cs_pool *pool) {
    for (size_t i = 0; tb->b && i < tb->nbuckets; i++)
        for (sym_tie *e = tb->b[i], *nx; e; e = nx) {
            nx = e->next;
            cs_pool_put(pool, e);
        }
    cs_free(tb->b);
    tb->b = NULL;
}

static void table_grow(sym_table *tb) {
    size_t old = tb->nbuckets;
    sym_tie **ob = tb->b;
    tb->nbuckets = old * 2;
    tb->b = cs_calloc(tb->nbuckets, sizeof *tb->b);
    for (size_t i = 0; i < old; i++)
        for (sym_tie *e = ob[i], *nx; e; e = nx) {
            nx = e->next;
            size_t h = tie_bucket(tb, e->t, e->key);
            e->next = tb->b[h];
            tb->b[h] = e;
        }
    cs_free(ob);
}

/* Count one more pending event at (t, key) with tag; returns the tag of the
 * events already there when it differs (conflict), else UINT32_MAX. */
static uint32_t table_add(sym_table *tb, cs_pool *pool, cs_time t, uint64_t key, uint32_t tag) {
    size_t h = tie_bucket(tb, t, key);
    for (sym_tie *e = tb->b[h]; e; e = e->next)
        if (e->t == t && e->key == key) {
            if (e->tag != tag) return e->tag;
            e->count++;
            return UINT32_MAX;
        }
    sym_tie *e = cs_pool_get(pool);
    e->t = t;
    e->key = key;
    e->tag = tag;
    e->count = 1;
    e->next = tb->b[h];
    tb->b[h] = e;
    if (++tb->n > 2 * tb->nbuckets) table_grow(tb);
    return UINT32_MAX;
}

static void table_done(sym_table *tb, cs_pool *pool, cs_time t, uint64_t key) {
    for (sym_tie **pp = &tb->b[tie_bucket(tb, t, key)]; *pp; pp = &(*pp)->next) {
        sym_tie *e = *pp;
        if (e->t == t && e->key == key) {
            if (--e->count == 0) {
                *pp = e->next;
                cs_pool_put(pool, e);
                tb->n--;
            }
            return;
        }
    }
}

void sym_tie_add(cs_system *s, cs_time t, uint64_t key, uint32_t tag) {
    cs_symmetry *y = &s->sym;
    if (!y->tie_pool || y->broken) return;
    uint32_t other = table_add(&y->by_key, y->tie_pool, t, key, tag);
    if (other != UINT32_MAX) {
        char buf[32];
        sym_break(s, "rank 0 has two events at %s with the same key, inserted by rank %u and by rank "
                  "%u in the full simulation: their order depends on other ranks",
                  cs_time_fmt(t, buf, sizeof buf), other, tag);
    }
}

void sym_tie_done(cs_system *s) {
    cs_symmetry *y = &s->sym;
    uint64_t key;
    if (!y->tie_pool || y->broken || !cs_eventq_dispatching(s->q, &key)) return;
    table_done(&y->by_key, y->tie_pool, cs_eventq_now(s->q), key);
}

/* ---- what simultaneous events touch ----------------------------------------------- */

static size_t tok_hash(const void *p, size_t mask) {
    uint64_t x = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ULL;
    return (size_t)((x ^ (x >> 29)) & mask);
}

static void tok_grow(cs_symmetry *y) {
    size_t ocap = y->tok_cap;
    sym_tok *old = y->toks;
    y->tok_cap = ocap ? 2 * ocap : 64;
    y->toks = cs_calloc(y->tok_cap, sizeof *y->toks);
    for (size_t i = 0; i < ocap; i++)
        if (old[i].gen == y->gen) {
            size_t h = tok_hash(old[i].p, y->tok_cap - 1);
            while (y->toks[h].gen == y->gen) h = (h + 1) & (y->tok_cap - 1);
            y->toks[h] = old[i];
        }
    cs_free(old);
}

void sym_touch(cs_system *s, const void *what, const char *label) {
    cs_symmetry *y = &s->sym;
    uint64_t key;
    if (!y->tie_pool || y->broken || !cs_eventq_dispatching(s->q, &key)) return;
    cs_time now = cs_eventq_now(s->q);
    if (!y->have_instant || now != y->instant) { /* a new instant: forget the last one's */
        y->have_instant = 1;
        y->instant = now;
        y->tok_used = 0;
        if (++y->gen == 0) {
            memset(y->toks, 0, y->tok_cap * sizeof *y->toks);
            y->gen = 1;
        }
    }
    if (2 * (y->tok_used + 1) > y->tok_cap) tok_grow(y);
    uint32_t root = (uint32_t)(key >> 32);
    size_t mask = y->tok_cap - 1, h = tok_hash(what, mask);
    for (; y->toks[h].gen == y->gen; h = (h + 1) & mask) {
        if (y->toks[h].p != what) continue;
        if (y->toks[h].root != root) {
            char buf[32];
            sym_break(s, "events of rank 0 at %s caused by ranks %u and %u both act on %s: other ranks "
                      "see their causes relabelled and may run them in the other order",
                      cs_time_fmt(now, buf, sizeof buf), y->toks[h].root, root, label);
        }
        return;
    }
    y->toks[h].p = what;
    y->toks[h].root = root;
    y->toks[h].gen = y->gen;
    y->tok_used++;
}

void cs_system_sym_event(cs_system *s, cs_time t, uint64_t key) {
    if (s->rep) sym_tie_add(s, t, key, 0);
}

void cs_system_sym_dispatch(cs_system *s) {
    if (!s->rep) return;
    sym_tie_done(s);
    sym_touch(s, &s->sym, "the executor");
}

uint32_t cs_system_sym_rank(const cs_system *s, uint32_t v, uint32_t root) {
    uint64_t r = 0;
    for (int d = 0; d < s->ndims; d++) {
        uint64_t n = s->netcfg->npus[d], stride = s->stride[d];
        uint64_t vd = (v / stride) % n, rd = ((uint64_t)root / stride) % n;
        uint64_t x = s->sym.op[d] == SYM_XOR ? (vd ^ rd) : (vd + n - rd) % n;
        r += x * stride;
    }
    return (uint32_t)r;
}
