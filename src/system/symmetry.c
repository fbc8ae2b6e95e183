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
 * (the same thing when n_d <= 2) -- each algorithm's sym_op (coll_algo.h);
 * an algorithm with CS_ALGO_SYM_NONE stops the run.  g_s, "move by s", maps rank 0 to rank s
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
 *
 * Causes within an instant (class mode).  An event pushed at the current
 * instant with a fresh key -- a receive whose bytes are already here
 * completes at once -- names its own rank as its cause, yet it runs after
 * the event that pushed it in every relabelling.  The guard remembers who
 * pushed it (cs_system_sym_event) and lets it act on state touched by that
 * pusher's cause, as long as every touch by that cause came before the
 * push (descends_after): events of one cause keep their order in every
 * relabelling.  With one representative the exemption is off: the replay
 * of every rank's spans (scenario/engine.c) orders an instant by one
 * cause's keys.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "system/sys_int.h"

static void table_init(sym_table *tb);
static void table_free(sym_table *tb, cs_pool *pool);

/* Class mode: the network dimension holding axis a as a sub-digit of its
 * coordinate, with the axis's step k in that coordinate; -1 when the axis
 * does not lie within one dimension. */
static int axis_dim(const cs_system *s, uint64_t stride, uint64_t size, uint64_t *k) {
    for (int d = 0; d < s->ndims; d++) {
        uint64_t n = s->netcfg->npus[d], sd = s->stride[d];
        if (stride < sd || stride >= sd * n || stride % sd) continue;
        *k = stride / sd;
        if (n % *k || n % (*k * size) || (*k * size) > n) return -1;
        return d;
    }
    return -1;
}

void css_sym_init(cs_system *s) {
    cs_symmetry *y = &s->sym;
    y->tie_pool = cs_pool_new(sizeof(sym_tie));
    table_init(&y->by_key);
    const cs_sym_axes *ax = s->p.axes;
    if (!ax) { /* one representative: the network's dimensions are the axes */
        y->naxes = s->ndims;
        for (int d = 0; d < s->ndims; d++) {
            y->ax_stride[d] = s->stride[d];
            y->ax_size[d] = s->netcfg->npus[d];
        }
        return;
    }
    y->cls = 1;
    y->naxes = ax->n < CS_SYM_MAX_AXES ? ax->n : CS_SYM_MAX_AXES;
    for (int a = 0; a < y->naxes; a++) {
        y->ax_stride[a] = ax->stride[a];
        y->ax_size[a] = ax->size[a] ? ax->size[a] : 1;
    }
    /* The analytical backend times a message by the first dimension in
     * which its ends differ, that dimension's hop count and bandwidth.  A
     * move along an axis keeps all three when the axis is a sub-digit of one
     * dimension's coordinate and, on a Ring, its outermost part (the move is
     * then a cyclic shift of the ring). */
    for (int a = 0; a < y->naxes; a++) {
        uint64_t k = 0;
        int d = axis_dim(s, y->ax_stride[a], y->ax_size[a], &k);
        if (d < 0) {
            css_sym_break(s, "symmetric axis %d (rank stride %" PRIu64 ", %" PRIu64 " ranks) does not lie "
                      "within one network dimension", a, y->ax_stride[a], y->ax_size[a]);
            return;
        }
        if (s->netcfg->topo[d] == CS_TOPO_RING && k * y->ax_size[a] != s->netcfg->npus[d]) {
            css_sym_break(s, "symmetric axis %d is an inner part of Ring dimension %d: moving along it "
                      "changes ring distances", a, d);
            return;
        }
        for (int b = 0; b < a; b++) {
            uint64_t lo = y->ax_stride[a], hi = lo * y->ax_size[a];
            uint64_t lo2 = y->ax_stride[b], hi2 = lo2 * y->ax_size[b];
            if (lo < hi2 && lo2 < hi) {
                css_sym_break(s, "symmetric axes %d and %d overlap", b, a);
                return;
            }
        }
    }
}

