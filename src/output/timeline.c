/*
 * timeline.c -- streaming Chrome/Perfetto trace writer (see timeline.h).
 *
 * Process and thread names are emitted the first time a (rank, lane) is used,
 * tracked in one byte-mask per rank (lanes 1..3 and a "recv lanes named"
 * watermark), so a million-rank run with a timeline costs a few MB of state.
 * The file is written in place; while it is open it is registered as
 * unfinished (core/afile.h), so an exit in the middle (out of memory)
 * removes it.
 */
#include "output/timeline.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/afile.h"
#include "core/alloc.h"
#include "output/jsonw.h"

struct cs_timeline {
    FILE *f;
    char *path;
    char *tmp; /* written as path.tmp.PID, renamed to path when closed (never half a file under path) */
    uint32_t nranks;
    uint8_t *named;      /* bit0 process, bit1..3 lanes 1..3 */
    uint8_t *recv_named; /* number of recv lanes named so far (0..65) */
    uint64_t events;
    int first;
    uint8_t *selected;   /* NULL = every rank; else 1 per rank kept */
    uint64_t limit;      /* bytes; 0 = none */
    int truncated;
    cs_time truncated_at;
};

/* Past the size limit: no more events (checked before each one). */
static int full(cs_timeline *t, cs_time at) {
    if (t->truncated) return 1;
    if (!t->limit) return 0;
    long pos = ftell(t->f);
    if (pos < 0 || (uint64_t)pos < t->limit) return 0;
    t->truncated = 1;
    t->truncated_at = at;
    return 1;
}

int cs_timeline_select_ranks(cs_timeline *t, const char *spec, const char *flag, cs_error *err) {
    if (!t->selected) t->selected = cs_calloc(t->nranks ? t->nranks : 1, 1);
    return cs_rank_list_parse(spec, t->nranks, flag, t->selected, err);
}

int cs_rank_list_parse(const char *spec, uint32_t nranks, const char *flag, uint8_t *selected, cs_error *err) {
    const char *p = spec;
    int any = 0;
    while (*p) {
        const char *end;
        unsigned long long a, b;
        if (cs_parse_rank_range(p, &end, &a, &b)) goto bad;
        if (*end && *end != ',') goto bad;
        if (b < a)
            return CS_ERR(err, CS_EINVAL, "%s %s: range %llu-%llu ends before it starts; expected FIRST-LAST with "
                          "FIRST <= LAST", flag, spec, a, b);
        if (b >= nranks)
            return CS_ERR(err, CS_EINVAL, "%s %s: rank %llu is out of range; expected ranks 0 to %u", flag, spec, b,
                          nranks ? nranks - 1 : 0);
        for (unsigned long long r = a; r <= b; r++) selected[r] = 1;
        any = 1;
        p = *end ? end + 1 : end;
        if (*end && !*p) goto bad;
    }
    if (!any) goto bad;
    return CS_OK;
bad:
    return CS_ERR(err, CS_EINVAL, "%s '%s': expected a comma-separated list of ranks and ranges, e.g. 0-7,64", flag,
                  spec);
}

void cs_timeline_set_limit(cs_timeline *t, uint64_t limit_bytes) { t->limit = limit_bytes; }

int cs_timeline_truncated(const cs_timeline *t, cs_time *at) {
    if (at) *at = t->truncated_at;
    return t->truncated;
}

int cs_timeline_open(const char *path, uint32_t nranks, cs_timeline **out, cs_error *err) {
    cs_timeline *t = cs_calloc(1, sizeof *t); /* (everything before the file exists) */
    t->path = cs_strdup(path);
    t->nranks = nranks;
    t->named = cs_calloc(nranks ? nranks : 1, 1);
    t->recv_named = cs_calloc(nranks ? nranks : 1, 1);
    t->first = 1;
    int rc0 = cs_output_check(path, err); /* never over an input (core/afile.h) */
    size_t tl = strlen(path) + 32;
    t->tmp = cs_malloc(tl);
    snprintf(t->tmp, tl, "%s.tmp.%ld", path, (long)getpid());
    if (cs_output_is_device(path)) snprintf(t->tmp, tl, "%s", path); /* /dev/stdout: in place, never renamed over */
    FILE *f = rc0 ? NULL : fopen(t->tmp, "w");
    if (!f) {
        int e = errno;
        cs_free(t->named);
        cs_free(t->recv_named);
        cs_free(t->path);
        cs_free(t->tmp);
        cs_free(t);
        return rc0 ? rc0 : CS_ERR(err, CS_EIO, "%s: cannot write the timeline: %s", path, strerror(e));
    }
    t->f = f;
    if (strcmp(t->tmp, path) != 0) cs_afile_pending_add(t->tmp);
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"clustersim\",\"time_unit\":"
          "\"ts and dur are microseconds\"},\"traceEvents\":[\n",
          f);
    *out = t;
    return CS_OK;
}

