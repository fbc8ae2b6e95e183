/*
 * cli_generate.c -- `clustersim generate` (model + plan -> Chakra ET files,
 * comm groups, network/system suggestions) and `clustersim train` (the same
 * graphs generated and simulated in one step, with iteration time, MFU,
 * tokens/s and the compute / exposed-communication / bubble split).
 *
 * One option table drives parsing and --help for both commands.  The
 * generator is src/gen/gen.h (model families: src/gen/family.h);
 * docs/generator.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli_int.h"
#include "core/alloc.h"
#include "core/log.h"
#include "network/network.h"
#include "workload/et.h"
#include "gen/family.h"
#include "gen/gen.h"

typedef struct gen_opts {
    const char *model, *device, *recompute, *schedule, *out, *network, *system, *backend, *json, *placement, *symmetry;
    const char *cp_comm;
    long tp, pp, dp, ep, cp, micro_batch, global_batch, zero, comm_streams, bucket_mparams, bucket_mb, vstages;
    int sp, fsdp, help, quiet, no_memory_check, no_grad_overlap, flash;
} gen_opts;

enum { GO_FLAG, GO_STR, GO_INT };
typedef struct gopt {
    const char *name, *arg, *help;
    int kind;
    size_t off;
} gopt;

#define GO(f) offsetof(gen_opts, f)
static const gopt gopts[] = {
    {"model", "PRESET|FILE", "model preset (gpt3-175b, llama3-70b, ...) or JSON file (models/)", GO_STR, GO(model)},
    {"device", "NAME|FILE", "device (A100-80GB, H100-SXM, H200, B200, MI300X, A100-40GB) or JSON file "
                            "(default A100-80GB)", GO_STR, GO(device)},
    {"tp", "N", "tensor-parallel degree (1)", GO_INT, GO(tp)},
    {"pp", "N", "pipeline-parallel degree (1)", GO_INT, GO(pp)},
    {"dp", "N", "data-parallel degree (1)", GO_INT, GO(dp)},
    {"ep", "N", "expert-parallel degree for MoE models, a divisor of --dp and of the expert count (1)", GO_INT,
     GO(ep)},
    {"cp", "N", "context-parallel degree: each rank holds seq / N tokens of every sequence (1)", GO_INT, GO(cp)},
    {"cp-comm", "allgather|p2p", "context parallelism's attention: all-gather K and V over the CP group (Llama 3), "
                                 "or ring attention passing K/V blocks to the next CP rank (allgather)", GO_STR,
     GO(cp_comm)},
    {"placement", "tp,cp,dp,pp", "order of the parallel dimensions on the ranks, innermost (contiguous) first "
                                 "(tp,cp,dp,pp; cp may be left out: then just outside tp)", GO_STR, GO(placement)},
    {"sp", NULL, "sequence parallelism (with --tp > 1)", GO_FLAG, GO(sp)},
    {"flash-attention", NULL, "fused attention (FlashAttention): the s x s scores never reach HBM and are not "
                              "stored; the backward recomputes them", GO_FLAG, GO(flash)},
    {"recompute", "none|selective|full", "activation recomputation (none)", GO_STR, GO(recompute)},
    {"micro-batch", "N", "micro-batch size in sequences, images or samples (1; resnet50, dlrm: global batch / dp)",
     GO_INT, GO(micro_batch)},
    {"global-batch", "N", "global batch (default micro-batch x dp x pp; resnet50: 32 dp; dlrm: 512 dp)", GO_INT,
     GO(global_batch)},
    {"schedule", "gpipe|1f1b", "pipeline schedule (1f1b)", GO_STR, GO(schedule)},
    {"virtual-stages", "N", "interleaved 1F1B: model chunks per pipeline stage (1 = plain 1F1B)", GO_INT,
     GO(vstages)},
    {"zero", "0..3", "ZeRO stage: optimizer (1), + gradients (2), + weights (3) sharded over DP (0)", GO_INT,
     GO(zero)},
    {"fsdp", NULL, "fully sharded data parallel (same as --zero 3)", GO_FLAG, GO(fsdp)},
    {"bucket-mparams", "N", "DP gradient bucket, millions of parameters (40; resnet50, dlrm: 12.5)", GO_INT,
     GO(bucket_mparams)},
    {"bucket-mb", "N", "DP gradient bucket in MB of 2-byte gradients (resnet50, dlrm: 25, PyTorch DDP's default)", GO_INT,
     GO(bucket_mb)},
    {"no-overlap-grad-reduce", NULL, "reduce the gradients after the last backward pass in one collective per "
                                     "group (Megatron-LM 2021), not bucket by bucket during it (ZeRO 0/1)", GO_FLAG,
     GO(no_grad_overlap)},
    {"no-memory-check", NULL, "simulate even if the plan does not fit in HBM", GO_FLAG, GO(no_memory_check)},
    {"out", "PREFIX", "generate: write PREFIX.<rank>.et, PREFIX.comm_groups.json, PREFIX.network.yml, "
                      "PREFIX.system.json", GO_STR, GO(out)},
    {"network-configuration", "FILE", "train: network YAML (its NPU count must be tp x cp x pp x dp)", GO_STR,
     GO(network)},
    {"system-configuration", "FILE", "train: system JSON (default: ring collectives on every dimension)", GO_STR,
     GO(system)},
    {"backend", "NAME", "train: network backend (analytical)", GO_STR, GO(backend)},
    {"comm-streams", "N", "train: concurrent communication operations per rank (4)", GO_INT, GO(comm_streams)},
    {"json", "FILE", "train: write the training report as JSON", GO_STR, GO(json)},
    {"symmetry", "auto|off", "train: simulate one representative rank per class of ranks that the plan maps onto "
                             "each other (auto), or every rank (off)", GO_STR, GO(symmetry)},
    {"quiet", NULL, "no report on stdout", GO_FLAG, GO(quiet)},
    {"help", NULL, "this help", GO_FLAG, GO(help)},
};
#define NGOPTS (sizeof gopts / sizeof gopts[0])

static void gen_help(FILE *f, const char *cmd) {
    fprintf(f, "usage: clustersim %s --model PRESET|FILE --tp N --pp N --dp N [options]\n\n", cmd);
    for (size_t i = 0; i < NGOPTS; i++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", gopts[i].name, gopts[i].arg ? " " : "", gopts[i].arg ? gopts[i].arg : "");
        fprintf(f, "  %-34s %s\n", left, gopts[i].help);
    }
    fputs("\nmodel presets:", f);
    for (size_t i = 0; cs_gen_model_preset_at(i); i++) fprintf(f, " %s", cs_gen_model_preset_at(i)->name);
    fputs("\n", f);
}

static int gen_parse(const char *cmd, int argc, char **argv, gen_opts *o) {
    memset(o, 0, sizeof *o);
    o->device = "A100-80GB";
    o->recompute = "none";
    o->schedule = "1f1b";
    o->backend = "analytical";
    o->tp = o->pp = o->dp = o->ep = o->cp = 1;
    o->cp_comm = "allgather";
    o->comm_streams = 4;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) != 0) {
            fprintf(stderr, "clustersim %s: unexpected argument \"%s\"\n", cmd, a);
            return -1;
        }
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
        const gopt *g = NULL;
        for (size_t k = 0; k < NGOPTS; k++)
            if (strlen(gopts[k].name) == nlen && strncmp(gopts[k].name, name, nlen) == 0) g = &gopts[k];
        if (!g) {
            fprintf(stderr, "clustersim %s: unknown option --%.*s (see clustersim %s --help)\n", cmd, (int)nlen, name,
                    cmd);
            return -1;
        }
        char *base = (char *)o;
        if (g->kind == GO_FLAG) {
            if (eq) {
                fprintf(stderr, "clustersim %s: --%s takes no value\n", cmd, g->name);
                return -1;
            }
            *(int *)(base + g->off) = 1;
            continue;
        }
        const char *val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!val) {
            fprintf(stderr, "clustersim %s: --%s needs a value (%s)\n", cmd, g->name, g->arg);
            return -1;
        }
        if (g->kind == GO_STR) {
            *(const char **)(base + g->off) = val;
        } else {
            char *end;
            errno = 0;
            long v = strtol(val, &end, 10);
            if (errno || *end || end == val || v < 0 || v > 1000000000) {
                fprintf(stderr, "clustersim %s: --%s: expected a non-negative integer, got \"%s\"\n", cmd, g->name,
                        val);
                return -1;
            }
            *(long *)(base + g->off) = v;
        }
    }
    return 0;
}

/* Model, device and plan from the options; CS_EINVAL naming the option. */
static int gen_setup(const gen_opts *o, cs_gen_model *m, cs_device *d, cs_gen_plan *p, cs_error *err) {
    cs_gen_plan_defaults(p);
    int rc = cs_gen_model_resolve(o->model, m, err);
    if (rc == CS_OK) rc = cs_device_resolve(o->device, d, err);
    if (rc) return rc;
    p->tp = (uint32_t)o->tp;
    p->pp = (uint32_t)o->pp;
    p->dp = (uint32_t)o->dp;
    p->ep = (uint32_t)o->ep;
    p->cp = (uint32_t)o->cp;
    p->sp = o->sp;
    p->flash = o->flash;
    if (!p->cp) return CS_ERR(err, CS_EINVAL, "--cp: expected an integer >= 1");
    if (strcasecmp(o->cp_comm, "allgather") == 0) p->cp_comm = CS_CP_ALLGATHER;
    else if (strcasecmp(o->cp_comm, "p2p") == 0 || strcasecmp(o->cp_comm, "ring") == 0) p->cp_comm = CS_CP_P2P;
    else return CS_ERR(err, CS_EINVAL, "--cp-comm %s: expected allgather or p2p", o->cp_comm);
    cs_gen_plan_batch(m, p, (uint32_t)o->micro_batch, (uint32_t)o->global_batch); /* the family's defaults */
    p->zero = o->fsdp ? 3 : (int)o->zero;
    p->no_grad_overlap = o->no_grad_overlap;
    p->vstages = o->vstages ? (uint32_t)o->vstages : 1;
    if (o->placement && (rc = cs_gen_placement_parse(o->placement, p, err)) != CS_OK) return rc;
    if (o->bucket_mparams && o->bucket_mb)
        return CS_ERR(err, CS_EINVAL, "--bucket-mparams and --bucket-mb: give one of them");
    if (o->bucket_mparams) p->bucket_params = (uint64_t)o->bucket_mparams * 1000000u;
    if (o->bucket_mb) p->bucket_params = (uint64_t)o->bucket_mb * 500000u;
    if (strcmp(o->recompute, "none") == 0) p->recompute = CS_RECOMP_NONE;
    else if (strcmp(o->recompute, "selective") == 0) p->recompute = CS_RECOMP_SELECTIVE;
    else if (strcmp(o->recompute, "full") == 0) p->recompute = CS_RECOMP_FULL;
    else return CS_ERR(err, CS_EINVAL, "--recompute %s: expected none, selective or full", o->recompute);
    if (strcasecmp(o->schedule, "1f1b") == 0) p->schedule = CS_SCHED_1F1B;
    else if (strcasecmp(o->schedule, "gpipe") == 0) p->schedule = CS_SCHED_GPIPE;
    else return CS_ERR(err, CS_EINVAL, "--schedule %s: expected gpipe or 1f1b", o->schedule);
    rc = cs_gen_plan_check(m, p, err);
    if (rc) return rc;
    cs_gen_memory worst;
    rc = cs_gen_memory_check(m, p, d, &worst, err);
    if (rc && o->no_memory_check) {
        cs_warn("%s (simulating anyway: --no-memory-check)", err->msg);
        cs_error_clear(err);
        rc = CS_OK;
    }
    return rc;
}

