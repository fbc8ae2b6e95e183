/*
 * sys_waits.c -- the system layer's part of the deadlock report (see
 * system.h, cs_system_add_waits): who waits for whom among collectives,
 * chunks and dimension queues when a run stops.  Owned by the system layer.
 *
 * A chunk (one rank's stream) that is queued waits for the chunks its
 * rank's queue admitted (they hold the active-chunks-per-dimension slots);
 * a running chunk waits for every member of its phase's ring that is not
 * running that phase yet (ring, direct, halving-doubling, tree and in-switch
 * phases all need every member's part) -- queued behind other chunks, in an
 * earlier phase, or not issued at all.  Ranks whose queues admitted chunks of
 * different collectives in different orders close a cycle of such waits.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/waitfor.h"
#include "system/sys_int.h"

static const cs_rankq *rq(const cs_system *s, uint32_t rank, const cs_stream *st, int q) {
    return css_rq_find(s, rank, st->inst->grp->id, q);
}

/* The vertex of stream st, labelled with where it is. */
static uint32_t stream_vertex(const cs_system *s, cs_wfg *g, const cs_stream *st) {
    const cs_inst *in = st->inst;
    uint32_t rank = css_inst_rank(in, stream_member(st));
    uint64_t b = (uint64_t)in->grp->id << 32 | stream_chunk(st);
    uint32_t v = cs_wfg_find(g, CS_WV_STREAM, rank, b, in->seq);
    if (v != UINT32_MAX) return v;
    const char *ct = cs_coll_type_label(in->comm_type);
    uint32_t nph = chunk_nphases(in, stream_chunk(st));
    if (st->state == ST_QUEUED || st->state == ST_RUNNING) {
        const cs_phase *ph = stream_phase(st);
        uint32_t pos = 1;
        for (const cs_stream *x = rq(s, rank, st, ph->queue)->head; x && x != st; x = x->qnext) pos++;
        return cs_wfg_add(g, NULL, CS_WV_STREAM, rank, b, in->seq,
                          "rank %u's chunk %u of %s#%" PRIu64 " of communicator %s (phase %u of %u, %s entry %u of "
                          "its dimension-%u queue)",
                          rank, stream_chunk(st), ct, in->seq, in->grp->name, st->phase + 1, nph,
                          st->state == ST_RUNNING ? "running, admitted as" : "waiting, queued as", pos, ph->queue);
    }
    return cs_wfg_add(g, NULL, CS_WV_STREAM, rank, b, in->seq, "rank %u's chunk %u of %s#%" PRIu64 " of communicator %s",
                      rank, stream_chunk(st), ct, in->seq, in->grp->name);
}

static uint32_t issue_vertex(cs_wfg *g, const cs_inst *in, uint32_t member) {
    uint32_t rank = css_inst_rank(in, member);
    return cs_wfg_add(g, NULL, CS_WV_ISSUE, rank, in->grp->id, in->seq, "rank %u's %s#%" PRIu64 " of communicator %s, "
                      "not issued", rank, cs_coll_type_label(in->comm_type), in->seq, in->grp->name);
}

/* The waits of one stream that has not finished. */
static void stream_waits(const cs_system *s, cs_wfg *g, cs_inst *in, cs_stream *st, uint32_t sv) {
    uint32_t rank = css_inst_rank(in, stream_member(st));
    if (st->state == ST_QUEUED) {
        const cs_rankq *Q = rq(s, rank, st, stream_phase(st)->queue);
        const cs_stream *x = Q->head;
        for (uint32_t i = 0; x && i < Q->running; i++, x = x->qnext)
            if (x != st) cs_wfg_edge(g, sv, stream_vertex(s, g, x), CS_WE_QUEUE);
        return;
    }
    if (st->state != ST_RUNNING) return;
    const cs_phase *ph = stream_phase(st);
    for (uint32_t j = 0; j < ph->n; j++) {
        uint32_t mj = css_topo_member(st, ph, j);
        if (mj == stream_member(st) || mj >= inst_nmembers(in)) continue;
        if (!in->members[mj].issued) {
            cs_wfg_edge(g, sv, issue_vertex(g, in, mj), CS_WE_ISSUE);
            continue;
        }
        const cs_stream *t = inst_stream(in, mj, stream_chunk(st));
        if (t->state == ST_DONE || t->phase > st->phase || (t->phase == st->phase && t->state == ST_RUNNING)) continue;
        cs_wfg_edge(g, sv, stream_vertex(s, g, t), CS_WE_PEER);
    }
}

