/*
 * workload.c -- generated plans as Chakra ET files and as a workload (see
 * gen.h).  Both take the generator's node messages: `generate` hands them
 * to the ET writer, `train` to the graph builder that decodes the trace
 * reader's records (cs_graph_builder, workload/graph.h), so what train
 * simulates is what generate writes, without packing and unpacking every
 * node (tests/test_gen_sym.c checks the two graphs equal, node for node).
 * Every rank's graph goes through a cs_graph_sharer: the ranks of a stage
 * keep views of one graph's nodes (workload/graph.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/alloc.h"
#include "core/checked.h"
#include "gen/gen_int.h"
#include "config/network_config.h"
#include "config/system_config.h"
#include "system/nccl_model.h"
#include "workload/graph.h"

/* A sink's target and the stop flag it checks before every node: a rank's
 * graph can take minutes (10^8 layers), so SIGINT / SIGTERM cannot wait
 * for the next rank. */
typedef struct sink_ud {
    void *to; /* the ET writer or the graph builder */
    const volatile sig_atomic_t *stop;
    uint32_t rank, nranks;
} sink_ud;

static int stopped(const sink_ud *u, cs_error *err) {
    return CS_ERR(err, CS_EINTR, "interrupted while generating the plan's graphs (%u of %u ranks done)", u->rank,
                  u->nranks);
}

static int write_sink(void *ud, const ChakraProtoMsg__Node *n, cs_error *err) {
    const sink_ud *u = ud;
    if (u->stop && *u->stop) return stopped(u, err);
    return cs_et_writer_write(u->to, n, err);
}

/* A node straight into the graph being built: the decoding the trace reader's
 * records get (graph.c), without packing and unpacking them. */
static int build_sink(void *ud, const ChakraProtoMsg__Node *n, cs_error *err) {
    const sink_ud *u = ud;
    if (u->stop && *u->stop) return stopped(u, err);
    return cs_graph_builder_add(u->to, n, err);
}

/* One rank's records through an open writer, then closed. */
static int write_through(cs_et_writer *w, const cs_gen_model *m, const cs_gen_plan *p, const cs_device *d,
                         uint32_t r, const volatile sig_atomic_t *stop, cs_error *err) {
    sink_ud u = {w, stop, r, cs_gen_ranks(p)};
    int rc = cs_gen_rank(m, p, d, r, write_sink, &u, NULL, err);
    int rc2 = cs_et_writer_close(w, rc ? NULL : err);
    return rc ? rc : rc2;
}

int cs_gen_write_rank(const cs_gen_model *m, const cs_gen_plan *p, const cs_device *d, uint32_t r, const char *path,
                      const volatile sig_atomic_t *stop, cs_error *err) {
    cs_et_writer *w = NULL;
    int rc = cs_et_writer_open(path, 0, NULL, &w, err);
    return rc ? rc : write_through(w, m, p, d, r, stop, err);
}

int cs_gen_rank_bytes(const cs_gen_model *m, const cs_gen_plan *p, const cs_device *d, uint32_t r, char **buf,
                      size_t *len, cs_error *err) {
    char name[48];
    snprintf(name, sizeof name, "rank.%u.et", r);
    *buf = NULL;
    *len = 0;
    FILE *f = open_memstream(buf, len);
    if (!f) return CS_ERR(err, CS_EIO, "%s: cannot open a memory stream: %s", name, strerror(errno));
    cs_et_writer *w = NULL;
    int rc = cs_et_writer_open_stream(f, name, NULL, &w, err); /* closes f on error */
    if (rc == CS_OK) rc = write_through(w, m, p, d, r, NULL, err);  /* fclose: *buf, *len final */
    if (rc) {
        free(*buf);
        *buf = NULL;
        *len = 0;
    }
    return rc;
}

int cs_gen_workload(const cs_gen_model *m, const cs_gen_plan *p, const cs_device *d, const cs_sym_axes *ax,
                    const volatile sig_atomic_t *stop, cs_workload *w, cs_error *err) {
    uint32_t n = cs_gen_ranks(p);
    cs_graph **graphs = cs_calloc(n, sizeof *graphs);
    uint32_t *idx = cs_calloc(n, sizeof *idx);
    uint32_t ng = 0;
    int rc = CS_OK;
    /* the ranks of a stage share one graph's nodes (graph.h, cs_graph_share) */
    cs_graph_sharer *sh = cs_graph_sharer_new();
    for (uint32_t r = 0; rc == CS_OK && r < n; r++) {
        uint32_t r0 = ax ? cs_sym_axes_rep(ax, r) : r;
        if (r0 != r) { /* r0 < r: its graph exists */
            idx[r] = idx[r0];
            continue;
        }
        if (stop && *stop) {
            rc = CS_ERR(err, CS_EINTR, "interrupted while generating the plan's graphs (%u of %u ranks done)", r, n);
            break;
        }
        char name[48];
        snprintf(name, sizeof name, "rank.%u.et", r);
        cs_graph_builder *gb = cs_graph_builder_new(name, &(cs_graph_options){0, 0, NULL});
        sink_ud u = {gb, stop, r, n};
        rc = cs_gen_rank(m, p, d, r, build_sink, &u, NULL, err);
        if (rc == CS_OK)
            rc = cs_graph_builder_finish(gb, &graphs[ng], err);
        else
            cs_graph_builder_free(gb);
        if (rc != CS_OK) break;
        graphs[ng] = cs_graph_sharer_put(sh, graphs[ng]); /* a view when its stage was seen */
        idx[r] = ng++;
    }
    cs_graph_sharer_free(sh);
    if (rc == CS_OK)
        rc = cs_workload_from_graphs(graphs, ng, idx, n, w, err); /* owns the graphs, copies the array */
    else
        for (uint32_t i = 0; i < ng; i++) cs_graph_free(graphs[i]);
    cs_free(graphs);
    cs_free(idx);
    return rc;
}

