/*
 * sweep.c -- the sweep's coordinator: points and their ids, the logs, the
 * results (see sweep.h).
 */
#include "sweep/sweep.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clustersim/clustersim.h"
#include "core/afile.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/opts.h"
#include "output/jsonw.h"
#include "scenario/result.h"
#include "sweep/metrics.h"
#include "core/stats.h"
#include "sweep/sweep_int.h"

/* ---- JSON text with the shortest exact reals --------------------------------- */

/* Jansson prints reals with 17 digits (0.1 -> 0.10000000000000001); results
 * are written with the shortest text that reads back to the same double. */
static void jtext(FILE *f, json_t *v) {
    char buf[64];
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        const char *k;
        json_t *x;
        int first = 1;
        fputc('{', f);
        json_object_foreach(v, k, x) {
            if (!first) fputc(',', f);
            first = 0;
            cs_jsonw_string(f, k);
            fputc(':', f);
            jtext(f, x);
        }
        fputc('}', f);
        break;
    }
    case JSON_ARRAY:
        fputc('[', f);
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (i) fputc(',', f);
            jtext(f, json_array_get(v, i));
        }
        fputc(']', f);
        break;
    case JSON_STRING: cs_jsonw_string(f, json_string_value(v)); break;
    case JSON_INTEGER: fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(v)); break;
    case JSON_REAL:
        if (!isfinite(json_real_value(v))) {
            fputs("null", f);
        } else {
            cs_fmt_double(buf, sizeof buf, json_real_value(v));
            fputs(buf, f);
        }
        break;
    case JSON_TRUE: fputs("true", f); break;
    case JSON_FALSE: fputs("false", f); break;
    default: fputs("null", f); break;
    }
}

/* jtext into a new string (cs_malloc'd). */
char *sw_json_text(json_t *v) {
    char *mem = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);
    if (!f) return cs_strdup("null");
    jtext(f, v);
    fclose(f);
    char *s = cs_strdup(mem ? mem : "");
    free(mem);
    return s;
}

/* ---- ids and the table of finished points --------------------------------------- */

static uint64_t fnv1a(uint64_t h, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static sw_entry *tab_find(const sweep *s, uint64_t id) {
    if (!s->tabcap) return NULL;
    for (size_t i = (size_t)id & (s->tabcap - 1);; i = (i + 1) & (s->tabcap - 1)) {
        if (!s->tab[i].line) return NULL;
        if (s->tab[i].id == id) return &s->tab[i];
    }
}

/* Insert or replace (a later line for the same id wins: a retry). */
static void tab_put(sweep *s, uint64_t id, char *line, int ok) {
    sw_entry *e = tab_find(s, id);
    if (e) {
        cs_free(e->line);
        e->line = line;
        e->ok = ok;
        return;
    }
    if ((s->tabn + 1) * 2 > s->tabcap) {
        size_t ncap = s->tabcap ? s->tabcap * 2 : 1024;
        sw_entry *old = s->tab;
        size_t oldcap = s->tabcap;
        s->tab = cs_calloc(ncap, sizeof *s->tab);
        s->tabcap = ncap;
        s->tabn = 0;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].line) tab_put(s, old[i].id, old[i].line, old[i].ok);
        cs_free(old);
    }
    size_t i = (size_t)id & (s->tabcap - 1);
    while (s->tab[i].line) i = (i + 1) & (s->tabcap - 1);
    s->tab[i] = (sw_entry){id, line, ok};
    s->tabn++;
}

/* A log line's id and status; -1 when it is not a complete record. */
/* A record as make_line writes it: an id of 16 hex digits, status "ok"
 * (with an object of metrics, each a number, a string, a boolean or null)
 * or "error" (with a string reason).  0 with *id and *ok, or -1: the line
 * is not one (torn, or edited by hand: read_logs says which and the point
 * runs again rather than feeding results.csv what no run wrote). */
static int parse_line(const char *line, uint64_t *id, int *ok) {
    json_t *j = json_loads(line, 0, NULL);
    if (!j) return -1;
    const char *ids = json_string_value(json_object_get(j, "id"));
    const char *st = json_string_value(json_object_get(j, "status"));
    int rc = -1;
    if (ids && st && strlen(ids) == 16 && strspn(ids, "0123456789abcdefABCDEF") == 16) {
        *id = strtoull(ids, NULL, 16); /* (16 hex digits: all of it) */
        *ok = strcmp(st, "ok") == 0;
        rc = 0;
        json_t *m = json_object_get(j, "metrics"), *e = json_object_get(j, "error");
        if (*ok) {
            if (!json_is_object(m)) rc = -1;
            const char *k;
            json_t *v;
            json_object_foreach(m, k, v) {
                (void)k;
                if (!json_is_number(v) && !json_is_string(v) && !json_is_boolean(v) && !json_is_null(v)) rc = -1;
            }
        } else if (strcmp(st, "error") != 0 || (e && !json_is_string(e)) || m) {
            rc = -1;
        }
    }
    json_decref(j);
    return rc;
}

/* ---- one point --------------------------------------------------------------------- */

