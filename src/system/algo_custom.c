/*
 * algo_custom.c -- "custom:PREFIX": one dimension's phase of a collective run
 * as a custom graph of sends, receives and compute steps (part of the system
 * layer, see sys_int.h; docs/collectives.md, "Custom graphs per dimension").
 * Owned by the system layer.
 *
 * The graphs come from the layer that reads Chakra files, through
 * cs_system_params.custom_dim (custom_dim.h): the bind hook asks for the set
 * of PREFIX for the dimension's n NPUs once per collective planned.  A stream
 * entering such a phase runs the graph of its position in the dimension's
 * group: every node whose parents are done is issued at once;
 *  - a send is a message of comm_size x B / ref_bytes bytes (B = the phase's
 *    size: its input for a reduce-scatter, all-reduce or all-to-all, its
 *    output for an all-gather; rounded down) to the peer's position, done
 *    when it has arrived (css_send_notify); its identity k is the index of
 *    the receive node it matches in the peer's graph;
 *  - a receive is posted when issued and done when its message is delivered;
 *  - a compute step takes its duration, beside everything else.
 * The phase ends when every node is done (an empty graph ends at once).  No
 * endpoint delay and no reduction are added: they are the built-in
 * algorithms' and a graph states its own as compute steps.  Each chunk runs
 * the graph once per phase on the dimension; the queues admit the stream as
 * for any algorithm.  Per stream and phase the instance keeps one
 * pending-parent counter and one state byte per node (css_inst_alloc).
 */
#include <inttypes.h>
#include <stdio.h>

#include "core/invariant.h"
#include "system/custom_dim.h"
#include "system/sys_int.h"

enum { N_WAIT = 0, N_ISSUED = 1, N_DONE = 2 };

typedef struct crun {
    const cs_cdim_graph *g;
    const cs_cdim_set *set;
    uint32_t left;     /* nodes not done */
    uint32_t *pending; /* parents not done, per node */
    uint8_t *state;    /* N_*, per node */
} crun;

typedef struct cstate {
    crun *r;
} cstate;
_Static_assert(sizeof(cstate) <= CSS_ALGO_STATE_BYTES, "custom graph state fits the stream");

static crun *run_of(const cs_stream *st) { return ((const cstate *)css_stream_cstate(st))->r; }

/* The phase's size: what a built-in algorithm of the phase moves as "the collective". */
static uint64_t phase_size(const cs_phase *ph) { return ph->in_bytes > ph->out_bytes ? ph->in_bytes : ph->out_bytes; }

__extension__ typedef unsigned __int128 u128;

