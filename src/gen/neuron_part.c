/*
 * neuron_part.c -- neurons partitioned across workers by co-activation
 * (see neuron_part.h): the two input readers, the greedy grouping, the
 * Hungarian labelling and the traffic counts.
 *
 * The readers work on the whole file in memory (cs_read_file: a regular file
 * of at most 64 MiB) and check declared sizes against it before allocating:
 * a matrix of N neurons needs at least 2 N^2 bytes (a digit and a separator
 * per entry); a trace's ids are at most half its bytes, and a trace keeps no
 * N x N matrix (its counts are walked from the tokens), so what either
 * allocates is bounded by the file's size.
 */
#include "gen/neuron_part.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/checked.h"
#include "core/hungarian.h"
#include "core/opts.h"

/* ---- reading ----------------------------------------------------------------------------- */

typedef struct reader {
    const char *path;
    char *buf;     /* whole file, NUL-terminated */
    size_t len;
    size_t pos;    /* start of the next line */
    uint32_t line; /* number of the line last returned (1-based) */
} reader;

/* The next line that is not a comment ('#' first): [*s, *e) without the
 * newline or a '\r' before it; 0 at the end of the file. */
static int next_line(reader *r, const char **s, const char **e) {
    while (r->pos < r->len) {
        const char *b = r->buf + r->pos;
        const char *nl = memchr(b, '\n', r->len - r->pos);
        const char *end = nl ? nl : r->buf + r->len;
        r->pos = (size_t)(end - r->buf) + (nl ? 1 : 0);
        r->line++;
        if (end > b && end[-1] == '\r') end--;
        if (end > b && b[0] == '#') continue;
        *s = b;
        *e = end;
        return 1;
    }
    return 0;
}

