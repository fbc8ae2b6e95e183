/*
 * algo_dbt.c -- double binary tree all-reduce (part of the system layer; see
 * sys_int.h).  Owned by the system layer.
 *
 * The tree (ASTRA-sim's BinaryTree, re-derived): for n = 2^h nodes of a
 * logical ring, a full binary tree of n-1 nodes is numbered in in-order
 * (left subtree, node, right subtree) and an extra root with a single child
 * is added: the tree "RootMax" puts the subtree on ring positions 0..n-2 and
 * the extra root on n-1 (its child on the left); "RootMin" puts the root on
 * position 0 and the subtree on 1..n-1 (child on the right).  Successive
 * double-binary-tree phases of a dimension alternate RootMax, RootMin, ...
 *
 * In a full tree numbered y = 1..2^H-1 in in-order, node y has height
 * h = ctz(y); its children are y -+ 2^(h-1) (h > 0) and its parent is
 * y + 2^h when bit h+1 of y is 0 (it is a left child), else y - 2^h.
 *
 * Each node runs ASTRA-sim's state machine (DoubleBinaryTreeAllReduce):
 *   leaf:         bundle (endpoint) -> send up, post receive from parent ->
 *                 on receive: bundle -> done;
 *   intermediate: post both children's receives; each receive -> bundle with
 *                 reduction; the first bundle only counts, the second sends up
 *                 and posts the parent's receive; on receive: bundle with
 *                 reduction -> send to both children -> done;
 *   root:         post the child's receive; on receive: bundle with reduction
 *                 -> send down -> done.
 * Every message is the whole phase size; bundles pay endpoint-delay (never
 * the 10 ns of a communicator group's ring).
 * Message slots (the receive a message matches): 0 = from the left child,
 * 1 = from the right child, 2 = from the parent.
 * Registered as css_algo_dbt: power-of-two NPUs, not on a communicator group
 * smaller than the network (ASTRA-sim would crash); simulated in full (no
 * representative mode).  Invariant (core/invariant.h): every event finds a
 * transition of its node's state machine.
 */
#include <inttypes.h>

#include "core/invariant.h"
#include "system/sys_int.h"

enum { DB_BEGIN, DB_WAIT_TWO, DB_WAIT_ONE, DB_TO_PARENT, DB_WAIT_PARENT, DB_TO_CHILDREN, DB_END };
enum { T_LEAF, T_INTER, T_ROOT };

/* Per-stream state (css_stream_state). */
typedef struct dbt_state {
    uint8_t state;      /* DB_* */
    uint8_t reductions; /* intermediate: bundles with reduction completed */
    uint8_t posted;     /* bit k: receive slot k posted */
} dbt_state;
_Static_assert(sizeof(dbt_state) <= CSS_ALGO_STATE_BYTES, "tree state fits the stream");

typedef struct tree_pos {
    int type;
    int32_t parent, left, right; /* ring positions, -1 = none */
    int slot_at_parent;          /* 0 = left child of the parent, 1 = right */
} tree_pos;

static uint32_t ctz32(uint32_t x) {
    uint32_t c = 0;
    while (!(x & 1u)) {
        x >>= 1;
        c++;
    }
    return c;
}

static void tree_locate(const cs_phase *ph, uint32_t idx, tree_pos *t) {
    uint32_t n = ph->n;
    uint32_t root_pos = ph->arg ? 0 : n - 1;
    uint32_t base = ph->arg ? 1 : 0; /* ring position of in-order y = 1 */
    uint32_t top = n / 2;                  /* in-order number of the subtree root */
    t->parent = t->left = t->right = -1;
    t->slot_at_parent = 0;
    if (idx == root_pos) {
        t->type = T_ROOT;
        if (ph->arg)
            t->right = (int32_t)(base + top - 1);
        else
            t->left = (int32_t)(base + top - 1);
        return;
    }
    uint32_t y = idx - base + 1, h = ctz32(y);
    if (y == top) {
        t->parent = (int32_t)root_pos;
        t->slot_at_parent = ph->arg ? 1 : 0;
    } else if (((y >> (h + 1)) & 1u) == 0) {
        t->parent = (int32_t)(base + y + (1u << h) - 1);
        t->slot_at_parent = 0;
    } else {
        t->parent = (int32_t)(base + y - (1u << h) - 1);
        t->slot_at_parent = 1;
    }
    if (h == 0) {
        t->type = T_LEAF;
    } else {
        t->type = T_INTER;
        t->left = (int32_t)(base + y - (1u << (h - 1)) - 1);
        t->right = (int32_t)(base + y + (1u << (h - 1)) - 1);
    }
}

/* Always an all-reduce, whatever the slot (ASTRA-sim's
 * DoubleBinaryTreeAllReduce), which is also what the queue policies see; the
 * dimension's trees alternate phase by phase. */
static void plan(cs_phase *ph, uint32_t param, uint32_t *counter) {
    (void)param;
    ph->ctype = CT_AR;
    ph->arg = *counter & 1u;
    (*counter)++;
    ph->out_bytes = ph->in_bytes;
}

