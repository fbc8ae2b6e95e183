/*
 * planner.c -- a collective -> chunks -> phases (part of the system layer;
 * see sys_int.h).  Owned by the system layer.
 *
 * Logical dimensions.  The collective's implementation list (system JSON
 * "<collective>-implementation") gives one algorithm per network dimension;
 * a one* entry (oneRing, oneDirect, oneHalvingDoubling: an algorithm with
 * CS_ALGO_ONE, coll_algo.h) makes a single logical dimension of all NPUs and
 * ends the list.  Each logical dimension is then judged by its algorithm's
 * check hook (power of two, Switch only, ...), and each phase is shaped by
 * its plan hook.  A communicator group
 * smaller than the network is one logical dimension: a ring of its members in
 * the order of the comm-group file, running the list's only algorithm, or
 * ring when the list has several (ASTRA-sim's rule), with 10 ns bundles.
 * Dimensions of one NPU, and (for the default communicator) dimensions not in
 * the node's involved_dim, are skipped.
 *
 * Chunks.  chunk = size / preferred-dataset-splits; except for all-gather, a
 * chunk is at least one byte per NPU of the network (then size = splits x
 * chunk).  Every chunk has the full chunk size, the last one included
 * (ASTRA-sim); Themis chooses its own sizes.
 *
 * Phases of a chunk, given the order of the logical dimensions (ascending;
 * reversed for all-gather; rotated by one more step per chunk for
 * roundRobin; chosen per chunk by Themis):
 *  - all-reduce, localBWAware: reduce-scatter on every involved dimension
 *    but the last, all-reduce on the last, all-gather back down;
 *  - all-reduce with Themis: reduce-scatter on every dimension, then
 *    all-gather on every dimension in reverse;
 *  - otherwise (baseline all-reduce, all-gather, reduce-scatter, all-to-all):
 *    the collective itself on every dimension in turn.
 * Each phase's size is the previous phase's output (reduce-scatter divides by
 * the dimension size, all-gather multiplies).  Ascending phases run
 * clockwise, the descending all-gather phases of an all-reduce anticlockwise.
 * A phase waits in its rank's queue of that logical dimension.
 *
 * collective-model nccl (plan_nccl): an all-reduce, all-gather or
 * reduce-scatter on one node (dimension 0) is one chunk and one phase of
 * the algorithm NCCL's tuning model picks (nccl_model.h: Ring and Tree ->
 * ring, NVLS -> inSwitch), with the bytes divided by the protocol's bandwidth
 * efficiency; across the nodes of a two-dimension network (dimension 1 the
 * NET, a NIC per GPU) one phase of ring across the nodes on dimension 1,
 * every rail at once, whose bytes and step latencies give NCCL's predicted
 * time -- or, for the in-network reductions (CollNet, NVLS + SHARP, with
 * nccl-collnet on a Switch NET), one phase of inSwitch there; the lists,
 * splits and schedulers above are not used.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "system/nccl_model.h"
#include "system/sys_int.h"

typedef struct ldim {
    const cs_coll_algo *algo;
    const cs_coll_impl *impl; /* the list entry (NULL: a group's ring chosen for a longer list) */
    const void *data;         /* its bind hook's */
    int entry;
    uint8_t space, dim;
    uint32_t n, param;
    uint32_t gstride; /* SP_GSTRIDE's */
} ldim;

typedef struct builder {
    cs_phase *ph;
    size_t nph, cap;
    uint32_t *begin;
    size_t nbegin, capb;
} builder;

static int cfg_index(int ct) {
    switch (ct) {
    case CT_AR: return CS_CFG_ALL_REDUCE;
    case CT_AG: return CS_CFG_ALL_GATHER;
    case CT_RS: return CS_CFG_REDUCE_SCATTER;
    default: return CS_CFG_ALL_TO_ALL;
    }
}