int sw_point_scenario(const sweep *s, uint64_t i, cs_scenario **out, cs_error *err) {
    size_t nk = cs_design_nknobs(s->d);
    json_t **vals = cs_calloc(nk, sizeof *vals);
    cs_design_point(s->d, i, vals);
    cs_scenario *sc = cs_scenario_copy(s->base);
    int rc = CS_OK;
    cs_sc_batch_begin(sc); /* a point's knobs that go together (topology, npus_count) may come in any order */
    for (size_t k = 0; k < nk && rc == CS_OK; k++) {
        char where[300];
        snprintf(where, sizeof where, "%s (point %" PRIu64 ")", cs_design_path(s->d), i);
        rc = cs_scenario_set_json(sc, cs_design_knob(s->d, k), vals[k], where, err);
    }
    if (rc == CS_OK) rc = cs_sc_batch_end(sc, err);
    for (size_t k = 0; k < nk; k++) json_decref(vals[k]);
    cs_free(vals);
    if (rc) {
        cs_scenario_free(sc);
        return rc;
    }
    *out = sc;
    return CS_OK;
}

/* The id of a scenario: FNV-1a 64 of the version and the effective
 * scenario (compact, keys sorted). */
static int scenario_id(const cs_scenario *sc, uint64_t *id, cs_error *err) {
    json_t *j = cs_scenario_to_json(sc, err);
    if (!j) return err->code ? err->code : CS_EINVAL;
    char *txt = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    json_decref(j);
    const char *ver = clustersim_version();
    uint64_t h = fnv1a(0xcbf29ce484222325ull, "clustersim ", 11);
    h = fnv1a(h, ver, strlen(ver));
    h = fnv1a(h, "\n", 1);
    h = fnv1a(h, txt, strlen(txt));
    cs_json_free(txt); /* (jansson allocates through core/alloc.h) */
    *id = h;
    return CS_OK;
}

/* CPU time of this process and of its finished workers (user + system). */
static double cpu_all_s(void) {
    struct rusage a, b;
    getrusage(RUSAGE_SELF, &a);
    getrusage(RUSAGE_CHILDREN, &b);
    return (double)(a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec + b.ru_stime.tv_sec) +
           (double)(a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec + b.ru_stime.tv_usec) / 1e6;
}

static double wall_since(const struct timespec *a) {
    struct timespec b;
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (double)(b.tv_sec - a->tv_sec) + (double)(b.tv_nsec - a->tv_nsec) / 1e9;
}

/* A run's warnings: counted, the first kept (they go into its record, not
 * to the terminal: a sweep of 10,000 points would repeat them all). */
typedef struct warn_sink {
    unsigned long n;
    char first[512];
} warn_sink;

static void on_warning(int level, const char *msg, void *ud) {
    warn_sink *w = ud;
    if (level != CS_LOG_WARN) {
        fprintf(stderr, "clustersim: %s\n", msg);
        return;
    }
    if (!w->n++) snprintf(w->first, sizeof w->first, "%s", msg);
}

static char *make_line(uint64_t i, uint64_t id, const char *status, json_t *metrics, const char *error,
                       const warn_sink *ws, int mpi_rank, double wall, double cpu) {
    char ids[17];
    snprintf(ids, sizeof ids, "%016" PRIx64, id);
    json_t *o = json_object();
    json_object_set_new(o, "point", json_integer((json_int_t)i));
    json_object_set_new(o, "id", json_string(ids));
    json_object_set_new(o, "status", json_string(status));
    if (metrics) json_object_set(o, "metrics", metrics);
    if (error) json_object_set_new(o, "error", cs_json_string_lossy(error)); /* (may quote a trace's bytes) */
    if (ws && ws->n) {
        json_object_set_new(o, "warnings", json_integer((json_int_t)ws->n));
        json_object_set_new(o, "first_warning", cs_json_string_lossy(ws->first));
    }
    if (mpi_rank >= 0) json_object_set_new(o, "mpi_rank", json_integer(mpi_rank)); /* (the log only) */
    json_object_set_new(o, "wall_s", json_real(round(wall * 1e6) / 1e6));
    json_object_set_new(o, "cpu_s", json_real(round(cpu * 1e6) / 1e6));
    char *line = sw_json_text(o);
    json_decref(o);
    return line;
}

char *sw_failed_line(const sweep *s, uint64_t i, const char *why) {
    return make_line(i, s->ids[i], "error", NULL, why, NULL, s->mpi_rank, 0, 0);
}

char *sw_run_point(const sweep *s, uint64_t i) {
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double c0 = cs_host_cpu_s();
    cs_error err;
    cs_error_clear(&err);
    cs_scenario *sc = NULL;
    cs_result *r = NULL;
    warn_sink ws = {0, ""};
    cs_log_reset();
    cs_log_set_sink(on_warning, &ws);
    int rc = sw_point_scenario(s, i, &sc, &err);
    if (rc == CS_OK) {
        cs_run_hooks hooks;
        memset(&hooks, 0, sizeof hooks);
        hooks.no_collectives = 1;
        rc = cs_scenario_run_hooked(sc, &hooks, &r, &err);
    }
    json_t *m = rc == CS_OK ? cs_sweep_metrics(r) : NULL;
    ws.n = cs_log_warning_count(); /* (repeats of one shape are not passed to the sink) */
    char *line = make_line(i, s->ids[i], rc == CS_OK ? "ok" : "error", m,
                           rc == CS_OK ? NULL : (err.msg[0] ? err.msg : "the run failed"), &ws, s->mpi_rank, wall_since(&t0),
                           cs_host_cpu_s() - c0);
    cs_log_set_sink(NULL, NULL);
    json_decref(m);
    cs_result_free(r);
    cs_scenario_free(sc);
    return line;
}

