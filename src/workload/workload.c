/*
 * workload.c -- load a trace set, sharing graphs between identical files
 * (see workload.h).
 *
 * Identity is decided on the file bytes: a 64-bit FNV-1a hash finds
 * candidates and a byte comparison with the candidate's bytes (kept in memory
 * only while loading, once per distinct file) confirms it.  Files that
 * differ only in their point-to-point peers (moved by one offset) and
 * communicator names -- the ranks of one pipeline stage -- are parsed each,
 * and then share one graph's nodes (graph.h, cs_graph_share).
 *
 * Rank files are PREFIX.<rank>.et; when that does not exist,
 * PREFIX.<rank>.et.gz is read instead (gzip is recognised by its content,
 * whatever the name).
 */
#include "workload/workload.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/afile.h"
#include "core/alloc.h"
#include "workload/text_workload.h"

typedef struct distinct {
    uint64_t hash;
    unsigned char *bytes;
    size_t len;
    uint32_t graph;
} distinct;

uint64_t cs_workload_hash(const unsigned char *p, size_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* The bytes of an open trace (fd is closed): a regular file is read to its size with one read (a file
 * that changes meanwhile is read as far as it goes), a pipe to its end; anything else is refused (/dev/zero
 * would fill memory). */
static int read_fd(int fd, const char *path, unsigned char **out, size_t *len, cs_error *err) {
    struct stat st;
    if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        close(fd);
        return CS_ERR(err, CS_EIO, "%s: expected a Chakra trace file, found a directory", path);
    }
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
        close(fd);
        return CS_ERR(err, CS_EIO, "%s: expected a Chakra trace file (a regular file or a pipe), found %s", path,
                      S_ISCHR(st.st_mode) ? "a character device" : "a device or socket");
    }
    int regular = S_ISREG(st.st_mode);
    cs_input_note_stat(&st); /* no result may overwrite it (core/afile.h) */
    size_t cap = regular && st.st_size > 0 ? (size_t)st.st_size : 4096, n = 0;
    unsigned char *buf = cs_malloc(cap + 1);
    for (;;) {
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            int e = errno;
            close(fd);
            cs_free(buf);
            return CS_ERR(err, CS_EIO, "%s: read error: %s", path, strerror(e));
        }
        n += (size_t)got;
        if (got == 0 || (regular && n == (size_t)st.st_size)) break; /* the end, or the whole regular file */
        if (n == cap) {
            cap *= 2;
            buf = cs_realloc(buf, cap + 1);
        }
    }
    close(fd);
    *out = buf;
    *len = n;
    return CS_OK;
}

int cs_workload_read_trace(const char *path, unsigned char **out, size_t *len, cs_error *err) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return CS_ERR(err, CS_EIO, "%s: cannot open workload trace: %s", path, strerror(errno));
    return read_fd(fd, path, out, len, err);
}

static int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* PREFIX.<r>.et, or PREFIX.<r>.et.gz when only that exists. */
static void rank_path(char *path, size_t plen, const char *prefix, uint32_t r) {
    snprintf(path, plen, "%s.%u.et.gz", prefix, r);
    if (file_exists(path)) {
        snprintf(path, plen, "%s.%u.et", prefix, r);
        if (!file_exists(path)) snprintf(path, plen, "%s.%u.et.gz", prefix, r);
        return;
    }
    snprintf(path, plen, "%s.%u.et", prefix, r);
}

/* Rank r's file opened: PREFIX.<r>.et, else PREFIX.<r>.et.gz (path: the name opened, or the .et name when
 * neither opens); -1 with errno as open left it. */
static int open_rank(char *path, size_t plen, const char *prefix, uint32_t r) {
    snprintf(path, plen, "%s.%u.et", prefix, r);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0 || errno != ENOENT) return fd;
    snprintf(path, plen, "%s.%u.et.gz", prefix, r);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) snprintf(path, plen, "%s.%u.et", prefix, r);
    return fd;
}

