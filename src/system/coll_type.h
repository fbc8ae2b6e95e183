/*
 * coll_type.h -- the collective types a workload can ask the system layer
 * for (CS_COLL_*), and their labels.
 *
 * Owned by the system layer, which runs them.  The numbers are Chakra's
 * CollectiveCommType values, so the workload layer (workload/graph.h) stores
 * a trace node's comm_type as it is and hands it over unchanged; values the
 * system layer does not know are kept as their number.
 */
#ifndef CS_SYSTEM_COLL_TYPE_H
#define CS_SYSTEM_COLL_TYPE_H

#include <stdint.h>

enum {
    CS_COLL_ALL_REDUCE = 0,
    CS_COLL_REDUCE = 1,
    CS_COLL_ALL_GATHER = 2,
    CS_COLL_GATHER = 3,
    CS_COLL_SCATTER = 4,
    CS_COLL_BROADCAST = 5,
    CS_COLL_ALL_TO_ALL = 6,
    CS_COLL_REDUCE_SCATTER = 7,
    CS_COLL_REDUCE_SCATTER_BLOCK = 8,
    CS_COLL_BARRIER = 9
};

/* "ALL_REDUCE", ..., "BARRIER" (Chakra's spelling); "UNKNOWN" otherwise. */
const char *cs_coll_type_label(int32_t ct);

#endif