/* Each axis cut to its part in the outermost network dimension it touches.
 *
 * Why the outer part.  An axis (stride S, size n) whose digit range
 * [S, S n) crosses network dimension boundaries is, as a coordinate,
 * j = j_lo + q j_hi with j_lo the digits below the outermost dimension it
 * touches (q values) and j_hi those inside it.  A move along the whole axis
 * by s changes which dimension carries the messages of a ring of its
 * members (member j to j + 1 stays in a server when j_lo < q - 1 and leaves
 * it otherwise; a shift by 1 swaps the two), so it is no symmetry of the
 * timing.  A move by q s -- j_hi + s, j_lo kept -- maps the ring onto itself
 * (j + q s), a pair in one server onto a pair in one server, and moves the
 * ranks by a sub-digit of one dimension's coordinate, which keeps the first
 * differing dimension of every pair and so the analytical backend's time
 * (css_sym_init checks the rest: on a Ring the part must be the whole
 * dimension's outer part).  These moves are a subgroup of the axis's moves,
 * so the workload's invariance under the axis implies invariance under
 * them; the classes grow by q (the q values of j_lo are representatives of
 * their own), and a group along the axis becomes q orbits of the cut axis
 * (check_group_cls).  Example: TP 4 x DP 64 on 8-NPU servers, DP stride 4:
 * the DP axis becomes stride 8, size 32 (whole servers), q = 2.  An axis
 * whose cut does not divide evenly, or leaves one rank, is dropped (its
 * ranks are then representatives).  Returns the axes left. */
int cs_sym_axes_fit(cs_sym_axes *ax, const cs_network_config *net) {
    int k = 0;
    for (int a = 0; a < ax->n && a < CS_SYM_MAX_AXES; a++) {
        uint64_t S = ax->stride[a], top = S * ax->size[a], lo = 1, S2 = S;
        for (int d = 0; d < net->ndims; d++) { /* the outermost dimension below top */
            if (lo < top && lo > S) S2 = lo;
            lo *= net->npus[d];
        }
        if (S2 % S || top % S2 || top / S2 < 2) continue;
        ax->stride[k] = (uint32_t)S2;
        ax->size[k++] = (uint32_t)(top / S2);
    }
    ax->n = k;
    return k;
}

int cs_sym_axes_drop_largest(cs_sym_axes *ax) {
    if (ax->n < 1) return -1;
    int big = 0;
    for (int a = 1; a < ax->n && a < CS_SYM_MAX_AXES; a++)
        if (ax->size[a] >= ax->size[big]) big = a;
    for (int a = big; a + 1 < ax->n; a++) {
        ax->stride[a] = ax->stride[a + 1];
        ax->size[a] = ax->size[a + 1];
    }
    ax->n--;
    return big;
}

uint32_t cs_sym_axes_rep(const cs_sym_axes *ax, uint32_t rank) {
    for (int a = 0; a < ax->n && a < CS_SYM_MAX_AXES; a++)
        if (ax->size[a]) rank -= (rank / ax->stride[a]) % ax->size[a] * ax->stride[a];
    return rank;
}

uint32_t cs_system_rep_of(const cs_system *s, uint32_t rank) {
    if (!s->rep) return rank;
    return s->sym.cls ? cs_sym_axes_rep(s->p.axes, rank) : 0;
}

int css_sym_is_rep(const cs_system *s, uint32_t rank) { return cs_system_rep_of(s, rank) == rank; }

int cs_system_is_rep(const cs_system *s, uint32_t rank) { return css_sym_is_rep(s, rank); }

void css_sym_free(cs_system *s) {
    cs_symmetry *y = &s->sym;
    if (!y->tie_pool) return;
    table_free(&y->by_key, y->tie_pool);
    cs_free(y->toks);
    y->toks = NULL;
    cs_pool_free(y->tie_pool);
    y->tie_pool = NULL;
}

void css_sym_break(cs_system *s, const char *fmt, ...) {
    cs_symmetry *y = &s->sym;
    if (!y->broken) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(y->why, sizeof y->why, fmt, ap);
        va_end(ap);
        y->broken = y->why;
    }
    css_fail(s, CS_EUNSUPPORTED);
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

