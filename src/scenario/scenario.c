/*
 * scenario.c -- the scenario namespace: set, get, load, dump (scenario.h).
 *
 * Every section is kept as a JSON object of the keys given so far; the
 * effective values are computed from it on demand by the section's reader,
 * so a value is checked by exactly the code that will use it:
 *   run, plan, model, device   the option tables of scenario_keys.c;
 *   network                    the network YAML reader (JSON is YAML);
 *   system, memory             the system and remote-memory JSON readers;
 *   comm-groups                the communicator-group reader;
 *   topology                   the topology reader (config/topology_file.h):
 *                              builder, common keys, BUILDER.KEY.
 * A file loaded into an ASTRA-sim section (--network-configuration ...) is
 * read and checked by its reader with the file's own line numbers, and its
 * effective values become the section.  The dump writes every section's
 * effective values (defaults included), so loading it reproduces the run.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "scenario/scenario_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compute/device.h"
#include "config/comm_group.h"
#include "workload/text_workload.h"
#include "config/memory_config.h"
#include "config/network_config.h"
#include "config/system_config.h"
#include "config/topology_file.h"
#include "core/afile.h"
#include "core/alloc.h"
#include "core/log.h"
#include "gen/family.h"
#include "gen/gen.h"
#include "network/network.h"
#include "topology/builder.h"
#include "scenario/scenario_run.h"

static const char *const SECT_NAMES[SC_NSECT] = {"run",    "plan",   "model",       "device",  "cost", "ingest", "serve", "network",
                                                 "topology", "system", "memory", "comm-groups", "backend"};

/* ---- small helpers ----------------------------------------------------------- */

/* Drop the ":<line>" a reader put after label when the text it read was
 * not a file the user wrote (a --set value, a section of a scenario). */
static void scrub_line(cs_error *err, const char *label) {
    size_t n = strlen(label);
    if (strncmp(err->msg, label, n) != 0 || err->msg[n] != ':') return;
    size_t k = n + 1;
    while (err->msg[k] >= '0' && err->msg[k] <= '9') k++;
    if (k == n + 1 || err->msg[k] != ':') return;
    memmove(err->msg + n, err->msg + k, strlen(err->msg + k) + 1);
}

/* A cs_jdoc over an object that has no text (no line numbers). */
static void jdoc_of(json_t *obj, const char *where, cs_jdoc *doc) {
    memset(doc, 0, sizeof *doc);
    doc->path = cs_strdup(where);
    doc->root = json_incref(obj);
    doc->nm = json_object_size(obj);
    doc->m = cs_calloc(doc->nm ? doc->nm : 1, sizeof *doc->m);
    size_t i = 0;
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        (void)v;
        doc->m[i++].key = cs_strdup(k);
    }
}

static const cs_sc_section *typed(int s) { return s <= SC_LAST_TYPED ? &CS_SC_SECTIONS[s] : NULL; }

static const cs_opt *opt_in(const cs_opt *t, size_t n, const char *key) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].key, key) == 0) return &t[i];
    return NULL;
}

static const cs_opt *find_opt(const cs_sc_section *t, const char *key) { return opt_in(t->opts, t->nopts, key); }

/* "a, b, c": the keys of a table, for messages. */
static void key_list(const cs_opt *t, size_t n, char *buf, size_t cap) {
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", t[i].key);
}

/* msg without its leading pre (a reader's own prefix), or msg. */
static const char *after_prefix(const char *msg, const char *pre) {
    size_t n = strlen(pre);
    return strncmp(msg, pre, n) == 0 ? msg + n : msg;
}

/* "NAME.KEY" of backend.NAME.KEY: the backend (NULL when unknown) and, in
 * *key, what follows the dot (NULL when there is none). */
static const cs_net_backend *backend_of(const char *nk, const char **key) {
    const char *dot = strchr(nk, '.');
    char name[64];
    snprintf(name, sizeof name, "%.*s", dot ? (int)(dot - nk) : (int)strlen(nk), nk);
    *key = dot ? dot + 1 : NULL;
    return cs_net_backend_find(name);
}

static int section_index(const char *name, size_t len) {
    for (int s = 0; s < SC_NSECT; s++)
        if (strlen(SECT_NAMES[s]) == len && strncmp(SECT_NAMES[s], name, len) == 0) return s;
    return -1;
}

int cs_sc_parse_typed(const cs_scenario *sc, int s, void *out, cs_error *err) {
    const cs_sc_section *t = typed(s);
    memset(out, 0, t->size);
    cs_opts_defaults(t->opts, t->nopts, out);
    char where[64];
    snprintf(where, sizeof where, "scenario %s.*", t->name);
    json_t *keys = json_incref(sc->sect[s]);
    if (s == SC_MODEL) { /* model.FAMILY.* objects are read by cs_sc_model */
        json_decref(keys);
        keys = json_object();
        const char *k;
        json_t *v;
        json_object_foreach(sc->sect[s], k, v) {
            if (!json_is_object(v)) json_object_set(keys, k, v);
        }
    }
    cs_jdoc doc;
    jdoc_of(keys, where, &doc);
    json_decref(keys);
    int rc = cs_opts_parse(&doc, t->opts, t->nopts, out, NULL, err);
    cs_jdoc_free(&doc);
    if (rc) {
        scrub_line(err, where);
        cs_opts_free(t->opts, t->nopts, out);
    }
    return rc;
}

/* The model.FAMILY object (NULL when none; *fam its family). */
static json_t *model_keys(const cs_scenario *sc, const cs_model_family **fam) {
    const char *k;
    json_t *v;
    *fam = NULL;
    json_object_foreach(sc->sect[SC_MODEL], k, v) {
        if (json_is_object(v)) {
            *fam = cs_gen_family_find(k);
            return v;
        }
    }
    return NULL;
}

int cs_sc_model(const cs_scenario *sc, const char *name, cs_gen_model *m, cs_error *err) {
    const cs_model_family *fam;
    json_t *keys = model_keys(sc, &fam);
    if (keys && !fam) return CS_ERR(err, CS_EINVAL, "model: an object of keys that is not a model family's");
    char where[96];
    snprintf(where, sizeof where, "scenario model.%s.*", fam ? fam->name : "?");
    int rc;
    if (name) {
        rc = cs_gen_model_resolve(name, m, err);
        if (rc) {
            cs_error_prefix(err, "model.name: ");
            return rc;
        }
        if (!keys) return CS_OK;
        if (fam != m->family)
            return CS_ERR(err, CS_EINVAL, "model.%s.*: keys of %s models, but model.name %s is a %s model", fam->name,
                          fam->name, name, m->family->name);
        rc = cs_gen_model_set_keys(m, keys, where, err);
    } else if (keys) {
        rc = cs_gen_model_from_keys(fam, keys, where, m, err);
    } else {
        return CS_ERR(err, CS_EINVAL, "model: expected model.name (a preset or a model file) or model.FAMILY.* keys");
    }
    if (rc) {
        scrub_line(err, where);
        /* "scenario model.transformer.*: heads: ..." reads as the key */
        char pre[128];
        snprintf(pre, sizeof pre, "scenario model.%s.*: ", fam->name);
        size_t n = strlen(pre);
        if (strncmp(err->msg, pre, n) == 0) { /* "scenario model.F.*: " becomes "model.F." */
            size_t head = strlen("model.") + strlen(fam->name) + 1;
            memmove(err->msg + head, err->msg + n, strlen(err->msg + n) + 1);
            memcpy(err->msg, "model.", 6);
            memcpy(err->msg + 6, fam->name, strlen(fam->name));
            err->msg[head - 1] = '.';
        }
    }
    return rc;
}

