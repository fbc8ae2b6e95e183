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
 */
#include "system/sys_int.h"

enum { DB_BEGIN, DB_WAIT_TWO, DB_WAIT_ONE, DB_TO_PARENT, DB_WAIT_PARENT, DB_TO_CHILDREN, DB_END };
enum { T_LEAF, T_INTER, T_ROOT };

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
    uint32_t root_pos = ph->tree_min ? 0 : n - 1;
    uint32_t base = ph->tree_min ? 1 : 0; /* ring position of in-order y = 1 */
    uint32_t top = n / 2;                  /* in-order number of the subtree root */
    t->parent = t->left = t->right = -1;
    t->slot_at_parent = 0;
    if (idx == root_pos) {
        t->type = T_ROOT;
        if (ph->tree_min)
            t->right = (int32_t)(base + top - 1);
        else
            t->left = (int32_t)(base + top - 1);
        return;
    }
    uint32_t y = idx - base + 1, h = ctz32(y);
    if (y == top) {
        t->parent = (int32_t)root_pos;
        t->slot_at_parent = ph->tree_min ? 1 : 0;
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

void dbt_setup(cs_stream *st, const cs_phase *ph) {
    (void)ph;
    st->dbt_state = DB_BEGIN;
    st->dbt_reductions = 0;
    st->dbt_posted = 0;
}

int dbt_recv_posted(const cs_stream *st, uint32_t k) { return k < 8 && (st->dbt_posted >> k) & 1u; }

static void post(cs_stream *st, uint32_t slot) {
    st->dbt_posted |= (uint8_t)(1u << slot);
    sys_post_recv(st, slot);
}

static void send_to(cs_stream *st, const cs_phase *ph, int32_t pos, uint32_t slot) {
    sys_send(st, topo_member(st, ph, (uint32_t)pos), UINT32_MAX, ph->in_bytes, slot);
}

void dbt_run(cs_system *s, cs_stream *st, int ev) {
    const cs_phase *ph = stream_phase(st);
    tree_pos t;
    tree_locate(ph, st->idx, &t);
    uint64_t bytes = ph->in_bytes;
    switch (t.type) {
    case T_LEAF:
        if (st->dbt_state == DB_BEGIN) {
            stream_bundle(s, st, bytes, 0, 0);
            st->dbt_state = DB_TO_PARENT;
        } else if (st->dbt_state == DB_TO_PARENT) {
            send_to(st, ph, t.parent, (uint32_t)t.slot_at_parent);
            post(st, 2);
            st->dbt_state = DB_WAIT_PARENT;
        } else if (st->dbt_state == DB_WAIT_PARENT) {
            stream_bundle(s, st, bytes, 0, 0);
            st->dbt_state = DB_END;
        } else if (st->dbt_state == DB_END) {
            stream_proceed(s, st);
        }
        return;
    case T_INTER:
        if (st->dbt_state == DB_BEGIN) {
            st->dbt_state = DB_WAIT_TWO;
            post(st, 0);
            post(st, 1);
        } else if (st->dbt_state == DB_WAIT_TWO && ev == EV_RECV) {
            stream_bundle(s, st, bytes, 1, 0);
            st->dbt_state = DB_WAIT_ONE;
        } else if (st->dbt_state == DB_WAIT_ONE && ev == EV_RECV) {
            stream_bundle(s, st, bytes, 1, 0);
            st->dbt_state = DB_TO_PARENT;
        } else if (st->dbt_reductions < 1 && ev == EV_GENERAL) {
            st->dbt_reductions++;
        } else if (st->dbt_state == DB_TO_PARENT) {
            st->dbt_state = DB_WAIT_PARENT;
            send_to(st, ph, t.parent, (uint32_t)t.slot_at_parent);
            post(st, 2);
        } else if (st->dbt_state == DB_WAIT_PARENT && ev == EV_RECV) {
            stream_bundle(s, st, bytes, 1, 0);
            st->dbt_state = DB_TO_CHILDREN;
        } else if (st->dbt_state == DB_TO_CHILDREN) {
            send_to(st, ph, t.left, 2);
            send_to(st, ph, t.right, 2);
            stream_proceed(s, st);
        }
        return;
    default: /* root */
        if (st->dbt_state == DB_BEGIN) {
            st->dbt_state = DB_WAIT_ONE;
            post(st, t.left >= 0 ? 0u : 1u);
        } else if (st->dbt_state == DB_WAIT_ONE) {
            stream_bundle(s, st, bytes, 1, 0);
            st->dbt_state = DB_TO_CHILDREN;
        } else if (st->dbt_state == DB_TO_CHILDREN) {
            send_to(st, ph, t.left >= 0 ? t.left : t.right, 2);
            stream_proceed(s, st);
        }
        return;
    }
}
