/*
 * builder.h -- topology builders as a table registered by name.
 *
 * A builder is one cs_topo_builder: its name ("fat-tree"), a help paragraph,
 * its own key table (core/opts.h cs_opt descriptors, with units and help)
 * over a private params struct of params_size bytes, an optional check and a
 * build function.  Each src/topology/build_*.c exports its entry
 * (`const cs_topo_builder cs_topo_builder_<id>`); the one list in builder.c
 * declares and registers them.  Adding a builder = one new file + one
 * registry line (docs/architecture.md, "Adding a topology builder").
 *
 * Keys and units: a key table declares the user's units (CS_UNIT_GBPS,
 * CS_UNIT_NS, core/units.h); build converts them (cs_gbps_to_bytes_per_ns,
 * cs_time_from_ns_f) after deriving defaults in the user's units, so the
 * rounding is that of the single conversion.
 *
 * Locations: parsing reports "where:line: key: ..."; check locates its own
 * messages (it may keep element lines in params); build's messages carry no
 * location and cs_topo_builder_build prefixes `where`.
 *
 * Ownership: the caller owns the params buffer (params_size bytes, at least
 * 1); cs_topo_builder_parse* fill it with defaults then the object's values,
 * and cs_topo_builder_params_free releases what parsing allocated inside it.
 * The built topology goes to the caller (cs_topo_free).
 */
#ifndef CS_TOPOLOGY_BUILDER_H
#define CS_TOPOLOGY_BUILDER_H

#include <float.h>
#include <jansson.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include "core/error.h"
#include "core/opts.h"
#include "core/units.h"
#include "topology/dims.h"
#include "topology/topology.h"

typedef struct cs_topo_builder {
    const char *name;   /* as in the topology file's "builder" */
    const char *help;   /* one paragraph for --help-config */
    const cs_opt *keys; /* this builder's keys (NULL when nkeys == 0) */
    size_t nkeys;
    size_t params_size; /* bytes of the struct the key table fills */
    /* Optional: the NPU count params describe, in 64 bits (NULL: the
     * network's): cs_topo_builder_build refuses a count other than the
     * network configuration's before check and build allocate anything. */
    uint64_t (*npus)(const void *params, const cs_network_config *net);
    /* Optional: checks across keys or against the network configuration,
     * before build; messages carry their own location. */
    int (*check)(const void *params, const cs_network_config *net, cs_error *err);
    /* Build from parsed params (user units); net gives the NPU count when a
     * key leaves it open, and the dimensions for "astra".  Messages without
     * location. */
    int (*build)(const void *params, const cs_network_config *net, cs_topo **out, cs_error *err);
} cs_topo_builder;

/* --- the registry ---------------------------------------------------------- */

size_t cs_topo_builder_count(void);
const cs_topo_builder *cs_topo_builder_at(size_t i); /* NULL past the end */
const cs_topo_builder *cs_topo_builder_find(const char *name);
/* "astra, fat-tree, ..." into buf (truncated to n). */
void cs_topo_builder_names(char *buf, size_t n);
/* First registered builder other than b that has key (NULL if none). */
const cs_topo_builder *cs_topo_builder_owner(const char *key, const cs_topo_builder *b);
/* The option of b named key, or NULL. */
const cs_opt *cs_topo_builder_key(const cs_topo_builder *b, const char *key);

/* --- parsing and building -------------------------------------------------- */

/* Parse obj's members as b's keys into params (defaults first).  A member
 * that is not a key of b is CS_EINVAL "where:line: key: not a key of builder
 * b (a key of X, Y; b's keys: ...)".  doc gives the lines: its root is obj
 * and its index may be that of the file obj's members came from (messages
 * "file:line: ..."). */
int cs_topo_builder_parse_doc(const cs_topo_builder *b, const cs_jdoc *doc, void *params,
                              cs_error *err);
/* The same for an object not read from a file (a scenario's
 * topology.<builder> namespace): messages are "where:0: key: ...". */
int cs_topo_builder_parse(const cs_topo_builder *b, json_t *obj, const char *where, void *params,
                          cs_error *err);
void cs_topo_builder_params_free(const cs_topo_builder *b, void *params);
/* The NPU count against the network's ("where: the topology has N NPUs
 * but the network configuration F has M"), check (when the builder has
 * one), then build; build's messages get the prefix "where: ". */
int cs_topo_builder_build(const cs_topo_builder *b, const void *params, const cs_network_config *net,
                          const char *where, cs_topo **out, cs_error *err);

/* Every builder: name, help, its keys (cs_opts_print_help). */
void cs_topo_builders_print_help(FILE *f);

/* --- helpers for builders and the topology file ---------------------------- */

/* Key-table entries over a builder's params struct T: an int key with
 * lower bound LO, a non-negative number key with unit U (CS_UNIT_GBPS,
 * CS_UNIT_NS or NULL); CS_TOPO_NUM_KEY_UNSET: a number key whose default
 * is "not set", stored as -1, that the builder resolves (e.g. "default
 * link_latency"); help shows "(not set)". */
#define CS_TOPO_INT_KEY(T, K, F, LO, D, H)                                                        \
    {.key = K, .type = CS_OPT_INT, .def = D, .min = LO, .max = (double)INT_MAX, .off = offsetof(T, F), \
     .help = H}
#define CS_TOPO_NUM_KEY(T, K, F, U, D, H)                                                                 \
    {.key = K, .type = CS_OPT_NUM, .def = D, .min = 0, .max = DBL_MAX, .unit = U, .off = offsetof(T, F), \
     .help = H}
#define CS_TOPO_NUM_KEY_UNSET(T, K, F, U, H)                                                                   \
    {.key = K, .type = CS_OPT_NUM, .def = -1, .nodef = 1, .min = 0, .max = DBL_MAX, .unit = U, .off = offsetof(T, F), \
     .help = H}

/* Element i (value v) of the list under key in doc as n non-negative
 * numbers, the first nint integers (a bare integer when n == 1).  CS_EINVAL
 * "path:line: key[i]: expected <what>". */
int cs_topo_json_tuple(const cs_jdoc *doc, const char *key, size_t i, const json_t *v, size_t n,
                       size_t nint, const char *what, double *out, cs_error *err);

#endif