static void add_phase(cs_system *s, builder *b, const ldim *ld, int li, int ct, uint64_t in,
                      int anticlockwise, int fast, int cfgk) {
    CS_GROW(b->ph, b->cap, b->nph + 1);
    cs_phase *p = &b->ph[b->nph++];
    memset(p, 0, sizeof *p);
    const ldim *l = &ld[li];
    p->algo = (uint8_t)cs_coll_algo_index(l->algo);
    p->ctype = (uint8_t)ct;
    p->space = l->space;
    p->dim = l->dim;
    p->queue = (uint8_t)li;
    p->anticlockwise = (uint8_t)anticlockwise;
    p->fast = (uint8_t)fast;
    p->n = l->n;
    p->gstride = l->gstride;
    p->in_bytes = in;
    p->data = l->data;
    switch (ct) {
    case CT_AG: p->out_bytes = in * l->n; break;
    case CT_RS: p->out_bytes = in / l->n; break;
    default: p->out_bytes = in; break;
    }
    if (l->algo->plan) l->algo->plan(p, l->param, &s->algo_counter[cfgk][li]);
}

/* The efficiency that makes the simulated algorithm take NCCL's bandwidth
 * time: NCCL's bandwidth (effbw: algbw, with the tree's correction factor)
 * over the one the algorithm reaches on the raw link (B).  The ring engine
 * (Ring, Tree): B n / nsteps, nsteps = 2(n - 1) for all-reduce, n - 1
 * otherwise (for Ring that is busbw / B).  inSwitch: all-reduce and
 * reduce-scatter move the buffer once (B), all-gather (n - 1) shards of
 * nBytes / n (B n / (n - 1)). */
static double nccl_efficiency(const cs_nccl_in *q, const cs_nccl_choice *ch) {
    double n = (double)q->nranks, B = q->bw_gbps;
    if (ch->algo != CS_NCCL_NVLS) {
        double nsteps = q->coll == CS_NCCL_ALL_REDUCE ? 2 * (n - 1) : n - 1;
        return ch->effbw_gbps * nsteps / (n * B);
    }
    if (q->coll == CS_NCCL_ALL_GATHER) return ch->effbw_gbps * (n - 1) / (n * B);
    return ch->effbw_gbps / B;
}

/* Multi-node: the bytes one member moves in the ring phase across the nodes
 * (nn members, each on its own NIC of bandwidth Bnet bytes/ns) so that the
 * phase's bandwidth time is NCCL's S / effbw: the ring engine takes X f /
 * Bnet, f = 2(nn-1)/nn for all-reduce, (nn-1)/nn reduce-scatter, nn-1
 * all-gather (X its shard). */
static double nccl_net_wire(const cs_nccl_in *q, const cs_nccl_choice *ch, double bnet, uint32_t nn) {
    double N = (double)nn;
    double f = q->coll == CS_NCCL_ALL_REDUCE ? 2 * (N - 1) / N : q->coll == CS_NCCL_REDUCE_SCATTER ? (N - 1) / N : N - 1;
    return ceil((double)q->nbytes / ch->effbw_gbps * bnet / f);
}

/* The latency (ns) the network itself charges one send of the nccl phase ld (0 bytes, uncontended):
 * from the phase's first member to the next one in its ring (the dimension's stride, the group's
 * next member, or the member gstride apart); for inSwitch half of that path, which goes up to the
 * switch and down again in the phase's two sends.  NCCL's step latencies (hwLat, its NET ones) are
 * measured over real links, so they already include this: the phase pays the rest of them only. */
static uint64_t nccl_send_lat_ns(const cs_system *s, const cs_group *g, const ldim *ld) {
    uint32_t a, b;
    if (ld->space == SP_DIM) {
        a = 0;
        b = (uint32_t)s->stride[ld->dim];
    } else {
        a = g->ranks[0];
        b = g->ranks[ld->space == SP_GSTRIDE ? ld->gstride : 1];
    }
    cs_time t = cs_net_uncontended_time(s->net, a, b, 0);
    if (t == CS_TIME_MAX) return 0; /* no route: the send itself fails with the reason */
    uint64_t ns = t / 1000;
    return ld->algo == &css_algo_inswitch ? ns / 2 : ns;
}

/* cs_nccl_choose, remembered per set of inputs (a run asks the same few
 * questions for every instance of its collectives; the answer is a pure
 * function of the inputs: every field of cs_nccl_in is compared).
 * Sequential runs only (the parallel engine's threads share s). */
/* "nccl:ALGO/PROTO" into out (as snprintf would write it, without its cost per collective), and
 * "/Nch" when NCCL runs it on N channels, fewer than nccl-channels (small sizes). */