static int write_suggestions(const char *prefix, const cs_gen_plan *p, const cs_device *d, cs_error *err) {
    char path[4096];
    uint32_t n = cs_gen_ranks(p);
    snprintf(path, sizeof path, "%s.network.yml", prefix);
    FILE *f = fopen(path, "w");
    if (!f) return CS_ERR(err, CS_EIO, "%s: cannot write: %s", path, strerror(errno));
    fprintf(f, "# Suggested network for %u x %s (clustersim generate): scale-up switch of up to 8\n"
               "# GPUs at the device's scale-up bandwidth per direction; nodes joined by one 200 Gb/s\n"
               "# NIC per GPU (25 GB/s).  Bandwidths are in GiB/s (2^30 B/s), as the analytical\n"
               "# backend reads them.  Edit to match the cluster.\n", n, d->name);
    if (n > 8 && n % 8 == 0)
        fprintf(f, "topology: [ Switch, Switch ]\nnpus_count: [ 8, %u ]\nbandwidth: [ %.2f, %.2f ]\nlatency: [ 500.0, 2000.0 ]\n",
                n / 8, d->scaleup_bw / 1073741824.0, 25e9 / 1073741824.0);
    else
        fprintf(f, "topology: [ Switch ]\nnpus_count: [ %u ]\nbandwidth: [ %.2f ]\nlatency: [ 500.0 ]\n", n,
                d->scaleup_bw / 1073741824.0);
    if (fclose(f) != 0) return CS_ERR(err, CS_EIO, "%s: cannot write", path);
    snprintf(path, sizeof path, "%s.system.json", prefix);
    f = fopen(path, "w");
    if (!f) return CS_ERR(err, CS_EIO, "%s: cannot write: %s", path, strerror(errno));
    const char *impl = n > 8 && n % 8 == 0 ? "[ \"ring\", \"ring\" ]" : "[ \"ring\" ]";
    fprintf(f, "{\n  \"scheduling-policy\": \"LIFO\",\n  \"endpoint-delay\": 10,\n  \"active-chunks-per-dimension\": 1,\n"
               "  \"preferred-dataset-splits\": 4,\n  \"all-reduce-implementation\": %s,\n"
               "  \"all-gather-implementation\": %s,\n  \"reduce-scatter-implementation\": %s,\n"
               "  \"all-to-all-implementation\": %s,\n  \"collective-optimization\": \"localBWAware\",\n"
               "  \"local-mem-bw\": %.0f,\n  \"roofline-enabled\": 0\n}\n",
            impl, impl, impl, impl, d->hbm_bw / 1e9);
    if (fclose(f) != 0) return CS_ERR(err, CS_EIO, "%s: cannot write", path);
    return CS_OK;
}

