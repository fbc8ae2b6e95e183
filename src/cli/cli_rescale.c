/*
 * cli_rescale.c -- `clustersim rescale`: a trace set captured on N ranks
 * rewritten for another data-parallel degree, or a generated transformer
 * trace set for another tensor-parallel degree (src/gen/rescale.h,
 * docs/rescale.md).  This file only parses the flags and prints what was
 * checked and written.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli_int.h"
#include "gen/rescale.h"

static void rescale_usage(FILE *f) {
    fputs("usage: clustersim rescale --workload-configuration=PREFIX [--comm-group-configuration=FILE]\n"
          "                          [--tp N --pp N --placement ORDER] [--to-tp N [--bucket-bytes N]] [--to-pp N]\n"
          "                          --to-dp N\n"
          "                          --out NEWPREFIX\n\n"
          "Rewrites a Chakra trace set captured on N ranks (PREFIX.<rank>.et) for another data-parallel degree:\n"
          "the ranks of each (tp, pp) position are data-parallel replicas; the target's replicas copy replica\n"
          "0's graphs with their communicator groups and send/recv peers renamed, and the data-parallel\n"
          "groups grow; ZeRO/FSDP's 1/dp shards (all-gathers on the DP group, the optimizer step after the\n"
          "reduce-scatters) are scaled by dp / (--to-dp) when the trace's rounding determines the new value.\n"
          "Writes NEWPREFIX.<rank>.et for tp x pp x (--to-dp) ranks and, when the source has comm\n"
          "groups, NEWPREFIX.comm_groups.json (numbered as clustersim generate numbers them); clustersim run\n"
          "runs them.  The source's plan is checked against every rank (docs/rescale.md).  --to-tp re-forms\n"
          "tensor parallelism in generated transformer traces (L<k>.<op> node names): sizes exact, durations\n"
          "within the bound docs/rescale.md derives.\n\n"
          "options:\n"
          "  --workload-configuration=PREFIX   the source traces PREFIX.<rank>.et (or .et.gz)\n"
          "  --comm-group-configuration=FILE   the source's communicator groups (without: every pg_name means all ranks)\n"
          "  --tp N, --pp N                    the captured plan's tensor- and pipeline-parallel degrees (default 1);\n"
          "                                    dp = ranks / (tp x pp)\n"
          "  --placement ORDER                 its rank layout, innermost first (default tp,dp,pp, as generate)\n"
          "                                    without --tp, --pp and --placement the plan is inferred: every plan of\n"
          "                                    the ranks is tried, and the one under which the traces are replicas is\n"
          "                                    taken (said on the first line); several are an error naming them\n"
          "  --to-dp N                         the target's data-parallel degree (>= 2)\n"
          "  --to-tp N                         re-form the tensor-parallel degree (>= 2, from a source tp >= 2) of the\n"
          "                                    generator's transformer traces: each node kind scaled by its rule, sizes\n"
          "                                    exactly, durations by tp / tp' to a microsecond (GEMMs: not exact;\n"
          "                                    docs/rescale.md); traces without recognizable layers are refused\n"
          "  --bucket-bytes N                  with --to-tp: the source's gradient bucket in bytes (default 80000000,\n"
          "                                    the generator's 40 M parameters of 2-byte gradients)\n"
          "  --to-pp N                         re-form the pipeline for N stages (generated transformer traces: 1F1B or\n"
          "                                    GPipe, default layer split, --zero 0; docs/rescale.md)\n"
          "  --out NEWPREFIX                   the target prefix\n"
          "  --quiet, --help\n",
          f);
}

int cs_cli_rescale(int argc, char **argv) {
    cs_rescale_opts o;
    memset(&o, 0, sizeof o);
    o.log = stdout;
    cs_error err;
    cs_error_clear(&err);
    int rc = 0;
    for (int i = 0; i < argc && rc == 0; i++) {
        char name[64];
        const char *a = argv[i], *val;
        cs_cli_split_flag(a, name, sizeof name, &val);
        int flagonly = strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "--quiet") == 0;
        if (a[0] != '-' || !a[1]) {
            fprintf(stderr, "clustersim rescale: unexpected argument \"%s\" (see --help)\n", a);
            return 2;
        }
        if (!flagonly && (rc = cs_cli_flag_value(argc, argv, &i, "rescale", rescale_usage, name, &val)) != 0) break;
        uint32_t *u = NULL;
        if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
            rescale_usage(stdout);
            return 0;
        } else if (strcmp(name, "--quiet") == 0) {
            o.log = NULL;
        } else if (strcmp(name, "--workload-configuration") == 0) {
            o.prefix = val;
        } else if (strcmp(name, "--comm-group-configuration") == 0) {
            o.groups = val;
        } else if (strcmp(name, "--placement") == 0) {
            o.placement = val;
        } else if (strcmp(name, "--out") == 0) {
            o.out = val;
        } else if (strcmp(name, "--tp") == 0) {
            u = &o.tp;
        } else if (strcmp(name, "--pp") == 0) {
            u = &o.pp;
        } else if (strcmp(name, "--to-dp") == 0) {
            u = &o.to_dp;
        } else if (strcmp(name, "--to-tp") == 0) {
            u = &o.to_tp;
        } else if (strcmp(name, "--to-pp") == 0) {
            u = &o.to_pp;
        } else if (strcmp(name, "--bucket-bytes") == 0) {
            u = &o.bucket_bytes;
        } else {
            fprintf(stderr, "clustersim rescale: unknown option %s (see clustersim rescale --help)\n", a);
            return 2;
        }
        if (u && cs_cli_parse_u32(val, 1, 1u << 30, u)) {
            fprintf(stderr, "clustersim: error: %s '%s': expected an integer from 1 to 1073741824\n", name, val);
            return 1;
        }
    }
    if (rc) return rc;
    const char *missing = !o.prefix ? "--workload-configuration=PREFIX" : !o.to_dp ? "--to-dp N" : !o.out ? "--out NEWPREFIX" : NULL;
    if (missing) {
        fprintf(stderr, "clustersim rescale: %s is required (see --help)\n", missing);
        return 2;
    }
    { /* the prefix's directory exists (else the first trace's temporary name would be the one named) */
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", o.out);
        char *slash = strrchr(dir, '/');
        if (slash) *(slash == dir ? slash + 1 : slash) = '\0';
        struct stat st;
        if (slash && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
            fprintf(stderr, "clustersim: error: --out %s: %s is not a directory; expected NEWPREFIX in an existing "
                            "directory\n", o.out, dir);
            return 1;
        }
    }
    cs_cli_stop st;
    o.stop = cs_cli_stop_begin(&st);
    cs_rescale_info info;
    rc = cs_rescale(&o, &info, &err);
    cs_cli_stop_end(&st);
    if (rc == CS_OK && o.log)
        fprintf(o.log, "  wrote    %s.0.et .. %s.%u.et (%u ranks, %" PRIu64 " nodes)%s%s%s\n", o.out, o.out,
                info.ranks - 1, info.ranks, info.nodes_written, info.wrote_groups ? ", " : "",
                info.wrote_groups ? o.out : "", info.wrote_groups ? ".comm_groups.json" : "");
    return cs_cli_exit(rc, &err, (int)*o.stop, "; no trace written");
}