void cs_sc_free_typed(int s, void *p) {
    const cs_sc_section *t = typed(s);
    cs_opts_free(t->opts, t->nopts, p);
}

static char *dump_compact(const json_t *obj, size_t *len) {
    char *s = json_dumps(obj, JSON_COMPACT | JSON_REAL_PRECISION(17));
    *len = s ? strlen(s) : 0;
    return s;
}

/* Section s read by its reader: from the file it was loaded from while no
 * key of it has been set since (messages keep the file's lines), else from
 * its JSON, labelled "scenario <section>" (which becomes the config's path). */
static int read_section(const cs_scenario *sc, int s, void *out, cs_error *err) {
    const char *file = sc->label[s];
    char where[32];
    snprintf(where, sizeof where, "scenario %s", SECT_NAMES[s]);
    size_t len = 0;
    char *text = file ? NULL : dump_compact(sc->sect[s], &len);
    const char *path = file ? file : where;
    int rc;
    switch (s) { /* (the _load_text readers read path when text is NULL) */
    case SC_NETWORK:
        rc = text ? cs_network_config_load_text(path, text, len, out, err) : cs_network_config_load(path, out, err);
        break;
    case SC_SYSTEM: rc = cs_system_config_load_text(path, text, len, out, err); break;
    case SC_MEMORY: rc = cs_memory_config_load_text(path, text, len, out, err); break;
    default: rc = cs_comm_groups_load_text(path, text, len, out, err); break;
    }
    cs_json_free(text);
    if (rc && !file) scrub_line(err, where);
    return rc;
}

int cs_sc_network(const cs_scenario *sc, cs_network_config *out, cs_error *err) {
    memset(out, 0, sizeof *out);
    if (json_object_size(sc->sect[SC_NETWORK]) == 0)
        return CS_ERR(err, CS_EINVAL, "network: expected the network dimensions (--network-configuration FILE, "
                                      "or the keys network.topology, network.npus_count, network.bandwidth "
                                      "and network.latency)");
    return read_section(sc, SC_NETWORK, out, err);
}

int cs_sc_system(const cs_scenario *sc, cs_system_config *out, int *given, cs_error *err) {
    *given = json_object_size(sc->sect[SC_SYSTEM]) > 0;
    return *given ? read_section(sc, SC_SYSTEM, out, err) : cs_system_config_defaults(out);
}

/* The generator's defaults for the plan (astra for 1 dimension without one),
 * with the note when they fall back to astra and no key chose the model. */
static int plan_defaults(const cs_scenario *sc, const cs_network_config *net, const cs_device *dev,
                         const cs_gen_plan *p, cs_system_config *out) {
    if (!net || !dev || !p) return cs_gen_system_defaults(net ? net->ndims : 1, out);
    char why[640];
    int rc = cs_gen_system_for(net, dev, p, out, why, sizeof why);
    if (rc == CS_OK && why[0] && !json_object_get(sc->sect[SC_SYSTEM], "collective-model"))
        cs_warn("note: the generated plan's system uses collective-model astra (ring on every dimension, a queue "
                "per communicator), not the default nccl: %s; system.collective-model chooses (astra or nccl)", why);
    return rc;
}

int cs_sc_plan_system(const cs_scenario *sc, const cs_network_config *net, const cs_device *dev, const cs_gen_plan *p,
                      cs_system_config *out, cs_error *err) {
    if (json_object_size(sc->sect[SC_SYSTEM]) == 0) return plan_defaults(sc, net, dev, p, out);
    if (sc->label[SC_SYSTEM]) return read_section(sc, SC_SYSTEM, out, err); /* a file: complete on its own */
    cs_system_config d;
    int rc = plan_defaults(sc, net, dev, p, &d);
    json_t *base = rc == CS_OK ? cs_system_config_to_json(&d) : NULL;
    cs_system_config_free(&d);
    if (rc) return CS_ERR(err, rc, "scenario system: cannot make the generator's defaults");
    if (!base) return CS_ERR(err, CS_ENOMEM, "scenario system: out of memory");
    /* a model given without communicator-queues: that model's default queues (nccl: per-communicator) */
    if (json_object_get(sc->sect[SC_SYSTEM], "collective-model") &&
        !json_object_get(sc->sect[SC_SYSTEM], "communicator-queues"))
        json_object_del(base, "communicator-queues");
    json_object_update(base, sc->sect[SC_SYSTEM]); /* the given keys over the defaults */
    size_t len = 0;
    char *text = dump_compact(base, &len);
    json_decref(base);
    if (!text) return CS_ERR(err, CS_ENOMEM, "scenario system: out of memory");
    rc = cs_system_config_load_text("scenario system", text, len, out, err);
    cs_json_free(text);
    if (rc) scrub_line(err, "scenario system");
    return rc;
}

int cs_sc_memory(const cs_scenario *sc, cs_memory_config *out, cs_error *err) {
    if (json_object_size(sc->sect[SC_MEMORY]) == 0) return cs_memory_config_defaults(out);
    return read_section(sc, SC_MEMORY, out, err);
}

int cs_sc_groups(const cs_scenario *sc, cs_comm_groups *out, cs_error *err) {
    memset(out, 0, sizeof *out);
    if (json_object_size(sc->sect[SC_GROUPS]) == 0) return CS_OK;
    return read_section(sc, SC_GROUPS, out, err);
}

/* topology.* through its reader: the file while unchanged, else the
 * section's JSON; out NULL = check only (eff: the effective values). */
static int read_topology(const cs_scenario *sc, const cs_network_config *net, cs_topo **out, json_t **eff,
                         cs_error *err) {
    const char *file = sc->label[SC_TOPOLOGY];
    const char *where = "scenario topology";
    size_t len = 0;
    char *text = file ? NULL : dump_compact(sc->sect[SC_TOPOLOGY], &len);
    int rc = cs_topology_load_text(file ? file : where, text, len, net, out, eff, err);
    cs_json_free(text);
    if (rc && !file) scrub_line(err, where);
    return rc;
}