static void print_plan(FILE *f, const cs_gen_model *m, const cs_device *d, const cs_gen_plan *p) {
    m->family->describe(f, m, p);
    cs_gen_memory w;
    cs_gen_memory_worst(m, p, &w);
    char buf[512];
    cs_gen_memory_format(&w, buf, sizeof buf);
    fprintf(f, "  device     %s: %.0f TFLOP/s, %.0f GB HBM\n  memory     %s (largest)\n", d->name,
            d->peak_bf16_flops / 1e12, d->hbm_bytes / 1e9, buf);
}

int cs_cli_generate(int argc, char **argv) {
    gen_opts o;
    if (gen_parse("generate", argc, argv, &o)) return 2;
    if (o.help) {
        gen_help(stdout, "generate");
        return 0;
    }
    if (!o.model || !o.out) {
        fprintf(stderr, "clustersim generate: %s is required (see --help)\n", !o.model ? "--model" : "--out PREFIX");
        return 2;
    }
    cs_error err;
    cs_error_clear(&err);
    cs_gen_model m;
    cs_device d;
    cs_gen_plan p;
    int rc = gen_setup(&o, &m, &d, &p, &err);
    uint32_t n = cs_gen_ranks(&p);
    char path[4096];
    for (uint32_t r = 0; rc == CS_OK && r < n; r++) {
        snprintf(path, sizeof path, "%s.%u.et", o.out, r);
        rc = cs_gen_write_rank(&m, &p, &d, r, path, &err);
    }
    if (rc == CS_OK) {
        cs_comm_groups g;
        cs_gen_comm_groups(&p, &g);
        snprintf(path, sizeof path, "%s.comm_groups.json", o.out);
        rc = cs_gen_comm_groups_write(&g, path, &err);
        cs_comm_groups_free(&g);
    }
    if (rc == CS_OK) rc = write_suggestions(o.out, &p, &d, &err);
    if (rc) {
        fprintf(stderr, "clustersim: error: %s\n", err.msg);
        return 1;
    }
    if (!o.quiet) {
        printf("clustersim %s -- generated workload\n\n", CS_VERSION);
        print_plan(stdout, &m, &d, &p);
        printf("\n  wrote %s.0.et .. %s.%u.et, %s.comm_groups.json, %s.network.yml, %s.system.json\n"
               "  run:  clustersim run --workload-configuration=%s --comm-group-configuration=%s.comm_groups.json \\\n"
               "          --network-configuration=%s.network.yml --system-configuration=%s.system.json --comm-streams=4\n",
               o.out, o.out, n - 1, o.out, o.out, o.out, o.out, o.out, o.out, o.out);
    }
    return 0;
}