static void sep(cs_timeline *t) {
    if (!t->first) fputs(",\n", t->f);
    t->first = 0;
}

static void name_thread(cs_timeline *t, uint32_t rank, uint32_t lane) {
    char name[32];
    switch (lane) {
    case CS_LANE_COMPUTE: snprintf(name, sizeof name, "GPU compute"); break;
    case CS_LANE_CPU: snprintf(name, sizeof name, "CPU"); break;
    case CS_LANE_COMM: snprintf(name, sizeof name, "communication"); break;
    default:
        if (lane >= CS_LANE_RECV0 + 64)
            snprintf(name, sizeof name, "recv (overflow)");
        else
            snprintf(name, sizeof name, "recv %u", lane - CS_LANE_RECV0);
    }
    sep(t);
    fprintf(t->f,
            "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"%s\"}},\n"
            "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"sort_index\":%u}}",
            rank, lane, name, rank, lane, lane);
}

static void ensure_named(cs_timeline *t, uint32_t rank, uint32_t lane) {
    if (rank >= t->nranks) return;
    if (!(t->named[rank] & 1)) {
        t->named[rank] |= 1;
        sep(t);
        fprintf(t->f,
                "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"name\":\"rank %u\"}},\n"
                "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"sort_index\":%u}}",
                rank, rank, rank, rank);
    }
    if (lane >= 1 && lane <= 3) {
        if (!(t->named[rank] & (1u << lane))) {
            t->named[rank] |= (uint8_t)(1u << lane);
            name_thread(t, rank, lane);
        }
    } else if (lane >= CS_LANE_RECV0) {
        uint32_t k = lane - CS_LANE_RECV0 + 1; /* 1..65 */
        while (t->recv_named[rank] < k) {
            name_thread(t, rank, CS_LANE_RECV0 + t->recv_named[rank]);
            t->recv_named[rank]++;
        }
    }
}

static const char *category(const cs_node *n) {
    switch (n->type) {
    case CS_NODE_COMP: return (n->flags & CS_NF_CPU) ? "cpu" : "compute";
    case CS_NODE_COMM_COLL: return "collective";
    case CS_NODE_COMM_SEND: return "send";
    case CS_NODE_COMM_RECV: return "recv";
    case CS_NODE_MEM_LOAD:
    case CS_NODE_MEM_STORE: return "memory";
    default: return "other";
    }
}