/* ---- progress and recording ---------------------------------------------------------- */

int sw_stopping(const sweep *s) { return s->o->stop && *s->o->stop; }

static void progress(sweep *s, int force) {
    if (!s->o->progress) return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double since = (double)(now.tv_sec - s->last_progress.tv_sec) +
                   (double)(now.tv_nsec - s->last_progress.tv_nsec) / 1e9;
    if (!force && since < s->o->progress_ms / 1000.0) return;
    s->last_progress = now;
    double wall = wall_since(&s->t0);
    uint64_t done = s->ran, tot = s->todo_total;
    double rate = wall > 0 ? (double)done / wall : 0;
    char left[48] = "";
    if (done && done < tot) snprintf(left, sizeof left, ", about %.0f s left", (double)(tot - done) / rate);
    fprintf(stderr, "sweep: %" PRIu64 " of %" PRIu64 " points (%.1f %%), %" PRIu64 " failed, %.1f points/s%s\n", done,
            tot, tot ? 100.0 * (double)done / (double)tot : 100.0, s->failed, rate, left);
}

void sw_record(sweep *s, char *line) {
    uint64_t id;
    int ok;
    if (parse_line(line, &id, &ok) != 0) { /* cannot happen: our own line */
        cs_free(line);
        return;
    }
    if (s->log_fd >= 0) {
        size_t n = strlen(line);
        char *buf = cs_malloc(n + 1);
        memcpy(buf, line, n);
        buf[n] = '\n';
        /* one write per record (O_APPEND): a kill loses at most a torn last line */
        ssize_t w = write(s->log_fd, buf, n + 1);
        if (w != (ssize_t)(n + 1))
            fprintf(stderr, "sweep: warning: %s: could not append a result (%s); it will run again next time\n",
                    s->log_path, w < 0 ? strerror(errno) : "short write");
        cs_free(buf);
    }
    s->ran++;
    if (!ok) s->failed++;
    tab_put(s, id, line, ok);
    progress(s, 0);
}

/* ---- logs ------------------------------------------------------------------------------- */

static int is_log_name(const struct dirent *de) {
    const char *n = de->d_name;
    size_t l = strlen(n);
    return strncmp(n, "log", 3) == 0 && l >= 9 && strcmp(n + l - 6, ".jsonl") == 0;
}

/* Read every log in the output directory (a torn last line is skipped). */
static int read_logs(sweep *s, cs_error *err) {
    /* in name order: the same id in two logs resolves the same way every time
     * (alphasort; clustersim keeps the C locale) */
    struct dirent **names = NULL;
    int got = scandir(s->o->out_dir, &names, is_log_name, alphasort);
    if (got < 0) return CS_OK; /* nothing yet */
    size_t nn = (size_t)got;
    int rc = CS_OK;
    for (size_t k = 0; k < nn; k++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", s->o->out_dir, names[k]->d_name);
        FILE *f = fopen(path, "r");
        if (!f) {
            rc = CS_ERR(err, CS_EIO, "%s: cannot read the sweep log: %s", path, strerror(errno));
            break;
        }
        char *line = NULL;
        size_t cap = 0;
        ssize_t len;
        uint64_t lineno = 0, bad = 0, first_bad = 0;
        while ((len = getline(&line, &cap, f)) > 0) {
            lineno++;
            if (line[len - 1] != '\n') break; /* torn: the process was killed while writing it */
            line[len - 1] = '\0';
            uint64_t id;
            int ok;
            if (parse_line(line, &id, &ok) != 0) {
                if (!bad++) first_bad = lineno;
                continue;
            }
            if (!ok && s->o->retry_failed) continue;
            tab_put(s, id, cs_strdup(line), ok);
        }
        if (bad)
            fprintf(stderr,
                    "sweep: warning: %s:%" PRIu64 ": %" PRIu64 " line%s not a result record as a run writes it "
                    "(id, status ok with metrics or error with a reason); %s point%s will run again\n",
                    path, first_bad, bad, bad == 1 ? " is" : "s are", bad == 1 ? "its" : "their", bad == 1 ? "" : "s");
        free(line);
        fclose(f);
    }
    for (size_t k = 0; k < nn; k++) free(names[k]);
    free(names);
    return rc;
}

