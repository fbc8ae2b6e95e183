/*
 * fuzz_flag_strings.c -- libFuzzer target for the parsers of strings that
 * flags and keys give (no file): the pipeline layout (src/gen/layout.c:
 * cs_gen_layout_parse, plan.layout / --layout), the rank placement
 * (src/gen/plan.c: cs_gen_placement_parse, --placement / plan.placement),
 * rank lists and ranges (src/output/timeline.c: cs_rank_list_parse,
 * --trace-ranks; src/core/textutil.c: cs_parse_rank_range, which
 * run.slow-ranks and cluster placements use), the sweep's objectives
 * (src/sweep/pareto.c: cs_objectives_parse, --objective / --pareto),
 * collective implementation names (src/system/coll_algo.c:
 * cs_coll_impl_parse, the system file's *-implementation lists),
 * communicator group ids (src/system/comm_groups.c: cs_comm_group_parse_id),
 * the number readers every flag goes through (cs_parse_double,
 * cs_parse_ll), the stragglers' specs run.slow-ranks and run.slow-nics
 * (src/scenario/scenario_run.c: cs_sc_slow_ranks, read when a run starts)
 * and the packet backend's backend.packet.dwrr_weights
 * (src/network/packet.c: cs_packet_parse_weights, read when the backend is
 * created).  These parsers are also reached through fuzz_cli, but only
 * at its rate (~500/s) and only with the seeds' words; here each gets the
 * raw string.
 *
 * Input: one selector byte (which parser, modulo their count), one
 * parameter byte (the rank count of a rank list: 1 + 4 x byte; for the
 * stragglers' specs its low bit picks the key, run.slow-ranks or
 * run.slow-nics, and the rest the rank count, 1 + 4 x (byte >> 1); for the
 * DWRR weights the class count, 1 + byte % 8), then the string (up to its
 * first NUL).  Contracts checked besides the sanitizers:
 * a refusal returns CS_EINVAL in cs_error.code with a message naming the
 * field or flag first (plan.layout, --placement, the rank list's flag, the
 * objectives' flag); an accepted layout has 1 to CS_GEN_MAX_LAYOUT stages
 * and formats into a terminated string; an accepted placement is a
 * permutation of tp, dp, pp, cp; an accepted collective implementation
 * written out (cs_coll_impl_format) parses back to itself; an accepted rank list selects at least
 * one rank, all below the count; an accepted objective list has 1 to
 * CS_MAX_OBJECTIVES distinct metrics and its names parse back to the same
 * list; an accepted group id is at most its bound; an accepted stragglers'
 * spec gives every rank of the count a factor in (0, fmax] (1000 for
 * run.slow-ranks, 1 for run.slow-nics), names at least one rank, and every
 * rank it does not name keeps 1; accepted DWRR weights are one integer
 * 1..1000 per class, as many as the spec's comma-separated items.  A
 * refusal of those two names the key first (run.slow-ranks,
 * run.slow-nics, backend.packet.dwrr_weights).  Seeds:
 * fuzz/corpus/flag_strings/ (the docs' and tests' layouts, placements, rank
 * lists, objectives); dictionary: fuzz/dict/flag_strings.dict.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/opts.h"
#include "fuzz_common.h"
#include "gen/gen.h"
#include "network/packet.h"
#include "output/timeline.h"
#include "scenario/scenario_run.h"
#include "sweep/pareto.h"
#include "system/coll_algo.h"
#include "system/comm_groups.h"

#define MAX_TEXT 4096

static void check_refusal(int rc, const cs_error *err, const char *prefix) {
    fz_check(rc == CS_EINVAL && err->code == rc, "a refusal is CS_EINVAL in cs_error.code");
    if (strncmp(err->msg, prefix, strlen(prefix)) != 0) {
        fprintf(stderr, "fuzz_flag_strings: message: %s\n", err->msg);
        fz_check(0, "the message names the field or flag first");
    }
}

static void layout(const char *s) {
    cs_gen_plan p;
    memset(&p, 0, sizeof p);
    cs_gen_plan_defaults(&p);
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_gen_layout_parse(s, &p, &err);
    if (rc != CS_OK) {
        check_refusal(rc, &err, "plan.layout: ");
        return;
    }
    fz_check(p.nlayout >= 1 && p.nlayout <= CS_GEN_MAX_LAYOUT, "1 to CS_GEN_MAX_LAYOUT stages");
    char buf[256];
    cs_gen_layout_format(&p, buf, sizeof buf);
    fz_check(memchr(buf, '\0', sizeof buf) != NULL, "the layout's summary is terminated");
}

static void placement(const char *s) {
    cs_gen_plan p;
    memset(&p, 0, sizeof p);
    cs_gen_plan_defaults(&p);
    p.tp = 2;
    p.dp = 2;
    p.pp = 2;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_gen_placement_parse(s, &p, &err);
    if (rc != CS_OK) {
        check_refusal(rc, &err, "--placement ");
        return;
    }
    int seen = 0;
    for (int i = 0; i < CS_GEN_NDIMS; i++) {
        fz_check(p.order[i] < CS_GEN_NDIMS, "a placement names known dimensions");
        seen |= 1 << p.order[i];
    }
    fz_check(seen == (1 << CS_GEN_NDIMS) - 1, "a placement is a permutation of tp, dp, pp, cp");
    char buf[256];
    cs_gen_placement_format(&p, buf, sizeof buf);
    fz_check(memchr(buf, '\0', sizeof buf) != NULL, "the placement's summary is terminated");
}

static void rank_list(const char *s, uint32_t nranks) {
    uint8_t *sel = calloc(nranks, 1);
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_rank_list_parse(s, nranks, "--trace-ranks", sel, &err);
    if (rc != CS_OK) {
        check_refusal(rc, &err, "--trace-ranks ");
    } else {
        int any = 0;
        for (uint32_t r = 0; r < nranks; r++) any |= sel[r];
        fz_check(any, "an accepted rank list selects a rank");
    }
    free(sel);
    const char *end;
    unsigned long long a, b;
    if (cs_parse_rank_range(s, &end, &a, &b) == 0)
        fz_check(end > s && end <= s + strlen(s), "a rank range ends inside the text");
}

static void objectives(const char *s) {
    cs_objective o[CS_MAX_OBJECTIVES], o2[CS_MAX_OBJECTIVES];
    size_t n = 0, n2 = 0;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_objectives_parse(s, "--objective", o, &n, &err);
    if (rc != CS_OK) {
        check_refusal(rc, &err, "--objective");
        return;
    }
    fz_check(n >= 1 && n <= CS_MAX_OBJECTIVES, "1 to CS_MAX_OBJECTIVES objectives");
    char text[CS_MAX_OBJECTIVES * 100] = "";
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        char name[96];
        for (size_t j = 0; j < i; j++) fz_check(o[j].metric != o[i].metric, "no metric twice");
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s", i ? "," : "",
                                 cs_objective_name(&o[i], name, sizeof name));
    }
    cs_error_clear(&err);
    rc = cs_objectives_parse(text, "--objective", o2, &n2, &err);
    fz_check(rc == CS_OK && n2 == n, "the objectives' names parse back");
    for (size_t i = 0; i < n; i++)
        fz_check(o2[i].metric == o[i].metric && o2[i].maximize == o[i].maximize, "the same objectives");
}

static void coll_impl(const char *s) {
    cs_coll_impl c;
    if (cs_coll_impl_parse(s, &c) != 0) return;
    fz_check(c.algo != NULL, "an accepted implementation has an algorithm");
    char buf[CS_COLL_IMPL_TEXT_MAX + 128];
    cs_coll_impl_format(&c, buf, sizeof buf);
    cs_coll_impl c2;
    fz_check(cs_coll_impl_parse(buf, &c2) == 0, "an implementation as written parses back");
    fz_check(c2.algo == c.algo && c2.one == c.one && c2.param == c.param && strcmp(c2.text, c.text) == 0,
             "to the same implementation");
}

static void numbers(const char *s) {
    long long v;
    if (cs_comm_group_parse_id(s, (long long)UINT32_MAX, &v) == 0)
        fz_check(v >= 0 && v <= (long long)UINT32_MAX, "a group id is at most its bound");
    double d;
    (void)cs_parse_double(s, &d);
    (void)cs_parse_ll(s, &v);
}

/* run.slow-ranks / run.slow-nics (cs_sc_slow_ranks) for n ranks. */
static void slow_ranks(const char *s, int nics, uint32_t n) {
    const char *key = nics ? "run.slow-nics" : "run.slow-ranks";
    double fmax = nics ? 1 : 1000, *f = NULL;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_sc_slow_ranks(key, s, fmax, n, &f, &err);
    if (rc != CS_OK) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "%s ", key);
        check_refusal(rc, &err, prefix);
        fz_check(f == NULL, "a refused spec gives no factors");
        return;
    }
    fz_check(f != NULL, "an accepted spec gives a factor per rank");
    /* the ranks the spec names: each item's range, as text before its ':' */
    uint8_t *named = calloc(n, 1);
    size_t items = 0;
    for (const char *p = s; *p; items++) {
        const char *end;
        unsigned long long a, b;
        fz_check(cs_parse_rank_range(p, &end, &a, &b) == 0 && *end == ':' && a <= b && b < n,
                 "an accepted item starts with a range of ranks below the count");
        for (unsigned long long r = a; r <= b; r++) named[r] = 1;
        const char *comma = strchr(end, ',');
        p = comma ? comma + 1 : end + strlen(end);
    }
    fz_check(items >= 1, "an accepted spec names a rank");
    for (uint32_t r = 0; r < n; r++) {
        fz_check(f[r] > 0 && f[r] <= fmax, "every factor in (0, fmax]");
        fz_check(named[r] || f[r] == 1.0, "a rank the spec does not name keeps 1");
    }
    free(named);
    cs_free(f);
    cs_error_clear(&err);
    fz_check(cs_sc_slow_ranks(key, NULL, fmax, n, &f, &err) == CS_OK && f == NULL, "no spec, no factors");
}

