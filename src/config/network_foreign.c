/*
 * network_foreign.c -- recognise ASTRA-sim's ns-3 / HTSim network files and
 * misplaced system files given as the network configuration (see
 * network_foreign.h).
 *
 * The tests are on content, line by line, and deliberately narrow: a line
 * "KEY value" whose KEY is one of ns-3's config.txt keys (astra-network-ns3,
 * scratch/config/config_doc.txt); a first line of three integers followed by
 * a line "a b <rate>bps <delay>s <error>" (ns-3's topology files,
 * the files in scratch/topology); lines "Nodes N" and "Tiers N" (HTSim's .topo,
 * astra-sim examples/network/htsim/8nodes.topo).  A YAML network file has
 * none of these shapes (its keys end in ':').
 */
#include "config/network_foreign.h"

#include <ctype.h>
#include <string.h>

static const char USE_INSTEAD[] =
    "clustersim has no ns-3 backend: give the dimensions as ASTRA-sim's analytical network YAML "
    "(topology, npus_count, bandwidth, latency; docs/config.md) and, for a packet-level network, "
    "--backend packet (or flow) with the physical network as --topology FILE (docs/topology.md: "
    "the \"edges\" builder takes an ns-3 topology's links as [a, b, GB/s, ns])";

/* The ns-3 frontend's config.txt keys (a selection every config has). */
static const char *const NS3_KEYS[] = {
    "ENABLE_QCN",       "USE_DYNAMIC_PFC_THRESHOLD", "PACKET_PAYLOAD_SIZE", "TOPOLOGY_FILE",  "FLOW_FILE",
    "TRACE_FILE",       "TRACE_OUTPUT_FILE",         "FCT_OUTPUT_FILE",     "PFC_OUTPUT_FILE", "SIMULATOR_STOP_TIME",
    "CC_MODE",          "ALPHA_RESUME_INTERVAL",     "RATE_DECREASE_INTERVAL", "RP_TIMER",   "EWMA_GAIN",
    "RATE_AI",          "RATE_HAI",                  "MIN_RATE",            "ERROR_RATE_PER_LINK", "L2_CHUNK_SIZE",
    "HAS_WIN",          "U_TARGET",                  "KMAX_MAP",            "KMIN_MAP",       "PMAX_MAP",
    "BUFFER_SIZE",      "LINK_DOWN",                 "QLEN_MON_FILE",       "ENABLE_TRACE",   "NIC_TOTAL_PAUSE_TIME",
};

typedef struct line_it {
    const char *p, *end;
    int no; /* 1-based number of the line last returned */
} line_it;

/* Next line [*b, *e) without its newline; 0 at the end. */
static int next_line(line_it *it, const char **b, const char **e) {
    if (it->p >= it->end) return 0;
    *b = it->p;
    const char *nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
    *e = nl ? nl : it->end;
    it->p = nl ? nl + 1 : it->end;
    it->no++;
    if (*e > *b && (*e)[-1] == '\r') (*e)--;
    return 1;
}

/* Whitespace-separated tokens of [b, e): up to max, as (start, length). */
static int tokens(const char *b, const char *e, const char **tok, size_t *tlen, int max) {
    int n = 0;
    while (b < e && n < max) {
        while (b < e && (*b == ' ' || *b == '\t')) b++;
        if (b >= e) break;
        const char *s = b;
        while (b < e && *b != ' ' && *b != '\t') b++;
        tok[n] = s;
        tlen[n++] = (size_t)(b - s);
    }
    return n;
}

static int is_uint(const char *s, size_t n) {
    if (!n || n > 10) return 0;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i])) return 0;
    return 1;
}

static int ends_with(const char *s, size_t n, const char *sfx) {
    size_t k = strlen(sfx);
    return n > k && strncmp(s + n - k, sfx, k) == 0;
}

static int tok_is(const char *s, size_t n, const char *word) { return strlen(word) == n && strncmp(s, word, n) == 0; }

