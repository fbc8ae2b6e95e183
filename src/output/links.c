/*
 * links.c -- links.csv, the hottest-links lines and the utilization counter
 * tracks (links.h).  Reads the topology (the links) and the backend's link
 * report (their statistics) only.
 */
#include "output/links.h"

#include "output/jsonw.h"
#include "output/timeline.h"

#include <errno.h>
#include <string.h>

#include "core/afile.h"
#include "core/alloc.h"

/* Statistics of link i (zero when the report does not cover it). */
static cs_net_link_stat stat_of(const cs_net_link_report *r, uint32_t i) {
    if (r && i < r->nlinks) return r->links[i];
    return (cs_net_link_stat){.bytes = 0};
}

static double avg_util(const cs_link *l, const cs_net_link_stat *st, cs_time sim_time) {
    if (sim_time == 0 || l->nominal_bw <= 0) return 0;
    return (double)st->bytes / (l->nominal_bw * cs_time_as_ns_f(sim_time));
}

/* One column's last value and its text: most links of a large fabric share a bandwidth and a latency, and the
 * idle ones print 0 everywhere, so a row's numbers are mostly formatted once (printf's floating point is most
 * of writing links.csv at 1,024 hosts).  Same text as formatting every value: the cache is keyed on the bits. */
typedef struct {
    int valid;
    uint64_t bits;
    char s[48];
} num_memo;

static const char *memo_fmt(num_memo *m, char conv, int prec, double v) {
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    if (!m->valid || m->bits != b) {
        if (conv == 'g') snprintf(m->s, sizeof m->s, "%.*g", prec, v);
        else snprintf(m->s, sizeof m->s, "%.*f", prec, v);
        m->bits = b;
        m->valid = 1;
    }
    return m->s;
}

int cs_links_csv(const char *path, const cs_result *res, cs_error *err) {
    const cs_topo *t = res->topo;
    const cs_net_link_report *r = &res->links;
    cs_time sim_time = res->sim.sim_time;
    if (!t) return CS_OK;
    cs_afile af;
    int rc = cs_afile_open(&af, path, err);
    if (rc) return rc;
    FILE *f = af.f;
    fputs("link,src,dst,src_kind,dst_kind,bandwidth_GBps,latency_ns,up,bytes,busy_ns,avg_utilization,"
          "peak_utilization", f);
    /* packet-level backends: drops, marks, pause time and queue per link */
    fputs(r->packet ? ",drops,ecn_marks,pfc_paused_ns,max_queue_bytes\n" : "\n", f);
    num_memo m_bw = {0}, m_lat = {0}, m_busy = {0}, m_avg = {0}, m_peak = {0}, m_paused = {0};
    for (uint32_t i = 0; i < t->nlinks; i++) {
        const cs_link *l = &t->links[i];
        cs_net_link_stat sv = stat_of(r, i);
        const cs_net_link_stat *st = &sv;
        /* "%u,%u,%u,%s,%s,%s,%s,%d,%llu,%s,%s,%s" and, packet-level, ",%llu,%llu,%s,%llu" (written piecewise) */
        cs_jsonw_u64(f, i);
        fputc(',', f);
        cs_jsonw_u64(f, l->src);
        fputc(',', f);
        cs_jsonw_u64(f, l->dst);
        fputc(',', f);
        fputs(cs_node_kind_name((cs_node_kind)t->kind[l->src]), f);
        fputc(',', f);
        fputs(cs_node_kind_name((cs_node_kind)t->kind[l->dst]), f);
        fputc(',', f);
        fputs(memo_fmt(&m_bw, 'g', 6, l->bw), f);
        fputc(',', f);
        fputs(memo_fmt(&m_lat, 'f', 3, cs_time_as_ns_f(l->lat)), f);
        fputs(cs_link_up(l) ? ",1," : ",0,", f);
        cs_jsonw_u64(f, st->bytes);
        fputc(',', f);
        fputs(memo_fmt(&m_busy, 'f', 3, cs_time_as_ns_f(st->busy)), f);
        fputc(',', f);
        fputs(memo_fmt(&m_avg, 'f', 6, avg_util(l, st, sim_time)), f);
        fputc(',', f);
        fputs(memo_fmt(&m_peak, 'f', 6, st->peak_util), f);
        if (r->packet) {
            fputc(',', f);
            cs_jsonw_u64(f, st->drops);
            fputc(',', f);
            cs_jsonw_u64(f, st->ecn_marks);
            fputc(',', f);
            fputs(memo_fmt(&m_paused, 'f', 3, cs_time_as_ns_f(st->paused)), f);
            fputc(',', f);
            cs_jsonw_u64(f, st->max_queue_bytes);
        }
        fputc('\n', f);
    }
    return cs_afile_commit(&af, err);
}

cs_net_link_stat cs_links_stat(const cs_result *res, uint32_t i) { return stat_of(&res->links, i); }

double cs_links_avg_util(const cs_result *res, uint32_t i) {
    cs_net_link_stat st = stat_of(&res->links, i);
    return res->topo && i < res->topo->nlinks ? avg_util(&res->topo->links[i], &st, res->sim.sim_time) : 0;
}