/* comm_size x B / ref_bytes, rounded down (exact: 128-bit product). */
static uint64_t scaled(const cs_phase *ph, const cs_cdim_set *set, uint64_t bytes) {
    u128 v = (u128)bytes * phase_size(ph) / set->ref_bytes;
    return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

static int bind(const css_check *c, const cs_coll_impl *e, const void **data, cs_error *err) {
    cs_system *s = c->sys; /* (not const: the run stops here in representative mode) */
    char what[CS_COLL_IMPL_TEXT_MAX + 256];
    snprintf(what, sizeof what, "%s: %s[%d] \"custom:%s\"", s->cfg.path ? s->cfg.path : "the system configuration",
             c->key, c->entry, e->text);
    if (s->rep) {
        css_sym_break(s, "%s: a custom graph sends to particular positions of the dimension", what);
        return CS_ERR(err, CS_EUNSUPPORTED, "%s: representative mode does not run custom graphs", what);
    }
    if (c->space == SP_ALL)
        return CS_ERR(err, CS_EINVAL, "%s: %s: custom graphs run on one dimension; expected a one* form only for "
                      "the built-in algorithms", css_check_where(c), what);
    const cs_cdim_loader *L = s->p.custom_dim;
    if (!L || !L->load)
        return CS_ERR(err, CS_EUNSUPPORTED, "%s: %s: no loader of custom graphs was given to the system layer; "
                      "expected a run through the workload executor", css_check_where(c), what);
    const cs_cdim_set *set = NULL;
    int rc = L->load(L->ud, e->text, what, c->n, &set, err);
    if (rc) return rc;
    CS_ALWAYS(set->n == c->n && set->ref_bytes > 0, "custom:%s: a set of %u graphs for %u positions", e->text,
              set->n, c->n);
    *data = set;
    return CS_OK;
}

static void setup(cs_stream *st, const cs_phase *ph) {
    const cs_cdim_set *set = ph->data;
    const cs_cdim_graph *g = &set->g[st->idx];
    cstate *cs = css_stream_state(st);
    crun *r = css_inst_alloc(st->inst, sizeof *r + (size_t)g->nnodes * (sizeof(uint32_t) + 1));
    r->g = g;
    r->set = set;
    r->left = g->nnodes;
    r->pending = (uint32_t *)(r + 1);
    r->state = (uint8_t *)(r->pending + g->nnodes);
    for (uint32_t i = 0; i < g->nnodes; i++) r->pending[i] = g->nodes[i].nparents;
    cs->r = r;
}

static void issue(cs_system *s, cs_stream *st, crun *r, uint32_t i);

/* Node i is done: release its children; the phase ends with the last node. */
static void node_done(cs_system *s, cs_stream *st, crun *r, uint32_t i) {
    CS_ALWAYS(r->state[i] == N_ISSUED, "custom graph %s: node %" PRIu64 " completes twice", r->g->source,
              r->g->nodes[i].id);
    r->state[i] = N_DONE;
    r->left--;
    const cs_cdim_node *nd = &r->g->nodes[i];
    for (uint32_t c = 0; c < nd->nchildren; c++) {
        uint32_t ch = r->g->children[nd->child_begin + c];
        if (--r->pending[ch] == 0) issue(s, st, r, ch);
    }
    if (r->left == 0) css_stream_proceed(s, st);
}

static void comp_ev(void *ctx, const cs_event *ev) {
    cs_stream *st = ctx;
    cs_inst *in = st->inst;
    cs_system *s = in->sys;
    if (!s->failed) node_done(s, st, run_of(st), (uint32_t)ev->arg);
    css_inst_release(in);
}

static void issue(cs_system *s, cs_stream *st, crun *r, uint32_t i) {
    const cs_cdim_node *nd = &r->g->nodes[i];
    const cs_phase *ph = stream_phase(st);
    r->state[i] = N_ISSUED;
    switch (nd->kind) {
    case CS_CDIM_SEND:
        css_send_notify(st, css_topo_member(st, ph, nd->peer), scaled(ph, r->set, nd->bytes), nd->match, i);
        return;
    case CS_CDIM_RECV:
        css_post_recv(st, i); /* a message already here is delivered through an event now */
        return;
    default: {
        uint32_t rank = css_inst_rank(st->inst, stream_member(st));
        cs_time t = cs_time_add(cs_eventq_now(s->q), cs_time_from_ns_sat(nd->dur_ns));
        css_inst_hold(st->inst);
        cs_eventq_push(s->q, t, css_key(s, rank), comp_ev, st, i);
        return;
    }
    }
}

static void run(cs_system *s, cs_stream *st, int ev) {
    crun *r = run_of(st);
    if (ev != EV_INIT) return; /* receives and arrivals come through their own hooks */
    if (r->left == 0) {
        css_stream_proceed(s, st);
        return;
    }
    for (uint32_t i = 0; i < r->g->nnodes; i++)
        if (r->pending[i] == 0 && r->state[i] == N_WAIT) issue(s, st, r, i);
}

static int recv_posted(const cs_stream *st, uint32_t k) {
    const crun *r = run_of(st);
    return k < r->g->nnodes && r->state[k] == N_ISSUED && r->g->nodes[k].kind == CS_CDIM_RECV;
}

static void received(cs_system *s, cs_stream *st, uint32_t k) { node_done(s, st, run_of(st), k); }

static void arrived(cs_system *s, cs_stream *st, uint32_t src_k) { node_done(s, st, run_of(st), src_k); }

const cs_coll_algo css_algo_custom = {
    .name = "custom",
    .param = ":PREFIX",
    .help = "custom:PREFIX -- this dimension's phases run the Chakra ET graphs PREFIX.<i>.et (i = position "
            "in the dimension), sizes scaled from the graphs' declared phase_bytes",
    .flags = CS_ALGO_TEXT,
    .sym_op = CS_ALGO_SYM_NONE,
    .sym_why = "a custom graph sends to particular positions of the dimension",
    .bind = bind,
    .setup = setup,
    .run = run,
    .recv_posted = recv_posted,
    .received = received,
    .arrived = arrived,
};