int cs_network_foreign_text(const char *path, const char *buf, size_t len, cs_error *err) {
    line_it it = {buf, buf + len, 0};
    const char *b, *e;
    int first_ints = 0, nodes_line = 0, tiers_line = 0, seen = 0;
    while (next_line(&it, &b, &e)) {
        const char *tok[6];
        size_t tl[6];
        int n = tokens(b, e, tok, tl, 6);
        if (n == 0 || tok[0][0] == '#') continue;
        seen++;
        if (n >= 2)
            for (size_t k = 0; k < sizeof NS3_KEYS / sizeof *NS3_KEYS; k++)
                if (tok_is(tok[0], tl[0], NS3_KEYS[k]))
                    return CS_ERR(err, CS_EINVAL,
                                  "%s:%d: %s: this is an ns-3 network configuration (the config.txt of ASTRA-sim's "
                                  "ns-3 backend, ns3.42-AstraSimNetwork-default --network-configuration), not a "
                                  "network file clustersim reads; expected ASTRA-sim's analytical network YAML. %s",
                                  path, it.no, NS3_KEYS[k], USE_INSTEAD);
        if (seen == 1 && n == 3 && is_uint(tok[0], tl[0]) && is_uint(tok[1], tl[1]) && is_uint(tok[2], tl[2]))
            first_ints = it.no;
        if (first_ints && n == 5 && is_uint(tok[0], tl[0]) && is_uint(tok[1], tl[1]) && ends_with(tok[2], tl[2], "bps") &&
            ends_with(tok[3], tl[3], "s"))
            return CS_ERR(err, CS_EINVAL,
                          "%s:%d: this is an ns-3 topology file (line %d: nodes, switches and links counts; line %d: "
                          "a link \"%.*s %.*s %.*s %.*s ...\"), which ASTRA-sim's ns-3 backend reads through its "
                          "config.txt's TOPOLOGY_FILE; expected ASTRA-sim's analytical network YAML. %s",
                          path, first_ints, first_ints, it.no, (int)tl[0], tok[0], (int)tl[1], tok[1], (int)tl[2],
                          tok[2], (int)tl[3], tok[3], USE_INSTEAD);
        if (n == 2 && tok_is(tok[0], tl[0], "Nodes") && is_uint(tok[1], tl[1])) nodes_line = it.no;
        if (n == 2 && tok_is(tok[0], tl[0], "Tiers") && is_uint(tok[1], tl[1])) tiers_line = it.no;
        if (nodes_line && tiers_line)
            return CS_ERR(err, CS_EINVAL,
                          "%s:%d: Nodes, Tiers: this is an HTSim topology (.topo, ASTRA-sim's AstraSim_HTSim "
                          "--htsim_opts -topo FILE), not a network file clustersim reads; expected ASTRA-sim's "
                          "analytical network YAML. clustersim has no HTSim: use --backend packet (or flow) with "
                          "the physical network as --topology FILE (docs/topology.md: a Clos of tiers is the "
                          "\"fat-tree\" or \"clos3\" builder)",
                          path, nodes_line < tiers_line ? nodes_line : tiers_line);
    }
    return CS_OK;
}

int cs_network_key_line(const char *buf, size_t len, const char *key) {
    char pat[96];
    int n = snprintf(pat, sizeof pat, "\"%s\"", key);
    if (n <= 0 || (size_t)n >= sizeof pat) return 1;
    int line = 1;
    for (size_t i = 0; i + (size_t)n <= len; i++) {
        if (buf[i] == '\n') line++;
        else if (buf[i] == '"' && memcmp(buf + i, pat, (size_t)n) == 0) return line;
    }
    return 1;
}

int cs_network_foreign_json(const char *path, const char *buf, size_t len, const json_t *root, cs_error *err) {
    if (json_object_get(root, "logical-dims"))
        return CS_ERR(err, CS_EINVAL,
                      "%s:%d: logical-dims: this is an ns-3 logical topology (ASTRA-sim's ns-3 backend reads it as "
                      "--logical-topology-configuration), not a network file clustersim reads; expected ASTRA-sim's "
                      "analytical network YAML, whose npus_count lists the same dimensions. %s",
                      path, cs_network_key_line(buf, len, "logical-dims"), USE_INSTEAD);
    static const char *const sys_keys[] = {"scheduling-policy", "endpoint-delay", "active-chunks-per-dimension",
                                           "preferred-dataset-splits", "all-reduce-implementation",
                                           "collective-optimization", "intra-dimension-scheduling"};
    if (json_object_get(root, "topology") || json_object_get(root, "npus_count")) return CS_OK;
    for (size_t k = 0; k < sizeof sys_keys / sizeof *sys_keys; k++)
        if (json_object_get(root, sys_keys[k]))
            return CS_ERR(err, CS_EINVAL,
                          "%s:%d: %s: this is a system configuration (ASTRA-sim's system JSON), given as the network; "
                          "expected it as --system-configuration, and the network's dimensions (topology, "
                          "npus_count, bandwidth, latency) as --network-configuration",
                          path, cs_network_key_line(buf, len, sys_keys[k]), sys_keys[k]);
    return CS_OK;
}