/* Fix axis a's operation to op (the first phase on it decides). */
static int set_op(cs_system *s, int a, const cs_coll_algo *algo) {
    if (s->sym.ax_size[a] <= 2) return 0; /* shift and XOR coincide */
    uint8_t op = algo->sym_op == CS_ALGO_SYM_XOR ? SYM_XOR : SYM_ADD;
    if (s->sym.cls && op == SYM_XOR) {
        uint64_t k = 0;
        int d = axis_dim(s, s->sym.ax_stride[a], s->sym.ax_size[a], &k);
        if (d >= 0 && s->netcfg->topo[d] == CS_TOPO_RING) {
            css_sym_break(s, "halvingDoubling along symmetric axis %d on Ring dimension %d: XOR moves "
                      "change ring distances", a, d);
            return -1;
        }
    }
    if (s->sym.op[a] == SYM_UNSET) {
        s->sym.op[a] = op;
    } else if (s->sym.op[a] != op) {
        css_sym_break(s, "%s %d runs both %s and %s: no relabelling of ranks maps both "
                  "patterns onto themselves", s->sym.cls ? "symmetric axis" : "dimension", a,
                  op == SYM_XOR ? "ring/direct" : "halvingDoubling", algo->name);
        return -1;
    }
    return 0;
}

/* Class mode: a communicator group's instance, created by representative R.
 *
 * The group must be a union of q whole orbits of one axis a laid out in file
 * order as member j = member (j mod q) moved j / q steps along a, with
 * members 0 .. q-1 representatives:
 *
 *     ranks[j] = ranks[j mod q] + (j / q) * stride_a,   n = q * size_a.
 *
 * (q = 1: the members are one axis through R, member j at coordinate j.)
 * A move by s along a maps member j to member j + q s (mod n) for a cyclic
 * shift, j ^ q s for XOR (q a power of two): a rotation of the ring, and for
 * direct and halving-doubling a map of each step's pattern (i -> i + off,
 * i -> i ^ off) onto itself.  So the full run's message of (phase, k) from
 * member i to member j is the image under that move of the message of the
 * same (phase, k) from member i - q s to member j - q s; with s = j / q it
 * ends at member j mod q, a representative.  q = 1 mirrors with rep_send as
 * before (system.c); q > 1 delivers such a message to the representative
 * j mod q as sent by the member moved back (css_sym_back), system.c
 * sym_redirect.  The typical q > 1 group is the DP group of TP 2 or 4 on
 * 8-NPU servers: its axis keeps only the part of DP that moves whole
 * servers (cs_sym_axes_fit), and the 2 or 4 members of one server are the
 * representatives. */
static int check_group_cls(cs_system *s, cs_inst *in, uint32_t R) {
    (void)R; /* a representative member: one of ranks[0 .. q-1] below */
    const cs_group *g = in->grp;
    uint32_t nph = in->nchunks ? in->phase_begin[in->nchunks] : 0;
    in->sym_q = 0;
    if (g->whole) {
        css_sym_break(s, "collective #%" PRIu64 " on every rank: its members lie in several classes", in->seq);
        return -1;
    }
    int all_rep = 1;
    for (uint32_t j = 0; j < g->n && all_rep; j++)
        if (!css_sym_is_rep(s, g->ranks[j])) all_rep = 0;
    if (all_rep) { /* every member is simulated: nothing to mirror */
        for (uint32_t i = 0; i < nph; i++) in->phases[i].axis = SYM_REAL;
        return 0;
    }
    int axis = -1;
    uint32_t q = 0;
    for (int a = 0; a < s->sym.naxes && axis < 0; a++) {
        uint64_t na = s->sym.ax_size[a], st = s->sym.ax_stride[a];
        if (na < 2 || g->n % na) continue;
        uint32_t qq = (uint32_t)(g->n / na), j = 0;
        while (j < qq && css_sym_is_rep(s, g->ranks[j])) j++;
        if (j < qq) continue;
        while (j < g->n && (uint64_t)g->ranks[j] == (uint64_t)g->ranks[j % qq] + (uint64_t)(j / qq) * st) j++;
        if (j == g->n) {
            axis = a;
            q = qq;
        }
    }
    if (axis < 0) {
        css_sym_break(s, "communicator group \"%s\" is not whole orbits of one symmetric axis in file order "
                  "(member j at member j mod q moved j / q steps, members 0 .. q-1 representatives)", g->name);
        return -1;
    }
    for (uint32_t i = 0; i < nph; i++) {
        cs_phase *ph = &in->phases[i];
        const cs_coll_algo *algo = css_phase_algo(ph);
        if (algo->sym_op == CS_ALGO_SYM_NONE) {
            css_sym_break(s, "%s on communicator group \"%s\": members hold different positions and only %s "
                      "simulated", algo->name, g->name, q > 1 ? "some are" : "one is");
            return -1;
        }
        if (q > 1 && algo->sym_op == CS_ALGO_SYM_XOR && (q & (q - 1))) {
            css_sym_break(s, "%s on communicator group \"%s\": %u representatives per orbit, not a power of two: "
                      "XOR moves do not keep the layout", algo->name, g->name, q);
            return -1;
        }
        ph->axis = (uint8_t)axis;
        if (set_op(s, axis, algo)) return -1;
    }
    in->sym_q = q;
    return 0;
}

