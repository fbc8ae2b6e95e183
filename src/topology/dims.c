/*
 * dims.c -- names of the basic per-dimension topologies (see dims.h).
 */
#include "topology/dims.h"

static const char *const TOPO_NAMES[CS_TOPO_NKINDS] = {"Ring", "FullyConnected", "Switch"};

const char *cs_topo_kind_name(cs_topo_kind k) {
    if ((unsigned)k < CS_TOPO_NKINDS) return TOPO_NAMES[k];
    return "unknown";
}
