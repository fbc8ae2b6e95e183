/*
 * test_astra_cases.c -- every ASTRA-sim reference case in
 * $CS_SHARED_DIR/testdata/astra-sim/cases, run with our readers and engine,
 * every rank's finish time within 0.1 % of what ASTRA-sim printed
 * (expected.tsv).  Owned by the system layer.
 *
 * Per case: case.json gives workload_prefix, backend ("analytical" or
 * "analytical-congestion") and, when present, comm_group_configuration; the
 * folder holds network.yml, system.json and memory.json.  Every mismatching
 * rank is printed (case, rank, expected, got, error %), then a summary table
 * (case, max |error| %) that docs/collectives.md reproduces.  Exposed
 * communication (finish minus GPU compute) is compared too and reported, not
 * asserted.  Every case also runs with symmetry off (scenario/engine.h): the
 * per-rank results must be identical to the default run's, whether that one
 * simulated one representative rank or every rank.  A case whose
 * backend is not registered is skipped with its reason.  Skips the whole
 * program when ../shared is absent.
 */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/comm_group.h"
#include "config/memory_config.h"
#include "config/network_config.h"
#include "config/system_config.h"
#include "network/network.h"
#include "testutil.h"
#include "scenario/engine.h"
#include "workload/workload.h"

#define MAX_CASES 512
#define TOLERANCE_PCT 0.1

typedef struct case_result {
    char name[128];
    int status; /* 0 pass, 1 fail, 2 skipped, 3 error */
    double max_err_pct;
    unsigned ranks, mismatches, exposed_mismatches;
    int symmetric;    /* simulated one representative rank */
    int sym_mismatch; /* ... and it differed from the full simulation */
    char note[256];
} case_result;

/* snprintf that reports truncation (paths here are short; a cut path would
 * only make the case fail to load, with its name in the message). */
static void pathf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void pathf(char *buf, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= n) fprintf(stderr, "path too long: %s...\n", buf);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int file_exists(const char *p) {
    FILE *f = fopen(p, "r");
    if (!f) return 0;
    fclose(f);
    return 1;
}

/* expected.tsv: "rank\tfinish_ns\texposed_comm_ns" rows; returns count. */
static unsigned read_expected(const char *path, uint64_t **fin, uint64_t **exp_comm) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[256];
    unsigned n = 0, cap = 0;
    *fin = NULL;
    *exp_comm = NULL;
    while (fgets(line, sizeof line, f)) {
        unsigned long r;
        unsigned long long a, b;
        if (sscanf(line, "%lu\t%llu\t%llu", &r, &a, &b) != 3) continue;
        if (r >= cap) {
            unsigned ncap = cap ? cap * 2 : 64;
            while (ncap <= r) ncap *= 2;
            *fin = realloc(*fin, ncap * sizeof **fin);
            *exp_comm = realloc(*exp_comm, ncap * sizeof **exp_comm);
            cap = ncap;
        }
        (*fin)[r] = a;
        (*exp_comm)[r] = b;
        if (r + 1 > n) n = (unsigned)r + 1;
    }
    fclose(f);
    return n;
}