int css_sym_check_inst(cs_system *s, cs_inst *in, uint32_t issuer) {
    uint32_t nph = in->nchunks ? in->phase_begin[in->nchunks] : 0;
    if (s->sym.cls) return check_group_cls(s, in, issuer);
    if (!in->grp->whole) {
        css_sym_break(s, "collective #%" PRIu64 " runs on communicator group \"%s\" (%u of %u ranks): "
                  "ranks outside it do something else", in->seq, in->grp->name, in->grp->n, s->nranks);
        return -1;
    }
    for (uint32_t i = 0; i < nph; i++) {
        cs_phase *ph = &in->phases[i];
        const cs_coll_algo *algo = css_phase_algo(ph);
        if (algo->sym_op == CS_ALGO_SYM_NONE) {
            css_sym_break(s, "%s: %s", algo->name, algo->sym_why ? algo->sym_why : "no symmetry");
            return -1;
        }
        int d = phase_dim(s, ph);
        if (d < 0) {
            cs_coll_impl one = {.algo = algo, .one = true, .param = 0};
            char name[64];
            css_sym_break(s, "%s over every NPU of a network with several dimensions: ring neighbours "
                      "cross dimensions at some positions only", cs_coll_impl_name(&one, name, sizeof name));
            return -1;
        }
        ph->axis = (uint8_t)d; /* the dimensions are the axes */
        if (set_op(s, d, algo)) return -1;
    }
    return 0;
}

uint64_t css_sym_key(const cs_system *s, const cs_phase *ph, uint32_t src, uint64_t key) {
    int a = ph->axis;
    uint64_t n = s->sym.ax_size[a], stride = s->sym.ax_stride[a];
    uint64_t r = key >> 32;
    uint64_t rd = (r / stride) % n, sd = ((uint64_t)src / stride) % n;
    uint64_t nd = css_phase_algo(ph)->sym_op == CS_ALGO_SYM_XOR ? (rd ^ sd) : (rd + sd) % n;
    r = r - rd * stride + nd * stride;
    return (r << 32) | (key & 0xffffffffu);
}

/* Rank r moved back along the phase's axis by rank `by`'s coordinate on it
 * (the inverse of the move taking by's representative to by). */
uint32_t css_sym_back(const cs_system *s, const cs_phase *ph, uint32_t by, uint32_t r) {
    int a = ph->axis;
    uint64_t n = s->sym.ax_size[a], stride = s->sym.ax_stride[a];
    uint64_t rd = ((uint64_t)r / stride) % n, bd = ((uint64_t)by / stride) % n;
    uint64_t nd = css_phase_algo(ph)->sym_op == CS_ALGO_SYM_XOR ? (rd ^ bd) : (rd + n - bd) % n;
    return (uint32_t)((uint64_t)r - rd * stride + nd * stride);
}

/* ---- the guard ------------------------------------------------------------- */

static size_t tie_bucket(const sym_table *tb, uint32_t owner, cs_time t, uint64_t key) {
    uint64_t x = t * 0x9e3779b97f4a7c15ULL ^ key ^ ((uint64_t)owner * 0xc2b2ae3d27d4eb4fULL);
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
            size_t h = tie_bucket(tb, e->owner, e->t, e->key);
            e->next = tb->b[h];
            tb->b[h] = e;
        }
    cs_free(ob);
}

