/*
 * packet_cc.c -- the registry of the `packet` backend's congestion controls
 * (packet_cc.h: CS_CC_LIST) and `none`, which sends at line rate and leaves
 * congestion to PFC (or to drops, lossy).
 */
#include "network/packet_cc.h"

const cs_cc_ops cs_cc_none = {.name = "none"};

#define CS_CC_DECL_(n) extern const cs_cc_ops cs_cc_##n;
CS_CC_LIST(CS_CC_DECL_)
#undef CS_CC_DECL_

#define CS_CC_ENTRY_(n) &cs_cc_##n,
const cs_cc_ops *const cs_cc_table[CS_CC_COUNT] = {CS_CC_LIST(CS_CC_ENTRY_)};
#undef CS_CC_ENTRY_

#define CS_CC_NAME_(n) #n,
const char *const cs_cc_names[CS_CC_COUNT + 1] = {CS_CC_LIST(CS_CC_NAME_) NULL};
#undef CS_CC_NAME_