int cs_sc_topology(const cs_scenario *sc, const cs_network_config *net, cs_topo **out, cs_error *err) {
    *out = NULL;
    if (json_object_size(sc->sect[SC_TOPOLOGY]) == 0) return CS_OK;
    return read_topology(sc, net, out, NULL, err);
}

const char *cs_sc_topology_label(const cs_scenario *sc) {
    return sc->label[SC_TOPOLOGY] ? sc->label[SC_TOPOLOGY] : "topology.*";
}

int cs_sc_backend_opts(const cs_scenario *sc, const cs_net_backend *be, void **out, cs_error *err) {
    *out = NULL;
    const char *other;
    json_t *v;
    json_object_foreach(sc->sect[SC_BACKEND], other, v) { /* another backend's keys: said, not silently unused */
        if (strcmp(other, be->name) != 0 && json_object_size(v) > 0)
            cs_warn("scenario backend.%s.* (%zu key%s) set, but run.backend is %s: ignored", other,
                    json_object_size(v), json_object_size(v) == 1 ? "" : "s", be->name);
    }
    if (!be->nopts) return CS_OK;
    void *o = cs_calloc(1, be->opts_size);
    cs_opts_defaults(be->opts, be->nopts, o);
    json_t *keys = json_object_get(sc->sect[SC_BACKEND], be->name);
    int rc = CS_OK;
    if (keys) {
        char where[96];
        snprintf(where, sizeof where, "scenario backend.%s.*", be->name);
        cs_jdoc doc;
        jdoc_of(keys, where, &doc);
        rc = cs_opts_parse(&doc, be->opts, be->nopts, o, NULL, err);
        cs_jdoc_free(&doc);
        if (rc) scrub_line(err, where);
    }
    if (rc) {
        cs_sc_backend_opts_free(be, o);
        return rc;
    }
    *out = o;
    return CS_OK;
}

void cs_sc_backend_opts_free(const cs_net_backend *be, void *opts) {
    if (!opts) return;
    cs_opts_free(be->opts, be->nopts, opts);
    cs_free(opts);
}

int cs_sc_groups_given(const cs_scenario *sc) { return json_object_size(sc->sect[SC_GROUPS]) > 0; }

/* ---- life cycle ------------------------------------------------------------------ */

cs_scenario *cs_scenario_new(void) {
    cs_scenario *sc = cs_calloc(1, sizeof *sc);
    for (int s = 0; s < SC_NSECT; s++) {
        sc->sect[s] = json_object();
        sc->deferred[s] = -1;
    }
    return sc;
}

cs_scenario *cs_scenario_copy(const cs_scenario *sc) {
    cs_scenario *c = cs_calloc(1, sizeof *c);
    for (int s = 0; s < SC_NSECT; s++) {
        c->sect[s] = json_deep_copy(sc->sect[s]);
        c->label[s] = sc->label[s] ? cs_strdup(sc->label[s]) : NULL;
        c->deferred[s] = -1; /* (not in a batch) */
    }
    return c;
}

static void batch_clear(cs_scenario *sc) {
    for (size_t i = 0; i < sc->nbset; i++) {
        cs_free(sc->bset[i].where);
        cs_free(sc->bset[i].key);
    }
    cs_free(sc->bset);
    sc->bset = NULL;
    sc->nbset = sc->capbset = 0;
    for (int s = 0; s < SC_NSECT; s++) sc->deferred[s] = -1;
}

/* The sections whose keys a batch may leave inconsistent until its end. */
static int batch_section(int s) { return s == SC_NETWORK || s == SC_MEMORY; }

void cs_scenario_free(cs_scenario *sc) {
    if (!sc) return;
    for (int s = 0; s < SC_NSECT; s++) {
        json_decref(sc->sect[s]);
        cs_free(sc->label[s]);
    }
    batch_clear(sc);
    cs_free(sc);
}

int cs_scenario_is_plan(const cs_scenario *sc) {
    const json_t *v = json_object_get(sc->sect[SC_MODEL], "name");
    const cs_model_family *fam;
    return (v && json_is_string(v)) || model_keys(sc, &fam) != NULL;
}

/* ---- set ------------------------------------------------------------------------ */

/* Check section s as it would be with its current keys. */
static int check_section(const cs_scenario *sc, int s, cs_error *err) {
    switch (s) {
    case SC_NETWORK: {
        /* the four lists make sense only together: checked when complete (and at run) */
        static const char *const need[] = {"topology", "npus_count", "bandwidth", "latency"};
        for (int i = 0; i < 4; i++)
            if (!json_object_get(sc->sect[s], need[i])) return CS_OK;
        cs_network_config c;
        int rc = cs_sc_network(sc, &c, err);
        cs_network_config_free(&c);
        return rc;
    }
    case SC_SYSTEM: {
        /* keys without a file may be a generated plan's, over the generator's
         * defaults (a file is read as it is); a run of traces still needs
         * every required key, which its reader says at run */
        cs_system_config c;
        int rc = cs_sc_plan_system(sc, NULL, NULL, NULL, &c, err);
        cs_system_config_free(&c);
        return rc;
    }
    case SC_MEMORY: {
        cs_memory_config c;
        int rc = cs_sc_memory(sc, &c, err);
        cs_memory_config_free(&c);
        return rc;
    }
    case SC_GROUPS: {
        cs_comm_groups g;
        int rc = cs_sc_groups(sc, &g, err);
        cs_comm_groups_free(&g);
        return rc;
    }
    case SC_MODEL: { /* model.name, then the family's keys over it (a model from keys alone: at run) */
        cs_model_params mp;
        int rc = cs_sc_parse_typed(sc, s, &mp, err);
        if (rc) return rc;
        const cs_model_family *fam;
        if (mp.name && model_keys(sc, &fam)) {
            cs_gen_model m;
            rc = cs_sc_model(sc, mp.name, &m, err);
        }
        cs_sc_free_typed(s, &mp);
        return rc;
    }
    case SC_TOPOLOGY: /* checked once the builder is named (the keys may come first) */
        if (!json_object_get(sc->sect[s], "builder")) return CS_OK;
        return read_topology(sc, NULL, NULL, NULL, err);
    default: {
        cs_sc_typed_any u;
        int rc = cs_sc_parse_typed(sc, s, &u, err);
        if (rc == CS_OK) cs_sc_free_typed(s, &u);
        return rc;
    }
    }
}

/* Keys that the ASTRA-sim readers know (an unknown key is an error here,
 * where a file's unknown key only warns). */
static int known_config_key(int s, const char *key) {
    if (s == SC_GROUPS) return 1;
    if (s == SC_NETWORK) {
        return strcmp(key, "topology") == 0 || strcmp(key, "npus_count") == 0 || strcmp(key, "bandwidth") == 0 ||
               strcmp(key, "latency") == 0;
    }
    size_t n = 0;
    const cs_opt *t = s == SC_SYSTEM ? cs_system_config_opts(&n) : cs_memory_config_opts(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].key, key) == 0) return 1;
    return 0;
}