/* Count one more pending event at (t, key) with tag; returns the tag of the
 * events already there when it differs (conflict), else UINT32_MAX. */
static uint32_t table_add(sym_table *tb, cs_pool *pool, uint32_t owner, cs_time t, uint64_t key, uint32_t tag) {
    size_t h = tie_bucket(tb, owner, t, key);
    for (sym_tie *e = tb->b[h]; e; e = e->next)
        if (e->t == t && e->key == key && e->owner == owner) {
            if (e->tag != tag) return e->tag;
            e->count++;
            return UINT32_MAX;
        }
    sym_tie *e = cs_pool_get(pool);
    e->t = t;
    e->key = key;
    e->owner = owner;
    e->tag = tag;
    e->count = 1;
    e->next = tb->b[h];
    tb->b[h] = e;
    if (++tb->n > 2 * tb->nbuckets) table_grow(tb);
    return UINT32_MAX;
}

static void table_done(sym_table *tb, cs_pool *pool, uint32_t owner, cs_time t, uint64_t key) {
    for (sym_tie **pp = &tb->b[tie_bucket(tb, owner, t, key)]; *pp; pp = &(*pp)->next) {
        sym_tie *e = *pp;
        if (e->t == t && e->key == key && e->owner == owner) {
            if (--e->count == 0) {
                *pp = e->next;
                cs_pool_put(pool, e);
                tb->n--;
            }
            return;
        }
    }
}

void css_sym_tie_add(cs_system *s, uint32_t owner, cs_time t, uint64_t key, uint32_t tag) {
    cs_symmetry *y = &s->sym;
    if (!y->tie_pool || y->broken) return;
    uint32_t other = table_add(&y->by_key, y->tie_pool, owner, t, key, tag);
    if (other != UINT32_MAX) {
        char buf[32];
        css_sym_break(s, "rank %u has two events at %s with the same key, inserted by rank %u and by rank "
                  "%u in the full simulation: their order depends on other ranks",
                  owner, cs_time_fmt(t, buf, sizeof buf), other, tag);
    }
}