unsigned cs_links_hottest(const cs_result *res, uint32_t *best, unsigned n) {
    const cs_topo *t = res->topo;
    const cs_net_link_report *r = &res->links;
    unsigned nb = 0;
    if (!t) return 0;
    if (n > 16) n = 16;
    for (uint32_t i = 0; i < t->nlinks; i++) {
        cs_net_link_stat a = stat_of(r, i);
        if (a.bytes == 0) continue;
        unsigned pos = nb;
        while (pos > 0) {
            cs_net_link_stat b = stat_of(r, best[pos - 1]);
            if (a.bytes > b.bytes || (a.bytes == b.bytes && a.busy > b.busy)) pos--;
            else break;
        }
        if (pos >= n) continue;
        if (nb < n) nb++;
        memmove(&best[pos + 1], &best[pos], (nb - 1 - pos) * sizeof best[0]);
        best[pos] = i;
    }
    return nb;
}

void cs_links_print_hottest(FILE *f, const cs_result *res, unsigned n) {
    const cs_topo *t = res->topo;
    const cs_net_link_report *r = &res->links;
    cs_time sim_time = res->sim.sim_time;
    uint32_t best[16];
    unsigned nb = cs_links_hottest(res, best, n);
    if (!nb) return;
    fprintf(f, "  hottest links (%s)\n  %-8s %-22s %14s %12s %9s %9s\n", t->desc ? t->desc : "topology", "link",
            "src -> dst", "bytes", "busy", "avg util", "peak");
    for (unsigned k = 0; k < nb; k++) {
        const cs_link *l = &t->links[best[k]];
        cs_net_link_stat sv = stat_of(r, best[k]);
        const cs_net_link_stat *st = &sv;
        char ends[64], busy[32];
        snprintf(ends, sizeof ends, "%s%u -> %s%u", cs_node_kind_name((cs_node_kind)t->kind[l->src]), l->src,
                 cs_node_kind_name((cs_node_kind)t->kind[l->dst]), l->dst);
        fprintf(f, "  %-8u %-22s %14llu %12s %8.1f%% %8.1f%%\n", best[k], ends, (unsigned long long)st->bytes,
                cs_time_fmt(st->busy, busy, sizeof busy), 100 * avg_util(l, st, sim_time), 100 * st->peak_util);
    }
}

/* --- utilization counter tracks ------------------------------------------------- */

typedef struct lsample {
    uint32_t link;
    float util;      /* the value: utilization, queue bytes or paused (0/1) */
    cs_time t;
    uint8_t kind;    /* 0 utilization, 1 queue bytes, 2 PFC paused */
} lsample;

static const char *const KIND_NAMES[] = {"utilization", "queue_bytes", "pfc_paused"};

struct cs_link_track {
    lsample *s;
    size_t n, cap, max;
    int dropped;
};

cs_link_track *cs_link_track_new(size_t max_samples) {
    cs_link_track *k = cs_calloc(1, sizeof *k);
    k->max = max_samples;
    return k;
}

void cs_link_track_sample(void *ud, uint32_t link, cs_time t, double util) {
    cs_link_track *k = ud;
    if (k->n >= k->max) {
        k->dropped = 1;
        return;
    }
    CS_GROW(k->s, k->cap, k->n + 1);
    k->s[k->n++] = (lsample){link, (float)util, t, 0};
}

void cs_link_track_queue(void *ud, uint32_t link, cs_time t, uint64_t queue_bytes, int paused) {
    cs_link_track *k = ud;
    if (k->n + 2 > k->max) {
        k->dropped = 1;
        return;
    }
    CS_GROW(k->s, k->cap, k->n + 2);
    k->s[k->n++] = (lsample){link, (float)queue_bytes, t, 1};
    k->s[k->n++] = (lsample){link, (float)(paused != 0), t, 2};
}

void cs_link_track_write(cs_link_track *k, struct cs_timeline *tl, const cs_result *res, unsigned n) {
    const cs_topo *t = res->topo;
    const cs_net_link_report *r = &res->links;
    uint32_t first_pid = res->sim.nranks; /* after the ranks' processes */
    if (!t) return;
    uint32_t *top = cs_calloc(n ? n : 1, sizeof *top);
    unsigned m = 0; /* top[0..m): the links with the most bytes so far, most first */
    for (uint32_t l = 0; l < t->nlinks && n; l++) {
        uint64_t b = stat_of(r, l).bytes;
        if (!b || (m == n && stat_of(r, top[n - 1]).bytes >= b)) continue;
        unsigned pos = m < n ? m++ : n - 1;
        while (pos > 0 && stat_of(r, top[pos - 1]).bytes < b) {
            top[pos] = top[pos - 1];
            pos--;
        }
        top[pos] = l;
    }
    for (unsigned i = 0; i < m; i++) {
        uint32_t l = top[i];
        char name[96];
        snprintf(name, sizeof name, "link %u %s%u -> %s%u%s", l, cs_node_kind_name((cs_node_kind)t->kind[t->links[l].src]),
                 t->links[l].src, cs_node_kind_name((cs_node_kind)t->kind[t->links[l].dst]), t->links[l].dst,
                 k->dropped ? " (samples truncated)" : "");
        int first = 1;
        for (int kind = 0; kind < 3; kind++) /* utilization, then (packet) queue bytes and PFC pauses */
            for (size_t j = 0; j < k->n; j++) {
                if (k->s[j].link != l || k->s[j].kind != kind) continue;
                cs_timeline_counter(tl, first_pid + i, first ? name : NULL, KIND_NAMES[kind], k->s[j].t, k->s[j].util);
                first = 0;
            }
    }
    cs_free(top);
}

void cs_link_track_free(cs_link_track *k) {
    if (!k) return;
    cs_free(k->s);
    cs_free(k);
}
