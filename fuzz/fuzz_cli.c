/*
 * fuzz_cli.c -- libFuzzer target for the command line: clustersim_main
 * (include/clustersim/clustersim.h) with an argv and input files taken
 * from the fuzz input, parse-only and confined to a scratch directory.
 *
 * Input: a command line, then files, parts separated by lines "%%":
 *
 *     run --network-configuration net.yml --set network.bandwidth=[5]
 *     %%
 *     <net.yml>
 *     %%
 *     <sys.json>  ... then mem.json, cg.json, topo.json, model.json,
 *                 dev.json, scen.json and w.0.et, in that order
 *
 * The command line is split on blanks into at most 48 words of at most 256
 * bytes; argv[0] is "clustersim".  The files are written into the scratch
 * directory (fz_scratch), which is the working directory during the call;
 * parts not given are removed.
 *
 * Why it is safe and bounded:
 *   - a word with "/" or ".." is refused (the input is skipped), so every
 *     path the command line names is a file of the scratch directory; the
 *     scenario part, whose paths the scenario layer follows, is refused when
 *     it holds "/" or "\" (no absolute path, no escaped one);
 *   - cluster and serve get "--check" (after the command word, where no
 *     flag can take it for its value): they load and check
 *     everything their runs use (every job's traces or plan, placements,
 *     windows, routings, the backend and its options, the serving plan and
 *     its memory) and stop before the first simulation, writing nothing;
 *     their inputs are refused when any part but the trace holds "/" or
 *     "\" (the cluster file, a scenario and a system file name files that
 *     --check reads: the jobs' workloads and groups, the per-node custom
 *     implementation map);
 *   - every command but inspect gets "--out blocked/x" appended, where
 *     blocked is a regular file: the last --out wins, so run/train stop at
 *     creating the output directory, after parsing every flag and loading
 *     every file but before simulating or writing anything; generate stops
 *     at its first output file, after the plan (closed forms) was
 *     computed; search, bandwidth and collective stop at their output
 *     before estimating or simulating anything.  A word left without its value
 *     takes "--out" and the command fails as a usage error.  inspect only
 *     reads its trace (bounded by the input size) and prints; synth reads
 *     w.0.et and stops at its first output file.  sweep is
 *     skipped (its spec reader is fuzz_sweep_spec's).
 *   - configuration files are capped at 64 MiB and must be regular files
 *     (core/opts.h), so nothing the scenario names can stream forever.
 * Run with -close_fd_mask=3 (fuzz/run.sh does): the CLI's messages are
 * expected output, libFuzzer's report still goes to the terminal.
 * Contracts: the exit status is 0, 1 or 2; nothing but the input files and
 * "blocked" exists in the scratch directory afterwards.
 * Seeds: fuzz/corpus/cli/; dictionary: fuzz/dict/cli.dict.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clustersim/clustersim.h"
#include "fuzz_common.h"
#include "workload/et.h"

#define MAX_WORDS 48
#define MAX_WORD 256

static const char *const FILES[] = {"net.yml",   "sys.json",  "mem.json", "cg.json", "topo.json",
                                    "model.json", "dev.json", "scen.json", "w.0.et"};
#define NFILES (sizeof FILES / sizeof FILES[0])
#define SCEN 7
#define TRACE 8

static int contains(const uint8_t *p, size_t n, const char *s) {
    size_t k = strlen(s);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(p + i, s, k) == 0) return 1;
    return 0;
}


static int setup_done, home = -1;

static void setup(void) {
    fz_init("fuzz_cli");
    static const uint8_t x = 'x';
    (void)fz_input("blocked", &x, 1);
    home = open(".", O_RDONLY | O_DIRECTORY);
    fz_check(home >= 0, "the working directory can be opened");
    setup_done = 1;
}

/* Only the input files and "blocked" may exist after a call. */
static void check_scratch(void) {
    DIR *d = opendir(fz_scratch());
    fz_check(d != NULL, "the scratch directory can be listed");
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, "blocked")) continue;
        int known = 0;
        for (size_t i = 0; i < NFILES; i++) known |= !strcmp(n, FILES[i]);
        if (!known) {
            fprintf(stderr, "fuzz_cli: unexpected file %s in the scratch directory\n", n);
            fz_check(0, "a parse-only command writes nothing");
        }
    }
    closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!setup_done) setup();
    /* split into the command line and the files */
    const uint8_t *part[1 + NFILES];
    size_t plen[1 + NFILES];
    size_t nparts = 0;
    const uint8_t *p = data;
    size_t n = size;
    while (nparts < 1 + NFILES) {
        size_t l1, l2;
        const uint8_t *rest;
        int more = fz_split(p, n, &l1, &rest, &l2);
        part[nparts] = p;
        plen[nparts++] = l1;
        if (!more) break;
        p = rest;
        n = l2;
    }
    if (nparts > 1 + SCEN && (contains(part[1 + SCEN], plen[1 + SCEN], "/") ||
                              contains(part[1 + SCEN], plen[1 + SCEN], "\\")))
        return -1;
    /* cluster and serve --check follow the paths of every file but the trace */
    int checked = plen[0] >= 5 && (memcmp(part[0], "serve", 5) == 0 ||
                                   (plen[0] >= 7 && memcmp(part[0], "cluster", 7) == 0));
    for (size_t f = 1; checked && f < nparts; f++)
        if (f != 1 + TRACE && (contains(part[f], plen[f], "/") || contains(part[f], plen[f], "\\"))) return -1;

    /* argv */
    char words[MAX_WORDS][MAX_WORD + 1];
    char *argv[MAX_WORDS + 5]; /* clustersim, the words, --check, --out blocked/x, NULL */
    int argc = 0;
    argv[argc++] = (char *)(uintptr_t)"clustersim";
    size_t i = 0, cl = plen[0];
    const uint8_t *c = part[0];
    int nw = 0;
    while (i < cl) {
        while (i < cl && (c[i] == ' ' || c[i] == '\t' || c[i] == '\n' || c[i] == '\r')) i++;
        if (i >= cl) break;
        size_t s = i;
        while (i < cl && c[i] != ' ' && c[i] != '\t' && c[i] != '\n' && c[i] != '\r') i++;
        if (nw >= MAX_WORDS || i - s > MAX_WORD) return -1;
        memcpy(words[nw], c + s, i - s);
        words[nw][i - s] = '\0';
        if (memchr(words[nw], '\0', i - s)) return -1; /* a NUL inside a word */
        if (strchr(words[nw], '/') || strstr(words[nw], "..")) return -1;
        argv[argc++] = words[nw++];
    }
    int inspect = argc > 1 && strcmp(argv[1], "inspect") == 0;
    /* sweep checks every point of its design before it stops at --out (up
     * to 10 M points, minutes: by design); its spec reader has its own
     * target, fuzz_sweep_spec */
    if (argc > 1 && strcmp(argv[1], "sweep") == 0) return -1;
    /* cluster and serve simulate before they stop at --out: --check stops them first.  It goes right after
     * the command word, so that no flag left without its value takes it (`cluster c.json --json --check`
     * would write --check after a whole run) */
    int check = argc > 1 && (strcmp(argv[1], "cluster") == 0 || strcmp(argv[1], "serve") == 0);
    if (check && !checked) return -1; /* (a command word not at the line's start: the part check above) */
    if (check) {
        memmove(argv + 3, argv + 2, (size_t)(argc - 2) * sizeof *argv);
        argv[2] = (char *)(uintptr_t)"--check";
        argc++;
    }
    if (!inspect) {
        argv[argc++] = (char *)(uintptr_t)"--out";
        argv[argc++] = (char *)(uintptr_t)"blocked/x";
    }
    argv[argc] = NULL;

    /* the files */
    for (size_t f = 0; f < NFILES; f++) {
        if (1 + f < nparts) {
            (void)fz_input(FILES[f], part[1 + f], plen[1 + f]);
        } else {
            char path[4200];
            snprintf(path, sizeof path, "%s/%s", fz_scratch(), FILES[f]);
            unlink(path);
        }
    }

    fz_check(chdir(fz_scratch()) == 0, "chdir into the scratch directory");
    int rc = clustersim_main(argc, argv);
    fflush(stdout);
    fflush(stderr);
    fz_check(fchdir(home) == 0, "chdir back");
    fz_check(rc == 0 || rc == 1 || rc == 2, "the exit status is 0, 1 or 2");
    check_scratch();
    return 0;
}