void css_sym_tie_done(cs_system *s, uint32_t owner) {
    cs_symmetry *y = &s->sym;
    uint64_t key;
    if (!y->tie_pool || y->broken || !cs_eventq_dispatching(s->q, &key)) return;
    table_done(&y->by_key, y->tie_pool, owner, cs_eventq_now(s->q), key);
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

/* Whether every move keeps the order of ranks r1 and r2 (so the full run
 * orders two events caused by them alike on every rank of the class).  A
 * move changes the axes' digits only, each the same way in both ranks; the
 * order is fixed unless the most significant digit in which r1 and r2
 * differ is an axis digit, i.e. unless some axis digit differs while
 * everything above that axis agrees. */
static int order_fixed(const cs_system *s, uint32_t r1, uint32_t r2) {
    for (int a = 0; a < s->sym.naxes; a++) {
        uint64_t st = s->sym.ax_stride[a], n = s->sym.ax_size[a];
        if ((r1 / st) % n != (r2 / st) % n && r1 / (st * n) == r2 / (st * n)) return 0;
    }
    return 1;
}

/* A new instant: forget the last one's touches and fresh keys. */
static void sym_instant(cs_symmetry *y, cs_time now) {
    if (y->have_instant && now == y->instant) return;
    y->have_instant = 1;
    y->instant = now;
    y->tok_used = 0;
    y->nanc = 0;
    if (++y->gen == 0) {
        memset(y->toks, 0, y->tok_cap * sizeof *y->toks);
        y->gen = 1;
    }
}

/* The entry of the fresh-keyed event with key `key` pushed at this instant,
 * or UINT32_MAX. */
static uint32_t anc_find(const cs_symmetry *y, uint64_t key) {
    for (uint32_t i = y->nanc; i-- > 0;)
        if (y->anc[i].key == key) return i;
    return UINT32_MAX;
}

/* Whether the event being dispatched (entry e of its instant's fresh keys,
 * or none) runs after every touch of a token by cause `r` up to dispatch
 * number `last` in every relabelling: it descends, within the instant, from
 * an event of cause r dispatched no earlier than that touch.  Events of one
 * cause keep their order in every relabelling, and an event pushed by a
 * handler at the current instant runs after that handler. */
static int descends_after(const cs_symmetry *y, uint32_t e, uint32_t r, uint64_t last) {
    for (int hops = 0; e != UINT32_MAX && hops < (int)SYM_ANC_MAX; hops++) {
        const sym_anc *a = &y->anc[e];
        if (a->root == r && last <= a->at) return 1;
        e = a->parent;
    }
    return 0;
}

void css_sym_touch(cs_system *s, const void *what, const char *label) {
    cs_symmetry *y = &s->sym;
    uint64_t key;
    if (!y->tie_pool || y->broken || !cs_eventq_dispatching(s->q, &key)) return;
    cs_time now = cs_eventq_now(s->q);
    sym_instant(y, now);
    uint64_t at = cs_eventq_dispatched(s->q);
    if (2 * (y->tok_used + 1) > y->tok_cap) tok_grow(y);
    uint32_t root = (uint32_t)(key >> 32);
    size_t mask = y->tok_cap - 1, h = tok_hash(what, mask);
    for (; y->toks[h].gen == y->gen; h = (h + 1) & mask) {
        sym_tok *t = &y->toks[h];
        if (t->p != what) continue;
        /* every other cause's touches must come before this one on every
         * rank of the class: their causes' order is fixed, or this event
         * descends from the last of them */
        uint32_t e = y->nanc ? anc_find(y, key) : UINT32_MAX, mine = UINT32_MAX;
        for (uint32_t i = 0; i < t->nroot; i++) {
            if (t->root[i] == root) {
                mine = i;
                continue;
            }
            if (!order_fixed(s, t->root[i], root) && !descends_after(y, e, t->root[i], t->last[i])) {
                char buf[32];
                css_sym_break(s, "simultaneous events at %s caused by ranks %u and %u both act on %s: other ranks "
                          "see their causes relabelled and may run them in the other order",
                          cs_time_fmt(now, buf, sizeof buf), t->root[i], root, label);
                return;
            }
        }
        if (mine != UINT32_MAX) {
            t->last[mine] = at;
            return;
        }
        if (t->nroot == SYM_TOK_ROOTS) {
            char buf[32];
            css_sym_break(s, "simultaneous events at %s from more than %d causes act on %s",
                          cs_time_fmt(now, buf, sizeof buf), SYM_TOK_ROOTS, label);
            return;
        }
        t->root[t->nroot] = root;
        t->last[t->nroot++] = at;
        return;
    }
    y->toks[h].p = what;
    y->toks[h].root[0] = root;
    y->toks[h].last[0] = at;
    y->toks[h].nroot = 1;
    y->toks[h].gen = y->gen;
    y->tok_used++;
}

void cs_system_sym_event(cs_system *s, uint32_t owner, cs_time t, uint64_t key, uint32_t inserter) {
    if (!s->rep) return;
    css_sym_tie_add(s, owner, t, key, inserter);
    cs_symmetry *y = &s->sym;
    uint64_t cause;
    if (!y->cls || !y->tie_pool || y->broken || !cs_eventq_dispatching(s->q, &cause) || t != cs_eventq_now(s->q))
        return;
    /* Class mode: pushed at the current instant by the event being
     * dispatched: remember its cause (a full table only loses the exemption,
     * never a check).  Not with one representative: its replay
     * (engine.c rep_replay) reports every rank's spans of an instant in the
     * order of one cause's keys, which a descendant's fresh key breaks. */
    sym_instant(y, t);
    if (y->nanc == SYM_ANC_MAX) return;
    uint32_t parent = anc_find(y, cause);
    y->anc[y->nanc++] = (sym_anc){.key = key, .at = cs_eventq_dispatched(s->q), .root = (uint32_t)(cause >> 32),
                                  .parent = parent};
}

void cs_system_sym_dispatch(cs_system *s, uint32_t owner) {
    if (!s->rep) return;
    css_sym_tie_done(s, owner);
    css_sym_touch(s, sym_exec_token(s, owner), "the executor");
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
