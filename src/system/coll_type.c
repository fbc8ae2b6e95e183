/*
 * coll_type.c -- labels of the collective types (see coll_type.h).
 */
#include "system/coll_type.h"

const char *cs_coll_type_label(int32_t ct) {
    static const char *const names[] = {"ALL_REDUCE", "REDUCE",         "ALL_GATHER",
                                        "GATHER",     "SCATTER",        "BROADCAST",
                                        "ALL_TO_ALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK",
                                        "BARRIER"};
    return (ct >= 0 && ct <= CS_COLL_BARRIER) ? names[ct] : "UNKNOWN";
}
