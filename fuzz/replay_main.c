/*
 * replay_main.c -- runs a libFuzzer target's LLVMFuzzerTestOneInput over
 * files, without libFuzzer: the regular and sanitizer builds replay every
 * seed of fuzz/corpus/<target>/ and every saved finding of
 * fuzz/regress/<target>/ as a CTest test (fuzz_replay_<target>), so a
 * fixed crash, leak or hang stays fixed in every build.
 *
 *     replay_<target> FILE|DIR ...
 *
 * A directory is read one level deep (its regular files, in name order).
 * Exit status 0 when every input ran; a broken contract aborts as under
 * libFuzzer.  Prints one line per directory with the count of inputs.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (n == cap) buf = realloc(buf, cap *= 2);
        size_t got = fread(buf + n, 1, cap - n, f);
        if (got == 0) break;
        n += got;
    }
    fclose(f);
    (void)LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int cmp_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s does not exist\n", argv[i]);
            bad = 1;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad |= run_file(argv[i]);
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) continue;
        char **names = NULL;
        size_t nn = 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.') continue;
            names = realloc(names, (nn + 1) * sizeof *names);
            names[nn] = malloc(strlen(argv[i]) + strlen(e->d_name) + 2);
            sprintf(names[nn], "%s/%s", argv[i], e->d_name);
            nn++;
        }
        closedir(d);
        if (nn) qsort(names, nn, sizeof *names, cmp_name);
        size_t ran = 0;
        for (size_t k = 0; k < nn; k++) {
            if (stat(names[k], &st) == 0 && S_ISREG(st.st_mode)) {
                bad |= run_file(names[k]);
                ran++;
            }
            free(names[k]);
        }
        free(names);
        printf("replay: %zu inputs from %s\n", ran, argv[i]);
    }
    return bad;
}
