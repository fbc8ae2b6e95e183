/*
 * algo_inswitch.c -- in-switch collectives (NVLS / SHARP / FRED-style):
 * all-reduce, reduce-scatter and all-gather reduced or gathered inside the
 * switch of a Switch dimension (part of the system layer; see sys_int.h).
 * Owned by the system layer.  Not an ASTRA-sim algorithm: selected with
 * "inSwitch" in a *-implementation list; model and numbers in
 * docs/collectives.md ("In-switch collectives").
 *
 * Per phase on a line of n NPUs behind one switch, with up / down = the
 * bytes one NPU sends to / receives from the switch (all-reduce: S / S;
 * reduce-scatter: S / S/n; all-gather: S / (n-1) S -- its own shard stays
 * local; S = the phase's in_bytes):
 *   1. a bundle (endpoint delay, no local reduction) -- the contribution
 *      leaves the NPU: it is counted at the switch;
 *   2. when the n-th contribution of the line has left (at T), the switch
 *      has reduced / gathered as the data streamed in (cut-through, as the
 *      `analytical` backend treats a switch) and every member receives its
 *      result at T + floor(2 L + max(up, down) / B) ns, L and B the
 *      dimension's latency and bandwidth (GB/s read as GiB/s);
 *   3. a bundle (endpoint delay), and the phase is done.
 * On `analytical` no network messages are sent: the time is this closed
 * form, so in-switch traffic does not contend with other traffic.
 * On a backend with CS_NET_SWITCH_BOOK (analytical-congestion) the NPU's
 * links to and from the switch are booked: a contribution takes its up link
 * when free (start u), T above is the line's latest u, and each result
 * takes its member's down link, no earlier than T + the closed form.
 * On a backend with send_switch (flow), step 2 is real traffic instead: the
 * contribution is a flow NPU -> switch (the first switch on the route to the
 * next member of the line), and, cut-through, a latency after the line's
 * last contribution started, n flows switch -> NPU carry the results; a
 * member's result counts when its flow has arrived and a latency after the
 * line's contributions have all arrived (uncontended: the closed form),
 * sharing links max-min with everything else.  Bytes: each member sends
 * `up` and receives `down` (rank bytes_sent / bytes_recv).
 * Per-stream step (insw_state.step): 0 start, 1 contribution leaving,
 * 2 waiting for the switch, 4 (flow) result flow in, contributions not yet,
 * 3 result arrived; invariants
 * (core/invariant.h): a result reaches a stream only at step 2, a line's
 * switch never counts more than n contributions.  Registered as
 * css_algo_inswitch: all-reduce, reduce-scatter or all-gather on a Switch
 * dimension; simulated in full (no representative mode).
 */
#include <inttypes.h>
#include <math.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/invariant.h"
#include "network/network.h"
#include "system/sys_int.h"

/* Per-stream state (css_stream_state). */
typedef struct insw_state {
    uint8_t step;
} insw_state;
_Static_assert(sizeof(insw_state) <= CSS_ALGO_STATE_BYTES, "in-switch state fits the stream");

static uint8_t *step_of(cs_stream *st) { return &((insw_state *)css_stream_state(st))->step; }

static void phase_bytes(const cs_phase *ph, uint64_t *up, uint64_t *down) {
    *up = ph->in_bytes;
    /* all-gather: the NPU keeps its own shard, the switch multicasts the others */
    *down = ph->ctype == CT_AG ? ph->out_bytes - ph->in_bytes : ph->out_bytes;
}

typedef struct insw_xfer {
    cs_inst *in;
    uint32_t member, chunk;
} insw_xfer;

/* The dimension of a phase, with its latency L (ns) and bandwidth B (bytes per ns): the closed form's. */
static int dim_lb(const cs_system *s, const cs_phase *ph, double *L, double *B) {
    int d = ph->space == SP_DIM ? ph->dim : 0;
    *B = cs_gbps_to_bytes_per_ns(s->netcfg->bandwidth_gbps[d]);
    *L = s->netcfg->latency_ns[d];
    return d;
}

/* Another member of st's line than member j (the booked links' peer: it names the switch). */
static uint32_t line_peer_rank(const cs_inst *in, const cs_stream *st, const cs_phase *ph, uint32_t j) {
    return css_inst_rank(in, css_topo_member(st, ph, j ? 0 : 1));
}

