/*
 * links.c -- links.csv and the hottest-links lines (links.h).
 * Owned by the topology/flow work; reads cs_topo.stats only.
 */
#include "output/links.h"

#include <errno.h>
#include <string.h>

#include "core/alloc.h"

static double avg_util(const cs_link *l, const cs_link_stats *st, cs_time sim_time) {
    if (sim_time == 0 || l->nominal_bw <= 0) return 0;
    return (double)st->bytes / (l->nominal_bw * cs_time_as_ns_f(sim_time));
}

int cs_links_csv(const char *path, const cs_topo *t, cs_time sim_time, cs_error *err) {
    FILE *f = fopen(path, "w");
    if (!f) return CS_ERR(err, CS_EIO, "%s: cannot write: %s", path, strerror(errno));
    fputs("link,src,dst,src_kind,dst_kind,bandwidth_GBps,latency_ns,up,bytes,busy_ns,avg_utilization,"
          "peak_utilization\n", f);
    for (uint32_t i = 0; i < t->nlinks; i++) {
        const cs_link *l = &t->links[i];
        const cs_link_stats *st = &t->stats[i];
        fprintf(f, "%u,%u,%u,%s,%s,%.6g,%.3f,%d,%llu,%.3f,%.6f,%.6f\n", i, l->src, l->dst,
                cs_node_kind_name((cs_node_kind)t->kind[l->src]), cs_node_kind_name((cs_node_kind)t->kind[l->dst]),
                l->bw, cs_time_as_ns_f(l->lat), cs_link_up(l), (unsigned long long)st->bytes,
                cs_time_as_ns_f(st->busy), avg_util(l, st, sim_time), st->peak_util);
    }
    if (fclose(f) != 0) return CS_ERR(err, CS_EIO, "%s: write failed: %s", path, strerror(errno));
    return CS_OK;
}

void cs_links_print_hottest(FILE *f, const cs_topo *t, cs_time sim_time, unsigned n) {
    uint32_t best[16];
    unsigned nb = 0;
    if (n > 16) n = 16;
    for (uint32_t i = 0; i < t->nlinks; i++) {
        if (t->stats[i].bytes == 0) continue;
        unsigned pos = nb;
        while (pos > 0) {
            const cs_link_stats *a = &t->stats[i], *b = &t->stats[best[pos - 1]];
            if (a->bytes > b->bytes || (a->bytes == b->bytes && a->busy > b->busy)) pos--;
            else break;
        }
        if (pos >= n) continue;
        if (nb < n) nb++;
        memmove(&best[pos + 1], &best[pos], (nb - 1 - pos) * sizeof best[0]);
        best[pos] = i;
    }
    if (!nb) return;
    fprintf(f, "  hottest links (%s)\n  %-8s %-22s %14s %12s %9s %9s\n", t->desc ? t->desc : "topology", "link",
            "src -> dst", "bytes", "busy", "avg util", "peak");
    for (unsigned k = 0; k < nb; k++) {
        const cs_link *l = &t->links[best[k]];
        const cs_link_stats *st = &t->stats[best[k]];
        char ends[64], busy[32];
        snprintf(ends, sizeof ends, "%s%u -> %s%u", cs_node_kind_name((cs_node_kind)t->kind[l->src]), l->src,
                 cs_node_kind_name((cs_node_kind)t->kind[l->dst]), l->dst);
        fprintf(f, "  %-8u %-22s %14llu %12s %8.1f%% %8.1f%%\n", best[k], ends, (unsigned long long)st->bytes,
                cs_time_fmt(st->busy, busy, sizeof busy), 100 * avg_util(l, st, sim_time), 100 * st->peak_util);
    }
}