/* Keys whose value is a list in their file (a scalar is taken as a list of one). */
static int list_key(int s, const char *key) {
    if (s == SC_NETWORK || s == SC_GROUPS) return 1;
    size_t n = strlen(key);
    return s == SC_SYSTEM && n > 15 && strcmp(key + n - 15, "-implementation") == 0;
}

/* backend.NAME.KEY: a key of the option table of backend NAME. */
static int set_backend_key(cs_scenario *sc, const char *key, const char *nk, json_t *value, const char *where,
                           cs_error *err) {
    const char *k;
    const cs_net_backend *be = backend_of(nk, &k);
    if (!be || !k || !*k)
        return CS_ERR(err, CS_EINVAL, "%s %s: expected backend.NAME.KEY with NAME a network backend (clustersim run "
                                      "--help lists them)%s",
                      where, key, be ? "" : "; no such backend");
    if (!opt_in(be->opts, be->nopts, k)) {
        char list[512];
        key_list(be->opts, be->nopts, list, sizeof list);
        return CS_ERR(err, CS_EINVAL, "%s %s: not an option of backend %s; expected %s", where, key, be->name,
                      be->nopts ? list : "none (it has no options)");
    }
    json_t *sub = json_object_get(sc->sect[SC_BACKEND], be->name);
    if (!sub) {
        sub = json_object();
        json_object_set_new(sc->sect[SC_BACKEND], be->name, sub);
    }
    json_t *old = json_object_get(sub, k);
    if (old) json_incref(old);
    json_object_set(sub, k, value);
    void *opts;
    cs_error e;
    cs_error_clear(&e);
    int rc = cs_sc_backend_opts(sc, be, &opts, &e);
    cs_sc_backend_opts_free(be, opts);
    if (rc) {
        if (old) json_object_set(sub, k, old);
        else json_object_del(sub, k);
        char pre[128];
        snprintf(pre, sizeof pre, "scenario backend.%s.*: %s: ", be->name, k);
        CS_ERR(err, rc, "%s %s: %s", where, key, after_prefix(e.msg, pre));
    }
    json_decref(old);
    return rc;
}

/* Set section s's member sub (an object, created when absent; NULL = the
 * section itself) key leaf to value and check the section; when the check
 * fails, the section and its file label are restored as they were and the
 * checker's message, less pre, follows "where key: ". */
static int set_checked(cs_scenario *sc, int s, const char *sub, const char *leaf, json_t *value, const char *key,
                       const char *where, const char *pre, cs_error *err) {
    json_t *before = json_deep_copy(sc->sect[s]);
    char *label = sc->label[s]; /* a file loaded into the section: its text no longer is the section */
    sc->label[s] = NULL;
    json_t *obj = sc->sect[s];
    if (sub) {
        obj = json_object_get(sc->sect[s], sub);
        if (!obj) {
            obj = json_object();
            json_object_set_new(sc->sect[s], sub, obj);
        }
    }
    json_object_set(obj, leaf, value);
    cs_error e;
    cs_error_clear(&e);
    int rc = check_section(sc, s, &e);
    if (rc) {
        json_decref(sc->sect[s]);
        sc->sect[s] = before;
        sc->label[s] = label;
        return CS_ERR(err, rc, "%s %s: %s", where, key, after_prefix(e.msg, pre));
    }
    json_decref(before);
    cs_free(label);
    return CS_OK;
}

/* model.FAMILY.KEY (or model.FAMILY set to an object of such keys). */
static int set_model_key(cs_scenario *sc, const char *key, const char *k, json_t *value, const char *where,
                         cs_error *err) {
    const char *dot = strchr(k, '.');
    char fname[64];
    snprintf(fname, sizeof fname, "%.*s", dot ? (int)(dot - k) : (int)strlen(k), k);
    const cs_model_family *fam = cs_gen_family_find(fname);
    if (!fam) {
        char list[256] = "";
        for (size_t i = 0; cs_gen_family_at(i); i++) {
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", cs_gen_family_at(i)->name);
        }
        return CS_ERR(err, CS_EINVAL, "%s %s: expected model.FAMILY.KEY with FAMILY one of %s", where, key, list);
    }
    if (!dot) { /* an object of the family's keys: each in turn */
        const char *kk;
        json_t *v;
        json_object_foreach(value, kk, v) {
            char sub[256];
            snprintf(sub, sizeof sub, "%s.%s", key, kk);
            int rc = cs_scenario_set_json(sc, sub, v, where, err);
            if (rc) return rc;
        }
        return CS_OK;
    }
    const char *leaf = dot + 1;
    if (!opt_in(fam->keys, fam->nkeys, leaf)) {
        char list[1024];
        key_list(fam->keys, fam->nkeys, list, sizeof list);
        return CS_ERR(err, CS_EINVAL, "%s %s: not a key of %s models; expected one of %s", where, key, fam->name,
                      list);
    }
    const cs_model_family *other;
    json_t *cur = model_keys(sc, &other);
    if (cur && other != fam)
        return CS_ERR(err, CS_EINVAL, "%s %s: the model already has model.%s.* keys; expected keys of one family",
                      where, key, other ? other->name : "?");
    char pre[128];
    snprintf(pre, sizeof pre, "model.%s.%s: ", fam->name, leaf);
    return set_checked(sc, SC_MODEL, fam->name, leaf, value, key, where, pre, err);
}

/* topology.KEY (a key common to every builder) or topology.BUILDER.KEY. */
static int set_topology_key(cs_scenario *sc, const char *key, const char *k, json_t *value, const char *where,
                            cs_error *err) {
    size_t ncommon;
    const cs_opt *common = cs_topology_common_keys(&ncommon);
    const char *dot = strchr(k, '.');
    const char *sub = NULL, *leaf = k;
    if (dot) {
        char bname[64];
        snprintf(bname, sizeof bname, "%.*s", (int)(dot - k), k);
        const cs_topo_builder *b = cs_topo_builder_find(bname);
        if (!b) {
            char names[512];
            cs_topo_builder_names(names, sizeof names);
            return CS_ERR(err, CS_EINVAL, "%s %s: expected topology.BUILDER.KEY with BUILDER one of %s", where, key,
                          names);
        }
        leaf = dot + 1;
        if (!cs_topo_builder_key(b, leaf)) {
            char list[1024];
            key_list(b->keys, b->nkeys, list, sizeof list);
            return CS_ERR(err, CS_EINVAL, "%s %s: not a key of builder %s; expected one of %s", where, key, b->name,
                          list);
        }
        sub = b->name;
    } else if (!opt_in(common, ncommon, k)) {
        char list[512];
        key_list(common, ncommon, list, sizeof list);
        return CS_ERR(err, CS_EINVAL, "%s %s: unknown key; expected topology.KEY with KEY one of %s, or "
                                      "topology.BUILDER.KEY (clustersim run --help-config lists them)",
                      where, key, list);
    }
    return set_checked(sc, SC_TOPOLOGY, sub, leaf, value, key, where, "scenario topology: ", err);
}