/* The result reaches member st: its bytes, then the closing bundle. */
static void deliver(cs_system *s, cs_inst *in, cs_stream *st) {
    const cs_phase *ph = stream_phase(st);
    uint64_t up, down;
    phase_bytes(ph, &up, &down);
    *css_member_recv(in, stream_member(st)) += down;
    s->stats.bytes_recv += down;
    *step_of(st) = 3;
    css_stream_bundle(s, st, down, 0, ph->fast);
}

static void deliver_ev(void *ctx, const cs_event *ev) {
    cs_inst *in = ctx;
    cs_system *s = in->sys;
    uint32_t member = (uint32_t)(ev->arg >> 32), chunk = (uint32_t)ev->arg;
    cs_stream *st = inst_stream(in, member, chunk);
    CS_ALWAYS(s->failed || (st->state == ST_RUNNING && (*step_of(st) == 2 || *step_of(st) == 4)),
              "in-switch result for member %u's chunk %u of collective #%" PRIu64 " at step %u (state %d)", member,
              chunk, in->seq, *step_of(st), st->state);
    if (!s->failed && st->state == ST_RUNNING && (*step_of(st) == 2 || *step_of(st) == 4)) deliver(s, in, st);
    css_inst_release(in);
}

/* Deliver to member m (chunk c) at time t (now, or an event then). */
static void deliver_at(cs_system *s, cs_inst *in, uint32_t m, uint32_t c, cs_time t) {
    css_inst_hold(in);
    cs_eventq_push(s->q, t, css_key(s, css_inst_rank(in, m)), deliver_ev, in, (uint64_t)m << 32 | c);
}

/* On flow (cut-through at the switch): a member's result flow has arrived.
 * It is delivered once the line's contributions have all arrived and a
 * latency more has passed (the last of them has to cross the switch and
 * come down), else when they have. */
static void down_arrived(void *ctx, uint64_t cookie) {
    (void)cookie;
    insw_xfer *x = ctx;
    cs_inst *in = x->in;
    cs_system *s = in->sys;
    cs_stream *st = inst_stream(in, x->member, x->chunk);
    cs_free(x);
    CS_ALWAYS(s->failed || (st->state == ST_RUNNING && *step_of(st) == 2), "in-switch result for member %u's chunk %u "
              "of collective #%" PRIu64 " at step %u (state %d)", stream_member(st), stream_chunk(st), in->seq,
              *step_of(st), st->state);
    if (!s->failed && st->state == ST_RUNNING && *step_of(st) == 2) {
        const cs_phase *ph = stream_phase(st);
        size_t k = (size_t)st->ph_index * in->grp->n + css_topo_member(st, ph, 0);
        if (css_inst_phase_counts2(in)[k] < ph->n) { /* contributions still on their way: wait for them */
            *step_of(st) = 4;
        } else {
            double L, B;
            dim_lb(s, ph, &L, &B);
            cs_time t = cs_time_add(css_inst_phase_times(in)[k], cs_time_from_whole_ns_f(L)), now = cs_eventq_now(s->q);
            deliver_at(s, in, stream_member(st), stream_chunk(st), t > now ? t : now);
        }
    }
    css_inst_release(in);
}

/* One flow between member m of st's line and the line's switch. */
static void switch_xfer(cs_system *s, cs_stream *st, int up, uint64_t bytes, cs_net_done_fn done) {
    cs_inst *in = st->inst;
    const cs_phase *ph = stream_phase(st);
    uint32_t m = stream_member(st);
    uint32_t rank = css_inst_rank(in, m), peer = css_inst_rank(in, css_topo_member(st, ph, (st->idx + 1) % ph->n));
    insw_xfer *x = cs_malloc(sizeof *x);
    x->in = in;
    x->member = m;
    x->chunk = stream_chunk(st);
    css_inst_hold(in);
    cs_error e;
    cs_error_clear(&e);
    cs_net_msg nm = {.src = rank, .dst = peer, .bytes = bytes, .key = css_key(s, rank), .done = done, .ctx = x};
    int rc = cs_net_send_switch(s->net, &nm, up, &e);
    if (rc) {
        cs_free(x);
        css_fail_msg(s, in, m, &e);
        css_inst_release(in);
    }
}