/* ---- train ---------------------------------------------------------------- */

/* Time split of one rank: busy compute, collectives not hidden behind compute,
 * and the rest (pipeline bubble and waits for receives). */
typedef struct span { cs_time a, b; } span;
typedef struct split_obs {
    uint32_t rank;
    span *comp, *coll;
    size_t ncomp, ncoll, capcomp, capcoll;
} split_obs;

static void push(span **v, size_t *n, size_t *cap, cs_time a, cs_time b) {
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 1024;
        *v = cs_realloc(*v, *cap * sizeof **v);
    }
    (*v)[(*n)++] = (span){a, b};
}

static void split_node_done(void *ud, const cs_node_span *s) {
    split_obs *o = ud;
    if (s->rank != o->rank) return;
    if (s->lane == CS_LANE_COMPUTE) push(&o->comp, &o->ncomp, &o->capcomp, s->start, s->end);
    else if (s->node->type == CS_NODE_COMM_COLL) push(&o->coll, &o->ncoll, &o->capcoll, s->start, s->end);
}

static int cmp_span(const void *x, const void *y) {
    const span *a = x, *b = y;
    return (a->a > b->a) - (a->a < b->a);
}

/* Measure of union(coll) minus union(comp). */
static cs_time exposed_coll(split_obs *o) {
    qsort(o->coll, o->ncoll, sizeof *o->coll, cmp_span);
    qsort(o->comp, o->ncomp, sizeof *o->comp, cmp_span);
    cs_time total = 0;
    size_t j = 0;
    for (size_t i = 0; i < o->ncoll;) {
        cs_time a = o->coll[i].a, b = o->coll[i].b;
        for (i++; i < o->ncoll && o->coll[i].a <= b; i++)
            if (o->coll[i].b > b) b = o->coll[i].b;
        /* subtract compute spans (serial, sorted) overlapping [a, b) */
        cs_time len = b - a;
        while (j < o->ncomp && o->comp[j].b <= a) j++;
        for (size_t k = j; k < o->ncomp && o->comp[k].a < b; k++) {
            cs_time lo = o->comp[k].a > a ? o->comp[k].a : a, hi = o->comp[k].b < b ? o->comp[k].b : b;
            if (hi > lo) len -= hi - lo;
        }
        total += len;
    }
    return total;
}