int cs_scenario_set_json(cs_scenario *sc, const char *key, json_t *value, const char *where, cs_error *err) {
    const char *dot = strchr(key, '.');
    int s = dot ? section_index(key, (size_t)(dot - key)) : -1;
    if (s < 0) {
        char names[256];
        size_t len = 0;
        names[0] = '\0';
        for (int i = 0; i < SC_NSECT && len < sizeof names; i++)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "", SECT_NAMES[i]);
        return CS_ERR(err, CS_EINVAL, "%s %s: unknown key; expected SECTION.KEY with SECTION one of %s (clustersim "
                                      "run --help-config lists every key)",
                      where, key, names);
    }
    const char *k = dot + 1;
    if (!*k) return CS_ERR(err, CS_EINVAL, "%s %s: expected a key after \"%s.\"", where, key, SECT_NAMES[s]);
    if (s == SC_BACKEND) return set_backend_key(sc, key, k, value, where, err);
    if (s == SC_TOPOLOGY) return set_topology_key(sc, key, k, value, where, err);
    if (s == SC_MODEL && (strchr(k, '.') || json_is_object(value))) return set_model_key(sc, key, k, value, where, err);
    if (s == SC_RUN && strcmp(k, "topology") == 0) { /* earlier name: loads the file into topology.* */
        if (!json_is_string(value))
            return CS_ERR(err, CS_EINVAL, "%s %s: expected the path of a topology file", where, key);
        int rc = cs_scenario_load_kind(sc, "topology", json_string_value(value), err);
        if (rc) cs_error_prefix(err, "%s %s: ", where, key); /* the scenario file (or flag) and the key first */
        return rc;
    }
    const cs_sc_section *t = typed(s);
    if (t) {
        const cs_opt *o = find_opt(t, k);
        if (!o) {
            char list[1024];
            key_list(t->opts, t->nopts, list, sizeof list);
            return CS_ERR(err, CS_EINVAL, "%s %s: unknown key of section %s; expected one of %s", where, key,
                          t->name, list);
        }
    } else if (!known_config_key(s, k)) {
        return CS_ERR(err, CS_EINVAL, "%s %s: not a key of the %s configuration (clustersim run --help-config "
                                      "lists them)",
                      where, key, SECT_NAMES[s]);
    }
    json_t *old = json_object_get(sc->sect[s], k);
    if (old) json_incref(old);
    char *label = sc->label[s]; /* a file loaded into the section: its text no longer is the section */
    sc->label[s] = NULL;
    json_object_set(sc->sect[s], k, value);
    cs_error e;
    cs_error_clear(&e);
    int rc = check_section(sc, s, &e);
    if (sc->batch && batch_section(s)) { /* the batch's later sets may complete it: checked again at its end */
        CS_GROW(sc->bset, sc->capbset, sc->nbset + 1);
        sc->bset[sc->nbset] = (struct cs_sc_bset){s, cs_strdup(where), cs_strdup(key)};
        if (rc && sc->deferred[s] < 0) sc->deferred[s] = (long)sc->nbset;
        sc->nbset++;
        rc = CS_OK;
    }
    if (rc) {
        if (old) json_object_set(sc->sect[s], k, old);
        else json_object_del(sc->sect[s], k);
        sc->label[s] = label;
        label = NULL;
        /* the section reader's own prefix ("scenario plan.*: tp: ") gives way to the key */
        char pre[96];
        snprintf(pre, sizeof pre, "scenario %s.*: %s: ", SECT_NAMES[s], k);
        const char *m = after_prefix(e.msg, pre);
        if (strncmp(where, "--", 2) == 0 && strcmp(where, "--set") != 0)
            CS_ERR(err, rc, "%s: %s", where, m);
        else
            CS_ERR(err, rc, "%s %s: %s", where, key, m);
    }
    json_decref(old);
    cs_free(label);
    return rc;
}

void cs_sc_batch_begin(cs_scenario *sc) {
    batch_clear(sc);
    sc->batch = 1;
}

int cs_sc_batch_end(cs_scenario *sc, cs_error *err) {
    sc->batch = 0;
    int rc = CS_OK;
    for (int s = 0; s < SC_NSECT && rc == CS_OK; s++) {
        if (sc->deferred[s] < 0) continue;
        cs_error e;
        cs_error_clear(&e);
        rc = check_section(sc, s, &e);
        if (rc == CS_OK) continue;
        /* the set to name: the batch's last of the key the error is about
         * ("scenario network: latency: ..."), else the first that failed */
        const struct cs_sc_bset *b = &sc->bset[sc->deferred[s]];
        char head[64];
        snprintf(head, sizeof head, "scenario %s: ", SECT_NAMES[s]);
        const char *about = after_prefix(e.msg, head);
        for (size_t i = sc->nbset; about != e.msg && i-- > 0;) {
            const char *leaf = strchr(sc->bset[i].key, '.');
            leaf = leaf ? leaf + 1 : sc->bset[i].key;
            size_t n = strlen(leaf);
            if (sc->bset[i].sect == s && strncmp(about, leaf, n) == 0 && about[n] == ':') {
                b = &sc->bset[i];
                break;
            }
        }
        if (strncmp(b->where, "--", 2) == 0 && strcmp(b->where, "--set") != 0)
            CS_ERR(err, rc, "%s: %s", b->where, e.msg);
        else
            CS_ERR(err, rc, "%s %s: %s", b->where, b->key, e.msg);
    }
    batch_clear(sc);
    return rc;
}

/* Text of a --set value as JSON: a JSON value when it parses as one, else a
 * string; a comma-separated list for list keys; a scalar for a list key
 * becomes a list of one; a number for a string key stays its text. */
static json_t *value_of_text(int s, const char *k, const char *text) {
    json_error_t je;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &je);
    const cs_sc_section *t = typed(s);
    if (s == SC_TOPOLOGY) return v ? v : json_string(text);
    if (t || s == SC_BACKEND) { /* a key of an option table: a string option stays text */
        const cs_opt *o = NULL;
        if (t) {
            o = find_opt(t, k);
        } else {
            const char *bk;
            const cs_net_backend *be = backend_of(k, &bk);
            if (be && bk) o = opt_in(be->opts, be->nopts, bk);
        }
        if (o && (o->type == CS_OPT_STR || o->type == CS_OPT_ENUM) && !(v && json_is_string(v))) {
            json_decref(v);
            return json_string(text);
        }
        return v ? v : json_string(text);
    }
    if (!v && list_key(s, k) && strchr(text, ',')) {
        json_t *a = json_array();
        const char *p = text;
        for (;;) {
            const char *c = strchr(p, ',');
            size_t n = c ? (size_t)(c - p) : strlen(p);
            char *item = cs_malloc(n + 1);
            memcpy(item, p, n);
            item[n] = '\0';
            json_t *e = json_loads(item, JSON_DECODE_ANY, &je);
            json_array_append_new(a, e ? e : json_string(item));
            cs_free(item);
            if (!c) break;
            p = c + 1;
        }
        return a;
    }
    if (!v) v = json_string(text);
    if (list_key(s, k) && !json_is_array(v)) {
        json_t *a = json_array();
        json_array_append_new(a, v);
        return a;
    }
    return v;
}