static void nccl_algos(char *out, size_t cap, int algo, int proto, int nch, int channels) {
    char chs[16] = ""; /* (snprintf only for the small sizes that run on fewer channels) */
    if (nch > 0 && nch < channels) snprintf(chs, sizeof chs, "/%dch", nch);
    const char *parts[5] = {"nccl:", cs_nccl_algo_name(algo), "/", cs_nccl_proto_name(proto), chs};
    size_t len = 0;
    for (int i = 0; i < 5 && cap; i++)
        for (const char *c = parts[i]; *c && len + 1 < cap; c++) out[len++] = *c;
    if (cap) out[len] = '\0';
}

_Static_assert(sizeof(cs_nccl_in) == 64, "cs_nccl_in changed: nccl_choose_memo must hash and compare every field");
static int nccl_choose_memo(cs_system *s, const cs_nccl_in *q, cs_nccl_choice *ch) {
    if (s->par) return cs_nccl_choose(q, ch);
    /* every field of the inputs, as 64-bit words: hashed, and compared with the entry's */
    double bw = q->bw_gbps, nbw = q->net_bw_gbps;
    uint64_t bwb, nbwb;
    memcpy(&bwb, &bw, sizeof bwb);
    memcpy(&nbwb, &nbw, sizeof nbwb);
    uint64_t w[CSS_NCCL_KEY] = {(uint64_t)q->coll,     q->nranks,          q->nbytes,           bwb,
                                (uint64_t)q->channels, (uint64_t)q->arch, (uint64_t)q->nvls,  q->nnodes,
                                nbwb,                  (uint64_t)q->cpu,  (uint64_t)q->collnet, (uint64_t)q->nvswitch};
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < CSS_NCCL_KEY; i++) h = (h ^ w[i]) * 1099511628211ULL;
    if (!s->nccl_memo) s->nccl_memo = cs_calloc(CSS_NCCL_MEMO, sizeof *s->nccl_memo);
    css_nccl_memo *m = &s->nccl_memo[(h ^ h >> 29) % CSS_NCCL_MEMO];
    if (m->used && memcmp(m->key, w, sizeof w) == 0) {
        *ch = m->ch;
        return 0;
    }
    int rc = cs_nccl_choose(q, ch);
    if (rc == 0) {
        m->used = 1;
        memcpy(m->key, w, sizeof w);
        m->ch = *ch;
    }
    return rc;
}

