/*
 * coll_algo.h -- the collective-algorithm registry of the system layer: one
 * function table (cs_coll_algo) per algorithm a phase can run, listed once in
 * coll_algo.c.  Owned by the system layer.
 *
 * A *-implementation list of the system JSON names one algorithm per network
 * dimension; each entry reads as a cs_coll_impl: the registered algorithm,
 * whether it was written as its "one" form (oneRing: one logical dimension of
 * every NPU, which ends the list; allowed when the algorithm has
 * CS_ALGO_ONE), and the N of a parameterised form such as direct<N> (the
 * algorithm's parse_param hook accepts the text after its name).  The config
 * layer (config/system_config.c) parses, prints, explains and checks lists
 * through the functions below and never names an algorithm itself; the
 * workload layer asks an algorithm's sym_op whether representative mode can
 * mirror it.
 *
 * The hooks take the system layer's private structures (sys_int.h); only
 * src/system calls them.  Adding an algorithm = one algo_<name>.c in
 * src/system exporting its `const cs_coll_algo css_algo_<name>` + one line
 * in the table of coll_algo.c (docs/architecture.md, "Adding a collective
 * algorithm").  Every table is constant: the registry holds no mutable state.
 */
#ifndef CS_SYSTEM_COLL_ALGO_H
#define CS_SYSTEM_COLL_ALGO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

struct cs_system;
struct cs_stream;
struct cs_phase;
struct css_check;
struct cs_coll_impl;

/* Capabilities. */
enum {
    CS_ALGO_ONE = 1u << 0, /* "one<Name>" is accepted: the algorithm over every NPU as one ring */
    CS_ALGO_TEXT = 1u << 1 /* written "<name>:TEXT" only (custom:PREFIX): TEXT kept in cs_coll_impl.text */
};

/* Longest TEXT of a "<name>:TEXT" entry (bytes, without the NUL). */
#define CS_COLL_IMPL_TEXT_MAX 255

/* How representative mode relabels ranks along a dimension that runs the
 * algorithm (src/system/symmetry.c): the group operation that maps every
 * phase's communication pattern onto itself. */
typedef enum {
    CS_ALGO_SYM_NONE = 0,  /* none: a run using it simulates every rank (sym_why says why) */
    CS_ALGO_SYM_SHIFT = 1, /* cyclic shift of the ring index (ring, direct) */
    CS_ALGO_SYM_XOR = 2    /* XOR of the index (halving-doubling) */
} cs_coll_algo_sym;

typedef struct cs_coll_algo {
    const char *name;        /* as written in the system JSON, e.g. "ring" */
    const char *param;       /* form of the parameter after the name, "<N>"; NULL = none */
    const char *param_help;  /* constraint shown in messages, "N >= 1" */
    /* The text after the name (non-empty) -> *param; 0, or -1 when it is not one. */
    int (*parse_param)(const char *text, uint32_t *param);
    const char *help;        /* one line for --help and docs */
    unsigned flags;          /* CS_ALGO_* */
    cs_coll_algo_sym sym_op;
    const char *sym_why;     /* with CS_ALGO_SYM_NONE: why rank 0 cannot stand for the others */

    /* ---- system-layer hooks (structures in sys_int.h) ---- */
    /* Planning: the phase is filled in generically (collective, logical
     * dimension, sizes: all-gather multiplies by n, reduce-scatter divides);
     * the hook may adjust it.  param = the list entry's N; counter = one
     * counter per (collective type, logical dimension) kept by the system for
     * the algorithm (double binary tree: which tree is next).  May be NULL. */
    void (*plan)(struct cs_phase *ph, uint32_t param, uint32_t *counter);
    /* Legality of one logical dimension (struct css_check in sys_int.h): CS_OK,
     * or an error naming the node, the file and what was expected.  May be NULL. */
    int (*check)(const struct css_check *c, cs_error *err);
    /* Once per logical dimension and collective being planned, with the list
     * entry: resolve what the entry names (custom: the graph set of its
     * prefix) into *data, which every phase on that dimension keeps
     * (cs_phase.data).  CS_OK, or an error naming the file and key.  May be NULL. */
    int (*bind)(const struct css_check *c, const struct cs_coll_impl *e, const void **data, cs_error *err);
    /* A stream enters a phase of this algorithm: set up its state
     * (css_stream_state, zeroed before the call).  May be NULL. */
    void (*setup)(struct cs_stream *st, const struct cs_phase *ph);
    /* Events of a running stream: EV_INIT (admitted by its queue),
     * EV_GENERAL (a bundle completed), EV_RECV (a message was delivered). */
    void (*run)(struct cs_system *s, struct cs_stream *st, int ev);
    /* Whether the stream has posted its receive k (a message matching it is
     * delivered, else it waits).  NULL = the algorithm receives no messages. */
    int (*recv_posted)(const struct cs_stream *st, uint32_t k);
    /* Message k was delivered to the stream (its receive k posted).  NULL =
     * run(EV_RECV) is called instead. */
    void (*received)(struct cs_system *s, struct cs_stream *st, uint32_t k);
    /* A message the stream sent with css_send_notify(.., src_k) arrived at
     * its receiver.  Needed only by algorithms that use css_send_notify. */
    void (*arrived)(struct cs_system *s, struct cs_stream *st, uint32_t src_k);
    const void *impl;        /* the algorithm's own constant data (packet engine parameters) */
} cs_coll_algo;

/* One entry of a *-implementation list. */
typedef struct cs_coll_impl {
    const cs_coll_algo *algo; /* registry entry; NULL only in a zeroed, unused entry */
    bool one;                 /* written as one<Name>: spans every NPU, ends the list */
    uint32_t param;           /* N of name<N> (>= 1); 0 = not given (direct: all peers) */
    char text[CS_COLL_IMPL_TEXT_MAX + 1]; /* TEXT of <name>:TEXT (CS_ALGO_TEXT), else "" */
} cs_coll_impl;

/* The registry, in table order. */
size_t cs_coll_algo_count(void);
const cs_coll_algo *cs_coll_algo_at(size_t i);
/* The registry's table itself, for the event path's lookup of an index
 * known to be valid (a phase's algorithm: css_phase_algo); else use
 * cs_coll_algo_at. */
extern const cs_coll_algo *const cs_coll_algo_table_[];
/* Index of a registered algorithm, or -1. */
int cs_coll_algo_index(const cs_coll_algo *a);
/* The algorithm registered under exactly `name`, or NULL. */
const cs_coll_algo *cs_coll_algo_find(const char *name);

/* Parse an entry as written ("ring", "oneDirect4", "custom:graphs/nvl", ...): 0, or -1 (*out
 * zeroed) when no registered algorithm accepts it. */
int cs_coll_impl_parse(const char *s, cs_coll_impl *out);
/* Name without the parameter ("oneDirect") into buf; returns buf. */
const char *cs_coll_impl_name(const cs_coll_impl *e, char *buf, size_t n);
/* As written ("oneDirect4") into buf; returns buf. */
const char *cs_coll_impl_format(const cs_coll_impl *e, char *buf, size_t n);
/* Every accepted form, for messages: "ring, oneRing, direct, direct<N>
 * (N >= 1), oneDirect, oneDirect<N>, ...".  Returns buf. */
const char *cs_coll_algo_forms(char *buf, size_t n);
/* The one* forms, "oneRing, oneDirect or oneHalvingDoubling".  Returns buf. */
const char *cs_coll_algo_one_forms(char *buf, size_t n);

#endif
