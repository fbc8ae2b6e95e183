/*
 * flows.c -- flows.csv (flows.h): the backend's per-transfer rows as CSV.
 */
#include "output/flows.h"

#include <inttypes.h>
#include <stdio.h>

#include "core/afile.h"

int cs_flows_available(const cs_result *res) { return res->links.packet; }

int cs_flows_csv(const char *path, const cs_result *res, cs_error *err) {
    const cs_net_link_report *r = &res->links;
    if (!cs_flows_available(res)) return CS_OK;
    cs_afile af;
    int rc = cs_afile_open(&af, path, err);
    if (rc) return rc;
    FILE *f = af.f;
    fputs("src_npu,dst_npu,bytes,start_ns,finish_ns,fct_ns,packets,packets_sent,retransmissions,ideal_ns,slowdown", f);
    fputs(r->lossy_rows ? ",delivered_bytes,lost_bytes\n" : "\n", f); /* a transport that loses bytes: udp */
    for (size_t i = 0; i < r->nflows; i++) {
        const cs_net_flow_row *w = &r->flows[i];
        cs_time fct = w->finish - w->start;
        fprintf(f, "%u,%u,%" PRIu64 ",%.3f,%.3f,%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", w->src, w->dst, w->bytes,
                cs_time_as_ns_f(w->start), cs_time_as_ns_f(w->finish), cs_time_as_ns_f(fct), w->packets, w->sent,
                w->sent > w->packets ? w->sent - w->packets : 0);
        if (w->ideal == CS_TIME_MAX) fputs(",", f);
        else if (w->ideal == 0) fprintf(f, "%.3f,1", 0.0);
        else fprintf(f, "%.3f,%.6f", cs_time_as_ns_f(w->ideal), (double)fct / (double)w->ideal);
        if (r->lossy_rows) fprintf(f, ",%" PRIu64 ",%" PRIu64, w->delivered, w->bytes - w->delivered);
        fputc('\n', f);
    }
    return cs_afile_commit(&af, err);
}