static int plan_nccl(cs_system *s, cs_inst *in, int ct, uint32_t involved, const char *src, uint64_t node,
                     cs_error *err) {
    const cs_system_config *c = &s->cfg;
    const char *cfgpath = c->path ? c->path : "the system configuration";
    const char *cname = cs_cfg_coll_name((cs_cfg_coll)cfg_index(ct));
    const cs_network_config *nc = s->netcfg;
    const char *netpath = nc->path ? nc->path : "no file";
    if (nc->ndims > 2)
        return CS_ERR(err, CS_EUNSUPPORTED,
                      "%s: node %" PRIu64 ": %s: collective-model nccl: the network (%s) has %d dimensions; "
                      "expected one (the GPUs of one NVLink node) or two (NVLink nodes, then the NET dimension "
                      "joining them, a NIC per GPU): a NET of several dimensions is not modelled",
                      src, node, cfgpath, netpath, nc->ndims);
    cs_group *g = in->grp;
    uint32_t ppn = nc->npus[0], nnodes = nc->ndims == 2 ? nc->npus[1] : 1;
    int use0 = 1, use1 = nnodes > 1;
    if (g->whole) {
        use0 = (involved & 1u) && ppn > 1;
        use1 = use1 && (involved & 2u);
        if (!use0) ppn = 1;
        if (!use1) nnodes = 1;
    } else { /* a group: within one node, or the same number k of members on each of its nodes */
        uint32_t np0 = nc->npus[0];
        /* k: the members on the first member's node; across nodes, in file order, blocks of k members
         * on one node each, no node twice (NCCL's rings over the rails) */
        ppn = cs_nccl_group_fits(g->ranks, g->n, np0);
        if (!ppn)
            return CS_ERR(err, CS_EUNSUPPORTED,
                          "%s: node %" PRIu64 ": %s: collective-model nccl: communicator group \"%s\" is "
                          "spread over nodes (of %u GPUs, %s) unevenly or out of node order; expected a "
                          "group within one node, or the same number of members on each of its nodes, "
                          "listed node by node",
                          src, node, cfgpath, g->name, np0, netpath);
        nnodes = g->n / ppn;
    }
    uint32_t n = ppn * nnodes;
    int multi_node = nnodes > 1;
    int nvls = nc->topo[0] == CS_TOPO_SWITCH && c->nccl_nvls && c->nccl_arch >= CS_NCCL_HOPPER;
    uint32_t *begin = cs_malloc(2 * sizeof *begin);
    begin[0] = 0;
    in->phase_begin = begin;
    in->phases = NULL;
    in->nchunks = 0;
    snprintf(in->algos, sizeof in->algos, "nccl");
    if (n <= 1 || in->bytes == 0) return CS_OK; /* nothing to move */
    cs_nccl_in q = {.coll = ct == CT_AR ? CS_NCCL_ALL_REDUCE : ct == CT_AG ? CS_NCCL_ALL_GATHER : CS_NCCL_REDUCE_SCATTER,
                    .nranks = n,
                    .nbytes = ct == CT_AG ? in->bytes * n : in->bytes,
                    .bw_gbps = nc->bandwidth_gbps[0] * 1073741824.0 / 1e9, /* as the backends read it */
                    .channels = c->nccl_channels,
                    .arch = (cs_nccl_arch)c->nccl_arch,
                    .nvls = nvls,
                    .nnodes = nnodes,
                    .net_bw_gbps = multi_node ? nc->bandwidth_gbps[1] * 1073741824.0 / 1e9 : 0,
                    .cpu = c->nccl_cpu,
                    /* SHARP: the NET dimension a Switch (the in-switch capability, as inSwitch reads it) */
                    .collnet = multi_node && c->nccl_collnet && nc->topo[1] == CS_TOPO_SWITCH,
                    .nvswitch = nc->topo[0] == CS_TOPO_SWITCH};
    if (multi_node && ppn == 1) q.bw_gbps = q.net_bw_gbps; /* one GPU per node: no NVLink hop in the rings */
    cs_nccl_choice ch;
    if (nccl_choose_memo(s, &q, &ch) != 0)
        return CS_ERR(err, CS_EINVAL, "%s: node %" PRIu64 ": %s of %" PRIu64 " bytes on %u ranks: collective-model "
                      "nccl finds no algorithm", src, node, cname, in->bytes, n);
    /* One node: the choice on dimension 0 (or the group's ring).  Across nodes: a ring across the
     * nodes on the NET dimension, every rail at once (or the group's ring, one member per node); the
     * in-network reductions (CollNet Direct, Chain, NVLS + SHARP) inSwitch on the NET dimension, every
     * rail's switch at once (a group's: its ring, inSwitch runs groups on one-dimension networks only). */
    int innet = multi_node && g->whole &&
                (ch.algo == CS_NCCL_COLLNET_DIRECT || ch.algo == CS_NCCL_COLLNET_CHAIN || ch.algo == CS_NCCL_NVLS);
    /* a group of several members per node across nodes: a ring per position within the node */
    int rails = !g->whole && multi_node && ppn > 1;
    ldim ld = {.algo = (ch.algo == CS_NCCL_NVLS && !multi_node) || innet ? &css_algo_inswitch : &css_algo_ring,
               .space = g->whole ? SP_DIM : rails ? SP_GSTRIDE : SP_GROUP, .dim = (uint8_t)(multi_node ? 1 : 0),
               .n = multi_node ? nnodes : n, .param = 0, .gstride = rails ? ppn : 0};
    char where[CSS_WHERE_MAX];
    if (ld.algo->check) {
        css_check chk = {.sys = s, .ctype = ct, .space = ld.space, .dim = ld.dim, .n = ld.n,
                         .group = g->name, .node_local = !multi_node, .where_src = src, .where_node = node,
                         .where_cfg = cfgpath, .where_buf = where, .coll = cname};
        int rc = ld.algo->check(&chk, err);
        if (rc) return rc;
    }
    /* inSwitch across nodes: a member sends its X bytes up and gets X back, X / Bnet = S / effbw */
    double wire = innet        ? ceil((double)q.nbytes / ch.effbw_gbps * q.net_bw_gbps)
                  : multi_node ? nccl_net_wire(&q, &ch, q.net_bw_gbps, nnodes)
                               : ceil((double)in->bytes / nccl_efficiency(&q, &ch));
    if (!(wire < 1.8e19))
        return CS_ERR(err, CS_EINVAL, "%s: node %" PRIu64 ": %s of %" PRIu64 " bytes: the bytes on the wire at "
                      "%s's efficiency pass 64 bits", src, node, cname, in->bytes, cs_nccl_proto_name(ch.proto));
    builder b;
    memset(&b, 0, sizeof b);
    add_phase(s, &b, &ld, 0, ct, (uint64_t)wire, 0, 0, cfg_index(ct));
    begin[1] = 1;
    in->phases = b.ph;
    in->nchunks = 1;
    in->nccl = 1;
    /* NCCL's channels are rings of their own, each crossing a node boundary through one NIC: a node's
     * graph of C channels (nccl-channels) over its NICs (one per GPU) puts C / NICs of them on each
     * NIC, and a communicator's ring through a NIC uses that NIC's channels, whatever number of the
     * node's GPUs it has -- each a connection (queue pair) of its own carrying its share; of the
     * channels NCCL runs this size on (fewer for small sizes: cs_nccl_run_channels) */
    if (multi_node && !innet) {
        uint32_t per = (uint32_t)ch.run_channels / nc->npus[0];
        in->nccl_net_channels = (uint16_t)(per ? per : 1);
    }
    if (innet) {
        /* NCCL's latency, exactly: inSwitch's two bundles lat / 2 each, the rest (0 or 1 ns) as the launch */
        in->nccl_step_ns = ch.lat_ns / 2;
        in->nccl_launch_ns = ch.lat_ns - 2 * in->nccl_step_ns;
    } else if (multi_node) {
        /* NCCL's latency, exactly: the ring's k steps and its first bundle pay the NET-step latency
         * (net_lat / k each; lat / (k + 1) when that leaves no launch), the launch the rest (base,
         * NVLink steps) */
        uint64_t k = ct == CT_AR ? 2 * (uint64_t)(nnodes - 1) : nnodes - 1;
        uint64_t step = ch.net_lat_ns / k;
        if ((k + 1) * step > ch.lat_ns) step = ch.lat_ns / (k + 1);
        in->nccl_step_ns = step;
        in->nccl_launch_ns = ch.lat_ns - (k + 1) * step;
    } else {
        in->nccl_launch_ns = ch.launch_ns;
        in->nccl_step_ns = ch.step_ns;
    }
    {
        /* Each latency once: every send of the phase pays the network's path latency p, which NCCL's
         * step latency already includes, so a bundle pays only the rest, max(0, step - p): a step
         * then takes max(NCCL's step latency, p).  The ring has one bundle more than sends (its
         * first), whose saved min(p, step) goes to the launch; inSwitch has as many of both.  So on
         * links no slower than NCCL measured the collective takes what it takes with latency 0. */
        uint64_t p = nccl_send_lat_ns(s, g, &ld);
        uint64_t st = in->nccl_step_ns > p ? in->nccl_step_ns - p : 0;
        if (ld.algo != &css_algo_inswitch) in->nccl_launch_ns += in->nccl_step_ns - st;
        in->nccl_step_ns = st;
    }
    nccl_algos(in->algos, sizeof in->algos, ch.algo, ch.proto, ch.run_channels, q.channels);
    return CS_OK;
}