static double wall(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int cs_cli_train(int argc, char **argv) {
    gen_opts o;
    if (gen_parse("train", argc, argv, &o)) return 2;
    if (o.help) {
        gen_help(stdout, "train");
        return 0;
    }
    if (!o.model || !o.network) {
        fprintf(stderr, "clustersim train: %s is required (see --help)\n",
                !o.model ? "--model" : "--network-configuration=FILE");
        return 2;
    }
    if (o.symmetry && strcmp(o.symmetry, "auto") != 0 && strcmp(o.symmetry, "off") != 0) {
        fprintf(stderr, "clustersim train: --symmetry: expected auto or off, got \"%s\"\n", o.symmetry);
        return 2;
    }
    if (o.comm_streams < 1) {
        fprintf(stderr, "clustersim train: --comm-streams: expected an integer >= 1\n");
        return 2;
    }
    double t0 = wall();
    cs_error err;
    cs_error_clear(&err);
    cs_gen_model m;
    cs_device d;
    cs_gen_plan p;
    cs_network_config net;
    memset(&net, 0, sizeof net);
    cs_system_config sc;
    memset(&sc, 0, sizeof sc);
    cs_comm_groups groups;
    memset(&groups, 0, sizeof groups);
    cs_workload w;
    memset(&w, 0, sizeof w);
    cs_sim_result res;
    memset(&res, 0, sizeof res);
    split_obs so_split;
    memset(&so_split, 0, sizeof so_split);
    uint32_t n = 0;

    int rc = gen_setup(&o, &m, &d, &p, &err);
    if (rc == CS_OK) rc = cs_network_config_load(o.network, &net, &err);
    n = cs_gen_ranks(&p);
    if (rc == CS_OK && net.total_npus != n)
        rc = CS_ERR(&err, CS_EINVAL, "%s: npus_count: expected %u NPUs in all (tp x cp x pp x dp), got %llu", o.network, n,
                    (unsigned long long)net.total_npus);
    if (rc == CS_OK && !cs_net_backend_find(o.backend))
        rc = CS_ERR(&err, CS_EINVAL, "--backend %s: unknown network backend", o.backend);
    if (rc == CS_OK) {
        if (o.system) {
            rc = cs_system_config_load(o.system, &sc, &err);
            if (rc == CS_OK) rc = cs_system_config_check_network(&sc, net.ndims, &err);
        } else {
            rc = cs_system_config_defaults(&sc);
            sc.roofline_enabled = 0;
            sc.active_chunks_per_dimension = 1;
            sc.endpoint_delay_ns = 10;
            for (int c = 0; c < CS_CFG_NCOLL; c++) {
                sc.impl[c].n = net.ndims;
                for (int k = 0; k < net.ndims; k++) sc.impl[c].algo[k].kind = CS_COLL_ALGO_RING;
            }
        }
    }
    cs_sim_options so;
    cs_sim_options_init(&so);
    cs_sim_observer obs = {split_node_done, &so_split};
    cs_sym_axes ax;
    int sym_off = o.symmetry && strcmp(o.symmetry, "off") == 0;
    int use_cls = !sym_off && cs_gen_sym_axes(&p, &ax) > 0;
    char sym_note[600] = "";
    if (rc == CS_OK) {
        cs_gen_comm_groups(&p, &groups);
        cs_sim_options_set_system(&so, &sc);
        so.comm_groups = &groups;
        so.backend = o.backend;
        so.comm_streams = (uint32_t)o.comm_streams;
        so.observer = &obs;
        so.symmetry = sym_off ? CS_SYMMETRY_OFF : CS_SYMMETRY_AUTO;
        so_split.rank = 0;
    }
    /* Class mode first: generate the representatives' graphs only and
     * simulate them; if the run meets something the symmetry argument does
     * not cover, generate every rank and simulate them all. */
    if (rc == CS_OK && use_cls) {
        rc = cs_gen_workload(&m, &p, &d, &ax, &w, &err);
        if (rc == CS_OK) {
            so.sym_axes = &ax;
            so.sym_no_fallback = 1;
            cs_error e;
            cs_error_clear(&e);
            int rc2 = cs_sim_run(&w, &net, &so, &res, &e);
            if (rc2 != CS_OK) {
                snprintf(sym_note, sizeof sym_note, "%.560s", e.msg);
                cs_workload_free(&w); /* (observers hear nothing from a run that stopped) */
                so.sym_axes = NULL;
                so.sym_no_fallback = 0;
                use_cls = 0;
            }
        }
    }
    if (rc == CS_OK && !use_cls) {
        rc = cs_gen_workload(&m, &p, &d, NULL, &w, &err);
        if (rc == CS_OK) rc = cs_sim_run(&w, &net, &so, &res, &err);
    }
    if (rc == CS_OK) {
        double it = cs_time_as_s_f(res.sim_time);
        double mf = cs_gen_model_flops(&m, &p);
        double mfu = mf / (it * n * d.peak_bf16_flops);
        double tok = m.family->items(&m, &p) / it; /* tokens, images or samples per second */
        const cs_rank_result *r0 = &res.ranks[0];
        cs_time comp = r0->compute, exp = exposed_coll(&so_split);
        cs_time fin = res.sim_time;
        cs_time bub = fin > comp + exp ? fin - comp - exp : 0;
        if (!o.quiet) {
            printf("clustersim %s -- training step\n\n", CS_VERSION);
            print_plan(stdout, &m, &d, &p);
            printf("  network    %s (%llu NPUs), backend %s\n\n", o.network, (unsigned long long)net.total_npus,
                   o.backend);
            printf("  iteration time   %.4f s\n  MFU              %.1f %%  (%.3g model FLOPs, %.0f TFLOP/s per GPU)\n"
                   "  %-9s        %.0f\n",
                   it, 100 * mfu, mf, mf / it / n / 1e12, m.family->unit, tok);
            printf("  rank 0 split     compute %.4f s (%.1f %%), exposed communication %.4f s (%.1f %%), "
                   "bubble/wait %.4f s (%.1f %%)\n",
                   cs_time_as_s_f(comp), 100 * cs_time_as_s_f(comp) / it, cs_time_as_s_f(exp), 100 * cs_time_as_s_f(exp) / it,
                   cs_time_as_s_f(bub), 100 * cs_time_as_s_f(bub) / it);
            if (res.symmetric == 2)
                printf("  symmetry         %u classes of %u ranks: one representative per class simulated\n",
                       res.simulated_ranks, n / res.simulated_ranks);
            else if (res.symmetric == 1)
                printf("  symmetry         every rank runs rank 0's graph: rank 0 simulated\n");
            else
                printf("  symmetry         every rank simulated%s%s\n", sym_note[0] ? ": " : "",
                       sym_note[0] ? sym_note : sym_off ? " (--symmetry off)" : "");
            printf("  simulated %llu events (%llu represented), %u graphs generated, wall %.2f s\n",
                   (unsigned long long)(res.events / (n / (res.simulated_ranks ? res.simulated_ranks : n))),
                   (unsigned long long)res.events, w.ngraphs, wall() - t0);
        }
        if (o.json) {
            json_t *j = json_object();
            json_object_set_new(j, "model", json_string(m.name));
            json_object_set_new(j, "device", json_string(d.name));
            json_object_set_new(j, "ranks", json_integer(n));
            json_object_set_new(j, "iteration_time_ns", json_real(cs_time_as_s_f(res.sim_time) * 1e9));
            json_object_set_new(j, "mfu", json_real(mfu));
            json_object_set_new(j, m.family->unit_json, json_real(tok));
            json_object_set_new(j, "model_flops", json_real(mf));
            json_object_set_new(j, "rank0_compute_ns", json_real(cs_time_as_s_f(comp) * 1e9));
            json_object_set_new(j, "rank0_exposed_comm_ns", json_real(cs_time_as_s_f(exp) * 1e9));
            json_object_set_new(j, "rank0_bubble_ns", json_real(cs_time_as_s_f(bub) * 1e9));
            json_object_set_new(j, "simulated_ranks", json_integer(res.simulated_ranks));
            json_object_set_new(j, "events", json_integer((json_int_t)res.events));
            if (json_dump_file(j, o.json, JSON_INDENT(2)) != 0)
                rc = CS_ERR(&err, CS_EIO, "%s: cannot write", o.json);
            json_decref(j);
        }
    }
    cs_log_flush_summary();
    if (rc) fprintf(stderr, "clustersim: error: %s\n", err.msg);
    cs_free(so_split.comp);
    cs_free(so_split.coll);
    cs_sim_result_free(&res);
    cs_workload_free(&w);
    cs_comm_groups_free(&groups);
    cs_system_config_free(&sc);
    cs_network_config_free(&net);
    return rc ? 1 : 0;
}