/* Whether text is UTF-8 (jansson makes no string of other bytes: the value
 * would be dropped, or a list lose the item, without a word). */
static int is_utf8(const char *text) {
    json_t *j = json_string(text);
    json_decref(j);
    return j != NULL;
}

int cs_sc_set_text(cs_scenario *sc, const char *key, const char *text, const char *where, cs_error *err) {
    if (!is_utf8(text)) {
        char shown[160]; /* the value with its bytes above 0x7e as \xNN */
        size_t k = 0;
        for (const unsigned char *c = (const unsigned char *)text; *c && k + 8 < sizeof shown; c++)
            k += (size_t)snprintf(shown + k, sizeof shown - k, *c >= 0x20 && *c < 0x7f ? "%c" : "\\x%02x", *c);
        if (strncmp(where, "--", 2) == 0 && strcmp(where, "--set") != 0)
            return CS_ERR(err, CS_EINVAL, "%s '%s': not valid UTF-8; expected UTF-8 text (scenario values are "
                                          "JSON strings)", where, shown);
        return CS_ERR(err, CS_EINVAL, "%s %s: '%s' is not valid UTF-8; expected UTF-8 text (scenario values are "
                                      "JSON strings)", where, key, shown);
    }
    const char *dot = strchr(key, '.');
    int s = dot ? section_index(key, (size_t)(dot - key)) : -1;
    json_t *v = value_of_text(s < 0 ? SC_RUN : s, dot ? dot + 1 : key, text);
    int rc = cs_scenario_set_json(sc, key, v, where, err);
    json_decref(v);
    return rc;
}

/* ---- loading files ------------------------------------------------------------------ */

static void set_label(cs_scenario *sc, int s, const char *path) {
    cs_free(sc->label[s]);
    sc->label[s] = path ? cs_strdup(path) : NULL;
}

/* A file is checked as it is loaded, inside a batch too: its network and
 * memory sections are set whole and checked here, never through
 * cs_scenario_set_json's deferral (a later flag cannot hide a file's bad
 * value). */
int cs_scenario_load_kind(cs_scenario *sc, const char *kind, const char *path, cs_error *err) {
    json_t *eff = NULL;
    int s, rc;
    if (strcmp(kind, "network") == 0) {
        cs_network_config c;
        s = SC_NETWORK;
        rc = cs_network_config_load(path, &c, err);
        if (rc == CS_OK) eff = cs_network_config_to_json(&c);
        cs_network_config_free(&c);
    } else if (strcmp(kind, "system") == 0) {
        cs_system_config c;
        s = SC_SYSTEM;
        rc = cs_system_config_load(path, &c, err);
        if (rc == CS_OK) eff = cs_system_config_to_json(&c);
        cs_system_config_free(&c);
    } else if (strcmp(kind, "memory") == 0) {
        cs_memory_config c;
        s = SC_MEMORY;
        rc = cs_memory_config_load(path, &c, err);
        if (rc == CS_OK) eff = cs_memory_config_to_json(&c);
        cs_memory_config_free(&c);
    } else if (strcmp(kind, "comm-groups") == 0) {
        cs_comm_groups g;
        s = SC_GROUPS;
        rc = cs_comm_groups_load(path, &g, err);
        if (rc == CS_OK) eff = cs_comm_groups_to_json(&g);
        cs_comm_groups_free(&g);
    } else if (strcmp(kind, "topology") == 0) {
        s = SC_TOPOLOGY;
        rc = cs_topology_load_text(path, NULL, 0, NULL, NULL, &eff, err);
    } else {
        return CS_ERR(err, CS_EINVAL, "%s: unknown configuration kind \"%s\"; expected network, topology, system, "
                                      "memory or comm-groups",
                      path, kind);
    }
    if (rc) return rc;
    json_decref(sc->sect[s]);
    sc->sect[s] = eff;
    set_label(sc, s, strcmp(path, "empty") == 0 ? NULL : path);
    return CS_OK;
}

/* path relative to dir (a scenario file's directory), unless absolute. */
static char *resolve_path(const char *dir, const char *p) {
    if (!p || p[0] == '/' || !dir[0]) return cs_strdup(p ? p : "");
    size_t n = strlen(dir) + strlen(p) + 2;
    char *out = cs_malloc(n);
    snprintf(out, n, "%s/%s", dir, p);
    return out;
}

/* Keys whose string value is a file path (resolved against a scenario
 * file's directory; model and device only when they name a file). */
static int path_key(int s, const char *k, const char *v) {
    if (s == SC_RUN) return strcmp(k, "workload") == 0 || strcmp(k, "topology") == 0;
    if (s == SC_MODEL || s == SC_DEVICE) return strcmp(k, "name") == 0 && (strchr(v, '/') || strstr(v, ".json"));
    return 0;
}