int cs_workload_load(const char *prefix, uint32_t nranks, const cs_graph_options *opt,
                     cs_workload *out, cs_error *err) {
    memset(out, 0, sizeof *out);
    if (nranks == 0) return CS_ERR(err, CS_EINVAL, "workload %s: expected at least one rank", prefix);
    if (cs_text_workload_detect(prefix)) /* it names its own groups: only `run` composes those */
        return CS_ERR(err, CS_EUNSUPPORTED, "%s: an ASTRA-sim 1.0 / SimAI text workload; clustersim run reads it "
                      "(--workload-configuration), here expected Chakra traces (PREFIX.<rank>.et or one .et file)",
                      prefix);
    out->nranks = nranks;
    out->prefix = cs_strdup(prefix);
    out->rank_graph = cs_calloc(nranks, sizeof *out->rank_graph);

    struct stat st;
    out->single_file = stat(prefix, &st) == 0 && S_ISREG(st.st_mode);
    size_t plen = strlen(prefix) + 32;
    char *path = cs_malloc(plen);

    if (!out->single_file) {
        rank_path(path, plen, prefix, nranks);
        if (file_exists(path)) {
            int rc = CS_ERR(err, CS_EINVAL,
                            "%s exists, but the workload runs on %u NPUs (ranks 0..%u): the trace set "
                            "%s.<rank>.et has more ranks; expected the rank count to equal the NPUs "
                            "(npus_count's product; a cluster job's npus)",
                            path, nranks, nranks - 1, prefix);
            cs_free(path);
            cs_workload_free(out);
            return rc;
        }
    }

    distinct *d = NULL;
    size_t nd = 0, capd = 0;
    int rc = CS_OK;
    cs_graph_sharer *sh = cs_graph_sharer_new(); /* files that differ in peers and names only */
    if (out->single_file) snprintf(path, plen, "%s", prefix);
    for (uint32_t r = 0; r < nranks && rc == CS_OK; r++) {
        if (out->single_file && r > 0) { /* every rank the one graph (no per-rank work: 2^32 - 1 ranks) */
            for (uint32_t q = r; q < nranks; q++) out->rank_graph[q] = out->graphs[0];
            out->graphs[0]->refcount += nranks - r;
            break;
        }
        if (opt && opt->stop && *opt->stop) {
            rc = CS_ERR(err, CS_EINTR, "interrupted while reading the traces (%u of %u ranks read)", r, nranks);
            break;
        }
        unsigned char *bytes = NULL;
        size_t len = 0;
        if (out->single_file) {
            rc = cs_workload_read_trace(path, &bytes, &len, err);
        } else { /* open, fstat, read, close: the fewest system calls per rank */
            int fd = open_rank(path, plen, prefix, r);
            if (fd < 0 && errno == ENOENT) {
                /* the ranks before it all exist: say what we found */
                uint32_t have = r;
                rc = CS_ERR(err, CS_EIO,
                            "%s: workload trace for rank %u does not exist; on %u NPUs expected "
                            "%s.0.et .. %s.%u.et (found %u rank file%s before this one)",
                            path, r, nranks, prefix, prefix, nranks - 1, have, have == 1 ? "" : "s");
                break;
            }
            if (fd < 0 && errno == EINTR && opt && opt->stop && *opt->stop) /* (a FIFO nobody writes) */
                rc = CS_ERR(err, CS_EINTR, "interrupted while reading the traces (%u of %u ranks read)", r, nranks);
            else if (fd < 0) rc = CS_ERR(err, CS_EIO, "%s: cannot open workload trace: %s", path, strerror(errno));
            else rc = read_fd(fd, path, &bytes, &len, err);
        }
        if (rc) break;
        uint64_t h = cs_workload_hash(bytes, len);
        size_t k;
        for (k = 0; k < nd; k++)
            if (d[k].hash == h && d[k].len == len && memcmp(d[k].bytes, bytes, len) == 0) break;
        if (k < nd) {
            cs_free(bytes);
            out->rank_graph[r] = out->graphs[d[k].graph];
            out->rank_graph[r]->refcount++;
            continue;
        }
        cs_graph *g = NULL;
        rc = cs_graph_load_mem(bytes, len, path, opt, &g, err);
        if (rc) {
            cs_free(bytes);
            break;
        }
        g = cs_graph_sharer_put(sh, g);
        out->graphs = cs_realloc(out->graphs, (out->ngraphs + 1) * sizeof *out->graphs);
        out->graphs[out->ngraphs] = g;
        out->rank_graph[r] = g;
        CS_GROW(d, capd, nd + 1);
        d[nd].hash = h;
        d[nd].bytes = bytes;
        d[nd].len = len;
        d[nd].graph = out->ngraphs++;
        nd++;
    }
    for (size_t k = 0; k < nd; k++) cs_free(d[k].bytes);
    cs_free(d);
    cs_graph_sharer_free(sh);
    cs_free(path);
    if (rc) cs_workload_free(out);
    return rc;
}