int css_plan_collective(cs_system *s, cs_inst *in, int ct, uint32_t involved, uint32_t rr,
                    const char *src, uint64_t node, cs_error *err) {
    const cs_system_config *c = &s->cfg;
    const char *cfgpath = c->path ? c->path : "the system configuration";
    int k = cfg_index(ct);
    const char *cname = cs_cfg_coll_name((cs_cfg_coll)k);
    /* Custom graphs (*-implementation-custom) are run by the workload
     * executor (workload/custom_coll.h), which never hands such a collective
     * to the system layer; a caller that does gets this error.  (Nodes
     * absent from per-node-custom-implementation run the built-in lists.) */
    if (c->custom_impl[k])
        return CS_ERR(err, CS_EUNSUPPORTED,
                      "%s: node %" PRIu64 ": %s: custom collective implementations (%s-implementation-custom) run "
                      "in the workload executor, not in the system layer; expected the %s-implementation list "
                      "here",
                      src, node, cfgpath, cname, cname);
    if (c->collective_model == 1 && ct != CT_A2A) return plan_nccl(s, in, ct, involved, src, node, err);
    const cs_coll_algo_list *L = &c->impl[k];
    if (L->n == 0)
        return CS_ERR(err, CS_EINVAL,
                      "%s: node %" PRIu64 ": %s collective, but %s has no \"%s-implementation\"; "
                      "expected a list with one algorithm per network dimension",
                      src, node, cname, cfgpath, cname);
    char where[1024];
    snprintf(where, sizeof where, "%s: node %" PRIu64 ": %s", src, node, cfgpath);
    /* logical dimensions */
    ldim ld[CS_MAX_DIMS];
    int nd = 0, fast = 0;
    cs_group *g = in->grp;
    if (!g->whole) {
        ld[0].algo = L->n > 1 || !L->algo[0].algo ? &css_algo_ring : L->algo[0].algo;
        ld[0].space = SP_GROUP;
        ld[0].dim = 0;
        ld[0].n = g->n;
        ld[0].param = L->n > 1 ? 0 : L->algo[0].param;
        ld[0].impl = L->n > 1 ? NULL : &L->algo[0];
        ld[0].entry = 0;
        nd = 1;
        involved = 1;
        fast = 1;
    } else {
        if (L->n > s->ndims)
            return CS_ERR(err, CS_EINVAL,
                          "%s:%d: %s-implementation: expected at most %d entries (one per network "
                          "dimension), got %d",
                          cfgpath, L->line, cname, s->ndims, L->n);
        for (int d = 0; d < L->n; d++) {
            if (!L->algo[d].algo)
                return CS_ERR(err, CS_EINVAL, "%s:%d: %s-implementation: entry %d names no algorithm; "
                              "expected one of the registered algorithms", cfgpath, L->line, cname, d);
            ld[nd].algo = L->algo[d].algo;
            ld[nd].param = L->algo[d].param;
            ld[nd].impl = &L->algo[d];
            ld[nd].entry = d;
            if (L->algo[d].one) {
                ld[nd].space = SP_ALL;
                ld[nd].dim = 0;
                ld[nd].n = (uint32_t)s->total_npus;
                nd++;
                break;
            }
            ld[nd].space = SP_DIM;
            ld[nd].dim = (uint8_t)d;
            ld[nd].n = s->netcfg->npus[d];
            nd++;
        }
    }
    size_t alen = 0;
    in->algos[0] = '\0';
    char key[64];
    snprintf(key, sizeof key, "%s-implementation", cname);
    for (int d = 0; d < nd; d++) {
        ldim *l = &ld[d];
        char ename[CS_COLL_IMPL_TEXT_MAX + 64];
        const char *aname = l->algo->name;
        if (l->impl && (l->algo->flags & CS_ALGO_TEXT)) aname = cs_coll_impl_format(l->impl, ename, sizeof ename);
        alen += (size_t)snprintf(in->algos + alen, sizeof in->algos - (alen < sizeof in->algos ? alen : sizeof in->algos),
                                 "%s%s", d ? "," : "", aname);
        if (alen >= sizeof in->algos) alen = sizeof in->algos - 1;
        l->data = NULL;
        if (l->n <= 1) continue;
        css_check chk = {.sys = s, .ctype = ct, .space = l->space, .dim = l->dim, .n = l->n,
                         .group = g->name, .where = where, .coll = cname, .key = key, .entry = l->entry};
        if (l->algo->check) {
            int rc = l->algo->check(&chk, err);
            if (rc) return rc;
        }
        if (l->algo->bind && l->impl) {
            int rc = l->algo->bind(&chk, l->impl, &l->data, err);
            if (rc) return rc;
        }
    }
    /* chunking (ASTRA-sim's determine_chunk_size and its loop) */
    uint64_t size = in->bytes;
    uint64_t splits = c->preferred_dataset_splits > 0 ? (uint64_t)c->preferred_dataset_splits : 1;
    uint64_t chunk = size / splits;
    if (ct != CT_AG && s->total_npus > chunk) {
        chunk = s->total_npus;
        size = splits * chunk;
    }
    if (chunk == 0) chunk = size; /* all-gather smaller than the splits: one chunk */
    uint64_t recommended = chunk;
    int greedy = c->inter_dim_scheduling == CS_INTER_OFFLINE_GREEDY ||
                 c->inter_dim_scheduling == CS_INTER_OFFLINE_GREEDY_FLEX;
    int themis = greedy && ct != CT_A2A && g->whole && nd == s->ndims && ld[0].space == SP_DIM;
    if (greedy) css_themis_maybe_reset(s);
    int ar_greedy = ct == CT_AR && (greedy || c->inter_dim_scheduling == CS_INTER_ONLINE_GREEDY);
    int rrobin = c->inter_dim_scheduling == CS_INTER_ROUND_ROBIN;
    builder b;
    memset(&b, 0, sizeof b);
    CS_GROW(b.begin, b.capb, 1);
    b.begin[b.nbegin++] = 0;
    int empty = 0;
    while (size > 0) {
        int map[CS_MAX_DIMS + 2];
        for (int d = 0; d < nd; d++) map[d] = ct == CT_AG ? nd - 1 - d : d;
        if (rrobin) {
            int tmp[CS_MAX_DIMS];
            uint32_t r = rr % (uint32_t)nd;
            for (int d = 0; d < nd; d++) tmp[d] = map[(uint32_t)d + r < (uint32_t)nd ? (uint32_t)d + r : (uint32_t)d + r - (uint32_t)nd];
            memcpy(map, tmp, sizeof(int) * (size_t)nd);
            rr++;
        } else if (themis) {
            chunk = css_themis_chunk(s, c->inter_dim_scheduling == CS_INTER_OFFLINE_GREEDY_FLEX, ct, &size,
                                 recommended, involved, map);
        }
        if (!themis) {
            if (chunk > size)
                size = 0;
            else
                size -= chunk;
        }
        uint64_t remain = chunk;
#define ACTIVE(d) (ld[map[d]].n > 1 && ((involved >> map[d]) & 1u))
        size_t first = b.nph;
        if (ct != CT_AR || c->collective_optimization == CS_COLLOPT_BASELINE) {
            for (int d = 0; d < nd; d++) {
                if (!ACTIVE(d)) continue;
                add_phase(s, &b, ld, map[d], ct, remain, 0, fast, k);
                remain = b.ph[b.nph - 1].out_bytes;
            }
        } else if (ar_greedy) {
            for (int d = 0; d < nd; d++) {
                if (!ACTIVE(d)) continue;
                add_phase(s, &b, ld, map[d], CT_RS, remain, 0, fast, k);
                remain = b.ph[b.nph - 1].out_bytes;
            }
            for (int d = nd - 1; d >= 0; d--) {
                if (!ACTIVE(d)) continue;
                add_phase(s, &b, ld, map[d], CT_AG, remain, 1, fast, k);
                remain = b.ph[b.nph - 1].out_bytes;
            }
        } else {
            int last = 0, d;
            for (d = 0; d < nd; d++)
                if (ACTIVE(d)) last = d;
            for (d = 0; d < last; d++) {
                if (!ACTIVE(d)) continue;
                add_phase(s, &b, ld, map[d], CT_RS, remain, 0, fast, k);
                remain = b.ph[b.nph - 1].out_bytes;
            }
            while (d > 0 && !ACTIVE(d)) d--;
            if (ACTIVE(d)) {
                add_phase(s, &b, ld, map[d], CT_AR, remain, 0, fast, k);
                remain = b.ph[b.nph - 1].out_bytes;
            }
            for (d--; d >= 0; d--) {
                if (!ACTIVE(d)) continue;
                add_phase(s, &b, ld, map[d], CT_AG, remain, 1, fast, k);
                remain = b.ph[b.nph - 1].out_bytes;
            }
        }
#undef ACTIVE
        if (b.nph == first) { /* nothing to do on any dimension */
            empty = 1;
            break;
        }
        if (b.nbegin > (1u << 24)) {
            cs_free(b.ph);
            cs_free(b.begin);
            return CS_ERR(err, CS_EUNSUPPORTED,
                          "%s: node %" PRIu64 ": %s of %" PRIu64 " bytes splits into more than 2^24 "
                          "chunks; expected a smaller preferred-dataset-splits in %s",
                          src, node, cname, in->bytes, cfgpath);
        }
        CS_GROW(b.begin, b.capb, b.nbegin + 1);
        b.begin[b.nbegin++] = (uint32_t)b.nph;
    }
    if (empty) b.nbegin = 1;
    in->nchunks = (uint32_t)(b.nbegin - 1);
    in->phase_begin = b.begin;
    in->phases = b.ph;
    return CS_OK;
}
