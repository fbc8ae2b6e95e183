/*
 * collbench.c -- `clustersim collective` (see collbench.h).
 */
#include "sweep/collbench.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/afile.h"
#include "core/alloc.h"
#include "scenario/result.h"
#include "system/coll_type.h"
#include "system/system_config.h"
#include "workload/et.h"


/* A trace of one collective (every rank runs it) at path. */
static int write_trace(const char *path, int op, uint64_t comm_size, cs_error *err) {
    cs_et_writer *w = NULL;
    int rc = cs_et_writer_open(path, 0, NULL, &w, err);
    if (rc) return rc;
    cs_et_nb *nb = cs_et_nb_new(1, "collective", CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE);
    cs_et_nb_attr_bool(nb, "is_cpu_op", 0);
    cs_et_nb_attr_int64(nb, "comm_type", op);
    cs_et_nb_attr_uint64(nb, "comm_size", comm_size);
    rc = cs_et_writer_write(w, cs_et_nb_node(nb), err);
    cs_et_nb_free(nb);
    int rc2 = cs_et_writer_close(w, rc ? NULL : err);
    return rc ? rc : rc2;
}

/* The op as --op spells it. */
static const char *op_flag(int op) {
    return op == CS_COLL_ALL_GATHER       ? "all_gather"
           : op == CS_COLL_REDUCE_SCATTER ? "reduce_scatter"
           : op == CS_COLL_ALL_TO_ALL     ? "alltoall"
                                          : "all_reduce";
}

/* The system must say how the op runs: "<op>-implementation" (or its
 * "-custom" form) unless the nccl model picks the algorithm.  Checked here
 * so the refusal names the option, not the benchmark's scratch trace. */
static int check_system(const cs_scenario *base, int op, cs_error *err) {
    /* the op's system key's collective (cs_cfg_coll_name: "all-reduce", ...) */
    const char *flag = op_flag(op);
    cs_cfg_coll cc = CS_CFG_ALL_REDUCE;
    if (op == CS_COLL_ALL_GATHER) cc = CS_CFG_ALL_GATHER;
    if (op == CS_COLL_REDUCE_SCATTER) cc = CS_CFG_REDUCE_SCATTER;
    if (op == CS_COLL_ALL_TO_ALL) cc = CS_CFG_ALL_TO_ALL;
    char key[80], custom[96];
    snprintf(key, sizeof key, "%s-implementation", cs_cfg_coll_name(cc));
    snprintf(custom, sizeof custom, "%s-custom", key);
    cs_error e;
    cs_error_clear(&e);
    json_t *j = cs_scenario_to_json(base, &e);
    if (!j) return CS_OK; /* the run reports it */
    json_t *sys = json_object_get(j, "system");
    const char *model = json_string_value(json_object_get(sys, "collective-model"));
    int ok = json_object_get(sys, key) || json_object_get(sys, custom) ||
             json_object_get(sys, "per-node-custom-implementation") || (model && strcmp(model, "nccl") == 0);
    json_decref(j);
    if (ok) return CS_OK;
    return CS_ERR(err, CS_EINVAL,
                  "--op %s: the system has no \"%s\"; expected --system-configuration FILE (or --scenario FILE) "
                  "whose system gives it: a list of one algorithm per network dimension, e.g. [\"ring\"]",
                  flag, key);
}

typedef struct row {
    uint64_t size, count;
    double time_us, algbw, busbw;
    char algo[64]; /* the run's algorithms (collectives.csv), e.g. nccl:CollNetDirect/Simple */
} row;

