/*
 * fuzz_sweep_log.c -- libFuzzer target for the reader of a sweep's own
 * results logs, which a rerun reads back to resume (src/sweep/sweep.c:
 * read_logs, parse_line, and everything built from the logged records:
 * results.jsonl/.csv, summary.csv, pareto.csv, the end-of-sweep summary
 * and the HTML report).  A user may edit or truncate those files.
 *
 * The input is the text of DIR/log.jsonl; after a line "%%", the rest is a
 * second log, DIR/log.shard-0-of-2.jsonl (two logs naming the same ids).
 * They go through `clustersim sweep SPEC --merge --pareto time_ns,capex_usd
 * --report DIR/r.html` (cs_sweep with merge_only: nothing is run) over a
 * fixed spec of 4 points (2 design points x 2 seeds, every key inline: no
 * file), whose ids the seeds' lines carry.  Contracts checked besides the
 * sanitizers: a merge succeeds whatever the logs hold (a line that is not
 * a record is skipped), or its error names a file; results.jsonl has at
 * most one row per point.  Seeds: fuzz/corpus/sweep_log/ (the lines of a
 * real run of this spec: `clustersim sweep spec.json --out o`).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "fuzz_common.h"
#include "sweep/pareto.h"
#include "sweep/sweep.h"

/* The spec the seeds were made with (its points' ids depend on every key
 * and on the clustersim version: a new version only makes the seeds' ids
 * strangers, which the reader must take as well). */
static const char SPEC[] =
    "{\"clustersim-sweep\": 1,\n"
    " \"set\": {\"model.name\": \"gpt3-13b\", \"device.name\": \"H100-SXM\", \"plan.pp\": 1, \"plan.dp\": 2,\n"
    "         \"plan.global-batch\": 16, \"network.topology\": [\"Switch\"], \"network.npus_count\": [16],\n"
    "         \"network.bandwidth\": [400]},\n"
    " \"grid\": {\"plan.tp\": [8, 3]},\n"
    " \"seeds\": {\"key\": \"network.latency\", \"values\": [[700], [3000]]}}\n";

static char dir[4200];

/* The output directory's files, then the directory (fuzz_common.c removes
 * the scratch directory's top level only); runs before its atexit. */
static void remove_out(void) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char p[8500];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_init("fuzz_sweep_log");
    const char *spec = fz_input("spec.json", (const uint8_t *)SPEC, sizeof SPEC - 1);
    static char html[4300], shard[4300], results[4300];
    static FILE *devnull;
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "%s/out", fz_scratch());
        fz_check(mkdir(dir, 0700) == 0, "the output directory can be made");
        atexit(remove_out);
        snprintf(html, sizeof html, "%s/r.html", dir);
        snprintf(shard, sizeof shard, "%s/log.shard-0-of-2.jsonl", dir);
        snprintf(results, sizeof results, "%s/results.jsonl", dir);
        devnull = fopen("/dev/null", "w");
        fz_check(devnull != NULL, "/dev/null opens");
    }
    size_t len1, len2;
    const uint8_t *rest;
    int two = fz_split(data, size, &len1, &rest, &len2);
    /* the logs live in the output directory (fz_input writes the scratch
     * directory's top level: "out/..." names a file below it) */
    fz_input("out/log.jsonl", data, len1);
    if (two) fz_input("out/log.shard-0-of-2.jsonl", rest, len2);
    else remove(shard);

    cs_sweep_options o;
    memset(&o, 0, sizeof o);
    o.out_dir = dir;
    o.jobs = 1;
    o.nshards = 1;
    o.merge_only = 1;
    o.report = devnull;
    o.report_html = html;
    cs_error err;
    cs_error_clear(&err);
    fz_check(cs_objectives_parse("time_ns,capex_usd", "--pareto", o.pareto, &o.npareto, &err) == CS_OK,
             "the objectives parse");
    int rc = cs_sweep(spec, &o, &err);
    if (rc != CS_OK) {
        fz_check(rc < 0 && err.code == rc && strncmp(err.msg, dir, strlen(dir)) == 0,
                 "a refused merge names a file of the output directory");
        return 0;
    }
    FILE *f = fopen(results, "r");
    fz_check(f != NULL, "a merge writes results.jsonl");
    int c, lines = 0;
    while ((c = fgetc(f)) != EOF) lines += c == '\n';
    fclose(f);
    fz_check(lines <= 4, "results.jsonl has at most one row per point");
    return 0;
}