/* On flow: a contribution has arrived at the switch; with the line's last,
 * the members whose result flows came first get their results a latency
 * later. */
static void up_arrived(void *ctx, uint64_t cookie) {
    (void)cookie;
    insw_xfer *x = ctx;
    cs_inst *in = x->in;
    cs_system *s = in->sys;
    cs_stream *st = inst_stream(in, x->member, x->chunk);
    cs_free(x);
    if (!s->failed) {
        const cs_phase *ph = stream_phase(st);
        size_t k = (size_t)st->ph_index * in->grp->n + css_topo_member(st, ph, 0);
        uint32_t *arrived = &css_inst_phase_counts2(in)[k];
        CS_ALWAYS(*arrived < ph->n, "collective #%" PRIu64 ": a switch gets contribution %u of %u", in->seq,
                  *arrived + 1, ph->n);
        if (++*arrived == ph->n) {
            double L, B;
            dim_lb(s, ph, &L, &B);
            css_inst_phase_times(in)[k] = cs_eventq_now(s->q);
            cs_time t = cs_time_add(cs_eventq_now(s->q), cs_time_from_whole_ns_f(L));
            for (uint32_t j = 0; j < ph->n; j++) {
                cs_stream *sj = inst_stream(in, css_topo_member(st, ph, j), stream_chunk(st));
                if (sj->state == ST_RUNNING && *step_of(sj) == 4)
                    deliver_at(s, in, css_topo_member(st, ph, j), stream_chunk(st), t);
            }
        }
    }
    css_inst_release(in);
}

/* On flow: a latency after the line's last contribution started, its first
 * bytes are at the switch, which streams the results down (cut-through). */
static void results_down_ev(void *ctx, const cs_event *ev) {
    cs_inst *in = ctx;
    cs_system *s = in->sys;
    uint32_t member = (uint32_t)(ev->arg >> 32), chunk = (uint32_t)ev->arg;
    if (!s->failed) {
        cs_stream *st = inst_stream(in, member, chunk);
        const cs_phase *ph = stream_phase(st);
        uint64_t up, down;
        phase_bytes(ph, &up, &down);
        for (uint32_t j = 0; j < ph->n && !s->failed; j++)
            switch_xfer(s, inst_stream(in, css_topo_member(st, ph, j), chunk), 0, down, down_arrived);
    }
    css_inst_release(in);
}

