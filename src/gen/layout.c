/*
 * layout.c -- which decoder layers each virtual pipeline stage holds: the
 * default split (ceil(L / V) layers per virtual stage, the deficit taken
 * from the last, the first, the second-last, ...: Llama 3's 7 + 14 x 8 + 7)
 * or an explicit plan.layout in the syntax of Megatron-LM's
 * --pipeline-model-parallel-layout ("Et*3|(tt|)*29,m|L": E embedding, t
 * decoder layer, L output layer and loss, | between stages listed virtual
 * pipeline rank 0's stages first, t*3 and (...)*N repeats, commas
 * cosmetic; Megatron-Core's PipelineParallelLayerLayout).  MTP layers (m)
 * are not modelled and refused.  The parser expands the string into a
 * bounded buffer (nested repeats cannot make it grow past
 * LAYOUT_MAX_CHARS) and counts the layers of each stage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "gen/gen_int.h"

#define LAYOUT_MAX_CHARS (1u << 20) /* expanded layout, characters */
#define LAYOUT_MAX_DEPTH 8          /* nested parentheses */

typedef struct sbuf {
    char *s;
    size_t n, cap;
} sbuf;

static void sb_put(sbuf *b, const char *x, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t c = b->cap ? b->cap : 64;
        while (c < b->n + n + 1) c *= 2;
        b->s = cs_realloc(b->s, c);
        b->cap = c;
    }
    memcpy(b->s + b->n, x, n);
    b->n += n;
    b->s[b->n] = 0;
}

/* "*N" after an item at s[*i] (N >= 1), else 1. */
static int repeat_count(const char *s, size_t *i, uint64_t *n, cs_error *err) {
    *n = 1;
    if (s[*i] != '*') return CS_OK;
    size_t at = ++*i;
    uint64_t v = 0;
    while (s[*i] >= '0' && s[*i] <= '9') {
        v = v * 10 + (uint64_t)(s[*i] - '0');
        if (v > LAYOUT_MAX_CHARS)
            return CS_ERR(err, CS_EINVAL, "plan.layout: repeat count at character %zu: expected at most %u", at + 1,
                          LAYOUT_MAX_CHARS);
        ++*i;
    }
    if (*i == at || v == 0)
        return CS_ERR(err, CS_EINVAL, "plan.layout: character %zu: expected a repeat count >= 1 after '*'", at);
    *n = v;
    return CS_OK;
}

/* The items of s from *i up to a ')' or the end, expanded into out. */
static int expand(const char *s, size_t *i, sbuf *out, int depth, cs_error *err) {
    int rc = CS_OK;
    while (rc == CS_OK && s[*i] && s[*i] != ')') {
        char c = s[*i];
        if (c == ',' || c == ' ') {
            ++*i;
            continue;
        }
        sbuf item = {0};
        size_t at = *i;
        if (c == '(') {
            if (depth >= LAYOUT_MAX_DEPTH)
                rc = CS_ERR(err, CS_EINVAL, "plan.layout: character %zu: expected at most %d nested parentheses",
                            at + 1, LAYOUT_MAX_DEPTH);
            ++*i;
            if (rc == CS_OK) rc = expand(s, i, &item, depth + 1, err);
            if (rc == CS_OK && s[*i] != ')')
                rc = CS_ERR(err, CS_EINVAL, "plan.layout: the '(' at character %zu: expected a closing ')'", at + 1);
            if (rc == CS_OK) ++*i;
        } else if (c == 'E' || c == 't' || c == 'L' || c == 'm' || c == '|') {
            sb_put(&item, &c, 1);
            ++*i;
        } else { /* a byte that does not print (a control, part of a UTF-8 character) as \xHH */
            char shown[8];
            unsigned char u = (unsigned char)c;
            snprintf(shown, sizeof shown, u >= 0x20 && u < 0x7f ? "'%c'" : "'\\x%02x'", u);
            rc = CS_ERR(err, CS_EINVAL, "plan.layout: character %zu %s: expected E (embedding), t (decoder layer), "
                        "L (output layer and loss), | (next stage), (...), *N or a comma", at + 1, shown);
        }
        uint64_t n = 1;
        if (rc == CS_OK) rc = repeat_count(s, i, &n, err);
        if (rc == CS_OK && out->n + (uint64_t)item.n * n > LAYOUT_MAX_CHARS)
            rc = CS_ERR(err, CS_EINVAL, "plan.layout: expands to more than %u characters", LAYOUT_MAX_CHARS);
        for (uint64_t k = 0; rc == CS_OK && k < n; k++) sb_put(out, item.s ? item.s : "", item.n);
        cs_free(item.s);
    }
    return rc;
}

