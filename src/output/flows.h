/*
 * flows.h -- flows.csv: one row per transfer (message) of a run on a
 * packet-level backend, with its completion time next to its uncontended
 * closed form.
 *
 * Reads the rows the backend handed up in its link report
 * (network/network.h, cs_net_link_report.flows; the packet backend keeps up
 * to backend.packet.flow_rows of them and warns when it leaves any out).
 * Owns nothing.
 */
#ifndef CS_OUTPUT_FLOWS_H
#define CS_OUTPUT_FLOWS_H

#include "core/error.h"
#include "scenario/result.h"

/* Whether the run has per-flow rows to write (a packet-level backend). */
int cs_flows_available(const cs_result *res);

/* flows.csv, written atomically (core/afile.h), one row per delivered
 * transfer in the order the backend finished with them:
 * src_npu,dst_npu,bytes,start_ns,finish_ns,fct_ns,packets,packets_sent,
 * retransmissions,ideal_ns,slowdown
 * fct_ns = finish_ns - start_ns; retransmissions = packets_sent - packets;
 * ideal_ns: the transfer alone on its route (uncontended_time); slowdown =
 * fct_ns / ideal_ns (1 for a transfer of no time, empty when the ideal is
 * beyond the time range).  Nothing is written without rows to write
 * (cs_flows_available). */
int cs_flows_csv(const char *path, const cs_result *res, cs_error *err);

#endif