int cs_scenario_load_file(cs_scenario *sc, const char *path, cs_error *err) {
    json_error_t je;
    char *text = NULL;
    size_t len = 0;
    int rrc = cs_read_file(path, &text, &len, err); /* regular files of bounded size only */
    if (rrc) return rrc;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    cs_free(text);
    if (!root)
        return CS_ERR(err, CS_EINVAL, "%s:%d: expected a scenario (a JSON object), got a syntax error at column %d: %s",
                      path, je.line > 0 ? je.line : 1, je.column, je.text);
    int rc = CS_OK;
    if (!json_is_object(root)) {
        rc = CS_ERR(err, CS_EINVAL, "%s: expected a scenario (a JSON object with sections run, network, ...), got "
                                    "another JSON value",
                    path);
        goto out;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else dir[0] = '\0';
    const char *sk;
    json_t *sv;
    json_object_foreach(root, sk, sv) {
        if (strcmp(sk, "clustersim-scenario") == 0) {
            if (!json_is_integer(sv) || json_integer_value(sv) != 1) {
                rc = CS_ERR(err, CS_EINVAL, "%s: clustersim-scenario: expected 1 (the format version)", path);
                goto out;
            }
            continue;
        }
        int s = section_index(sk, strlen(sk));
        if (s < 0) {
            rc = CS_ERR(err, CS_EINVAL, "%s: \"%s\": unknown section; expected run, plan, model, device, network, "
                                        "topology, system, memory, comm-groups or backend",
                        path, sk);
            goto out;
        }
        int file_kind = s == SC_NETWORK || s == SC_SYSTEM || s == SC_MEMORY || s == SC_TOPOLOGY || s == SC_GROUPS;
        if (file_kind && json_is_string(sv)) { /* the section from its file, as --network-configuration FILE */
            char *fp = resolve_path(dir, json_string_value(sv));
            rc = cs_scenario_load_kind(sc, sk, fp, err);
            cs_free(fp);
            if (rc) {
                cs_error_prefix(err, "%s: %s: ", path, sk);
                goto out;
            }
            continue;
        }
        if (!json_is_object(sv)) {
            rc = CS_ERR(err, CS_EINVAL, "%s: %s: expected an object of keys%s", path, sk,
                        file_kind ? " or the path of a file (relative to the scenario's directory)" : "");
            goto out;
        }
        if (s == SC_TOPOLOGY) { /* replaces the one there; checked whole */
            json_decref(sc->sect[s]);
            sc->sect[s] = json_deep_copy(sv);
            set_label(sc, s, NULL);
            cs_error e;
            cs_error_clear(&e);
            if ((rc = read_topology(sc, NULL, NULL, NULL, &e)) != CS_OK) {
                CS_ERR(err, rc, "%s: topology: %s", path, after_prefix(e.msg, "scenario topology: "));
                goto out;
            }
            continue;
        }
        if (s == SC_BACKEND) {
            const char *bn;
            json_t *bo;
            json_object_foreach(sv, bn, bo) {
                if (!json_is_object(bo)) {
                    rc = CS_ERR(err, CS_EINVAL, "%s: backend.%s: expected an object of the backend's options", path, bn);
                    goto out;
                }
                const char *k;
                json_t *v;
                json_object_foreach(bo, k, v) {
                    char key[256], where[4200];
                    snprintf(key, sizeof key, "backend.%s.%s", bn, k);
                    snprintf(where, sizeof where, "%s:", path);
                    rc = cs_scenario_set_json(sc, key, v, where, err);
                    if (rc) goto out;
                }
            }
            continue;
        }
        if (!typed(s)) { /* an ASTRA-sim section replaces the one there */
            json_object_clear(sc->sect[s]);
            set_label(sc, s, NULL);
        }
        const char *k;
        json_t *v;
        json_object_foreach(sv, k, v) {
            char key[256], where[4200];
            snprintf(key, sizeof key, "%s.%s", sk, k);
            snprintf(where, sizeof where, "%s:", path);
            json_t *val = json_incref(v);
            if (json_is_string(v) && path_key(s, k, json_string_value(v))) {
                char *p = resolve_path(dir, json_string_value(v));
                json_decref(val);
                val = json_string(p);
                cs_free(p);
            }
            if (!typed(s)) json_object_set(sc->sect[s], k, val); /* checked whole, below */
            else rc = cs_scenario_set_json(sc, key, val, where, err);
            json_decref(val);
            if (rc) goto out;
        }
        if (!typed(s)) {
            const char *k2;
            json_t *v2;
            json_object_foreach(sv, k2, v2) {
                (void)v2;
                if (!known_config_key(s, k2)) {
                    rc = CS_ERR(err, CS_EINVAL, "%s: %s.%s: not a key of the %s configuration", path, sk, k2, sk);
                    goto out;
                }
            }
            cs_error e;
            cs_error_clear(&e);
            if (s == SC_NETWORK) {
                cs_network_config c;
                rc = cs_sc_network(sc, &c, &e);
                cs_network_config_free(&c);
            } else {
                rc = check_section(sc, s, &e);
            }
            if (rc) {
                CS_ERR(err, rc, "%s: %s", path, e.msg);
                goto out;
            }
        }
    }
out:
    json_decref(root);
    return rc;
}

/* ---- effective values and the dump ------------------------------------------------------ */

static json_t *abs_path_json(const char *p) {
    char buf[PATH_MAX];
    if (p && realpath(p, buf)) return json_string(buf);
    /* a trace prefix is not itself a file: resolve its directory */
    if (p) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", p);
        char *slash = strrchr(dir, '/');
        const char *base = p;
        if (slash) {
            *slash = '\0';
            base = p + (slash - dir) + 1;
        } else {
            snprintf(dir, sizeof dir, ".");
        }
        if (realpath(dir[0] ? dir : "/", buf)) {
            size_t n = strlen(buf) + strlen(base) + 2;
            char *out = cs_malloc(n);
            snprintf(out, n, "%s/%s", strcmp(buf, "/") == 0 ? "" : buf, base);
            json_t *j = json_string(out);
            cs_free(out);
            return j;
        }
    }
    return p ? json_string(p) : json_null();
}

json_t *cs_scenario_to_json(const cs_scenario *sc, cs_error *err) {
    json_t *root = json_object();
    json_object_set_new(root, "clustersim-scenario", json_integer(1));
    int plan = cs_scenario_is_plan(sc);
    int rc = CS_OK;
    for (int s = SC_RUN; s <= SC_LAST_TYPED && rc == CS_OK; s++) {
        if ((s == SC_PLAN || s == SC_MODEL || s == SC_INGEST || s == SC_SERVE) && !plan) continue;
        cs_sc_typed_any u;
        rc = cs_sc_parse_typed(sc, s, &u, err);
        if (rc) break;
        json_t *o = cs_opts_to_json(typed(s)->opts, typed(s)->nopts, &u);
        if (s == SC_MODEL) { /* every key of the model's family, effective values */
            cs_gen_model m;
            rc = cs_sc_model(sc, u.m.name, &m, err);
            if (rc == CS_OK) json_object_set_new(o, m.family->name, cs_gen_model_keys_json(&m));
        }
        if (s == SC_RUN && u.r.comm_streams == 0) /* resolve the workload's default */
            json_object_set_new(o, "comm-streams",
                                json_integer(plan ? 4 : u.r.workload && cs_text_workload_detect(u.r.workload)
                                                        ? CS_TEXT_COMM_STREAMS : 1));
        const char *k;
        json_t *v;
        void *tmp;
        json_object_foreach_safe(o, tmp, k, v) {
            if (json_is_string(v) && path_key(s, k, json_string_value(v)) &&
                !(s != SC_RUN && !strchr(json_string_value(v), '/') && access(json_string_value(v), F_OK) != 0))
                json_object_set_new(o, k, abs_path_json(json_string_value(v)));
        }
        json_object_set_new(root, SECT_NAMES[s], o);
        cs_sc_free_typed(s, &u);
    }
    if (rc == CS_OK && json_object_size(sc->sect[SC_NETWORK])) {
        cs_network_config c;
        rc = cs_sc_network(sc, &c, err);
        if (rc == CS_OK) json_object_set_new(root, "network", cs_network_config_to_json(&c));
        cs_network_config_free(&c);
    }
    if (rc == CS_OK && json_object_size(sc->sect[SC_TOPOLOGY])) {
        json_t *eff = NULL;
        rc = read_topology(sc, NULL, NULL, &eff, err);
        if (rc == CS_OK) json_object_set_new(root, "topology", eff);
    }
    if (rc == CS_OK) {
        cs_system_config c;
        memset(&c, 0, sizeof c);
        rc = cs_sc_effective_system(sc, &c, err);
        if (rc == CS_OK) json_object_set_new(root, "system", cs_system_config_to_json(&c));
        cs_system_config_free(&c);
    }
    if (rc == CS_OK) {
        cs_memory_config c;
        rc = cs_sc_memory(sc, &c, err);
        if (rc == CS_OK) json_object_set_new(root, "memory", cs_memory_config_to_json(&c));
        cs_memory_config_free(&c);
    }
    if (rc == CS_OK) { /* the selected backend's options, effective values */
        json_t *run = json_object_get(root, "run");
        const cs_net_backend *be = cs_net_backend_find(json_string_value(json_object_get(run, "backend")));
        void *opts = NULL;
        if (be && be->nopts && (rc = cs_sc_backend_opts(sc, be, &opts, err)) == CS_OK) {
            json_t *b = json_object();
            json_object_set_new(b, be->name, cs_opts_to_json(be->opts, be->nopts, opts));
            json_object_set_new(root, "backend", b);
        }
        if (be) cs_sc_backend_opts_free(be, opts);
    }
    if (rc == CS_OK && json_object_size(sc->sect[SC_GROUPS]))
        json_object_set(root, "comm-groups", sc->sect[SC_GROUPS]);
    if (rc) {
        json_decref(root);
        return NULL;
    }
    return root;
}