int cs_workload_from_graphs(cs_graph **graphs, uint32_t ngraphs, const uint32_t *rank_graph_index,
                            uint32_t nranks, cs_workload *out, cs_error *err) {
    memset(out, 0, sizeof *out);
    out->nranks = nranks;
    out->prefix = cs_strdup("(generated)");
    out->graphs = cs_malloc((ngraphs ? ngraphs : 1) * sizeof *out->graphs);
    memcpy(out->graphs, graphs, ngraphs * sizeof *graphs);
    out->ngraphs = ngraphs;
    out->rank_graph = cs_calloc(nranks ? nranks : 1, sizeof *out->rank_graph);
    for (uint32_t g = 0; g < ngraphs; g++) out->graphs[g]->refcount = 0;
    for (uint32_t r = 0; r < nranks; r++) {
        if (rank_graph_index[r] >= ngraphs) {
            cs_workload_free(out);
            return CS_ERR(err, CS_EINVAL, "rank %u: graph index %u out of range", r, rank_graph_index[r]);
        }
        out->rank_graph[r] = out->graphs[rank_graph_index[r]];
        out->rank_graph[r]->refcount++;
    }
    return CS_OK;
}

void cs_workload_free(cs_workload *w) {
    if (!w) return;
    for (uint32_t g = 0; g < w->ngraphs; g++) cs_graph_free(w->graphs[g]);
    cs_free(w->graphs);
    cs_free(w->rank_graph);
    cs_free(w->prefix);
    memset(w, 0, sizeof *w);
}

int cs_workload_check_out_prefix(const char *flag, const char *prefix, uint32_t n, cs_error *err) {
    char sp[4200];
    struct stat st;
    const char *base = strrchr(prefix, '/');
    base = base ? base + 1 : prefix;
    if (!*base) /* "" or "dir/": the files would be hidden ".0.et" ones */
        return CS_ERR(err, CS_EINVAL, "%s '%s': expected a prefix ending in a name, e.g. traces/step (files "
                                      "traces/step.<rank>.et)", flag, prefix);
    if (strlen(prefix) > 4000) return CS_ERR(err, CS_EINVAL, "%s: a prefix of at most 4000 bytes expected", flag);
    for (int gz = 0; gz < 2; gz++) {
        snprintf(sp, sizeof sp, "%s.%u.et%s", prefix, n, gz ? ".gz" : "");
        if (stat(sp, &st) == 0)
            return CS_ERR(err, CS_EINVAL,
                          "%s %s: %s exists: clustersim run would read it as rank %u of the %u written; remove the "
                          "old trace set first", flag, prefix, sp, n, n);
    }
    return CS_OK;
}

uint32_t cs_workload_remove_ranks(const char *prefix) {
    char path[4200];
    uint32_t k = 0;
    struct stat st;
    for (uint32_t r = 0; r < UINT32_MAX; r++) {
        int found = 0, gone = 0;
        for (int gz = 0; gz < 2; gz++) { /* a name that cannot go (a directory) does not end the set */
            snprintf(path, sizeof path, "%s.%u.et%s", prefix, r, gz ? ".gz" : "");
            if (lstat(path, &st) != 0) continue;
            found = 1;
            gone |= unlink(path) == 0;
        }
        if (!found) break;
        k += (uint32_t)gone;
    }
    return k;
}
