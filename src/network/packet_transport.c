/*
 * packet_transport.c -- the registry of the `packet` backend's transports
 * (packet_transport.h: CS_TR_LIST).  rc lives in packet.c, tcp in
 * packet_tcp.c, udp in packet_udp.c.
 */
#include "network/packet_transport.h"

#define CS_TR_DECL_(n) extern const cs_tr_ops cs_tr_##n;
CS_TR_LIST(CS_TR_DECL_)
#undef CS_TR_DECL_

#define CS_TR_ENTRY_(n) &cs_tr_##n,
const cs_tr_ops *const cs_tr_table[CS_TR_COUNT] = {CS_TR_LIST(CS_TR_ENTRY_)};
#undef CS_TR_ENTRY_

#define CS_TR_NAME_(n) #n,
const char *const cs_tr_names[CS_TR_COUNT + 1] = {CS_TR_LIST(CS_TR_NAME_) NULL};
#undef CS_TR_NAME_