static int check(const css_check *c, cs_error *err) {
    if (c->space == SP_GROUP)
        return CS_ERR(err, CS_EUNSUPPORTED,
                      "%s: doubleBinaryTree %s on communicator group \"%s\" (%u of the network's "
                      "NPUs) is not supported (ASTRA-sim would crash); expected ring, direct or "
                      "halvingDoubling for groups smaller than the network",
                      css_check_where(c), c->coll, c->group, c->n);
    if (c->n & (c->n - 1))
        return CS_ERR(err, CS_EUNSUPPORTED,
                      "%s: doubleBinaryTree %s on %u NPUs; expected a power of two NPUs (ASTRA-sim "
                      "would crash)",
                      css_check_where(c), c->coll, c->n);
    return CS_OK;
}

static void setup(cs_stream *st, const cs_phase *ph) {
    (void)ph;
    dbt_state *d = css_stream_state(st);
    d->state = DB_BEGIN;
    d->reductions = 0;
    d->posted = 0;
}

static int recv_posted(const cs_stream *st, uint32_t k) {
    const dbt_state *d = css_stream_cstate(st);
    return k < 8 && (d->posted >> k) & 1u;
}

static void post(cs_stream *st, uint32_t slot) {
    dbt_state *d = css_stream_state(st);
    d->posted |= (uint8_t)(1u << slot);
    css_post_recv(st, slot);
}

static void send_to(cs_stream *st, const cs_phase *ph, int32_t pos, uint32_t slot) {
    css_send(st, css_topo_member(st, ph, (uint32_t)pos), UINT32_MAX, ph->in_bytes, slot);
}

static void run(cs_system *s, cs_stream *st, int ev) {
    const cs_phase *ph = stream_phase(st);
    dbt_state *d = css_stream_state(st);
    tree_pos t;
    tree_locate(ph, st->idx, &t);
    uint64_t bytes = ph->in_bytes;
    switch (t.type) {
    case T_LEAF:
        if (d->state == DB_BEGIN) {
            css_stream_bundle(s, st, bytes, 0, 0);
            d->state = DB_TO_PARENT;
        } else if (d->state == DB_TO_PARENT) {
            send_to(st, ph, t.parent, (uint32_t)t.slot_at_parent);
            post(st, 2);
            d->state = DB_WAIT_PARENT;
        } else if (d->state == DB_WAIT_PARENT) {
            css_stream_bundle(s, st, bytes, 0, 0);
            d->state = DB_END;
        } else if (d->state == DB_END) {
            css_stream_proceed(s, st);
        } else {
            CS_UNREACHABLE("leaf %u of collective #%" PRIu64 ": event %d in state %d", st->idx,
                      st->inst->seq, ev, d->state);
        }
        return;
    case T_INTER:
        if (d->state == DB_BEGIN) {
            d->state = DB_WAIT_TWO;
            post(st, 0);
            post(st, 1);
        } else if (d->state == DB_WAIT_TWO && ev == EV_RECV) {
            css_stream_bundle(s, st, bytes, 1, 0);
            d->state = DB_WAIT_ONE;
        } else if (d->state == DB_WAIT_ONE && ev == EV_RECV) {
            css_stream_bundle(s, st, bytes, 1, 0);
            d->state = DB_TO_PARENT;
        } else if (d->reductions < 1 && ev == EV_GENERAL) {
            d->reductions++;
        } else if (d->state == DB_TO_PARENT) {
            d->state = DB_WAIT_PARENT;
            send_to(st, ph, t.parent, (uint32_t)t.slot_at_parent);
            post(st, 2);
        } else if (d->state == DB_WAIT_PARENT && ev == EV_RECV) {
            css_stream_bundle(s, st, bytes, 1, 0);
            d->state = DB_TO_CHILDREN;
        } else if (d->state == DB_TO_CHILDREN) {
            send_to(st, ph, t.left, 2);
            send_to(st, ph, t.right, 2);
            css_stream_proceed(s, st);
        } else {
            CS_UNREACHABLE("node %u of collective #%" PRIu64 ": event %d in state %d", st->idx,
                      st->inst->seq, ev, d->state);
        }
        return;
    default: /* root */
        if (d->state == DB_BEGIN) {
            d->state = DB_WAIT_ONE;
            post(st, t.left >= 0 ? 0u : 1u);
        } else if (d->state == DB_WAIT_ONE) {
            css_stream_bundle(s, st, bytes, 1, 0);
            d->state = DB_TO_CHILDREN;
        } else if (d->state == DB_TO_CHILDREN) {
            send_to(st, ph, t.left >= 0 ? t.left : t.right, 2);
            css_stream_proceed(s, st);
        } else {
            CS_UNREACHABLE("root %u of collective #%" PRIu64 ": event %d in state %d", st->idx,
                      st->inst->seq, ev, d->state);
        }
        return;
    }
}

const cs_coll_algo css_algo_dbt = {
    .name = "doubleBinaryTree",
    .help = "double binary tree all-reduce (ASTRA-sim's DoubleBinaryTree); power-of-two NPUs, "
            "not on communicator groups",
    .sym_op = CS_ALGO_SYM_NONE,
    .sym_why = "ranks hold different positions in the tree and finish at different times",
    .plan = plan,
    .check = check,
    .setup = setup,
    .run = run,
    .recv_posted = recv_posted,
};