int cs_gen_system_defaults(int ndims, cs_system_config *sc) {
    int rc = cs_system_config_defaults(sc);
    /* Whatever the collective model: the frameworks run each communicator
     * (PyTorch's process groups, Megatron's TP / DP / PP groups) on an NCCL
     * stream of its own, so communicators never wait behind each other's
     * chunks (issue 11 item 1) -- and a plan's TP and DP collectives on one
     * network dimension cannot close a cycle of dimension queues, as they
     * did with the shared queues of the astra model's fallback. */
    sc->per_comm_queues = 1;
    sc->roofline_enabled = 0;
    sc->active_chunks_per_dimension = 1;
    sc->endpoint_delay_ns = 10;
    for (int c = 0; c < CS_CFG_NCOLL; c++) {
        sc->impl[c].n = ndims;
        for (int k = 0; k < ndims; k++) cs_coll_impl_parse("ring", &sc->impl[c].algo[k]);
    }
    return rc;
}

/* The nccl model's GPU generation of a built-in NVIDIA device (its
 * nccl-arch), -1 for any other device (MI300X, a device file). */
static int nccl_arch_of(const cs_device *d) {
    static const struct { const char *name; int arch; } A[] = {
        {"A100-40GB", CS_NCCL_AMPERE}, {"A100-80GB", CS_NCCL_AMPERE}, {"H100-SXM", CS_NCCL_HOPPER},
        {"H200", CS_NCCL_HOPPER},      {"B200", CS_NCCL_BLACKWELL},
    };
    for (size_t i = 0; i < sizeof A / sizeof A[0]; i++)
        if (strcasecmp(d->name, A[i].name) == 0) return A[i].arch;
    return -1;
}

/* The largest first dimension the nccl model is given by default: one
 * NVLink domain, up to GB200 NVL72's 72 GPUs. */
#define NCCL_MAX_DOMAIN 72

int cs_gen_system_groups(const cs_network_config *net, const cs_device *d, const cs_comm_groups *g,
                         cs_system_config *sc, char *why, size_t n) {
    why[0] = '\0';
    int rc = cs_gen_system_defaults(net->ndims, sc);
    if (rc) return rc;
    const char *path = net->path ? net->path : "the network";
    int arch = d ? nccl_arch_of(d) : -1;
    if (!d) {
        snprintf(why, n, "the generated jobs' devices differ, and the nccl model takes one GPU generation");
        return CS_OK;
    }
    if (arch < 0) {
        snprintf(why, n, "device %s: the nccl model has NCCL's constants for the built-in NVIDIA GPUs (A100, "
                         "H100, H200, B200) only", d->name);
        return CS_OK;
    }
    if (net->ndims > 2) {
        snprintf(why, n, "%s has %d dimensions; the nccl model expresses one (an NVLink node) or two (NVLink "
                         "nodes, then a NIC per GPU)", path, net->ndims);
        return CS_OK;
    }
    if (net->npus[0] > NCCL_MAX_DOMAIN) {
        snprintf(why, n, "dimension 0 of %s has %u NPUs; the nccl model takes it for one NVLink domain, at most "
                         "%d GPUs (GB200 NVL72)", path, net->npus[0], NCCL_MAX_DOMAIN);
        return CS_OK;
    }
    for (size_t i = 0; g && i < g->ngroups && !why[0]; i++)
        if (!cs_nccl_group_fits(g->groups[i].ranks, g->groups[i].nranks, net->npus[0]))
            snprintf(why, n, "communicator group %s (%u ranks) is spread over the nodes of %u GPUs unevenly or "
                             "out of node order, which the nccl model does not run",
                     g->groups[i].name, g->groups[i].nranks, net->npus[0]);
    if (!why[0]) {
        sc->collective_model = 1;
        sc->nccl_arch = arch;
    }
    return CS_OK;
}

/* Whether p's groups can be made: cs_gen_comm_groups relies on what
 * cs_gen_plan_check guarantees, and the system may be asked for before the
 * plan is checked (the scenario's effective system). */
static int groups_can_be_made(const cs_gen_plan *p) {
    uint32_t ep = p->ep ? p->ep : 1;
    if (!p->tp || !p->pp || !p->dp || p->dp % ep) return 0;
    uint64_t ranks = cs_mul_u64_sat(cs_mul_u64_sat(cs_mul_u64_sat(p->tp, cs_gen_cp(p)), p->pp), p->dp);
    if (ranks > CS_GEN_MAX_RANKS) return 0;
    if (cs_gen_hsdp(p) && (!p->hsdp_shard || p->dp % p->hsdp_shard || cs_gen_cp(p) > 1 || ep > 1)) return 0;
    return 1;
}

int cs_gen_system_for(const cs_network_config *net, const cs_device *d, const cs_gen_plan *p, cs_system_config *sc,
                      char *why, size_t n) {
    if (!groups_can_be_made(p)) { /* a plan the check refuses, naming the key: the base system, no note */
        if (n) why[0] = 0;
        return cs_gen_system_defaults(net ? net->ndims : 1, sc);
    }
    cs_comm_groups g;
    cs_gen_comm_groups(p, &g);
    int rc = cs_gen_system_groups(net, d, &g, sc, why, n);
    cs_comm_groups_free(&g);
    return rc;
}