void cs_timeline_node_done(void *ud, const cs_node_span *sp) {
    cs_timeline *t = ud;
    if (t->selected && (sp->rank >= t->nranks || !t->selected[sp->rank])) return;
    if (full(t, sp->start)) return;
    const cs_node *n = sp->node;
    uint32_t lane = sp->lane ? sp->lane : CS_LANE_COMPUTE;
    ensure_named(t, sp->rank, lane);
    const char *name = cs_graph_node_name(sp->graph, n);
    char fallback[64];
    if (!name[0]) {
        if (n->type == CS_NODE_COMM_COLL)
            snprintf(fallback, sizeof fallback, "%s", cs_coll_type_label(n->comm_type));
        else
            snprintf(fallback, sizeof fallback, "%s", cs_node_type_label(n->type));
        name = fallback;
    }
    sep(t);
    fputs("{\"name\":", t->f);
    cs_jsonw_string(t->f, name);
    fprintf(t->f, ",\"cat\":\"%s\",\"ph\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":", category(n),
            sp->lane ? "X" : "i", sp->rank, lane);
    cs_jsonw_us(t->f, sp->start);
    if (sp->lane) {
        fputs(",\"dur\":", t->f);
        cs_jsonw_us(t->f, sp->end - sp->start);
    } else {
        fputs(",\"s\":\"t\"", t->f);
    }
    fprintf(t->f, ",\"args\":{\"node_id\":%" PRIu64 ",\"type\":\"%s\"", n->id, cs_node_type_label(n->type));
    switch (n->type) {
    case CS_NODE_COMM_COLL:
        fprintf(t->f, ",\"collective\":\"%s\",\"bytes\":%" PRIu64, cs_coll_type_label(n->comm_type),
                n->comm_size);
        break;
    case CS_NODE_COMM_SEND:
        fprintf(t->f, ",\"bytes\":%" PRIu64 ",\"to_rank\":%d,\"tag\":%d", n->comm_size, sp->peer, n->comm_tag);
        break;
    case CS_NODE_COMM_RECV:
        fprintf(t->f, ",\"bytes\":%" PRIu64 ",\"from_rank\":%d,\"tag\":%d", n->comm_size, sp->peer,
                n->comm_tag);
        break;
    case CS_NODE_MEM_LOAD:
    case CS_NODE_MEM_STORE: fprintf(t->f, ",\"bytes\":%" PRIu64, n->tensor_size); break;
    case CS_NODE_COMP:
        if (n->flags & CS_NF_DURATION_NS) /* a text workload's column: ns */
            fprintf(t->f, ",\"compute_ns\":%" PRIu64, n->duration_us);
        else
            fprintf(t->f, ",\"duration_micros\":%" PRIu64, n->duration_us);
        if (n->flags & CS_NF_HAS_NUM_OPS) fprintf(t->f, ",\"num_ops\":%" PRIu64, n->num_ops);
        break;
    default: break;
    }
    fputs(",\"duration_ns\":", t->f);
    cs_jsonw_ns(t->f, sp->end - sp->start);
    fputs("}}", t->f);
    t->events++;
}

void cs_timeline_counter(cs_timeline *t, uint32_t pid, const char *process, const char *name, cs_time ts,
                         double value) {
    if (full(t, ts)) return;
    sep(t);
    if (process) {
        fprintf(t->f,
                "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"name\":\"%s\"}},\n"
                "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"sort_index\":%u}},\n",
                pid, process, pid, pid);
    }
    fprintf(t->f, "{\"name\":\"%s\",\"ph\":\"C\",\"pid\":%u,\"ts\":", name, pid);
    cs_jsonw_us(t->f, ts);
    fprintf(t->f, ",\"args\":{\"%s\":%.6f}}", name, value); /* the series is the counter's own name */
    t->events++;
}

void cs_timeline_mark_partial(cs_timeline *t, const char *reason) {
    if (!t) return;
    sep(t);
    fputs("{\"name\":\"partial timeline\",\"ph\":\"M\",\"pid\":0,\"args\":{\"partial\":true,\"reason\":", t->f);
    cs_jsonw_string(t->f, reason ? reason : "");
    fputs("}}", t->f);
}

int cs_timeline_close(cs_timeline *t, cs_error *err) {
    if (!t) return CS_OK;
    if (t->truncated) {
        char at[32], msg[160];
        snprintf(msg, sizeof msg, "size limit of %" PRIu64 " bytes reached at simulated time %s", t->limit,
                 cs_time_fmt(t->truncated_at, at, sizeof at));
        sep(t);
        fputs("{\"name\":\"truncated timeline\",\"ph\":\"M\",\"pid\":0,\"args\":{\"truncated\":true,\"reason\":", t->f);
        cs_jsonw_string(t->f, msg);
        fputs("}}", t->f);
    }
    fputs("\n]}\n", t->f);
    int bad = ferror(t->f);
    int rc = fclose(t->f);
    int ret = CS_OK;
    if (bad || rc != 0) ret = CS_ERR(err, CS_EIO, "%s: error writing the timeline: %s", t->path, strerror(errno));
    if (ret == CS_OK) ret = cs_output_check(t->path, err); /* an input read since the open */
    int inplace = strcmp(t->tmp, t->path) == 0;
    if (ret == CS_OK && !inplace && rename(t->tmp, t->path) != 0)
        ret = CS_ERR(err, CS_EIO, "%s: cannot write the timeline: %s", t->path, strerror(errno));
    if (ret && !inplace) remove(t->tmp);
    cs_afile_pending_del(t->tmp);
    cs_free(t->tmp);
    cs_free(t->named);
    cs_free(t->recv_named);
    cs_free(t->selected);
    cs_free(t->path);
    cs_free(t);
    return ret;
}

uint64_t cs_timeline_events(const cs_timeline *t) { return t->events; }