static void run_case(const char *dir, const char *name, case_result *cr) {
    pathf(cr->name, sizeof cr->name, "%s", name);
    char path[1024], cdir[1024];
    pathf(cdir, sizeof cdir, "%s/%s", dir, name);
    pathf(path, sizeof path, "%s/case.json", cdir);
    json_error_t jerr;
    json_t *cj = json_load_file(path, 0, &jerr);
    if (!cj) {
        cr->status = 3;
        pathf(cr->note, sizeof cr->note, "case.json: %s", jerr.text);
        return;
    }
    const char *prefix = json_string_value(json_object_get(cj, "workload_prefix"));
    const char *backend = json_string_value(json_object_get(cj, "backend"));
    const char *cgname = json_string_value(json_object_get(cj, "comm_group_configuration"));
    if (!backend) backend = CS_NET_DEFAULT_BACKEND;
    if (!cs_net_backend_find(backend)) {
        cr->status = 2;
        pathf(cr->note, sizeof cr->note, "backend \"%s\" is not registered yet", backend);
        json_decref(cj);
        return;
    }
    cs_error err;
    cs_error_clear(&err);
    cs_network_config net;
    cs_system_config sc;
    cs_memory_config mem;
    cs_comm_groups groups;
    cs_workload w;
    memset(&net, 0, sizeof net);
    memset(&sc, 0, sizeof sc);
    memset(&groups, 0, sizeof groups);
    memset(&w, 0, sizeof w);
    cs_memory_config_defaults(&mem);
    pathf(path, sizeof path, "%s/network.yml", cdir);
    int rc = cs_network_config_load(path, &net, &err);
    if (rc == CS_OK) {
        pathf(path, sizeof path, "%s/system.json", cdir);
        rc = cs_system_config_load(path, &sc, &err);
    }
    pathf(path, sizeof path, "%s/memory.json", cdir);
    if (rc == CS_OK && file_exists(path)) {
        cs_memory_config_free(&mem);
        rc = cs_memory_config_load(path, &mem, &err);
    }
    if (rc == CS_OK && cgname) {
        pathf(path, sizeof path, "%s/%s", cdir, cgname);
        rc = cs_comm_groups_load(path, &groups, &err);
    }
    if (rc == CS_OK) {
        pathf(path, sizeof path, "%s/%s", cdir, prefix ? prefix : "workload/all_reduce");
        cs_graph_options go = {0, 0, NULL};
        rc = cs_workload_load(path, (uint32_t)net.total_npus, &go, &w, &err);
    }
    cs_engine_result res;
    memset(&res, 0, sizeof res);
    if (rc == CS_OK) {
        cs_engine_options so;
        cs_engine_options_init(&so);
        so.backend = backend;
        cs_engine_options_set_system(&so, &sc);
        so.memory = &mem;
        if (cgname) so.comm_groups = &groups;
        rc = cs_engine_run(&w, &net, &so, &res, &err);
        /* whichever mode that took (symmetry: one representative rank), the
         * full simulation must agree with it exactly */
        cs_engine_result full;
        cs_error e2;
        cs_error_clear(&e2);
        so.symmetry = CS_SYMMETRY_OFF;
        int rc2 = cs_engine_run(&w, &net, &so, &full, &e2);
        cr->symmetric = rc == CS_OK && res.symmetric;
        if (rc2 != rc) {
            printf("  %s: symmetric run rc %d, full run rc %d (%s)\n", name, rc, rc2, e2.msg);
            cr->sym_mismatch = 1;
        } else if (rc2 == CS_OK) {
            for (uint32_t r = 0; r < res.nranks; r++)
                if (memcmp(&res.ranks[r], &full.ranks[r], sizeof full.ranks[r]) != 0) cr->sym_mismatch = 1;
            if (res.events != full.events || res.sim_time != full.sim_time) cr->sym_mismatch = 1;
            if (cr->sym_mismatch) printf("  %s: the symmetric run differs from the full run\n", name);
        }
        if (rc2 == CS_OK) cs_engine_result_free(&full);
    }
    if (rc) {
        cr->status = 3;
        pathf(cr->note, sizeof cr->note, "%s", err.msg);
        printf("  %s: error: %s\n", name, err.msg);
    } else {
        uint64_t *fin = NULL, *ecomm = NULL;
        pathf(path, sizeof path, "%s/expected.tsv", cdir);
        unsigned n = read_expected(path, &fin, &ecomm);
        cr->ranks = n;
        if (n != res.nranks) {
            cr->status = 3;
            pathf(cr->note, sizeof cr->note, "expected.tsv has %u ranks, the run %u", n, res.nranks);
        }
        for (unsigned r = 0; r < n && r < res.nranks; r++) {
            uint64_t got = cs_time_as_ns(res.ranks[r].finish);
            double e = fin[r] ? fabs((double)got - (double)fin[r]) * 100.0 / (double)fin[r] : (got ? 100.0 : 0.0);
            if (e > cr->max_err_pct) cr->max_err_pct = e;
            if (got != fin[r]) {
                cr->mismatches++;
                printf("  %s rank %u: expected %llu ns, got %llu ns, error %.4f %%\n", name, r,
                       (unsigned long long)fin[r], (unsigned long long)got, e);
            }
            /* exposed communication (finish minus GPU compute), reported only */
            uint64_t gexp = cs_time_as_ns(cs_rank_exposed_comm(&res.ranks[r]));
            if (gexp != ecomm[r]) {
                cr->exposed_mismatches++;
                printf("  %s rank %u: exposed communication expected %llu ns, got %llu ns\n", name,
                       r, (unsigned long long)ecomm[r], (unsigned long long)gexp);
            }
        }
        if (cr->status == 0 && cr->max_err_pct > TOLERANCE_PCT) cr->status = 1;
        free(fin);
        free(ecomm);
        cs_engine_result_free(&res);
    }
    cs_workload_free(&w);
    cs_comm_groups_free(&groups);
    cs_memory_config_free(&mem);
    cs_system_config_free(&sc);
    cs_network_config_free(&net);
    json_decref(cj);
}