static void run(cs_system *s, cs_stream *st, int ev) {
    cs_inst *in = st->inst;
    const cs_phase *ph = stream_phase(st);
    uint64_t up, down;
    phase_bytes(ph, &up, &down);
    if (s->rep && ph->axis != SYM_REAL) {
        css_sym_break(s, "inSwitch is simulated in full");
        return;
    }
    if (ev == EV_INIT) {
        *step_of(st) = 1;
        css_stream_bundle(s, st, up, 0, ph->fast);
        return;
    }
    if (ev != EV_GENERAL) return;
    if (*step_of(st) == 3) {
        css_stream_proceed(s, st);
        return;
    }
    CS_ALWAYS(*step_of(st) == 1, "member %u's chunk %u of collective #%" PRIu64 ": a bundle completes at step %u",
              stream_member(st), stream_chunk(st), in->seq, *step_of(st));
    if (*step_of(st) != 1) return;
    /* the contribution leaves for the switch */
    *step_of(st) = 2;
    *css_member_sent(in, stream_member(st)) += up;
    s->stats.bytes_sent += up;
    s->stats.messages++;
    uint32_t nmem = in->grp->n;
    uint32_t *counts = css_inst_phase_counts(in);
    if (cs_net_has(s->net, CS_NET_SWITCH_ENDPOINTS)) { /* real traffic (flow backend), cut-through at the switch */
        switch_xfer(s, st, 1, up, up_arrived);
        uint32_t *started = &counts[(size_t)st->ph_index * nmem + css_topo_member(st, ph, 0)];
        CS_ALWAYS(*started < ph->n, "collective #%" PRIu64 ": a switch starts contribution %u of %u", in->seq,
                  *started + 1, ph->n);
        if (++*started == ph->n) { /* every contribution is streaming in: the results start down a latency on */
            double L, B;
            dim_lb(s, ph, &L, &B);
            css_inst_hold(in);
            cs_eventq_push(s->q, cs_time_add(cs_eventq_now(s->q), cs_time_from_whole_ns_f(L)),
                           css_key(s, css_inst_rank(in, stream_member(st))), results_down_ev, in,
                           (uint64_t)stream_member(st) << 32 | stream_chunk(st));
        }
        return;
    }
    uint32_t line = css_topo_member(st, ph, 0); /* the line's first member names its switch */
    uint32_t *cnt = &counts[(size_t)st->ph_index * nmem + line];
    CS_ALWAYS(*cnt < ph->n, "collective #%" PRIu64 ": a switch gets contribution %u of %u", in->seq, *cnt + 1, ph->n);
    /* FIFO links to the switch (analytical-congestion): booked */
    int book = ph->n > 1 && cs_net_has(s->net, CS_NET_SWITCH_BOOK);
    cs_time *tup = book ? &css_inst_phase_times(in)[(size_t)st->ph_index * nmem + line] : NULL;
    if (book) { /* the contribution takes the NPU's up link when it is free: the line's latest start counts */
        cs_time u = cs_net_switch_book_up(s->net, css_inst_rank(in, stream_member(st)),
                                          line_peer_rank(in, st, ph, st->idx), up);
        if (u > *tup) *tup = u;
    }
    if (++*cnt < ph->n) return;
    /* the last contribution: every member of the line gets the result */
    double L, B;
    int d = dim_lb(s, ph, &L, &B);
    uint64_t big = up > down ? up : down;
    double ns = 2 * L + (double)big / B;
    /* from the last contribution's departure -- on booked links, the latest start of an up link */
    cs_time t = cs_time_add(book && *tup > cs_eventq_now(s->q) ? *tup : cs_eventq_now(s->q), cs_time_from_whole_ns_f(ns));
    if (cs_time_beyond(t)) {
        cs_error e;
        cs_error_clear(&e);
        CS_ERR(&e, CS_EINVAL, "in-switch reduction of %" PRIu64 " bytes in dimension %d (%g GB/s, %g ns): %.4g ns ends "
               "beyond " CS_TIME_RANGE_TEXT, big, d, s->netcfg->bandwidth_gbps[d], L, ns);
        css_fail_msg(s, in, stream_member(st), &e);
        return;
    }
    for (uint32_t j = 0; j < ph->n; j++) {
        uint32_t m = css_topo_member(st, ph, j);
        /* with booked links the result takes the member's down link, cut-through: no earlier than t, nor than
         * the link is free */
        deliver_at(s, in, m, stream_chunk(st),
                   book ? cs_net_switch_book_down(s->net, css_inst_rank(in, m), line_peer_rank(in, st, ph, j), down, t)
                        : t);
    }
}

static int check(const css_check *c, cs_error *err) {
    const cs_system *s = c->sys;
    int d = c->space == SP_DIM ? c->dim : 0;
    /* a group: on the one dimension, or within one node of dimension 0 (its switch is the node's) */
    int sw = c->space == SP_DIM ? s->netcfg->topo[d] == CS_TOPO_SWITCH
                                : (s->ndims == 1 || c->node_local) && s->netcfg->topo[0] == CS_TOPO_SWITCH;
    if (c->ctype == CT_A2A || !sw)
        return CS_ERR(err, CS_EUNSUPPORTED,
                      "%s: inSwitch %s on %s; expected all-reduce, reduce-scatter or all-gather on "
                      "a Switch dimension",
                      css_check_where(c), c->coll,
                      c->ctype == CT_A2A ? "all-to-all" : cs_topo_kind_name(s->netcfg->topo[d]));
    return CS_OK;
}

const cs_coll_algo css_algo_inswitch = {
    .name = "inSwitch",
    .help = "reduction / gather inside the switch of a Switch dimension (NVLS/SHARP-style; "
            "clustersim only, docs/collectives.md); not all-to-all",
    .sym_op = CS_ALGO_SYM_NONE,
    .sym_why = "the switch waits for every member's contribution (simulated in full)",
    .check = check,
    .run = run,
};