/* backend.packet.dwrr_weights (cs_packet_parse_weights) for nclasses classes. */
static void dwrr_weights(const char *s, uint32_t nclasses) {
    uint32_t w[8];
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_packet_parse_weights(s, nclasses, w, &err);
    if (rc != CS_OK) {
        check_refusal(rc, &err, "backend.packet.dwrr_weights: ");
        return;
    }
    size_t items = 1;
    for (const char *p = s; *p; p++) items += *p == ',';
    fz_check(items == nclasses, "one weight per class, as many as the spec's items");
    for (uint32_t c = 0; c < nclasses; c++) fz_check(w[c] >= 1 && w[c] <= 1000, "a weight is 1..1000");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_init("fuzz_flag_strings");
    if (size < 2 || size - 2 > MAX_TEXT) return -1;
    char text[MAX_TEXT + 1];
    memcpy(text, data + 2, size - 2);
    text[size - 2] = '\0'; /* up to the first NUL, as argv gives it */
    uint32_t nranks = 1 + 4u * data[1];
    switch (data[0] % 7) {
    case 0: layout(text); break;
    case 1: placement(text); break;
    case 2: rank_list(text, nranks); break;
    case 3: objectives(text); break;
    case 5: slow_ranks(text, data[1] & 1, 1 + 4u * (data[1] >> 1)); break;
    case 6: dwrr_weights(text, 1 + data[1] % 8u); break;
    default:
        coll_impl(text);
        numbers(text);
        break;
    }
    return 0;
}
