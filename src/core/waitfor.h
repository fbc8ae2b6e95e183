/*
 * waitfor.h -- the wait-for graph of a stopped simulation, for the deadlock
 * report.
 *
 * A vertex is one thing that cannot go on (a trace node in flight or not
 * yet issued, one rank's chunk of a collective, a collective a rank has not
 * issued), named by a key (kind, rank, two numbers) and carrying a label (a
 * noun phrase: "rank 0's chunk 1 of ALL_REDUCE#0 of communicator 1").  An
 * edge u -> v says u cannot go on before v does, and why (CS_WE_*).  The
 * layers that own the state add the vertices and edges (workload/exec.c,
 * system/system.c); this file finds the first cycle of waits (a depth-first
 * search from the vertices in the order they were added: deterministic) and
 * for every other vertex its shortest path to the cycle, and writes them as
 * the report's lines.  Used once per failed run: simplicity over speed.
 */
#ifndef CS_CORE_WAITFOR_H
#define CS_CORE_WAITFOR_H

#include <stdint.h>
#include <stdio.h>

/* Vertex kinds (what the key's numbers mean). */
enum {
    CS_WV_NODE = 0,   /* b = trace node id of rank `rank` */
    CS_WV_STREAM = 1, /* b = communicator id << 32 | chunk, c = the collective's number */
    CS_WV_ISSUE = 2,  /* rank `rank` has not issued collective c of communicator b */
    CS_WV_KINDS = 3
};

/* Why u waits for v. */
enum {
    CS_WE_QUEUE = 0,  /* a queued chunk waits behind the chunks its dimension queue admitted */
    CS_WE_PEER,       /* a running chunk needs a member of its phase's ring to reach that phase */
    CS_WE_ISSUE,      /* ... a member that has not issued the collective */
    CS_WE_MEMBER,     /* a rank's collective waits for its chunks */
    CS_WE_PARENT,     /* a node not yet issued waits for a node it depends on */
    CS_WE_ENGINE,     /* a ready node waits for a communication stream (--comm-streams) */
    CS_WE_SEND,       /* a receive waits for its send */
    CS_WE_NODE,       /* a collective not issued: the trace node that issues it */
    CS_WE_KINDS
};

typedef struct cs_wfg cs_wfg;

cs_wfg *cs_wfg_new(void);
void cs_wfg_free(cs_wfg *g);

/* The vertex with this key, or UINT32_MAX. */
uint32_t cs_wfg_find(const cs_wfg *g, int kind, uint32_t rank, uint64_t b, uint64_t c);
/* The vertex with this key, added with the label (printf-style) if absent;
 * *added (may be NULL) says whether it was. */
uint32_t cs_wfg_add(cs_wfg *g, int *added, int kind, uint32_t rank, uint64_t b, uint64_t c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;
/* u waits for v (duplicates are kept once). */
void cs_wfg_edge(cs_wfg *g, uint32_t u, uint32_t v, int why);

uint32_t cs_wfg_count(const cs_wfg *g);
int cs_wfg_kind(const cs_wfg *g, uint32_t v);
uint32_t cs_wfg_rank(const cs_wfg *g, uint32_t v);
uint64_t cs_wfg_b(const cs_wfg *g, uint32_t v);
uint64_t cs_wfg_c(const cs_wfg *g, uint32_t v);
const char *cs_wfg_label(const cs_wfg *g, uint32_t v);
uint32_t cs_wfg_out_degree(const cs_wfg *g, uint32_t v);
/* Append to v's label (e.g. what a terminal vertex waits for outside the graph). */
void cs_wfg_note(cs_wfg *g, uint32_t v, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Analysis (after the last edge).  Finds the first cycle: returns its length
 * n (0 = none) and puts its vertices in cyc[0..n) and the reasons in
 * why[0..n) (cyc[i] waits for cyc[(i+1) % n] because why[i]), rotated to
 * start at the lowest rank's vertex added first; both arrays are the graph's. */
uint32_t cs_wfg_cycle(cs_wfg *g, const uint32_t **cyc, const int **why);
/* After cs_wfg_cycle: the number of waits from v to the cycle (0 on it,
 * UINT32_MAX when the cycle cannot be reached from v or there is none) and
 * the next vertex on that way with the reason. */
uint32_t cs_wfg_dist(const cs_wfg *g, uint32_t v, uint32_t *next, int *why);

/* The verb phrase of a reason ("waits in its queue behind"). */
const char *cs_wfg_why_text(int why);

/* Write the cycle, one line per wait, each indented by `indent`:
 *   "<label>: <why>" ... and a last line back to the first. */
void cs_wfg_write_cycle(const cs_wfg *g, FILE *f, const char *indent);

#endif