int cs_gen_layout_parse(const char *s, cs_gen_plan *p, cs_error *err) {
    sbuf x = {0};
    size_t i = 0;
    int rc = expand(s, &i, &x, 0, err);
    if (rc == CS_OK && s[i] == ')')
        rc = CS_ERR(err, CS_EINVAL, "plan.layout: character %zu ')': expected a '(' before it", i + 1);
    uint32_t n = 0, ne = 0, nl = 0;
    if (rc == CS_OK) p->layout[0] = 0;
    for (size_t k = 0; rc == CS_OK && k < x.n; k++) {
        char c = x.s[k];
        if (c == '|') {
            if (++n >= CS_GEN_MAX_LAYOUT)
                rc = CS_ERR(err, CS_EINVAL, "plan.layout: expected at most %u stages", CS_GEN_MAX_LAYOUT);
            else p->layout[n] = 0;
        } else if (c == 't') {
            if (nl) rc = CS_ERR(err, CS_EINVAL, "plan.layout: a decoder layer (t) after L: expected L to close the "
                                "last stage");
            else p->layout[n]++;
        } else if (c == 'E') {
            if (ne++ || n > 0 || k > 0)
                rc = CS_ERR(err, CS_EINVAL, "plan.layout: expected one E (embedding), opening the first stage");
        } else if (c == 'L') {
            if (nl++) rc = CS_ERR(err, CS_EINVAL, "plan.layout: expected one L (output layer and loss)");
        } else if (c == 'm') {
            rc = CS_ERR(err, CS_EINVAL, "plan.layout: m (multi-token prediction layer) is not modelled; expected E, "
                        "t and L only");
        }
    }
    if (rc == CS_OK && !ne) rc = CS_ERR(err, CS_EINVAL, "plan.layout: expected E (embedding) opening the first stage");
    if (rc == CS_OK && (!nl || x.s[x.n - 1] != 'L'))
        rc = CS_ERR(err, CS_EINVAL, "plan.layout: expected L (output layer and loss) closing the last stage");
    if (rc == CS_OK) p->nlayout = n + 1;
    cs_free(x.s);
    return rc;
}

/* The default split of `layers` over V virtual stages: ceil(layers / V)
 * each but for the deficit, taken one layer each from the last, the first,
 * the second-last, ... */
static uint32_t default_layers(uint32_t layers, uint32_t V, uint32_t k, uint32_t *first) {
    uint32_t q = (layers + V - 1) / V, deficit = V * q - layers;
    uint32_t lo = 0, n = 0;
    for (uint32_t j = 0; j <= k; j++) {
        uint32_t e = j < V - 1 - j ? j : V - 1 - j;         /* distance from the nearer end */
        uint32_t order = 2 * e + (j < V - 1 - j ? 1u : 0u); /* last, first, second-last, ... */
        lo += n;
        n = q - (order < deficit ? 1u : 0u);
    }
    if (first) *first = lo;
    return n;
}

uint32_t cs_gen_vstage_layers(uint32_t layers, const cs_gen_plan *p, uint32_t vs, uint32_t *first) {
    if (!p->nlayout) return default_layers(layers, p->pp * cs_gen_vst(p), vs, first);
    if (first) {
        uint32_t lo = 0;
        for (uint32_t j = 0; j < vs; j++) lo += p->layout[j];
        *first = lo;
    }
    return p->layout[vs];
}

void cs_gen_layout_format(const cs_gen_plan *p, char *buf, size_t len) {
    size_t at = 0;
    buf[0] = 0;
    for (uint32_t j = 0; j < p->nlayout && at < len;) {
        uint32_t k = j + 1;
        while (k < p->nlayout && p->layout[k] == p->layout[j] && k != p->nlayout - 1) k++;
        if (j == p->nlayout - 1 && j > 0) k = j + 1;
        char item[48];
        if (j == 0) snprintf(item, sizeof item, "E+%u%s", p->layout[0], p->nlayout == 1 ? "+L" : "");
        else if (j == p->nlayout - 1) snprintf(item, sizeof item, "%u+L", p->layout[j]);
        else if (k - j > 1) snprintf(item, sizeof item, "%u x %u", k - j, p->layout[j]);
        else snprintf(item, sizeof item, "%u", p->layout[j]);
        at += (size_t)snprintf(buf + at, len - at, "%s%s", j ? ", " : "", item);
        j = j == 0 ? 1 : k;
    }
}