int cs_scenario_dump_file(const cs_scenario *sc, const char *path, cs_error *err) {
    json_t *j = cs_scenario_to_json(sc, err);
    if (!j) return err->code ? err->code : CS_EINVAL;
    int rc = cs_write_json_atomic(path, j, err);
    json_decref(j);
    if (rc) cs_error_prefix(err, "--dump-scenario: ");
    return rc;
}

/* ---- help --------------------------------------------------------------------------- */

void cs_scenario_print_help(FILE *f) {
    fputs("Every key of a scenario, as --set SECTION.KEY=VALUE, in a --scenario file ({\"SECTION\": {\"KEY\": "
          "VALUE}}) or through cs_scenario_set.\n",
          f);
    for (int s = SC_RUN; s <= SC_LAST_TYPED; s++) {
        const cs_sc_section *t = typed(s);
        fprintf(f, "\n== %s.*  %s\n", t->name, t->help);
        cs_opts_print_help(f, t->opts, t->nopts);
    }
    fputs("\n== network.*  (--network-configuration FILE: the ASTRA-sim network YAML)\n", f);
    cs_network_config_print_help(f);
    fputs("\n== topology.*  (--topology FILE: the physical topology for a graph backend, docs/topology.md)\n"
          "   topology.KEY for the keys of every builder, topology.BUILDER.KEY for a builder's own\n", f);
    cs_topology_file_print_help(f);
    fputs("\n== system.*  (--system-configuration FILE: the ASTRA-sim system JSON)\n", f);
    cs_system_config_print_help(f);
    fputs("\n== memory.*  (--remote-memory-configuration FILE: the ASTRA-sim remote-memory JSON)\n", f);
    cs_memory_config_print_help(f);
    for (size_t i = 0; cs_gen_family_at(i); i++) {
        const cs_model_family *fam = cs_gen_family_at(i);
        fprintf(f, "\n== model.%s.*  (the keys of a %s model file; set over model.name's model, or a model from "
                   "these keys alone)\n",
                fam->name, fam->name);
        cs_opts_print_help(f, fam->keys, fam->nkeys);
    }
    fputs("\n== device file (device.name FILE)\n", f);
    cs_device_print_help(f);
    fputs("\n== comm-groups.NAME  (--comm-group-configuration FILE): the ranks of communicator group NAME, "
          "a list of rank numbers\n",
          f);
    for (const cs_net_backend *const *b = cs_net_backends(); *b; b++) {
        if (!(*b)->nopts) continue;
        fprintf(f, "\n== backend.%s.*  options of the %s network backend\n", (*b)->name, (*b)->name);
        cs_opts_print_help(f, (*b)->opts, (*b)->nopts);
    }
}

/* ---- the public API ---------------------------------------------------------------- */

static int api_fail(cs_scenario *sc, const cs_error *e) {
    snprintf(sc->errmsg, sizeof sc->errmsg, "%s", e->msg);
    return -1;
}

int cs_scenario_set(cs_scenario *sc, const char *key, const char *value) {
    cs_error e;
    cs_error_clear(&e);
    sc->errmsg[0] = '\0';
    return cs_sc_set_text(sc, key, value, "set", &e) ? api_fail(sc, &e) : 0;
}

int cs_scenario_get(const cs_scenario *sc, const char *key, char *buf, size_t n) {
    cs_error e;
    cs_error_clear(&e);
    json_t *j = cs_scenario_to_json(sc, &e);
    if (!j) return -1;
    const char *dot = strchr(key, '.');
    json_t *v = NULL;
    if (dot) {
        char sect[32];
        snprintf(sect, sizeof sect, "%.*s", (int)(dot - key), key);
        json_t *o = json_object_get(j, sect);
        v = o ? json_object_get(o, dot + 1) : NULL;
    }
    int rc = -1;
    if (v) {
        char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(17));
        if (s && strlen(s) < n) {
            memcpy(buf, s, strlen(s) + 1);
            rc = 0;
        }
        cs_json_free(s);
    }
    json_decref(j);
    return rc;
}

int cs_scenario_load(cs_scenario *sc, const char *path) {
    cs_error e;
    cs_error_clear(&e);
    sc->errmsg[0] = '\0';
    return cs_scenario_load_file(sc, path, &e) ? api_fail(sc, &e) : 0;
}

int cs_scenario_load_config(cs_scenario *sc, const char *kind, const char *path) {
    cs_error e;
    cs_error_clear(&e);
    sc->errmsg[0] = '\0';
    return cs_scenario_load_kind(sc, kind, path, &e) ? api_fail(sc, &e) : 0;
}

int cs_scenario_dump(cs_scenario *sc, const char *path) {
    cs_error e;
    cs_error_clear(&e);
    return cs_scenario_dump_file(sc, path, &e) ? api_fail(sc, &e) : 0;
}

int cs_scenario_run(cs_scenario *sc, cs_result **out) {
    cs_error e;
    cs_error_clear(&e);
    sc->errmsg[0] = '\0';
    return cs_scenario_run_hooked(sc, NULL, out, &e) ? api_fail(sc, &e) : 0;
}

const char *cs_scenario_error(const cs_scenario *sc) { return sc->errmsg; }
