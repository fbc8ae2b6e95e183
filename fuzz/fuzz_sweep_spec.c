/*
 * fuzz_sweep_spec.c -- libFuzzer target for the sweep spec reader
 * (src/sweep/design.c: cs_design_load) and the point numbering, and for
 * the bandwidth optimizer's spec reader (src/sweep/bwopt.c:
 * cs_bwopt_check_spec) and the cluster file's reader (src/scenario/cluster.c:
 * cs_cluster_load, reading only: no run) and the neuron partitioner's
 * co-activation matrix and activation trace reader (src/gen/neuron_part.c:
 * cs_npart_load, at most 64 neurons, then the partition on 1 and 2 workers,
 * its cut checked against the pairwise counts),
 * which get the same bytes.
 *
 * Each input is a whole spec file (as `clustersim sweep SPEC` reads it).
 * Contracts checked besides the sanitizers: a refusal carries its code and
 * a message starting with the file's path; an accepted design has at least
 * one knob and between 1 and CS_DESIGN_MAX_POINTS points, and its first,
 * middle and last points have a value for every knob, the same each time
 * they are drawn; an accepted layer partitions with the partials never
 * raised and every neuron on a worker below W.  Seeds: fuzz/corpus/sweep_spec/.
 */
#include <jansson.h>

#include "fuzz_common.h"
#include "scenario/cluster.h"
#include "sweep/bwopt.h"
#include "sweep/design.h"
#include "gen/neuron_part.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_init("fuzz_sweep_spec");
    const char *path = fz_input("spec.json", data, size);
    cs_design *d = NULL;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_bwopt_check_spec(path, &err);
    if (rc != CS_OK) fz_check_error(rc, &err, path);
    cs_error_clear(&err);
    cs_cluster *cl = NULL;
    rc = cs_cluster_load(path, &cl, &err);
    if (rc != CS_OK) fz_check_error(rc, &err, path);
    else fz_check(cl->njobs >= 1 && cl->njobs <= CS_CLUSTER_MAX_JOBS, "an accepted cluster has 1 to 256 jobs");
    cs_cluster_free(cl);
    cs_error_clear(&err);
    cs_npart_data nd;
    rc = cs_npart_load(path, 64, &nd, &err);
    if (rc != CS_OK) {
        fz_check_error(rc, &err, path);
    } else {
        for (uint32_t w = 1; w <= 2; w++) {
            cs_npart_result pr;
            cs_error_clear(&err);
            if (cs_npart_partition(&nd, w, &pr, &err) != CS_OK) {
                fz_check(nd.n % w != 0 && err.msg[0] != '\0', "only a W not dividing N is refused");
                continue;
            }
            fz_check(pr.t_after.partials <= pr.t_before.partials, "the partition never raises the partials");
            for (uint32_t i = 0; i < nd.n; i++) fz_check(pr.after[i] < w, "every neuron on a worker below W");
            /* the cut, as the pairwise counts give it (a trace's is counted per token) */
            uint64_t cut = 0;
            for (uint32_t i = 0; i < nd.n; i++) {
                fz_check(cs_npart_co(&nd, i, i) <= nd.tokens, "a neuron is active in at most T tokens");
                for (uint32_t j = i + 1; j < nd.n; j++) {
                    fz_check(cs_npart_co(&nd, i, j) == cs_npart_co(&nd, j, i), "the counts are symmetric");
                    if (pr.before[i] != pr.before[j]) cut += cs_npart_co(&nd, i, j);
                }
            }
            fz_check(cut == pr.t_before.cut, "the cut equals the split pairs' counts");
            cs_npart_result_free(&pr);
        }
        cs_npart_data_free(&nd);
    }
    cs_error_clear(&err);
    rc = cs_design_load(path, &d, &err);
    if (rc != CS_OK) {
        fz_check_error(rc, &err, path);
        return 0;
    }
    uint64_t n = cs_design_points(d);
    size_t nk = cs_design_nknobs(d);
    fz_check(nk > 0 && nk <= 4096, "an accepted design has knobs");
    fz_check(n >= 1 && n <= CS_DESIGN_MAX_POINTS, "the point count is within the limit");
    fz_check(n % cs_design_seeds(d) == 0, "the seeds divide the points");
    json_t *a[4096], *b[4096];
    uint64_t pts[3] = {0, n / 2, n - 1};
    for (int p = 0; p < 3; p++) {
        cs_design_point(d, pts[p], a);
        cs_design_point(d, pts[p], b);
        for (size_t k = 0; k < nk; k++) {
            fz_check(a[k] != NULL, "every knob has a value");
            fz_check(json_equal(a[k], b[k]), "a point's values are the same each time");
            json_decref(a[k]);
            json_decref(b[k]);
        }
    }
    cs_design_free(d);
    return 0;
}