int cs_collbench(const cs_scenario *base, const cs_collbench_options *o, cs_error *err) {
    uint64_t n = cs_scenario_npus(base);
    if (!n) return CS_ERR(err, CS_EINVAL, "network: expected a network (--network-configuration FILE)");
    if (o->min_bytes < 1 || o->min_bytes > o->max_bytes || o->factor < 2)
        return CS_ERR(err, CS_EINVAL, "--min %" PRIu64 " --max %" PRIu64 " --factor %u: expected 1 <= min <= max and "
                                      "a factor of 2 or more",
                      o->min_bytes, o->max_bytes, o->factor);
    int rc1 = check_system(base, o->op, err);
    if (rc1) return rc1;
    /* the table's file first: a run that cannot write its result does not start */
    cs_afile a;
    if (o->csv) {
        int rc0 = cs_afile_open(&a, o->csv, err);
        if (rc0) {
            cs_error_prefix(err, "--out: ");
            return rc0;
        }
    }
    const char *tmp = getenv("TMPDIR");
    char dbuf[4096];
    snprintf(dbuf, sizeof dbuf, "%s/clustersim-collective-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dbuf)) {
        if (o->csv) cs_afile_abort(&a);
        return CS_ERR(err, CS_EIO, "%s: cannot make a temporary directory: %s", dbuf, strerror(errno));
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/collective.et", dbuf);
    size_t nrows = 0, cap = 64;
    row *rows = cs_malloc(cap * sizeof *rows);
    int rc = CS_OK;
    FILE *f = o->report;
    if (f)
        fprintf(f, "# clustersim collective: %s on %" PRIu64 " ranks\n#\n"
                   "# %12s %14s %8s %6s %12s %10s %10s  %s\n# %12s %14s %8s %6s %12s %10s %10s\n",
                cs_coll_type_label(o->op), n, "size", "count", "type", "redop", "time", "algbw", "busbw",
                "algorithm", "(B)", "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)");
    for (uint64_t size = o->min_bytes; rc == CS_OK && size <= o->max_bytes;) {
        /* comm_size: all-gather's is each rank's share of the gathered buffer */
        uint64_t comm = o->op == CS_COLL_ALL_GATHER ? size / n : size;
        if (comm == 0) goto next;
        rc = write_trace(path, o->op, comm, err);
        if (rc == CS_OK) {
            cs_scenario *sc = cs_scenario_copy(base);
            rc = cs_sc_set_text(sc, "run.workload", path, "collective", err);
            cs_result *r = NULL;
            if (rc == CS_OK) {
                cs_run_hooks h;
                memset(&h, 0, sizeof h);
                h.stop = o->stop;
                rc = cs_scenario_run_hooked(sc, &h, &r, err);
            }
            if (rc == CS_OK && !r->nrows)
                rc = CS_ERR(err, CS_EINTERNAL, "collective: the run recorded no collective");
            if (rc == CS_OK) {
                const cs_collective_row *c = &r->rows[0];
                if (nrows == cap) rows = cs_realloc(rows, (cap *= 2) * sizeof *rows);
                row *x = &rows[nrows++];
                x->size = c->data_bytes;
                x->count = c->data_bytes / 4;
                x->time_us = (double)(c->end_ps - c->start_ps) / 1e6;
                x->algbw = c->algbw_gbps;
                x->busbw = c->busbw_gbps;
                snprintf(x->algo, sizeof x->algo, "%s", c->algorithms);
                for (char *q = x->algo; *q; q++)
                    if (*q == ',') *q = ';'; /* one CSV field */
                if (f)
                    fprintf(f, "  %12" PRIu64 " %14" PRIu64 " %8s %6s %12.2f %10.2f %10.2f  %s\n", x->size, x->count,
                            "float", o->op == CS_COLL_ALL_GATHER || o->op == CS_COLL_ALL_TO_ALL ? "none" : "sum",
                            x->time_us, x->algbw, x->busbw, x->algo);
            } else if (rc != CS_EINTR) {
                /* the trace is this command's scratch file, not the user's:
                 * its path goes, the flags that chose the size stand */
                size_t pl = strlen(path);
                if (strncmp(err->msg, path, pl) == 0 && strncmp(err->msg + pl, ": ", 2) == 0)
                    memmove(err->msg, err->msg + pl + 2, strlen(err->msg + pl + 2) + 1);
                cs_error_prefix(err, "--op %s, size %" PRIu64 " bytes (of --min %" PRIu64 " --max %" PRIu64 "): ",
                                op_flag(o->op), size, o->min_bytes, o->max_bytes);
            }
            cs_result_free(r);
            cs_scenario_free(sc);
        }
    next:
        if (size > o->max_bytes / o->factor) break;
        size *= o->factor;
    }
    unlink(path);
    rmdir(dbuf);
    if (rc == CS_OK && f && nrows) {
        double sum = 0;
        for (size_t i = 0; i < nrows; i++) sum += rows[i].busbw;
        fprintf(f, "# Avg bus bandwidth    : %g GB/s (over %zu sizes)\n", sum / (double)nrows, nrows);
    }
    if (o->csv && rc == CS_OK) {
        fputs("op,ranks,size_bytes,count,type,time_us,algbw_gbps,busbw_gbps,algorithm\n", a.f);
        for (size_t i = 0; i < nrows; i++)
            fprintf(a.f, "%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",float,%.6f,%.6f,%.6f,%s\n", cs_coll_type_label(o->op),
                    n, rows[i].size, rows[i].count, rows[i].time_us, rows[i].algbw, rows[i].busbw, rows[i].algo);
        rc = cs_afile_commit(&a, err);
    } else if (o->csv) {
        cs_afile_abort(&a); /* a failed or stopped run leaves no table */
    }
    cs_free(rows);
    return rc;
}
