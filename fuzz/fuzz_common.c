/*
 * fuzz_common.c -- scratch directory, input files and contract checks for
 * the libFuzzer targets (see fuzz_common.h).
 */
#include "fuzz_common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"

static const char *target_name = "fuzz";
static char scratch[4096];

static void remove_scratch(void) {
    if (!scratch[0]) return;
    DIR *d = opendir(scratch);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            char p[8192];
            snprintf(p, sizeof p, "%s/%s", scratch, e->d_name);
            if (unlink(p) != 0) rmdir(p); /* a directory the CLI made: one level */
        }
        closedir(d);
    }
    rmdir(scratch);
}

/* Warnings (unknown keys, ...) are expected: they are formatted, as for a
 * user, then dropped here so that runs print only libFuzzer's lines. */
static void drop_message(int level, const char *msg, void *ud) {
    (void)level;
    (void)ud;
    fz_check(msg != NULL && msg[0] != '\0', "a log message has text");
}

void fz_init(const char *target) {
    target_name = target;
    cs_log_set_sink(drop_message, NULL);
}

const char *fz_scratch(void) {
    if (!scratch[0]) {
        const char *tmp = getenv("TMPDIR");
        if (!tmp || !*tmp) tmp = "/tmp";
        snprintf(scratch, sizeof scratch, "%s/cs-fuzz-XXXXXX", tmp);
        if (!mkdtemp(scratch)) {
            fprintf(stderr, "%s: cannot create a scratch directory in %s: %s\n", target_name, tmp,
                    strerror(errno));
            abort();
        }
        atexit(remove_scratch);
    }
    return scratch;
}

const char *fz_input(const char *name, const uint8_t *data, size_t size) {
    static char paths[8][4200];
    static const char *names[8];
    int slot = 0;
    while (slot < 7 && names[slot] && strcmp(names[slot], name) != 0) slot++;
    names[slot] = name;
    snprintf(paths[slot], sizeof paths[slot], "%s/%s", fz_scratch(), name);
    int fd = open(paths[slot], O_WRONLY | O_CREAT | O_TRUNC, 0600);
    fz_check(fd >= 0, "the input file can be written");
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(fd, data + off, size - off);
        fz_check(w > 0, "the input file can be written");
        off += (size_t)w;
    }
    close(fd);
    return paths[slot];
}

void fz_check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "%s: contract broken: %s\n", target_name, what);
        abort();
    }
}

void fz_check_error(int rc, const cs_error *err, const char *path) {
    fz_check(rc < 0, "failure code is negative");
    fz_check(err->code == rc, "cs_error.code equals the returned code");
    size_t n = strlen(path);
    if (strncmp(err->msg, path, n) != 0 || err->msg[n] != ':') {
        fprintf(stderr, "%s: message: %s\n", target_name, err->msg);
        fz_check(0, "the message starts with the file's path and a colon");
    }
}

int fz_split(const uint8_t *data, size_t size, size_t *len1, const uint8_t **rest, size_t *len2) {
    static const char sep[] = "\n%%\n";
    for (size_t i = 0; i + 4 <= size; i++) {
        if (memcmp(data + i, sep, 4) == 0) {
            *len1 = i + 1; /* keep the newline */
            *rest = data + i + 4;
            *len2 = size - i - 4;
            return 1;
        }
    }
    *len1 = size;
    *rest = data + size;
    *len2 = 0;
    return 0;
}
