/*
 * gen_workload.c -- a generated plan as Chakra ET files and as a workload
 * (see gen_workload.h).  Owned by the workload layer.
 */
#include "workload/gen_workload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "workload/et.h"
#include "workload/graph.h"

typedef struct file_sink {
    cs_et_writer *w;
} file_sink;

static int write_sink(void *ud, const ChakraProtoMsg__Node *n, cs_error *err) {
    return cs_et_writer_write(((file_sink *)ud)->w, n, err);
}

int cs_tx_write_rank(const cs_tx_model *m, const cs_tx_plan *p, const cs_device *d, uint32_t r, const char *path,
                     cs_error *err) {
    file_sink fs = {NULL};
    int rc = cs_et_writer_open(path, 0, NULL, &fs.w, err);
    if (rc) return rc;
    rc = cs_tx_generate_rank(m, p, d, r, write_sink, &fs, NULL, err);
    int rc2 = cs_et_writer_close(fs.w, rc ? NULL : err);
    return rc ? rc : rc2;
}

int cs_tx_workload(const cs_tx_model *m, const cs_tx_plan *p, const cs_device *d, const cs_sym_axes *ax,
                   cs_workload *w, cs_error *err) {
    uint32_t n = cs_tx_ranks(p);
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/clustersim-train-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) return CS_ERR(err, CS_EIO, "%s: cannot create a scratch directory: %s", dir, strerror(errno));
    cs_graph **graphs = cs_calloc(n, sizeof *graphs);
    uint32_t *idx = cs_calloc(n, sizeof *idx);
    uint32_t ng = 0;
    int rc = CS_OK;
    char path[4200];
    for (uint32_t r = 0; rc == CS_OK && r < n; r++) {
        uint32_t r0 = ax ? cs_sym_axes_rep(ax, r) : r;
        if (r0 != r) { /* r0 < r: its graph exists */
            idx[r] = idx[r0];
            continue;
        }
        snprintf(path, sizeof path, "%s/rank.%u.et", dir, r);
        rc = cs_tx_write_rank(m, p, d, r, path, err);
        if (rc == CS_OK) rc = cs_graph_load(path, &(cs_graph_options){0, 0}, &graphs[ng], err);
        if (rc == CS_OK) idx[r] = ng++;
        unlink(path);
    }
    rmdir(dir);
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
    sc->roofline_enabled = 0;
    sc->active_chunks_per_dimension = 1;
    sc->endpoint_delay_ns = 10;
    for (int c = 0; c < CS_CFG_NCOLL; c++) {
        sc->impl[c].n = ndims;
        for (int k = 0; k < ndims; k++) cs_coll_impl_parse("ring", &sc->impl[c].algo[k]);
    }
    return rc;
}