/* A field for a message: at most 24 bytes, non-printing bytes as '?'. */
static const char *show(const char *s, const char *e, char *out, size_t n) {
    size_t k = 0;
    for (; s < e && k + 4 < n && k < 24; s++) out[k++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
    if (s < e) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = '\0';
    return out;
}

/* Parse the unsigned decimal [s, e) (digits only, at least one) into *v <= max: 0, else -1. */
static int parse_uint(const char *s, const char *e, uint64_t max, uint64_t *v) {
    if (s == e) return -1;
    uint64_t x = 0;
    for (; s < e; s++) {
        if (*s < '0' || *s > '9') return -1;
        if (cs_mul_u64(x, 10, &x) || cs_add_u64(x, (uint64_t)(*s - '0'), &x)) return -1;
    }
    if (x > max) return -1;
    *v = x;
    return 0;
}

/* The end of the comma-separated field starting at s (before e). */
static const char *field_end(const char *s, const char *e) {
    const char *c = memchr(s, ',', (size_t)(e - s));
    return c ? c : e;
}

static int load_matrix(reader *r, const char *s, const char *e, uint32_t max_neurons, cs_npart_data *d,
                       cs_error *err) {
    char sh[32];
    /* header: coactivation,N,T */
    const char *f = s + strlen("coactivation"); /* at the comma after the first field, or e */
    const char *fe = f < e ? field_end(f + 1, e) : e;
    uint64_t n = 0, t = 0;
    if (f >= e || parse_uint(f + 1, fe, max_neurons, &n) || n == 0)
        return CS_ERR(err, CS_EFORMAT,
                      "%s:%" PRIu32 ": column 2: neurons: expected an integer in [1, %" PRIu32
                      "] (header: coactivation,N,T), got \"%s\"",
                      r->path, r->line, max_neurons, f < e ? show(f + 1, fe, sh, sizeof sh) : "");
    f = fe;
    if (f >= e || field_end(f + 1, e) != e || parse_uint(f + 1, e, UINT32_MAX, &t))
        return CS_ERR(err, CS_EFORMAT,
                      "%s:%" PRIu32 ": column 3: tokens: expected an integer in [0, 4294967295] ending the line "
                      "(header: coactivation,N,T), got \"%s\"",
                      r->path, r->line, f < e ? show(f + 1, e, sh, sizeof sh) : "");
    if ((uint64_t)r->len < 2 * n * n)
        return CS_ERR(err, CS_EFORMAT,
                      "%s:%" PRIu32 ": column 2: neurons: %" PRIu64 ", but the file is %zu bytes; expected at least %" PRIu64
                      " bytes for %" PRIu64 " rows of %" PRIu64 " counts",
                      r->path, r->line, n, r->len, 2 * n * n, n, n);
    d->n = (uint32_t)n;
    d->tokens = t;
    d->co = cs_calloc((size_t)(n * n), sizeof *d->co);
    uint32_t *row_line = cs_calloc((size_t)n, sizeof *row_line);
    int rc = CS_OK;
    for (uint32_t i = 0; i < n && rc == CS_OK; i++) {
        if (!next_line(r, &s, &e)) {
            rc = CS_ERR(err, CS_EFORMAT, "%s:%" PRIu32 ": expected %" PRIu64 " rows of counts, the file ends after %" PRIu32,
                        r->path, r->line, n, i);
            break;
        }
        row_line[i] = r->line;
        const char *p = s;
        for (uint32_t j = 0; j < n; j++) {
            fe = field_end(p, e);
            uint64_t v;
            if (parse_uint(p, fe, t, &v)) {
                rc = CS_ERR(err, CS_EFORMAT,
                            "%s:%" PRIu32 ": column %" PRIu32 ": co-activation of neurons %" PRIu32 " and %" PRIu32
                            ": expected an integer in [0, %" PRIu64 "] (the tokens), got \"%s\"",
                            r->path, r->line, j + 1, i, j, t, show(p, fe, sh, sizeof sh));
                break;
            }
            if (j < i && v != d->co[(size_t)j * n + i]) {
                rc = CS_ERR(err, CS_EFORMAT,
                            "%s:%" PRIu32 ": column %" PRIu32 ": co-activation of neurons %" PRIu32 " and %" PRIu32 ": %" PRIu64
                            ", but line %" PRIu32 ", column %" PRIu32 " has %" PRIu32
                            "; expected the same (the matrix is symmetric)",
                            r->path, r->line, j + 1, i, j, v, row_line[j], i + 1, d->co[(size_t)j * n + i]);
                break;
            }
            d->co[(size_t)i * n + j] = (uint32_t)v;
            if (j + 1 < n && fe == e) {
                rc = CS_ERR(err, CS_EFORMAT,
                            "%s:%" PRIu32 ": column %" PRIu32 ": expected %" PRIu64 " columns, the row has %" PRIu32,
                            r->path, r->line, j + 2, n, j + 1);
                break;
            }
            if (j + 1 == n && fe != e) {
                rc = CS_ERR(err, CS_EFORMAT,
                            "%s:%" PRIu32 ": column %" PRIu32 ": expected %" PRIu64 " columns, the row has more",
                            r->path, r->line, j + 2, n);
                break;
            }
            p = fe + 1;
        }
    }
    if (rc == CS_OK && next_line(r, &s, &e))
        rc = CS_ERR(err, CS_EFORMAT, "%s:%" PRIu32 ": expected the end of the file after %" PRIu64 " rows",
                    r->path, r->line, n);
    /* a pair is active together at most as often as either alone */
    for (uint32_t i = 0; i < n && rc == CS_OK; i++)
        for (uint32_t j = 0; j < n; j++) {
            uint32_t c = d->co[(size_t)i * n + j], a = d->co[(size_t)i * n + i], b = d->co[(size_t)j * n + j];
            if (i != j && (c > a || c > b)) {
                rc = CS_ERR(err, CS_EFORMAT,
                            "%s:%" PRIu32 ": column %" PRIu32 ": neurons %" PRIu32 " and %" PRIu32
                            " active together in %" PRIu32 " tokens, but alone in %" PRIu32 " and %" PRIu32
                            " (the diagonal); expected at most the smaller",
                            r->path, row_line[i], j + 1, i, j, c, a, b);
                break;
            }
        }
    cs_free(row_line);
    return rc;
}

static int load_trace(reader *r, const char *s, const char *e, uint32_t max_neurons, cs_npart_data *d,
                      cs_error *err) {
    char sh[32];
    const char *f = s + strlen("activations");
    uint64_t n = 0;
    if (f >= e || *f != ',' || parse_uint(f + 1, e, max_neurons, &n) || n == 0)
        return CS_ERR(err, CS_EFORMAT,
                      "%s:%" PRIu32 ": column 2: neurons: expected an integer in [1, %" PRIu32
                      "] ending the line (header: activations,N), got \"%s\"",
                      r->path, r->line, max_neurons, f < e ? show(f + 1, e, sh, sizeof sh) : "");
    d->n = (uint32_t)n;
    d->from_trace = 1;
    size_t cap_off = 0, cap_ids = 0, nids = 0;
    uint64_t ntok = 0;
    CS_GROW(d->off, cap_off, 1);
    d->off[0] = 0;
    while (next_line(r, &s, &e)) {
        if (ntok == UINT32_MAX)
            return CS_ERR(err, CS_EFORMAT, "%s:%" PRIu32 ": more than %" PRIu32 " tokens", r->path, r->line,
                          UINT32_MAX);
        if (e - s == 1 && *s == '-') {
            /* a token with no active neuron */
        } else {
            const char *p = s;
            uint32_t col = 1;
            uint64_t prev = 0;
            for (;; col++) {
                const char *fe = field_end(p, e);
                uint64_t v;
                if (parse_uint(p, fe, n - 1, &v))
                    return CS_ERR(err, CS_EFORMAT,
                                  "%s:%" PRIu32 ": column %" PRIu32 ": expected a neuron id in [0, %" PRIu64
                                  "] (or a line \"-\" for a token with no active neuron), got \"%s\"",
                                  r->path, r->line, col, n - 1, show(p, fe, sh, sizeof sh));
                if (col > 1 && v <= prev)
                    return CS_ERR(err, CS_EFORMAT,
                                  "%s:%" PRIu32 ": column %" PRIu32 ": neuron %" PRIu64
                                  " after %" PRIu64 "; expected ids in increasing order, each once",
                                  r->path, r->line, col, v, prev);
                prev = v;
                CS_GROW(d->ids, cap_ids, nids + 1);
                d->ids[nids++] = (uint32_t)v;
                if (fe == e) break;
                p = fe + 1;
            }
        }
        ntok++;
        CS_GROW(d->off, cap_off, (size_t)ntok + 1);
        d->off[ntok] = (uint32_t)nids;
    }
    d->tokens = ntok;
    /* No N x N matrix for a trace: what the partition needs is read from the
     * tokens themselves (activity per neuron here; a row of counts by
     * walking the tokens that hold a neuron, below), so memory follows the
     * file's content -- ids, offsets and the index -- whatever N says. */
    d->act = cs_calloc((size_t)n, sizeof *d->act);
    for (size_t k = 0; k < nids; k++) d->act[d->ids[k]]++;
    d->tok_off = cs_calloc((size_t)n + 1, sizeof *d->tok_off);
    for (uint32_t i = 0; i < n; i++) d->tok_off[i + 1] = d->tok_off[i] + d->act[i];
    d->tok = cs_malloc((nids ? nids : 1) * sizeof *d->tok);
    uint32_t *fill = cs_calloc((size_t)n, sizeof *fill);
    for (uint64_t t = 0; t < ntok; t++) /* tokens in increasing order within each neuron's list */
        for (uint32_t a = d->off[t]; a < d->off[t + 1]; a++) {
            uint32_t i = d->ids[a];
            d->tok[d->tok_off[i] + fill[i]++] = (uint32_t)t;
        }
    cs_free(fill);
    return CS_OK;
}

int cs_npart_load(const char *path, uint32_t max_neurons, cs_npart_data *d, cs_error *err) {
    memset(d, 0, sizeof *d);
    if (max_neurons > CS_NPART_MAX_NEURONS) max_neurons = CS_NPART_MAX_NEURONS;
    reader r = {.path = path};
    int rc = cs_read_file(path, &r.buf, &r.len, err);
    if (rc != CS_OK) return rc;
    const char *s, *e;
    char sh[32];
    if (!next_line(&r, &s, &e)) {
        rc = CS_ERR(err, CS_EFORMAT,
                    "%s:%" PRIu32 ": no header; expected a header \"coactivation,N,T\" (a matrix) or \"activations,N\" (a trace)",
                    path, r.line);
    } else {
        const char *fe = field_end(s, e);
        size_t k = (size_t)(fe - s);
        if (k == strlen("coactivation") && memcmp(s, "coactivation", k) == 0)
            rc = load_matrix(&r, s, e, max_neurons, d, err);
        else if (k == strlen("activations") && memcmp(s, "activations", k) == 0)
            rc = load_trace(&r, s, e, max_neurons, d, err);
        else
            rc = CS_ERR(err, CS_EFORMAT,
                        "%s:%" PRIu32 ": column 1: expected \"coactivation\" (header coactivation,N,T: a matrix) or "
                        "\"activations\" (header activations,N: a trace), got \"%s\"",
                        path, r.line, show(s, fe, sh, sizeof sh));
    }
    cs_free(r.buf);
    if (rc != CS_OK) cs_npart_data_free(d);
    return rc;
}

void cs_npart_data_free(cs_npart_data *d) {
    cs_free(d->co);
    cs_free(d->act);
    cs_free(d->tok_off);
    cs_free(d->tok);
    cs_free(d->off);
    cs_free(d->ids);
    memset(d, 0, sizeof *d);
}

/* ---- the counts -------------------------------------------------------------------------- */

/* Tokens in which neuron i is active. */
static uint32_t activity(const cs_npart_data *d, uint32_t i) {
    return d->co ? d->co[(size_t)i * d->n + i] : d->act[i];
}

/* gain[j] += co(i, j) for every j. */
static void add_row(const cs_npart_data *d, uint32_t i, uint64_t *gain) {
    uint32_t n = d->n;
    if (d->co) {
        for (uint32_t j = 0; j < n; j++) gain[j] += d->co[(size_t)i * n + j];
        return;
    }
    for (uint32_t k = d->tok_off[i]; k < d->tok_off[i + 1]; k++) {
        uint32_t t = d->tok[k];
        for (uint32_t a = d->off[t]; a < d->off[t + 1]; a++) gain[d->ids[a]]++;
    }
}

uint32_t cs_npart_co(const cs_npart_data *d, uint32_t i, uint32_t j) {
    if (d->co) return d->co[(size_t)i * d->n + j];
    /* both lists are increasing: count the common tokens */
    uint32_t a = d->tok_off[i], ae = d->tok_off[i + 1], b = d->tok_off[j], be = d->tok_off[j + 1], c = 0;
    while (a < ae && b < be) {
        if (d->tok[a] < d->tok[b]) a++;
        else if (d->tok[a] > d->tok[b]) b++;
        else c++, a++, b++;
    }
    return c;
}

/* ---- traffic ----------------------------------------------------------------------------- */

void cs_npart_traffic_of(const cs_npart_data *d, const uint32_t *worker, uint32_t w, cs_npart_traffic *t) {
    memset(t, 0, sizeof *t);
    uint32_t n = d->n;
    if (!d->from_trace) {
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = i + 1; j < n; j++)
                if (worker[i] != worker[j]) t->cut += d->co[(size_t)i * n + j];
        t->partials = t->cut;
        return;
    }
    /* per token of k active ids, c_x of them on worker x: its pairs on
     * different workers are C(k, 2) - sum_x C(c_x, 2) (the cut), and the
     * workers it touches beyond the first send one partial each */
    uint64_t *seen = cs_calloc(w, sizeof *seen); /* token + 1 that last touched worker */
    uint64_t *cnt = cs_calloc(w, sizeof *cnt);
    for (uint64_t k = 0; k < d->tokens; k++) {
        uint64_t hit = 0, ka = d->off[k + 1] - d->off[k], same = 0;
        for (uint32_t a = d->off[k]; a < d->off[k + 1]; a++) {
            uint32_t x = worker[d->ids[a]];
            if (seen[x] != k + 1) {
                seen[x] = k + 1;
                cnt[x] = 0;
                hit++;
            }
            same += cnt[x]++; /* pairs with the ids before it on x */
        }
        t->cut += ka * (ka - 1) / 2 - same; /* 0 for ka = 0 (unsigned) */
        if (hit >= 2) {
            t->partials += hit - 1;
            t->tokens_crossing++;
        }
    }
    cs_free(cnt);
    cs_free(seen);
}