/* This invocation's log, locked against a second writer. */
static int open_log(sweep *s, cs_error *err) {
    const cs_sweep_options *o = s->o;
    if (o->nshards > 1)
        snprintf(s->log_path, sizeof s->log_path, "%s/log.shard-%u-of-%u.jsonl", o->out_dir, o->shard, o->nshards);
    else
        snprintf(s->log_path, sizeof s->log_path, "%s/log.jsonl", o->out_dir);
    s->log_fd = open(s->log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (s->log_fd < 0) return CS_ERR(err, CS_EIO, "%s: cannot open the sweep log: %s", s->log_path, strerror(errno));
    if (flock(s->log_fd, LOCK_EX | LOCK_NB) != 0)
        return CS_ERR(err, CS_EIO,
                      "%s: another sweep is writing this log; expected one sweep per output directory (or "
                      "--shard I/N for several)",
                      s->log_path);
    /* a torn last line (a kill during a write) gets its newline */
    struct stat st;
    if (fstat(s->log_fd, &st) == 0 && st.st_size > 0) {
        int fd = open(s->log_path, O_RDONLY | O_CLOEXEC);
        char c = '\n';
        if (fd >= 0) {
            if (pread(fd, &c, 1, st.st_size - 1) != 1) c = '\n';
            close(fd);
        }
        if (c != '\n' && write(s->log_fd, "\n", 1) != 1)
            return CS_ERR(err, CS_EIO, "%s: cannot append: %s", s->log_path, strerror(errno));
    }
    return CS_OK;
}

/* ---- results ------------------------------------------------------------------------------ */

static void csv_cell(FILE *f, const char *s) {
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_value(FILE *f, json_t *v) {
    if (!v) return;
    if (json_is_string(v)) {
        csv_cell(f, json_string_value(v));
        return;
    }
    char *t = sw_json_text(v);
    csv_cell(f, t);
    cs_free(t);
}

typedef struct merged {
    json_t **row;     /* per point: the logged record (parsed) or NULL */
    int *present;     /* metric columns present in some row */
    uint64_t done, ok;
} merged;

static void merge(const sweep *s, merged *m) {
    m->row = cs_calloc(s->n ? s->n : 1, sizeof *m->row);
    m->present = cs_calloc(CS_SWEEP_NMETRICS, sizeof *m->present);
    m->done = m->ok = 0;
    for (uint64_t i = 0; i < s->n; i++) {
        const sw_entry *e = tab_find(s, s->ids[i]);
        if (!e) continue;
        m->row[i] = json_loads(e->line, 0, NULL);
        if (!m->row[i]) continue;
        m->done++;
        if (e->ok) m->ok++;
        json_t *mt = json_object_get(m->row[i], "metrics");
        for (size_t k = 0; k < CS_SWEEP_NMETRICS; k++)
            if (json_object_get(mt, CS_SWEEP_METRICS[k].name)) m->present[k] = 1;
    }
}

static void merged_free(const sweep *s, merged *m) {
    for (uint64_t i = 0; i < s->n; i++) json_decref(m->row[i]);
    cs_free(m->row);
    cs_free(m->present);
}

static int write_results(const sweep *s, const merged *m, cs_error *err) {
    const cs_design *d = s->d;
    size_t nk = cs_design_nknobs(d);
    json_t **vals = cs_calloc(nk, sizeof *vals);
    char path[4200];
    cs_afile jl, csv;
    snprintf(path, sizeof path, "%s/results.jsonl", s->o->out_dir);
    int rc = cs_afile_open(&jl, path, err);
    snprintf(path, sizeof path, "%s/results.csv", s->o->out_dir);
    if (rc == CS_OK) {
        rc = cs_afile_open(&csv, path, err);
        if (rc) cs_afile_abort(&jl);
    }
    if (rc) {
        cs_free(vals);
        return rc;
    }
    fputs("point,id", csv.f);
    for (size_t k = 0; k < nk; k++) {
        fputc(',', csv.f);
        csv_cell(csv.f, cs_design_knob(d, k));
    }
    fputs(",status", csv.f);
    for (size_t k = 0; k < CS_SWEEP_NMETRICS; k++)
        if (m->present[k]) fprintf(csv.f, ",%s", CS_SWEEP_METRICS[k].name);
    fputs(",warnings,first_warning,error\n", csv.f);
    for (uint64_t i = 0; i < s->n; i++) {
        json_t *r = m->row[i];
        if (!r) continue;
        cs_design_point(d, i, vals);
        char ids[17];
        snprintf(ids, sizeof ids, "%016" PRIx64, s->ids[i]);
        json_t *knobs = json_object();
        for (size_t k = 0; k < nk; k++) json_object_set(knobs, cs_design_knob(d, k), vals[k]);
        json_t *o = json_object();
        json_object_set_new(o, "point", json_integer((json_int_t)i));
        json_object_set_new(o, "id", json_string(ids));
        json_object_set_new(o, "knobs", knobs);
        json_object_set(o, "status", json_object_get(r, "status"));
        json_t *mt = json_object_get(r, "metrics");
        if (mt) json_object_set(o, "metrics", mt);
        json_t *e = json_object_get(r, "error");
        if (e) json_object_set(o, "error", e);
        json_t *wn = json_object_get(r, "warnings"), *wf = json_object_get(r, "first_warning");
        if (wn) json_object_set(o, "warnings", wn);
        if (wf) json_object_set(o, "first_warning", wf);
        jtext(jl.f, o);
        fputc('\n', jl.f);
        json_decref(o);
        fprintf(csv.f, "%" PRIu64 ",%s", i, ids);
        for (size_t k = 0; k < nk; k++) {
            fputc(',', csv.f);
            csv_value(csv.f, vals[k]);
        }
        fputc(',', csv.f);
        csv_value(csv.f, json_object_get(r, "status"));
        for (size_t k = 0; k < CS_SWEEP_NMETRICS; k++)
            if (m->present[k]) {
                fputc(',', csv.f);
                csv_value(csv.f, json_object_get(mt, CS_SWEEP_METRICS[k].name));
            }
        fprintf(csv.f, ",%" JSON_INTEGER_FORMAT ",", wn ? json_integer_value(wn) : 0);
        csv_value(csv.f, wf);
        fputc(',', csv.f);
        csv_value(csv.f, e);
        fputc('\n', csv.f);
        for (size_t k = 0; k < nk; k++) json_decref(vals[k]);
    }
    cs_free(vals);
    rc = cs_afile_commit(&jl, err);
    if (rc == CS_OK) rc = cs_afile_commit(&csv, err);
    else cs_afile_abort(&csv);
    return rc;
}

/* summary.csv: per design point (its seeds), every numeric metric's count,
 * mean, min, max and 95 % confidence half-width over the seeds that ran ok. */
static int write_summary(const sweep *s, const merged *m, cs_error *err) {
    const cs_design *d = s->d;
    uint32_t ns = cs_design_seeds(d);
    size_t nk = cs_design_nknobs(d);
    char path[4200];
    snprintf(path, sizeof path, "%s/summary.csv", s->o->out_dir);
    cs_afile a;
    int rc = cs_afile_open(&a, path, err);
    if (rc) return rc;
    json_t **vals = cs_calloc(nk, sizeof *vals);
    fputs("design_point", a.f);
    for (size_t k = 0; k < nk; k++)
        if (!cs_design_knob_is_seed(d, k)) {
            fputc(',', a.f);
            csv_cell(a.f, cs_design_knob(d, k));
        }
    fputs(",seeds,seeds_ok", a.f);
    for (size_t k = 0; k < CS_SWEEP_NMETRICS; k++)
        if (m->present[k] && CS_SWEEP_METRICS[k].numeric) {
            const char *n = CS_SWEEP_METRICS[k].name;
            fprintf(a.f, ",%s_mean,%s_min,%s_max,%s_ci95", n, n, n, n);
        }
    fputc('\n', a.f);
    for (uint64_t g = 0; g < s->n / ns; g++) {
        uint64_t first = g * ns, ok = 0;
        for (uint64_t j = 0; j < ns; j++) {
            json_t *r = m->row[first + j];
            if (r && strcmp(json_string_value(json_object_get(r, "status")), "ok") == 0) ok++;
        }
        cs_design_point(d, first, vals);
        fprintf(a.f, "%" PRIu64, g);
        for (size_t k = 0; k < nk; k++) {
            if (!cs_design_knob_is_seed(d, k)) {
                fputc(',', a.f);
                csv_value(a.f, vals[k]);
            }
            json_decref(vals[k]);
        }
        fprintf(a.f, ",%u,%" PRIu64, ns, ok);
        for (size_t k = 0; k < CS_SWEEP_NMETRICS; k++) {
            if (!m->present[k] || !CS_SWEEP_METRICS[k].numeric) continue;
            cs_stats st;
            cs_stats_init(&st);
            for (uint64_t j = 0; j < ns; j++) {
                json_t *r = m->row[first + j];
                json_t *v = r ? json_object_get(json_object_get(r, "metrics"), CS_SWEEP_METRICS[k].name) : NULL;
                if (json_is_number(v)) cs_stats_add(&st, json_number_value(v));
            }
            if (!st.n) {
                fputs(",,,,", a.f);
                continue;
            }
            char b[4][64];
            cs_fmt_double(b[0], sizeof b[0], st.mean);
            cs_fmt_double(b[1], sizeof b[1], st.min);
            cs_fmt_double(b[2], sizeof b[2], st.max);
            cs_fmt_double(b[3], sizeof b[3], cs_stats_ci95(&st));
            fprintf(a.f, ",%s,%s,%s,%s", b[0], b[1], b[2], b[3]);
        }
        fputc('\n', a.f);
    }
    cs_free(vals);
    return cs_afile_commit(&a, err);
}

/* Objective c of row r (sign-adjusted to be minimized; NaN when absent):
 * the point's metric, or with seeds the mean over the design point's ok seeds. */
static double objective_value(const sweep *s, const merged *m, uint64_t g, const cs_objective *o) {
    uint32_t ns = cs_design_seeds(s->d);
    cs_stats st;
    cs_stats_init(&st);
    for (uint64_t j = 0; j < ns; j++) {
        json_t *r = m->row[g * ns + j];
        json_t *v = r ? json_object_get(json_object_get(r, "metrics"), CS_SWEEP_METRICS[o->metric].name) : NULL;
        if (r && strcmp(json_string_value(json_object_get(r, "status")), "ok") == 0 && json_is_number(v))
            cs_stats_add(&st, json_number_value(v));
    }
    if (!st.n) return NAN;
    return o->maximize ? -st.mean : st.mean;
}

/* pareto.csv: the design points no other beats in every objective, by the first objective. */
static int write_pareto(const sweep *s, const merged *m, size_t *nfront, cs_error *err) {
    char path[4200];
    snprintf(path, sizeof path, "%s/pareto.csv", s->o->out_dir);
    size_t k = s->o->npareto;
    if (!k) {
        if (unlink(path) != 0 && errno != ENOENT)
            return CS_ERR(err, CS_EIO, "%s: cannot remove the Pareto front an earlier sweep left: %s", path,
                          strerror(errno));
        return CS_OK;
    }
    uint32_t ns = cs_design_seeds(s->d);
    uint64_t ng = s->n / ns;
    double *v = cs_malloc((ng ? ng : 1) * k * sizeof *v);
    int *on = cs_malloc((ng ? ng : 1) * sizeof *on);
    for (size_t c = 0; c < k; c++) {
        uint64_t have = 0;
        for (uint64_t g = 0; g < ng; g++) {
            v[g * k + c] = objective_value(s, m, g, &s->o->pareto[c]);
            have += !isnan(v[g * k + c]);
        }
        if (!have && m->done)
            cs_warn("--pareto: no point that ran has the metric %s (docs/sweep.md says which runs have which); "
                    "the front is empty",
                    CS_SWEEP_METRICS[s->o->pareto[c].metric].name);
    }
    size_t nf = cs_pareto_front(v, ng, k, on);
    *nfront = nf;
    /* the front in order of the first objective (then of the point) */
    uint64_t *fr = cs_malloc((nf ? nf : 1) * sizeof *fr), n = 0;
    for (uint64_t g = 0; g < ng; g++) {
        if (!on[g]) continue;
        uint64_t p = n++;
        for (; p > 0 && v[fr[p - 1] * k] > v[g * k]; p--) fr[p] = fr[p - 1];
        fr[p] = g;
    }
    cs_afile a;
    int rc = cs_afile_open(&a, path, err);
    if (rc == CS_OK) {
        size_t nk = cs_design_nknobs(s->d);
        json_t **vals = cs_calloc(nk ? nk : 1, sizeof *vals);
        fputs(ns > 1 ? "design_point" : "point", a.f);
        for (size_t q = 0; q < nk; q++)
            if (!cs_design_knob_is_seed(s->d, q)) {
                fputc(',', a.f);
                csv_cell(a.f, cs_design_knob(s->d, q));
            }
        for (size_t c = 0; c < k; c++)
            fprintf(a.f, ",%s%s", CS_SWEEP_METRICS[s->o->pareto[c].metric].name, ns > 1 ? "_mean" : "");
        fputc('\n', a.f);
        for (uint64_t i = 0; i < n; i++) {
            uint64_t g = fr[i];
            cs_design_point(s->d, g * ns, vals);
            fprintf(a.f, "%" PRIu64, g);
            for (size_t q = 0; q < nk; q++) {
                if (!cs_design_knob_is_seed(s->d, q)) {
                    fputc(',', a.f);
                    csv_value(a.f, vals[q]);
                }
                json_decref(vals[q]);
            }
            for (size_t c = 0; c < k; c++) {
                char b[64];
                double x = v[g * k + c];
                cs_fmt_double(b, sizeof b, s->o->pareto[c].maximize ? -x : x);
                fprintf(a.f, ",%s", b);
            }
            fputc('\n', a.f);
        }
        cs_free(vals);
        rc = cs_afile_commit(&a, err);
    }
    cs_free(fr);
    cs_free(on);
    cs_free(v);
    return rc;
}

/* The end-of-sweep summary: counts, rate, and the best points. */
static void report(const sweep *s, const merged *m, double wall, double cpu, size_t nfront) {
    FILE *f = s->o->report;
    if (!f) return;
    fprintf(f, "clustersim sweep %s\n", cs_design_path(s->d));
    fprintf(f, "  points        %" PRIu64 " (%" PRIu64 " done: %" PRIu64 " ok, %" PRIu64 " failed)\n", s->n, m->done,
            m->ok, m->done - m->ok);
    fprintf(f, "  this run      %" PRIu64 " points in %.2f s wall, %.2f s CPU (%.1f points/s)\n", s->ran, wall, cpu,
            wall > 0 ? (double)s->ran / wall : 0.0);
    /* the five best ok points by the objective (time_ns unless --objective) */
    cs_objective obj = s->o->has_objective ? s->o->objective : (cs_objective){0, 0};
    char oname[96];
    cs_objective_name(&obj, oname, sizeof oname);
    uint64_t best[5];
    double bt[5];
    int nb = 0;
    for (uint64_t i = 0; i < s->n; i++) {
        json_t *r = m->row[i];
        json_t *t = r ? json_object_get(json_object_get(r, "metrics"), CS_SWEEP_METRICS[obj.metric].name) : NULL;
        if (!json_is_number(t)) continue;
        double x = obj.maximize ? -json_number_value(t) : json_number_value(t);
        if (nb == 5 && x >= bt[4]) continue; /* not among the five (ties: the earlier point) */
        int p = nb < 5 ? nb++ : 4;          /* insertion into the sorted five */
        for (; p > 0 && bt[p - 1] > x; p--) {
            bt[p] = bt[p - 1];
            best[p] = best[p - 1];
        }
        bt[p] = x;
        best[p] = i;
    }
    if (nb) fprintf(f, "  best by %s (value, knobs)\n", oname);
    size_t nk = cs_design_nknobs(s->d);
    json_t **vals = cs_calloc(nk, sizeof *vals);
    for (int b = 0; b < nb; b++) {
        char t[64];
        cs_fmt_double(t, sizeof t, obj.maximize ? -bt[b] : bt[b]);
        fprintf(f, "    point %-6" PRIu64 " %s  ", best[b], t);
        cs_design_point(s->d, best[b], vals);
        for (size_t k = 0; k < nk; k++) {
            char *v = sw_json_text(vals[k]);
            fprintf(f, "%s%s=%s", k ? " " : "", cs_design_knob(s->d, k), v);
            cs_free(v);
            json_decref(vals[k]);
        }
        fputc('\n', f);
    }
    cs_free(vals);
    fprintf(f, "  results       %s/results.csv, %s/results.jsonl%s%s%s\n", s->o->out_dir, s->o->out_dir,
            cs_design_seeds(s->d) > 1 ? ", " : "", cs_design_seeds(s->d) > 1 ? s->o->out_dir : "",
            cs_design_seeds(s->d) > 1 ? "/summary.csv" : "");
    if (s->o->npareto) {
        fprintf(f, "  pareto front  %zu %spoint%s on (", nfront, cs_design_seeds(s->d) > 1 ? "design " : "",
                nfront == 1 ? "" : "s");
        for (size_t c = 0; c < s->o->npareto; c++)
            fprintf(f, "%s%s", c ? ", " : "", cs_objective_name(&s->o->pareto[c], oname, sizeof oname));
        fprintf(f, "): %s/pareto.csv\n", s->o->out_dir);
    }
}

/* ---- the sweep ------------------------------------------------------------------------------ */

static void sweep_free(sweep *s) {
    for (size_t i = 0; i < s->tabcap; i++) cs_free(s->tab[i].line);
    cs_free(s->tab);
    cs_free(s->ids);
    if (s->log_fd >= 0) close(s->log_fd);
    cs_scenario_free(s->base);
    cs_design_free(s->d);
}

/* serve.* keys are read by `clustersim serve` alone: a sweep point runs one
 * step, so a design that varies them would give every point the same
 * result.  Refused, naming the key. */
static int inert_key(const char *spec, const char *key, cs_error *err) {
    if (strncmp(key, "serve.", 6) != 0) return CS_OK;
    return CS_ERR(err, CS_EINVAL,
                  "%s: %s: serve.* keys are read by clustersim serve only, and a sweep point simulates one step; "
                  "expected another key (a serving step: plan.phase=prefill|decode with plan.context-tokens)",
                  spec, key);
}

/* Design, base scenario, and every point's scenario checked and hashed. */
static int prepare(sweep *s, const char *spec, cs_error *err) {
    int rc = cs_design_load(spec, &s->d, err);
    if (rc) return rc;
    s->n = cs_design_points(s->d);
    s->base = cs_scenario_new();
    const char *base = cs_design_base(s->d);
    if (base) rc = cs_scenario_load_file(s->base, base, err);
    const char *k;
    json_t *v;
    char where[300];
    snprintf(where, sizeof where, "%s (set)", spec);
    cs_sc_batch_begin(s->base); /* the spec's fixed keys that go together, in any order */
    json_object_foreach(cs_design_fixed(s->d), k, v) {
        if (rc) break;
        rc = inert_key(spec, k, err);
        if (rc == CS_OK) rc = cs_scenario_set_json(s->base, k, v, where, err);
    }
    if (rc == CS_OK) rc = cs_sc_batch_end(s->base, err);
    for (size_t x = 0; x < cs_design_nknobs(s->d) && rc == CS_OK; x++) rc = inert_key(spec, cs_design_knob(s->d, x), err);
    if (rc) return rc;
    s->ids = cs_malloc((s->n ? s->n : 1) * sizeof *s->ids);
    for (uint64_t i = 0; i < s->n && rc == CS_OK; i++) {
        if ((i & 4095) == 4095) { /* about 80 us a point: a long design says so and can be stopped */
            if (sw_stopping(s))
                return CS_ERR(err, CS_EINTR, "sweep interrupted while checking the points (%" PRIu64 " of %" PRIu64
                              ")", i, s->n);
            if (s->o->progress && wall_since(&s->last_progress) >= s->o->progress_ms / 1000.0) {
                clock_gettime(CLOCK_MONOTONIC, &s->last_progress);
                fprintf(stderr, "sweep: checking the points: %" PRIu64 " of %" PRIu64 "\n", i, s->n);
            }
        }
        cs_scenario *sc;
        rc = sw_point_scenario(s, i, &sc, err);
        if (rc == CS_OK) {
            rc = scenario_id(sc, &s->ids[i], err);
            cs_scenario_free(sc);
        }
    }
    return rc;
}

static void list_points(const sweep *s) {
    FILE *f = s->o->report ? s->o->report : stdout;
    size_t nk = cs_design_nknobs(s->d);
    json_t **vals = cs_calloc(nk, sizeof *vals);
    fputs("point,id", f);
    for (size_t k = 0; k < nk; k++) fprintf(f, ",%s", cs_design_knob(s->d, k));
    fputc('\n', f);
    for (uint64_t i = 0; i < s->n; i++) {
        if (i % s->o->nshards != s->o->shard) continue;
        fprintf(f, "%" PRIu64 ",%016" PRIx64, i, s->ids[i]);
        cs_design_point(s->d, i, vals);
        for (size_t k = 0; k < nk; k++) {
            fputc(',', f);
            csv_value(f, vals[k]);
            json_decref(vals[k]);
        }
        fputc('\n', f);
    }
    cs_free(vals);
}

int cs_sweep(const char *spec, const cs_sweep_options *o, cs_error *err) {
    sweep s;
    memset(&s, 0, sizeof s);
    s.o = o;
    s.log_fd = -1;
    s.mpi_rank = -1;
    clock_gettime(CLOCK_MONOTONIC, &s.t0);
    s.last_progress = s.t0;
    double c0 = cpu_all_s();
    int mpi_rank = 0, mpi_size = 1;
    if (sw_mpi_launched()) {
        if (!sw_mpi_available())
            return CS_ERR(err, CS_EINVAL,
                          "clustersim sweep was started by mpiexec, but this clustersim was built without MPI; "
                          "expected a build with MPICH (apt-get install libmpich-dev, then rebuild), or run "
                          "without mpiexec and use -j N");
        int rc = sw_mpi_init(&mpi_rank, &mpi_size, err);
        if (rc) return rc;
        s.mpi_rank = mpi_rank;
    }
    int rc = prepare(&s, spec, err);
    if (rc == CS_OK && mpi_size > 1 && o->point_max_wall_s > 0)
        rc = CS_ERR(err, CS_EINVAL, "--point-max-wall: points run in the MPI ranks' own processes, which cannot be "
                                    "stopped one point at a time; expected it with -j workers, not under mpiexec");
    if (rc == CS_OK && mpi_size > 1 && mpi_rank > 0) { /* a worker rank: serve rank 0 and stop */
        rc = sw_mpi_worker(&s, err);
        sweep_free(&s);
        sw_mpi_finalize();
        return rc;
    }
    /* rank 0 stops the workers once; not when the spec failed: every rank
     * read it and failed alike */
    int released = mpi_size <= 1 || mpi_rank > 0 || rc != CS_OK;
    if (rc == CS_OK && o->list) list_points(&s);
    if (rc == CS_OK && !o->list) rc = cs_mkdir_p(o->out_dir, "--out", err);
    if (rc == CS_OK && o->report_html && !o->list) sw_report_remove(o->report_html); /* no stale page */
    if (rc == CS_OK && !o->merge_only && !o->list) rc = open_log(&s, err);
    if (rc == CS_OK && !o->list) rc = read_logs(&s, err);
    uint64_t *todo = NULL;
    size_t ntodo = 0;
    if (rc == CS_OK && !o->merge_only && !o->list) {
        todo = cs_malloc((s.n ? s.n : 1) * sizeof *todo);
        /* a point whose id repeats an earlier point's runs once (a set of
         * ids: open addressing, 0 marks a free slot, id 0 kept aside) */
        size_t cap = 16;
        while (cap < 2 * s.n) cap *= 2;
        uint64_t *seen = cs_calloc(cap, sizeof *seen);
        int seen0 = 0;
        for (uint64_t i = 0; i < s.n; i++) {
            uint64_t id = s.ids[i];
            if (i % o->nshards != o->shard || tab_find(&s, id)) continue;
            int dup = 0;
            if (id == 0) {
                dup = seen0;
                seen0 = 1;
            } else {
                size_t h = (size_t)id & (cap - 1);
                while (seen[h] && seen[h] != id) h = (h + 1) & (cap - 1);
                dup = seen[h] == id;
                seen[h] = id;
            }
            if (!dup) todo[ntodo++] = i;
        }
        cs_free(seen);
        s.todo_total = ntodo;
        if (ntodo && mpi_size > 1) {
            rc = sw_run_mpi(&s, todo, ntodo, err);
            released = 1;
        } else if (ntodo) {
            rc = sw_run_local(&s, todo, ntodo, err);
        }
        progress(&s, 1);
    }
    if (!released) { /* nothing to hand out, --list, --merge or an error: the worker ranks stop */
        cs_error e3;
        cs_error_clear(&e3);
        sw_run_mpi(&s, NULL, 0, &e3);
    }
    cs_free(todo);
    int stopped = rc == CS_EINTR && s.log_fd >= 0; /* stopped while running points */
    if ((rc == CS_OK && !o->list) || stopped) {
        merged m;
        merge(&s, &m);
        cs_error e2;
        cs_error_clear(&e2);
        int rc2 = write_results(&s, &m, &e2);
        if (rc2 == CS_OK && cs_design_seeds(s.d) > 1) rc2 = write_summary(&s, &m, &e2);
        size_t nfront = 0;
        if (rc2 == CS_OK) rc2 = write_pareto(&s, &m, &nfront, &e2);
        if (rc2 == CS_OK && o->report_html) rc2 = sw_write_report(&s, m.row, m.done, m.ok, &e2);
        if (rc2 && !stopped) {
            rc = rc2;
            *err = e2;
        }
        if (rc == CS_OK || stopped) report(&s, &m, wall_since(&s.t0), cpu_all_s() - c0, nfront);
        if (rc == CS_OK && m.done < s.n && o->report)
            fprintf(o->report, "  (%" PRIu64 " of %" PRIu64 " points have no result yet: %s)\n", s.n - m.done, s.n,
                    o->nshards > 1 ? "other shards write them; --merge gathers every shard's log" : "run again");
        /* results written, but not one point ran: a script must see it
         * (as `search` exits 1 when every plan is refused).  Judged on this
         * run's own points -- a shard's (--shard I/N: index % N = I, whatever
         * other shards have logged by then, so that the exit does not depend on
         * which shard ends first), every point otherwise (--merge too) */
        uint64_t mine = 0, mine_ok = 0;
        for (uint64_t i = 0; i < s.n && rc == CS_OK; i++) {
            if ((o->merge_only ? 0 : i % o->nshards) != (o->merge_only ? 0 : o->shard) || !m.row[i]) continue;
            mine++;
            const char *st = json_string_value(json_object_get(m.row[i], "status"));
            mine_ok += st && strcmp(st, "ok") == 0;
        }
        if (rc == CS_OK && mine > 0 && mine_ok == 0)
            rc = CS_ERR(err, CS_EINVAL,
                        "%s: every point with a result failed (%" PRIu64 " of %" PRIu64 "%s); %s/results.csv "
                        "gives each point's reason",
                        spec, mine, s.n, o->nshards > 1 && !o->merge_only ? ", this shard's" : "", o->out_dir);
        merged_free(&s, &m);
    }
    sweep_free(&s);
    if (mpi_size > 1) sw_mpi_finalize();
    return rc;
}
