/*
 * memory_config.c -- reader for the ASTRA-sim remote-memory JSON (see
 * memory_config.h).
 *
 * OPTS declares the five keys once; the option engine does parsing, dump and
 * --help.  The per-type requirements (which keys a memory type needs) are
 * checked here after the table pass.
 */
#include "config/memory_config.h"

#include <float.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "core/opts.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/time.h"

_Static_assert(sizeof(cs_memory_type) == sizeof(int), "enum fields are written as int");

#define OFF(f) offsetof(cs_memory_config, f)
enum { O_TYPE, O_LATENCY, O_BW, O_NODES, O_PER_NODE };

static const cs_opt OPTS[] = {
    [O_TYPE] = {.key = "memory-type", .type = CS_OPT_ENUM, .required = 1,
                .def = CS_MEM_NO_EXPANSION, .values = cs_memory_type_names, .off = OFF(type),
                .help = "remote memory architecture: none, one per NPU, one per node shared "
                        "by its NPUs, or one pool shared by all NPUs"},
    [O_LATENCY] = {.key = "remote-mem-latency", .type = CS_OPT_NUM, .def = 0, .min = 0,
                   .max = CS_TIME_MAX_NS_F, .unit = "ns", .off = OFF(remote_mem_latency_ns),
                   .help = "fixed latency of one remote access"},
    [O_BW] = {.key = "remote-mem-bw", .type = CS_OPT_NUM, .def = 0, .nodef = 1, .min = 0, .min_open = 1,
              .max = DBL_MAX, .unit = "GB/s", .off = OFF(remote_mem_bw_gbps),
              .help = "remote memory bandwidth (1 GB/s = 1 byte per ns); required unless "
                      "memory-type is NO_MEMORY_EXPANSION"},
    [O_NODES] = {.key = "num-nodes", .type = CS_OPT_INT, .def = 0, .nodef = 1, .min = 1, .max = (double)INT_MAX,
                 .off = OFF(num_nodes),
                 .help = "nodes, each with one shared remote memory (PER_NODE_MEMORY_EXPANSION "
                         "only, required there)"},
    [O_PER_NODE] = {.key = "num-npus-per-node", .type = CS_OPT_INT, .def = 0, .nodef = 1, .min = 1,
                    .max = (double)INT_MAX, .off = OFF(num_npus_per_node),
                    .help = "NPUs per node; NPU i uses the memory of node i / num-npus-per-node "
                            "(PER_NODE_MEMORY_EXPANSION only, required there)"},
};
#define NOPTS (sizeof OPTS / sizeof OPTS[0])

int cs_memory_config_defaults(cs_memory_config *c) {
    memset(c, 0, sizeof *c);
    cs_opts_defaults(OPTS, NOPTS, c);
    return CS_OK;
}

void cs_memory_config_free(cs_memory_config *c) {
    if (!c) return;
    cs_opts_free(OPTS, NOPTS, c);
    cs_free(c->path);
    memset(c, 0, sizeof *c);
}

static int missing_for_type(const cs_jdoc *doc, const cs_memory_config *c, const cs_opt *o,
                            int type_line, cs_error *err) {
    char exp[128];
    cs_opt_expected(o, exp, sizeof exp);
    return CS_ERR(err, CS_EINVAL,
                  "%s:%d: %s: expected %s%s%s (required by memory-type %s at line %d), got no "
                  "such key",
                  doc->path, doc->root_line, o->key, exp, o->unit ? " in " : "",
                  o->unit ? o->unit : "", cs_memory_type_name(c->type), type_line);
}

static int check_type(const cs_jdoc *doc, cs_memory_config *c, const int *lines,
                      cs_error *err) {
    int tl = lines[O_TYPE];
    if (c->type != CS_MEM_NO_EXPANSION && !lines[O_BW])
        return missing_for_type(doc, c, &OPTS[O_BW], tl, err);
    if (c->type == CS_MEM_PER_NODE_EXPANSION) {
        if (!lines[O_NODES]) return missing_for_type(doc, c, &OPTS[O_NODES], tl, err);
        if (!lines[O_PER_NODE]) return missing_for_type(doc, c, &OPTS[O_PER_NODE], tl, err);
        c->num_nodes_line = lines[O_NODES];
    } else {
        /* ASTRA-sim does not read them for other types */
        for (int k = O_NODES; k <= O_PER_NODE; k++) {
            if (lines[k])
                cs_warn("%s:%d: %s is ignored with memory-type %s (only "
                        "PER_NODE_MEMORY_EXPANSION uses it)",
                        doc->path, lines[k], OPTS[k].key, cs_memory_type_name(c->type));
        }
        c->num_nodes = 0;
        c->num_npus_per_node = 0;
    }
    return CS_OK;
}

int cs_memory_config_load(const char *path, cs_memory_config *out, cs_error *err) {
    return cs_memory_config_load_text(path, NULL, 0, out, err);
}

int cs_memory_config_load_text(const char *path, const char *text, size_t len, cs_memory_config *out, cs_error *err) {
    cs_memory_config_defaults(out);
    cs_jdoc doc;
    int rc = text ? cs_jdoc_load_text(path, text, len, "remote memory configuration", &doc, err)
                  : cs_jdoc_load(path, "remote memory configuration", &doc, err);
    if (rc) {
        cs_memory_config_free(out);
        return rc;
    }
    out->path = cs_strdup(path);
    int lines[NOPTS];
    rc = cs_opts_parse(&doc, OPTS, NOPTS, out, lines, err);
    if (rc == CS_OK && lines[O_BW]) rc = cs_check_min_gbps(path, lines[O_BW], OPTS[O_BW].key, out->remote_mem_bw_gbps, err);
    if (rc == CS_OK) rc = check_type(&doc, out, lines, err);
    cs_jdoc_free(&doc);
    if (rc) cs_memory_config_free(out);
    return rc;
}

int cs_memory_config_validate(const cs_memory_config *c, uint64_t total_npus, cs_error *err) {
    if (c->type != CS_MEM_PER_NODE_EXPANSION) return CS_OK;
    uint64_t covered = (uint64_t)c->num_nodes * (uint64_t)c->num_npus_per_node;
    if (covered < total_npus)
        return CS_ERR(err, CS_EINVAL,
                      "%s:%d: num-nodes: expected num-nodes x num-npus-per-node to cover all "
                      "%llu NPUs of the network, got %d x %d = %llu",
                      c->path ? c->path : "(memory configuration)", c->num_nodes_line,
                      (unsigned long long)total_npus, c->num_nodes, c->num_npus_per_node,
                      (unsigned long long)covered);
    return CS_OK;
}

json_t *cs_memory_config_to_json(const cs_memory_config *c) {
    json_t *obj = cs_opts_to_json(OPTS, NOPTS, c);
    if (c->type == CS_MEM_NO_EXPANSION) {
        json_object_del(obj, OPTS[O_LATENCY].key);
        json_object_del(obj, OPTS[O_BW].key);
    }
    if (c->type != CS_MEM_PER_NODE_EXPANSION) {
        json_object_del(obj, OPTS[O_NODES].key);
        json_object_del(obj, OPTS[O_PER_NODE].key);
    }
    return obj;
}

const cs_opt *cs_memory_config_opts(size_t *n) {
    *n = NOPTS;
    return OPTS;
}

json_t *cs_memory_config_units_json(void) { return cs_opts_units_json(OPTS, NOPTS); }

void cs_memory_config_print_help(FILE *f) {
    fprintf(f, "Remote memory configuration (JSON object; ASTRA-sim "
               "--remote-memory-configuration):\n");
    cs_opts_print_help(f, OPTS, NOPTS);
}