static void test_astra_cases(void **state) {
    (void)state;
    char dir[1024];
    pathf(dir, sizeof dir, "%s/testdata/astra-sim/cases", tu_shared_dir());
    DIR *d = opendir(dir);
    if (!d) {
        printf("SKIP: %s is not present\n", dir);
        skip();
    }
    char *names[MAX_CASES];
    unsigned n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < MAX_CASES) {
        if (de->d_name[0] == '.') continue;
        char p[1200];
        pathf(p, sizeof p, "%s/%s/case.json", dir, de->d_name);
        if (!file_exists(p)) continue;
        names[n++] = strdup(de->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    static case_result res[MAX_CASES];
    unsigned failed = 0, skipped = 0, exact = 0, nsym = 0;
    for (unsigned i = 0; i < n; i++) {
        memset(&res[i], 0, sizeof res[i]);
        run_case(dir, names[i], &res[i]);
        if (res[i].status == 1 || res[i].status == 3 || res[i].sym_mismatch) failed++;
        if (res[i].symmetric) nsym++;
        if (res[i].status == 2) skipped++;
        if (res[i].status == 0 && res[i].mismatches == 0) exact++;
    }
    printf("\n| case | ranks | result | max error %% |\n|---|---:|---|---:|\n");
    for (unsigned i = 0; i < n; i++) {
        const case_result *c = &res[i];
        const char *st = c->status == 0 ? (c->mismatches ? "pass" : "exact")
                         : c->status == 1 ? "FAIL"
                         : c->status == 2 ? "skipped"
                                          : "ERROR";
        if (c->status >= 2)
            printf("| %s | %u | %s | %s |\n", c->name, c->ranks, st, c->note);
        else
            printf("| %s | %u | %s | %.4f |\n", c->name, c->ranks, st, c->max_err_pct);
        free(names[i]);
    }
    printf("\n%u cases: %u exact, %u within %.1f %%, %u skipped, %u failed\n", n, exact,
           n - exact - skipped - failed, TOLERANCE_PCT, skipped, failed);
    printf("%u cases simulated one representative rank (symmetry), the others every rank; "
           "each was also run with symmetry off, with identical results\n", nsym);
    for (unsigned i = 0; i < n; i++)
        if (res[i].symmetric) printf("  symmetric: %s\n", res[i].name);
    assert_true(n > 0);
    assert_int_equal(failed, 0);
}

int main(void) {
    if (!tu_shared_dir()) tu_require_shared(); /* exits 77 with a message */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_astra_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