/* ---- partition --------------------------------------------------------------------------- */

/* W groups of s = n / w neurons, grown one after another (neuron_part.h). */
static void grow_groups(const cs_npart_data *d, uint32_t w, uint32_t *group) {
    uint32_t n = d->n, s = n / w;
    uint64_t *gain = cs_calloc(n, sizeof *gain); /* co-activation with the current group's members */
    for (uint32_t i = 0; i < n; i++) group[i] = UINT32_MAX;
    for (uint32_t g = 0; g < w; g++) {
        memset(gain, 0, (size_t)n * sizeof *gain);
        for (uint32_t m = 0; m < s; m++) {
            /* m == 0: the seed, by activity alone (the gains are all 0) */
            uint32_t best = UINT32_MAX;
            for (uint32_t j = 0; j < n; j++) {
                if (group[j] != UINT32_MAX) continue;
                if (best == UINT32_MAX || gain[j] > gain[best] ||
                    (gain[j] == gain[best] && activity(d, j) > activity(d, best)))
                    best = j;
            }
            group[best] = g;
            add_row(d, best, gain);
        }
    }
    cs_free(gain);
}

int cs_npart_partition(const cs_npart_data *d, uint32_t w, cs_npart_result *r, cs_error *err) {
    memset(r, 0, sizeof *r);
    uint32_t n = d->n;
    if (w < 1 || w > CS_NPART_MAX_WORKERS || w > n || n % w != 0)
        return CS_ERR(err, CS_EINVAL,
                      "--workers %" PRIu32 ": expected a divisor of the layer's %" PRIu32
                      " neurons in [1, %u] (every worker holds N / W neurons)",
                      w, n, CS_NPART_MAX_WORKERS);
    uint32_t s = n / w;
    r->w = w;
    r->before = cs_calloc(n, sizeof *r->before);
    r->group = cs_calloc(n, sizeof *r->group);
    r->after = cs_calloc(n, sizeof *r->after);
    r->group_worker = cs_calloc(w, sizeof *r->group_worker);
    for (uint32_t i = 0; i < n; i++) r->before[i] = i / s;
    grow_groups(d, w, r->group);
    /* cost[g][k]: the neurons of group g not on worker k in the contiguous layout */
    int64_t *cost = cs_calloc((size_t)w * w, sizeof *cost);
    for (uint32_t g = 0; g < w; g++)
        for (uint32_t k = 0; k < w; k++) cost[(size_t)g * w + k] = s;
    for (uint32_t i = 0; i < n; i++) cost[(size_t)r->group[i] * w + r->before[i]]--;
    size_t *col = cs_calloc(w, sizeof *col);
    (void)cs_hungarian(cost, w, col);
    for (uint32_t g = 0; g < w; g++) r->group_worker[g] = (uint32_t)col[g];
    cs_free(col);
    cs_free(cost);
    for (uint32_t i = 0; i < n; i++) r->after[i] = r->group_worker[r->group[i]];
    cs_npart_traffic_of(d, r->before, w, &r->t_before);
    cs_npart_traffic_of(d, r->after, w, &r->t_grown);
    if (r->t_grown.partials >= r->t_before.partials) {
        r->kept_contiguous = 1;
        memcpy(r->after, r->before, (size_t)n * sizeof *r->after);
    }
    r->t_after = r->kept_contiguous ? r->t_before : r->t_grown;
    for (uint32_t i = 0; i < n; i++) r->moved += r->after[i] != r->before[i];
    return CS_OK;
}

void cs_npart_result_free(cs_npart_result *r) {
    cs_free(r->before);
    cs_free(r->group);
    cs_free(r->group_worker);
    cs_free(r->after);
    memset(r, 0, sizeof *r);
}