void cs_system_add_waits(const cs_system *s, cs_wfg *g) {
    /* instances in the order of (communicator, number): the hash's order is not the report's */
    size_t n = 0, cap = 0;
    cs_inst **all = NULL;
    for (size_t b = 0; b < s->ninst_buckets; b++)
        for (cs_inst *i = s->inst[b]; i; i = i->hnext) {
            CS_GROW(all, cap, n + 1);
            all[n++] = i;
        }
    for (size_t i = 1; i < n; i++) /* insertion sort: few instances are live at a stop */
        for (size_t k = i; k > 0; k--) {
            cs_inst *a = all[k - 1], *c = all[k];
            if (a->grp->id < c->grp->id || (a->grp->id == c->grp->id && a->seq <= c->seq)) break;
            all[k - 1] = c;
            all[k] = a;
        }
    for (size_t k = 0; k < n; k++) {
        cs_inst *in = all[k];
        for (uint32_t m = 0; m < inst_nmembers(in); m++) {
            const cs_member *mb = &in->members[m];
            if (!mb->issued || mb->finished) continue;
            uint32_t rank = css_inst_rank(in, m);
            uint32_t mv = cs_wfg_add(g, NULL, CS_WV_NODE, rank, mb->node_id, 0,
                                     "rank %u's node %" PRIu64 " (%s#%" PRIu64 " of communicator %s, %s)", rank,
                                     mb->node_id, cs_coll_type_label(in->comm_type), in->seq, in->grp->name,
                                     mb->source ? mb->source : "trace");
            if (!in->nchunks) { /* BARRIER and the like: the members that have not arrived */
                for (uint32_t j = 0; j < inst_nmembers(in); j++)
                    if (!in->members[j].issued) cs_wfg_edge(g, mv, issue_vertex(g, in, j), CS_WE_ISSUE);
                continue;
            }
            for (uint32_t c = 0; c < in->nchunks; c++) {
                cs_stream *st = inst_stream(in, m, c);
                if (st->state == ST_DONE) continue;
                cs_wfg_edge(g, mv, stream_vertex(s, g, st), CS_WE_MEMBER);
            }
        }
        for (uint64_t i = 0; i < (uint64_t)inst_nmembers(in) * in->nchunks; i++) {
            cs_stream *st = &in->streams[i];
            if (!in->members[stream_member(st)].issued || st->state == ST_DONE) continue;
            stream_waits(s, g, in, st, stream_vertex(s, g, st));
        }
    }
    cs_free(all);
}

uint32_t cs_system_group_id(const cs_system *s, const char *pg_name) {
    if (!pg_name || !pg_name[0]) return 0;
    const cs_comm_group *cg = NULL;
    cs_error e;
    cs_error_clear(&e);
    if (cs_comm_groups_resolve(s->p.groups, pg_name, &cg, &e) != CS_OK) return UINT32_MAX;
    return cg ? s->groups[cg - s->p.groups->groups].id : 0;
}

void cs_system_coll_name(const cs_system *s, uint32_t group, uint64_t seq, char *buf, size_t n) {
    for (size_t b = 0; b < s->ninst_buckets; b++)
        for (const cs_inst *i = s->inst[b]; i; i = i->hnext)
            if (i->grp->id == group && i->seq == seq) {
                snprintf(buf, n, "%s#%" PRIu64 " of communicator %s", cs_coll_type_label(i->comm_type), seq,
                         i->grp->name);
                return;
            }
    snprintf(buf, n, "collective #%" PRIu64 " of communicator id %u", seq, group);
}

uint32_t cs_system_queue_limit(const cs_system *s) { return s->queue_threshold; }

int cs_system_per_comm_queues(const cs_system *s) { return s->per_comm; }
