/*
 * system.h -- the system layer: collectives on behalf of ranks.
 *
 * The workload executor hands each COMM_COLL node to the system layer as a
 * cs_coll_req and is called back when this rank's part of the collective is
 * complete.  Collectives are matched across ranks by the order in which each
 * rank issues them within a communicator group (as ASTRA-sim does), never by
 * node id (ids differ between ranks).
 *
 * Implemented here: BARRIER (completes on every member when the last member
 * arrives) and BROADCAST replayed from duration_micros (ASTRA-sim's
 * behaviour).  The collective algorithms over the network (ring, direct,
 * halving-doubling, double binary tree, multi-dimensional phases, chunking,
 * Themis) plug in behind cs_system_collective; until they exist, other
 * collective types are refused with CS_EUNSUPPORTED naming the node.
 */
#ifndef CS_SYSTEM_SYSTEM_H
#define CS_SYSTEM_SYSTEM_H

#include <stdint.h>

#include "core/error.h"
#include "core/eventq.h"
#include "network/network.h"

typedef void (*cs_sys_done_fn)(void *ctx, uint64_t cookie);

typedef struct cs_coll_req {
    uint32_t rank;
    int32_t comm_type;     /* CS_COLL_* */
    uint64_t bytes;        /* comm_size */
    const uint32_t *members; /* sorted ranks of the communicator (NULL = all ranks) */
    uint32_t nmembers;
    uint32_t group_id;     /* communicator id (0 = all ranks) */
    uint32_t involved_dim; /* bit mask */
    int32_t priority;
    uint64_t node_id;
    uint64_t duration_us;  /* for replayed collectives */
    const char *source;    /* trace file, for messages */
} cs_coll_req;

typedef struct cs_system cs_system;

int cs_system_new(cs_eventq *q, cs_net *net, uint32_t nranks, cs_system **out, cs_error *err);
void cs_system_free(cs_system *s);

int cs_system_collective(cs_system *s, const cs_coll_req *req, cs_sys_done_fn done, void *ctx,
                         uint64_t cookie, cs_error *err);

/* Describe collectives still waiting for members (for deadlock reports). */
void cs_system_describe_pending(const cs_system *s, char *buf, unsigned bufsize);

#endif
