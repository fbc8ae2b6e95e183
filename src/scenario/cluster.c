/*
 * cluster.c -- several jobs on one cluster (see cluster.h): the cluster
 * file, the placement policies, the composition of the jobs' graphs into
 * one workload, and the runs (each job alone, then all together).
 */
#include "scenario/cluster.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/comm_group.h"
#include "config/network_config.h"
#include "config/system_config.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/opts.h"
#include "core/rand.h"
#include "core/stats.h"
#include "gen/gen.h"
#include "network/network.h"
#include "scenario/scenario_int.h"
#include "scenario/scenario_run.h"
#include "topology/te.h"
#include "topology/topology.h"
#include "workload/graph_job.h"
#include "workload/workload.h"

/* ---- the cluster file ------------------------------------------------------------- */

static int ops_changes(const json_t *ops, const char *where, json_t *links, json_t *sw, cs_error *err);

static int name_ok(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > 32) return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
              ch == '-' || ch == '.'))
            return 0;
    }
    return 1;
}

/* A placement given as a string: a policy, or an NPU list "0-7,16,18". */
static int placement_policy_ok(const char *s) {
    if (strcmp(s, "contiguous") == 0 || strcmp(s, "pack") == 0 || strcmp(s, "spread") == 0 ||
        strcmp(s, "random") == 0)
        return 1;
    if (strncmp(s, "random:", 7) == 0) {
        const char *q = s + 7;
        if (!*q) return 0;
        for (; *q; q++)
            if (*q < '0' || *q > '9') return 0;
        return strlen(s + 7) <= 18;
    }
    return 0;
}

/* An explicit NPU list from "0-7,16" or [0, 1, 2] into a JSON array of integers, ids below cap, at most
 * max_count of them (counted before any is made: "0-4294967295" took 3.7 s and 512 MB to fail); NULL when
 * malformed. */
static json_t *npu_list(const json_t *v, uint64_t cap, uint64_t max_count) {
    json_t *out = json_array();
    if (json_is_array(v)) {
        size_t i;
        json_t *x;
        if (json_array_size(v) > max_count) goto bad;
        json_array_foreach(v, i, x) {
            if (!json_is_integer(x) || json_integer_value(x) < 0 || (uint64_t)json_integer_value(x) >= cap) goto bad;
            json_array_append_new(out, json_integer(json_integer_value(x)));
        }
        return out;
    }
    const char *p = json_string_value(v);
    while (p && *p) {
        const char *end;
        unsigned long long a, b;
        if (cs_parse_rank_range(p, &end, &a, &b) || (*end && *end != ',') || b < a || b >= cap ||
            json_array_size(out) + (b - a + 1) > max_count) /* counted before one is made */
            goto bad;
        for (unsigned long long r = a; r <= b; r++) json_array_append_new(out, json_integer((json_int_t)r));
        p = *end ? end + 1 : end;
        if (*end && !*p) goto bad;
    }
    if (p) return out;
bad:
    json_decref(out);
    return NULL;
}

static int job_parse(cs_cluster *c, const cs_jdoc *doc, size_t i, json_t *o, cs_error *err) {
    const char *path = doc->path;
    int line = cs_jdoc_elem_line(doc, "jobs", i);
    cs_cluster_job *j = &c->jobs[i];
    snprintf(j->name, sizeof j->name, "job%zu", i);
    j->iterations = 1;
    snprintf(j->placement, sizeof j->placement, "contiguous");
    if (!json_is_object(o))
        return CS_ERR(err, CS_EINVAL, "%s:%d: jobs[%zu]: expected an object (name, workload or set, npus, placement, "
                                      "start_ns, iterations, traffic_class)",
                      path, line, i);
    static const char *const known[] = {"name", "npus", "workload", "comm-groups", "set", "placement", "start_ns",
                                        "iterations", "traffic_class"};
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        if (cs_str_index(k, known, sizeof known / sizeof *known) < 0)
            return CS_ERR(err, CS_EINVAL, "%s:%d: jobs[%zu].%s: unknown key; expected name, npus, workload, "
                                          "comm-groups, set, placement, start_ns, iterations or traffic_class",
                          path, line, i, k);
    }
    if ((v = json_object_get(o, "name"))) {
        if (!json_is_string(v) || !name_ok(json_string_value(v)))
            return CS_ERR(err, CS_EINVAL, "%s:%d: jobs[%zu].name: expected 1 to 32 of A-Z a-z 0-9 _ - .", path, line,
                          i);
        snprintf(j->name, sizeof j->name, "%s", json_string_value(v));
    }
    for (size_t q = 0; q < i; q++)
        if (strcmp(c->jobs[q].name, j->name) == 0)
            return CS_ERR(err, CS_EINVAL, "%s:%d: jobs[%zu].name %s: already the name of jobs[%zu]; expected "
                                          "distinct names",
                          path, line, i, j->name, q);
    if ((v = json_object_get(o, "npus"))) {
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > CS_CLUSTER_MAX_JOB_NPUS)
            return CS_ERR(err, CS_EINVAL, "%s:%d: jobs[%zu].npus: expected an integer from 1 to 16777216", path, line,
                          i);
        j->npus = (uint32_t)json_integer_value(v);
    }
    if ((v = json_object_get(o, "iterations"))) {
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > CS_CLUSTER_MAX_ITERATIONS)
            return CS_ERR(err, CS_EINVAL, "%s:%d: jobs[%zu].iterations: expected an integer from 1 to %u", path, line,
                          i, CS_CLUSTER_MAX_ITERATIONS);
        j->iterations = (uint32_t)json_integer_value(v);
    }
    if ((v = json_object_get(o, "traffic_class"))) {
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 7)
            return CS_ERR(err, CS_EINVAL, "%s:%d: jobs[%zu].traffic_class: expected an integer from 0 to 7 (the "
                                          "class of the job's messages: backend.packet.priorities)", path, line, i);
        j->traffic_class = (uint8_t)json_integer_value(v);
    }
    if ((v = json_object_get(o, "start_ns"))) {
        if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) >= CS_TIME_MAX_NS / 2)
            return CS_ERR(err, CS_EINVAL, "%s:%d: jobs[%zu].start_ns: expected an integer number of nanoseconds from 0 "
                                          "to %llu (half the simulated-time range)",
                          path, line, i, (unsigned long long)(CS_TIME_MAX_NS / 2 - 1));
        j->start = cs_time_from_ns((uint64_t)json_integer_value(v));
    }
    if ((v = json_object_get(o, "placement"))) {
        if (json_is_string(v) && placement_policy_ok(json_string_value(v))) {
            snprintf(j->placement, sizeof j->placement, "%s", json_string_value(v));
        } else if ((json_is_string(v) || json_is_array(v)) && (j->explicit_npus = npu_list(v, 1ull << 32, j->npus ? j->npus : CS_CLUSTER_MAX_JOB_NPUS))) {
            snprintf(j->placement, sizeof j->placement, "explicit");
        } else {
            return CS_ERR(err, CS_EINVAL, "%s:%d: jobs[%zu].placement: expected contiguous, pack, spread, "
                                          "random[:SEED], or the job's NPUs as a list ([0, 1, 8, 9]) or ranges "
                                          "(\"0-7,16-23\"), at most %u of them (npus)",
                          path, line, i, j->npus ? j->npus : CS_CLUSTER_MAX_JOB_NPUS);
        }
    }
    json_t *wl = json_object_get(o, "workload"), *set = json_object_get(o, "set"), *cg = json_object_get(o, "comm-groups");
    if (wl && (!json_is_string(wl) || !json_string_value(wl)[0]))
        return CS_ERR(err, CS_EINVAL, "%s:%d: jobs[%zu].workload: expected a Chakra trace PREFIX (PREFIX.<rank>.et) or "
                                      "one trace FILE every rank runs",
                      path, line, i);
    if (cg && (!json_is_string(cg) || !json_string_value(cg)[0] || !wl))
        return CS_ERR(err, CS_EINVAL, "%s:%d: jobs[%zu].comm-groups: expected the path of the traces' "
                                      "communicator-group file (with workload)",
                      path, line, i);
    if (set && !json_is_object(set))
        return CS_ERR(err, CS_EINVAL, "%s:%d: jobs[%zu].set: expected an object of plan.*, model.* and device.* keys",
                      path, line, i);
    int has_model = set && json_object_get(set, "model.name");
    if (!!wl == has_model)
        return CS_ERR(err, CS_EINVAL, "%s:%d: jobs[%zu]: expected one workload: traces (workload) or a generated plan "
                                      "(set: {\"model.name\": ...}), got %s",
                      path, line, i, wl ? "both" : "neither");
    if (wl) {
        if (!j->npus)
            return CS_ERR(err, CS_EINVAL, "%s:%d: jobs[%zu].npus: expected the number of ranks of the traces", path,
                          line, i);
        j->workload = cs_path_near(path, json_string_value(wl));
        if (cg) j->comm_groups = cs_path_near(path, json_string_value(cg));
        if (set)
            return CS_ERR(err, CS_EINVAL, "%s:%d: jobs[%zu].set: a trace job takes no plan keys", path, line, i);
        snprintf(j->what, sizeof j->what, "traces %.150s", json_string_value(wl));
    } else {
        /* the keys of a plan, checked on a scenario of their own */
        cs_scenario *t = cs_scenario_new();
        int rc = CS_OK;
        json_object_foreach(set, k, v) {
            if (strncmp(k, "plan.", 5) != 0 && strncmp(k, "model.", 6) != 0 && strncmp(k, "device.", 7) != 0) {
                rc = CS_ERR(err, CS_EINVAL, "%s:%d: jobs[%zu].set.%s: a job sets plan.*, model.* and device.* keys; "
                                            "the platform's keys go in the cluster's scenario or set",
                            path, line, i, k);
                break;
            }
            char where[96];
            snprintf(where, sizeof where, "jobs[%zu].set", i);
            rc = cs_scenario_set_json(t, k, v, where, err);
            if (rc) {
                cs_error_prefix(err, "%s:%d: ", path, line);
                break;
            }
        }
        cs_scenario_free(t);
        if (rc) return rc;
        j->set = json_incref(set);
        const char *model = json_string_value(json_object_get(set, "model.name"));
        snprintf(j->what, sizeof j->what, "%.60s", model ? model : "?");
    }
    return CS_OK;
}

int cs_cluster_load(const char *path, cs_cluster **out, cs_error *err) {
    *out = NULL;
    cs_jdoc doc;
    int rc = cs_jdoc_load(path, "cluster", &doc, err);
    if (rc) return rc;
    cs_cluster *c = cs_calloc(1, sizeof *c);
    c->path = cs_strdup(path);
    c->sc = cs_scenario_new();
    c->seeds = 1;
    json_t *root = doc.root, *v;
    static const char *const known[] = {"clustersim-cluster", "scenario", "network", "system", "topology", "memory",
                                        "set", "jobs", "operations", "windows", "seeds", "routings"};
    const char *k;
    if (!json_is_object(root)) rc = CS_ERR(err, CS_EINVAL, "%s: expected a JSON object (clustersim-cluster, "
                                                           "scenario, set, jobs)", path);
    if (rc == CS_OK) json_object_foreach(root, k, v) {
        if (cs_str_index(k, known, sizeof known / sizeof *known) < 0) {
            rc = CS_ERR(err, CS_EINVAL, "%s:%d: %s: unknown key; expected clustersim-cluster, scenario, network, system, "
                                        "topology, memory, set, jobs, operations, windows, seeds or routings",
                        path, cs_jdoc_key_line(&doc, k), k);
            break;
        }
    }
    if (rc == CS_OK) {
        v = json_object_get(root, "clustersim-cluster");
        if (!json_is_integer(v) || json_integer_value(v) != 1)
            rc = CS_ERR(err, CS_EINVAL, "%s:%d: clustersim-cluster: expected 1 (the file format's version)%s", path,
                        cs_jdoc_key_line(&doc, "clustersim-cluster"), v ? "" : ", got no such key");
    }
    if (rc == CS_OK && (v = json_object_get(root, "scenario"))) {
        if (!json_is_string(v) || !json_string_value(v)[0]) {
            rc = CS_ERR(err, CS_EINVAL, "%s:%d: scenario: expected the path of a scenario file", path,
                        cs_jdoc_key_line(&doc, "scenario"));
        } else {
            char *p = cs_path_near(path, json_string_value(v));
            rc = cs_scenario_load_file(c->sc, p, err);
            cs_free(p);
            /* (the file's own message named neither the cluster file nor the key: the cli fuzz target's
             * cluster --check, fuzz/regress/cli) */
            if (rc) cs_error_prefix(err, "%s:%d: scenario: ", path, cs_jdoc_key_line(&doc, "scenario"));
        }
    }
    /* the platform's files, as run's flags give them (--network-configuration, ...) */
    static const char *const kinds[] = {"network", "system", "topology", "memory"};
    for (size_t q = 0; q < sizeof kinds / sizeof *kinds && rc == CS_OK; q++) {
        if (!(v = json_object_get(root, kinds[q]))) continue;
        if (!json_is_string(v) || !json_string_value(v)[0]) {
            rc = CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected the path of a %s file", path,
                        cs_jdoc_key_line(&doc, kinds[q]), kinds[q], kinds[q]);
        } else {
            char *p = cs_path_near(path, json_string_value(v));
            rc = cs_scenario_load_kind(c->sc, kinds[q], p, err);
            cs_free(p);
            if (rc) cs_error_prefix(err, "%s:%d: %s: ", path, cs_jdoc_key_line(&doc, kinds[q]), kinds[q]);
        }
    }
    if (rc == CS_OK && (v = json_object_get(root, "set"))) {
        if (!json_is_object(v)) {
            rc = CS_ERR(err, CS_EINVAL, "%s:%d: set: expected an object of scenario keys and values", path,
                        cs_jdoc_key_line(&doc, "set"));
        } else {
            json_t *x;
            char where[512];
            snprintf(where, sizeof where, "%s: set", path);
            json_object_foreach(v, k, x) {
                if ((rc = cs_scenario_set_json(c->sc, k, x, where, err)) != CS_OK) break;
            }
        }
    }
    if (rc == CS_OK) {
        v = json_object_get(root, "jobs");
        if (!json_is_array(v) || json_array_size(v) == 0 || json_array_size(v) > CS_CLUSTER_MAX_JOBS) {
            rc = CS_ERR(err, CS_EINVAL, "%s:%d: jobs: expected a list of 1 to %u jobs", path,
                        cs_jdoc_key_line(&doc, "jobs"), CS_CLUSTER_MAX_JOBS);
        } else {
            c->njobs = json_array_size(v);
            c->jobs = cs_calloc(c->njobs, sizeof *c->jobs);
            for (size_t i = 0; i < c->njobs && rc == CS_OK; i++) rc = job_parse(c, &doc, i, json_array_get(v, i), err);
        }
    }
    char where[600];
    if (rc == CS_OK && (v = json_object_get(root, "seeds"))) {
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > CS_CLUSTER_MAX_SEEDS)
            rc = CS_ERR(err, CS_EINVAL, "%s:%d: seeds: expected an integer from 1 to %u", path,
                        cs_jdoc_key_line(&doc, "seeds"), CS_CLUSTER_MAX_SEEDS);
        else c->seeds = (uint32_t)json_integer_value(v);
    }
    if (rc == CS_OK && (v = json_object_get(root, "routings"))) {
        int line = cs_jdoc_key_line(&doc, "routings");
        if (!json_is_array(v) || json_array_size(v) == 0 || json_array_size(v) > CS_CLUSTER_MAX_ROUTINGS) {
            rc = CS_ERR(err, CS_EINVAL, "%s:%d: routings: expected a list of 1 to %u routing policies (ecmp, spray, "
                                        "qp[:N], te)",
                        path, line, CS_CLUSTER_MAX_ROUTINGS);
        } else {
            c->routings = cs_calloc(json_array_size(v), sizeof *c->routings);
            for (size_t i = 0; i < json_array_size(v) && rc == CS_OK; i++) {
                const char *r = json_string_value(json_array_get(v, i));
                unsigned long long qn = 0;
                char *end = NULL;
                if (r && strncmp(r, "qp:", 3) == 0) qn = strtoull(r + 3, &end, 10);
                if (!r || !(strcmp(r, "ecmp") == 0 || strcmp(r, "spray") == 0 || strcmp(r, "qp") == 0 ||
                            strcmp(r, "te") == 0 || (end && end != r + 3 && !*end && qn >= 1 && qn <= 65536))) {
                    rc = CS_ERR(err, CS_EINVAL, "%s:%d: routings[%zu]: expected ecmp, spray, qp, qp:N (N queue pairs, "
                                                "1 to 65536) or te",
                                path, line, i);
                    break;
                }
                for (size_t q = 0; q < i; q++)
                    if (strcmp(c->routings[q].name, r) == 0)
                        rc = CS_ERR(err, CS_EINVAL, "%s:%d: routings[%zu]: %s twice", path, line, i, r);
                snprintf(c->routings[i].name, sizeof c->routings[i].name, "%s", r);
                c->nroutings = i + 1;
            }
        }
    }
    if (rc == CS_OK && (v = json_object_get(root, "operations"))) {
        snprintf(where, sizeof where, "%s:%d: operations", path, cs_jdoc_key_line(&doc, "operations"));
        rc = ops_changes(v, where, NULL, NULL, err);
        if (rc == CS_OK) c->ops = json_incref(v);
    }
    if (rc == CS_OK && (v = json_object_get(root, "windows"))) {
        int line = cs_jdoc_key_line(&doc, "windows");
        if (!json_is_array(v) || json_array_size(v) == 0 || json_array_size(v) > CS_CLUSTER_MAX_WINDOWS) {
            rc = CS_ERR(err, CS_EINVAL, "%s:%d: windows: expected a list of 1 to %u candidate maintenance windows",
                        path, line, CS_CLUSTER_MAX_WINDOWS);
        } else {
            c->windows = cs_calloc(json_array_size(v), sizeof *c->windows);
            for (size_t i = 0; i < json_array_size(v) && rc == CS_OK; i++) {
                json_t *w = json_array_get(v, i), *nm = json_object_get(w, "name"), *ops = json_object_get(w, "operations");
                line = cs_jdoc_elem_line(&doc, "windows", i);
                if (!json_is_object(w) || json_object_size(w) != (size_t)(!!nm + !!ops) || !ops) {
                    rc = CS_ERR(err, CS_EINVAL, "%s:%d: windows[%zu]: expected {\"name\": NAME, \"operations\": [...]}",
                                path, line, i);
                    break;
                }
                cs_cluster_window *cw = &c->windows[i];
                snprintf(cw->name, sizeof cw->name, "window%zu", i);
                if (nm && (!json_is_string(nm) || !name_ok(json_string_value(nm)))) {
                    rc = CS_ERR(err, CS_EINVAL, "%s:%d: windows[%zu].name: expected 1 to 32 of A-Z a-z 0-9 _ - .",
                                path, line, i);
                    break;
                }
                if (nm) snprintf(cw->name, sizeof cw->name, "%s", json_string_value(nm));
                for (size_t q = 0; q < i; q++)
                    if (strcmp(c->windows[q].name, cw->name) == 0)
                        rc = CS_ERR(err, CS_EINVAL, "%s:%d: windows[%zu].name %s: already the name of windows[%zu]", path,
                                    line, i, cw->name, q);
                snprintf(where, sizeof where, "%s:%d: windows[%zu].operations", path, line, i);
                if (rc == CS_OK) rc = ops_changes(ops, where, NULL, NULL, err);
                if (rc == CS_OK) {
                    cw->ops = json_incref(ops);
                    c->nwindows = i + 1;
                }
            }
        }
    }
    cs_jdoc_free(&doc);
    if (rc) {
        cs_cluster_free(c);
        return rc;
    }
    *out = c;
    return CS_OK;
}

void cs_cluster_free(cs_cluster *c) {
    if (!c) return;
    for (size_t i = 0; i < c->njobs; i++) {
        cs_cluster_job *j = &c->jobs[i];
        cs_free(j->npu);
        json_decref(j->explicit_npus);
        cs_free(j->workload);
        cs_free(j->comm_groups);
        json_decref(j->set);
        cs_free(j->alone_end);
        cs_free(j->shared_end);
    }
    cs_free(c->jobs);
    json_decref(c->ops);
    json_decref(c->changes);
    for (size_t i = 0; i < c->nwindows; i++) {
        json_decref(c->windows[i].ops);
        cs_free(c->windows[i].job_time);
    }
    cs_free(c->windows);
    for (size_t i = 0; i < c->nroutings; i++) {
        cs_free(c->routings[i].job_st);
        cs_free(c->routings[i].link_bytes);
    }
    cs_free(c->routings);
    for (size_t i = 0; i < c->nlinks; i++) cs_free(c->links[i].job_bytes);
    cs_free(c->links);
    if (c->shared) cs_result_free(c->shared);
    cs_scenario_free(c->sc);
    cs_free(c->path);
    cs_free(c);
}

cs_time cs_cluster_step(const cs_cluster_job *j, uint32_t i, int shared) {
    const cs_time *e = shared ? j->shared_end : j->alone_end;
    if (!e || i >= j->iterations) return 0;
    cs_time prev = i ? e[i - 1] : j->start;
    return e[i] > prev ? e[i] - prev : 0;
}

/* ---- operations: timed changes of the fabric ------------------------------------------ */

static int op_time(const json_t *o, const char *key, int need, uint64_t *out, const char *where, size_t i,
                   cs_error *err) {
    const json_t *v = json_object_get(o, key);
    if (!v && !need) return 1; /* absent */
    if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) >= CS_TIME_MAX_NS / 2)
        return -CS_ERR(err, CS_EINVAL, "%s[%zu].%s: expected an integer number of nanoseconds from 0 to %llu%s", where,
                       i, key, (unsigned long long)(CS_TIME_MAX_NS / 2 - 1), v ? "" : " (required)");
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

static int op_node(const json_t *v, json_int_t *out) {
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > INT32_MAX) return -1;
    *out = json_integer_value(v);
    return 0;
}

static int op_cable(const json_t *o, const char *key, json_int_t ab[2], const char *where, size_t i, cs_error *err) {
    const json_t *v = json_object_get(o, key);
    if (!json_is_array(v) || json_array_size(v) != 2 || op_node(json_array_get(v, 0), &ab[0]) ||
        op_node(json_array_get(v, 1), &ab[1]))
        return CS_ERR(err, CS_EINVAL, "%s[%zu].%s: expected a cable as [a, b] (node ids)", where, i, key);
    return CS_OK;
}

static int op_factor(const json_t *o, const char *where, size_t i, double *f, cs_error *err) {
    const json_t *v = json_object_get(o, "factor");
    if (!json_is_number(v) || !(json_number_value(v) >= 0 && json_number_value(v) <= 1))
        return CS_ERR(err, CS_EINVAL, "%s[%zu].factor: expected a number from 0 (down) to 1 (full bandwidth)", where,
                      i);
    *f = json_number_value(v);
    return CS_OK;
}

static void add_link(json_t *links, uint64_t t, const json_int_t ab[2], double f) {
    if (!links) return;
    json_t *e = json_array();
    json_array_append_new(e, json_integer((json_int_t)t));
    json_array_append_new(e, json_integer(ab[0]));
    json_array_append_new(e, json_integer(ab[1]));
    json_array_append_new(e, json_real(f));
    json_array_append_new(links, e);
}

static void add_switch(json_t *sw, uint64_t t, json_int_t s, double f) {
    if (!sw) return;
    json_t *e = json_array();
    json_array_append_new(e, json_integer((json_int_t)t));
    json_array_append_new(e, json_integer(s));
    json_array_append_new(e, json_real(f));
    json_array_append_new(sw, e);
}

/* Operations (a list of objects, docs/cluster.md) checked and, with links
 * and sw, turned into topology link_changes [t, a, b, factor] and
 * switch_changes [t, node, factor]; where names the list in messages. */
static int ops_changes(const json_t *ops, const char *where, json_t *links, json_t *sw, cs_error *err) {
    static const char *const kinds[] = {"link", "switch", "drain", "fail", "degrade", "flap"};
    static const char *const keys[] = {"link", "switch", "drain", "fail", "degrade", "flap", "at_ns", "from_ns",
                                       "until_ns", "factor", "mean_up_ns", "down_ns", "seed"};
    if (!json_is_array(ops))
        return CS_ERR(err, CS_EINVAL, "%s: expected a list of operations (docs/cluster.md)", where);
    size_t i, nchanges = 0;
    json_t *o;
    json_array_foreach(ops, i, o) {
        if (!json_is_object(o))
            return CS_ERR(err, CS_EINVAL, "%s[%zu]: expected an object with one of link, switch, drain, fail, "
                                          "degrade, flap",
                          where, i);
        const char *k, *kind = NULL;
        json_t *v;
        json_object_foreach(o, k, v) {
            if (cs_str_index(k, keys, sizeof keys / sizeof *keys) < 0)
                return CS_ERR(err, CS_EINVAL, "%s[%zu].%s: unknown key; expected link, switch, drain, fail, degrade "
                                              "or flap with at_ns, from_ns, until_ns, factor, mean_up_ns, down_ns, seed",
                              where, i, k);
            int q = cs_str_index(k, kinds, sizeof kinds / sizeof *kinds);
            if (q < 0) continue;
            if (kind)
                return CS_ERR(err, CS_EINVAL, "%s[%zu]: %s and %s: expected one operation per object", where, i, kind,
                              k);
            kind = kinds[q];
        }
        if (!kind)
            return CS_ERR(err, CS_EINVAL, "%s[%zu]: expected one of link, switch, drain, fail, degrade, flap", where, i);
        uint64_t at = 0, from = 0, until = 0;
        int r, has_until;
        json_int_t ab[2];
        double f = 0;
        if (strcmp(kind, "link") == 0 || strcmp(kind, "switch") == 0) {
            if ((r = op_time(o, "at_ns", 1, &at, where, i, err)) < 0) return -r;
            if (op_factor(o, where, i, &f, err)) return CS_EINVAL;
            if (kind[0] == 'l') {
                if (op_cable(o, "link", ab, where, i, err)) return CS_EINVAL;
                add_link(links, at, ab, f);
            } else {
                json_int_t sn;
                if (op_node(json_object_get(o, "switch"), &sn))
                    return CS_ERR(err, CS_EINVAL, "%s[%zu].switch: expected a node id", where, i);
                add_switch(sw, at, sn, f);
            }
            nchanges++;
            continue;
        }
        if ((r = op_time(o, "from_ns", strcmp(kind, "flap") != 0, &from, where, i, err)) < 0) return -r;
        if ((r = op_time(o, "until_ns", strcmp(kind, "flap") == 0, &until, where, i, err)) < 0) return -r;
        has_until = r == 0;
        if (has_until && until <= from)
            return CS_ERR(err, CS_EINVAL, "%s[%zu].until_ns: expected a time after from_ns (%llu)", where, i,
                          (unsigned long long)from);
        if (strcmp(kind, "drain") == 0) { /* one switch or a list: every link of each down, then back */
            const json_t *d = json_object_get(o, "drain");
            size_t n = json_is_array(d) ? json_array_size(d) : 1;
            for (size_t q = 0; q < n; q++) {
                json_int_t sn;
                if ((json_is_array(d) && !n) || op_node(json_is_array(d) ? json_array_get(d, q) : d, &sn))
                    return CS_ERR(err, CS_EINVAL, "%s[%zu].drain: expected a switch or a list of switches (node ids)",
                                  where, i);
                add_switch(sw, from, sn, 0);
                if (has_until) add_switch(sw, until, sn, 1);
                nchanges += 1u + (has_until != 0);
            }
        } else if (strcmp(kind, "fail") == 0 || strcmp(kind, "degrade") == 0) {
            if (op_cable(o, kind, ab, where, i, err)) return CS_EINVAL;
            if (kind[0] == 'd' && op_factor(o, where, i, &f, err)) return CS_EINVAL;
            add_link(links, from, ab, f);
            if (has_until) add_link(links, until, ab, 1);
            nchanges += 1u + (has_until != 0);
        } else { /* flap: up for an exponential time of mean mean_up_ns, down for down_ns, until until_ns */
            uint64_t up, down, seed = 1;
            if (op_cable(o, "flap", ab, where, i, err)) return CS_EINVAL;
            if ((r = op_time(o, "mean_up_ns", 1, &up, where, i, err)) < 0) return -r;
            if ((r = op_time(o, "down_ns", 1, &down, where, i, err)) < 0) return -r;
            if (!up || !down)
                return CS_ERR(err, CS_EINVAL, "%s[%zu]: mean_up_ns and down_ns: expected more than 0 ns", where, i);
            const json_t *sv = json_object_get(o, "seed");
            if (sv && (!json_is_integer(sv) || json_integer_value(sv) < 0))
                return CS_ERR(err, CS_EINVAL, "%s[%zu].seed: expected an integer of 0 or more", where, i);
            if (sv) seed = (uint64_t)json_integer_value(sv);
            uint64_t st = cs_mix64(seed ^ 0x666c6170ull), t = from; /* "flap" */
            for (;;) {
                double u = cs_rand_unit(cs_rand_next(&st));
                double gap = -(double)up * log1p(-u); /* exponential, mean up */
                if (!(gap < (double)(until - t))) break;
                uint64_t g = (uint64_t)gap;
                t += g ? g : 1;
                if (t >= until) break;
                if ((nchanges += 2) > CS_CLUSTER_MAX_CHANGES)
                    return CS_ERR(err, CS_EINVAL, "%s[%zu]: more than %u timed changes; expected a longer mean_up_ns "
                                                  "or an earlier until_ns",
                                  where, i, CS_CLUSTER_MAX_CHANGES);
                add_link(links, t, ab, 0);
                t += down;
                add_link(links, t, ab, 1);
            }
            continue;
        }
        if (nchanges > CS_CLUSTER_MAX_CHANGES)
            return CS_ERR(err, CS_EINVAL, "%s: more than %u timed changes", where, CS_CLUSTER_MAX_CHANGES);
    }
    return CS_OK;
}

/* A copy of the platform with the operations (and a window's) added to its topology's timed changes. */
static int with_changes(cs_cluster *c, const cs_cluster_window *w, cs_scenario **out, cs_error *err) {
    *out = NULL;
    json_t *tsect = c->sc->sect[SC_TOPOLOGY];
    json_t *links = json_deep_copy(json_object_get(tsect, "link_changes"));
    json_t *sw = json_deep_copy(json_object_get(tsect, "switch_changes"));
    if (!links) links = json_array();
    if (!sw) sw = json_array();
    char where[160];
    snprintf(where, sizeof where, "%s: operations", c->path);
    int rc = c->ops ? ops_changes(c->ops, where, links, sw, err) : CS_OK;
    if (rc == CS_OK && w) {
        snprintf(where, sizeof where, "%s: window %s: operations", c->path, w->name);
        rc = ops_changes(w->ops, where, links, sw, err);
    }
    cs_scenario *t = rc == CS_OK ? cs_scenario_copy(c->sc) : NULL;
    if (rc == CS_OK && json_array_size(links)) rc = cs_scenario_set_json(t, "topology.link_changes", links, where, err);
    if (rc == CS_OK && json_array_size(sw)) rc = cs_scenario_set_json(t, "topology.switch_changes", sw, where, err);
    if (rc == CS_OK && !w && (json_array_size(links) || json_array_size(sw))) { /* the runs' changes, for the outputs */
        json_decref(c->changes);
        c->changes = json_pack("{sOsO}", "link_changes", links, "switch_changes", sw);
    }
    json_decref(links);
    json_decref(sw);
    if (rc) {
        cs_scenario_free(t);
        return rc;
    }
    *out = t;
    return CS_OK;
}

/* ---- each job's own workload -------------------------------------------------------- */

typedef struct job_src {
    cs_workload w;       /* the job's graphs, in its own rank numbering */
    cs_comm_groups g;    /* its communicator groups, in that numbering */
    uint64_t span;       /* node ids per iteration, over its graphs */
    uint32_t all_group;  /* index in the cluster's groups of its default group; its named groups follow */
    cs_device dev;       /* a generated job's device (has_dev) */
    int has_dev;
} job_src;

static int job_load(cs_cluster *c, cs_cluster_job *j, const cs_run_params *ro, const volatile sig_atomic_t *stop,
                    job_src *js, int *plan, cs_error *err) {
    int rc;
    if (j->workload) {
        cs_graph_options go = {ro->ignore_ctrl_deps, ro->allow_missing_data_deps, stop};
        rc = cs_workload_load(j->workload, j->npus, &go, &js->w, err);
        if (rc) cs_error_prefix(err, "workload: ");
        if (rc == CS_OK && j->comm_groups) {
            rc = cs_comm_groups_load(j->comm_groups, &js->g, err);
            if (rc == CS_OK) rc = cs_comm_groups_validate(&js->g, j->npus, err);
            if (rc) cs_error_prefix(err, "comm-groups: ");
        }
    } else {
        *plan = 1;
        cs_scenario *t = cs_scenario_copy(c->sc);
        const char *k;
        json_t *v;
        rc = CS_OK;
        json_object_foreach(j->set, k, v) {
            if ((rc = cs_scenario_set_json(t, k, v, "set", err)) != CS_OK) break;
        }
        cs_gen_model m;
        cs_device d;
        cs_gen_plan p;
        if (rc == CS_OK && j->npus) { /* the rank count first: the error a user fixes first */
            cs_network_config n;
            cs_system_config sy;
            rc = cs_scenario_plan_inputs(t, &m, &d, &p, &n, &sy, err); /* (frees n and sy when it fails) */
            if (rc == CS_OK) {
                cs_network_config_free(&n);
                cs_system_config_free(&sy);
                if (j->npus != cs_gen_ranks(&p))
                    rc = CS_ERR(err, CS_EINVAL, "npus: expected the plan's %u ranks (tp x cp x pp x dp), got %u",
                                cs_gen_ranks(&p), j->npus);
            }
        }
        if (rc == CS_OK) rc = cs_scenario_plan(t, &m, &d, &p, err);
        if (rc == CS_OK) {
            j->npus = cs_gen_ranks(&p);
            snprintf(j->what, sizeof j->what, "%.60s tp %u cp %u pp %u dp %u", m.name, p.tp, p.cp, p.pp, p.dp);
            rc = cs_gen_workload(&m, &p, &d, NULL, stop, &js->w, err);
        }
        if (rc == CS_OK) {
            cs_gen_comm_groups(&p, &js->g);
            js->dev = d;
            js->has_dev = 1;
        }
        cs_scenario_free(t);
    }
    uint64_t span = 0;
    for (uint32_t g = 0; rc == CS_OK && g < js->w.ngraphs; g++) {
        uint64_t s = cs_graph_iteration_span(js->w.graphs[g], j->iterations);
        if (!s) rc = CS_ERR(err, CS_EINVAL, "%s: %u iterations pass 2^64 node ids; expected fewer iterations",
                            js->w.graphs[g]->source, j->iterations);
        if (s > span) span = s;
    }
    js->span = span; /* (each graph's span passed the 2^64 check, so their largest does too) */
    if (rc) cs_error_prefix(err, "%s: job %s: ", c->path, j->name);
    return rc;
}

/* ---- placement ----------------------------------------------------------------------- */

typedef struct npu_dom { uint32_t dom, npu; } npu_dom;
static int cmp_nd(const void *a, const void *b) {
    const npu_dom *x = a, *y = b;
    if (x->dom != y->dom) return x->dom < y->dom ? -1 : 1;
    return (x->npu > y->npu) - (x->npu < y->npu);
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

typedef struct dom_run { uint32_t dom, first, n; } dom_run; /* a domain's free NPUs: fr[first .. first+n) */
static int cmp_run_desc(const void *a, const void *b) {
    const dom_run *x = a, *y = b;
    if (x->n != y->n) return x->n > y->n ? -1 : 1;
    return (x->dom > y->dom) - (x->dom < y->dom);
}

/* Job j's NPUs on the free ones (free_[v] = 1), by its policy; dom[v] is v's switch (or dimension-0 group). */
static int place_job(const cs_cluster *c, cs_cluster_job *j, uint8_t *free_, const uint32_t *dom, uint32_t N,
                     uint32_t seed_k, cs_error *err) {
    uint32_t n = j->npus, nfree = 0;
    for (uint32_t v = 0; v < N; v++) nfree += free_[v];
    const char *pol = j->placement;
    if (n > nfree)
        return CS_ERR(err, CS_EINVAL, "%s: job %s: needs %u NPUs, %u of the cluster's %u are free (the jobs before it "
                                      "hold the rest); expected a larger network or fewer ranks",
                      c->path, j->name, n, nfree, N);
    j->npu = cs_malloc((size_t)n * sizeof *j->npu);
    if (j->explicit_npus) {
        if (json_array_size(j->explicit_npus) != n)
            return CS_ERR(err, CS_EINVAL, "%s: job %s: placement lists %zu NPUs; expected one per rank (%u)", c->path,
                          j->name, json_array_size(j->explicit_npus), n);
        for (uint32_t r = 0; r < n; r++) {
            json_int_t v = json_integer_value(json_array_get(j->explicit_npus, r));
            if (v >= (json_int_t)N)
                return CS_ERR(err, CS_EINVAL, "%s: job %s: placement: NPU %lld is not in the cluster; expected 0 to "
                                              "%u",
                              c->path, j->name, (long long)v, N - 1);
            if (!free_[v])
                return CS_ERR(err, CS_EINVAL, "%s: job %s: placement: NPU %lld is %s; expected NPUs no other job or "
                                              "rank holds",
                              c->path, j->name, (long long)v, "taken (listed twice, or by a job before it)");
            free_[v] = 0;
            j->npu[r] = (uint32_t)v;
        }
        return CS_OK;
    }
    if (strcmp(pol, "contiguous") == 0) { /* the first run of n free NPUs */
        uint32_t run = 0;
        for (uint32_t v = 0; v < N; v++) {
            run = free_[v] ? run + 1 : 0;
            if (run == n) {
                for (uint32_t r = 0; r < n; r++) {
                    j->npu[r] = v + 1 - n + r;
                    free_[v + 1 - n + r] = 0;
                }
                return CS_OK;
            }
        }
        return CS_ERR(err, CS_EINVAL, "%s: job %s: placement contiguous: no %u consecutive free NPUs (%u are free); "
                                      "expected placement pack, spread or random",
                      c->path, j->name, n, nfree);
    }
    npu_dom *fr = cs_malloc((size_t)(nfree ? nfree : 1) * sizeof *fr);
    uint32_t k = 0;
    for (uint32_t v = 0; v < N; v++)
        if (free_[v]) fr[k++] = (npu_dom){dom[v], v};
    if (strncmp(pol, "random", 6) == 0) { /* a seeded shuffle of the free NPUs */
        uint64_t seed = pol[6] == ':' ? strtoull(pol + 7, NULL, 10) : 1 + (uint64_t)seed_k; /* bare: per seed */
        for (uint32_t i = nfree; i > 1; i--) {
            uint32_t q = (uint32_t)(cs_mix64(seed ^ cs_mix64(i)) % i);
            npu_dom t = fr[i - 1];
            fr[i - 1] = fr[q];
            fr[q] = t;
        }
        for (uint32_t r = 0; r < n; r++) j->npu[r] = fr[r].npu;
    } else {
        qsort(fr, nfree, sizeof *fr, cmp_nd);
        dom_run *runs = cs_malloc((size_t)(nfree ? nfree : 1) * sizeof *runs);
        uint32_t nr = 0;
        for (uint32_t i = 0; i < nfree; i++) {
            if (!nr || runs[nr - 1].dom != fr[i].dom) runs[nr++] = (dom_run){fr[i].dom, i, 0};
            runs[nr - 1].n++;
        }
        uint32_t got = 0;
        if (strcmp(pol, "spread") == 0) { /* one NPU per switch in turn */
            for (uint32_t round = 0; got < n; round++)
                for (uint32_t d = 0; d < nr && got < n; d++)
                    if (round < runs[d].n) j->npu[got++] = fr[runs[d].first + round].npu;
        } else { /* pack: the fullest fit -- one switch if one holds it (the least free such), else the fullest first */
            uint32_t best = UINT32_MAX;
            for (uint32_t d = 0; d < nr; d++)
                if (runs[d].n >= n && (best == UINT32_MAX || runs[d].n < runs[best].n)) best = d;
            if (best != UINT32_MAX) {
                for (uint32_t r = 0; r < n; r++) j->npu[got++] = fr[runs[best].first + r].npu;
            } else {
                qsort(runs, nr, sizeof *runs, cmp_run_desc);
                for (uint32_t d = 0; d < nr && got < n; d++)
                    for (uint32_t r = 0; r < runs[d].n && got < n; r++) j->npu[got++] = fr[runs[d].first + r].npu;
            }
        }
        cs_free(runs);
    }
    for (uint32_t r = 0; r < n; r++) free_[j->npu[r]] = 0;
    cs_free(fr);
    return CS_OK;
}

/* ---- composition ---------------------------------------------------------------------- */

static cs_graph *idle_graph(void) {
    cs_graph *g = cs_calloc(1, sizeof *g);
    g->source = cs_strdup("(idle NPU)");
    g->npg = 1;
    g->pg_names = cs_calloc(1, sizeof *g->pg_names);
    g->pg_names[0] = cs_strdup("");
    return g;
}

typedef struct gptr { const cs_graph *g; uint32_t idx; } gptr;
static int cmp_gptr(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)((const gptr *)a)->g, y = (uintptr_t)((const gptr *)b)->g;
    return (x > y) - (x < y);
}

/* The cluster's workload with the jobs in `only` (-1 = every job): their
 * graphs renamed and repeated, idle NPUs empty; start[v] = its job's start,
 * tclass[v] its job's traffic class. */
static int compose(const cs_cluster *c, const job_src *js, const cs_comm_groups *cg, long only, uint32_t N,
                   cs_workload *w, cs_time *start, uint8_t *tclass, cs_error *err) {
    size_t ng = 1, capg = 8;
    cs_graph **graphs = cs_malloc(capg * sizeof *graphs);
    graphs[0] = idle_graph();
    uint32_t *idx = cs_calloc(N ? N : 1, sizeof *idx);
    memset(start, 0, (size_t)N * sizeof *start);
    memset(tclass, 0, (size_t)N);
    int rc = CS_OK;
    /* the job graphs of a stage's ranks (and of jobs alike) share one graph's nodes (workload/graph.h) */
    cs_graph_sharer *sh = cs_graph_sharer_new();
    for (size_t jj = 0; jj < c->njobs && rc == CS_OK; jj++) {
        if (only >= 0 && (size_t)only != jj) continue;
        const cs_cluster_job *j = &c->jobs[jj];
        const job_src *s = &js[jj];
        gptr *map = cs_malloc((s->w.ngraphs ? s->w.ngraphs : 1) * sizeof *map);
        for (uint32_t g = 0; g < s->w.ngraphs && rc == CS_OK; g++) {
            const cs_graph *src = s->w.graphs[g];
            const char **pg = cs_malloc((src->npg ? src->npg : 1) * sizeof *pg);
            for (uint32_t q = 0; q < src->npg && rc == CS_OK; q++) {
                const cs_comm_group *grp = NULL;
                rc = cs_comm_groups_resolve(&s->g, src->pg_names[q], &grp, err);
                if (rc) cs_error_prefix(err, "%s: job %s: %s: ", c->path, j->name, src->source);
                else pg[q] = cg->groups[s->all_group + (grp ? 1 + (uint32_t)(grp - s->g.groups) : 0)].name;
            }
            char label[640];
            snprintf(label, sizeof label, "job %s: %.600s", j->name, src->source);
            cs_graph_job gj = {.rank_map = j->npu, .nranks = j->npus, .pg_map = pg, .iterations = j->iterations,
                               .span = s->span, .label = label};
            cs_graph *out = NULL;
            if (rc == CS_OK && (rc = cs_graph_for_job(src, &gj, &out, err)) != CS_OK)
                cs_error_prefix(err, "%s: ", c->path); /* (the label names the job and its trace) */
            cs_free(pg);
            if (rc) break;
            CS_GROW(graphs, capg, ng + 1);
            map[g] = (gptr){src, (uint32_t)ng};
            graphs[ng++] = cs_graph_sharer_put(sh, out);
        }
        if (rc == CS_OK) {
            qsort(map, s->w.ngraphs, sizeof *map, cmp_gptr);
            for (uint32_t r = 0; r < j->npus; r++) {
                gptr key = {s->w.rank_graph[r], 0};
                const gptr *f = bsearch(&key, map, s->w.ngraphs, sizeof *map, cmp_gptr);
                idx[j->npu[r]] = f->idx;
                start[j->npu[r]] = j->start;
                tclass[j->npu[r]] = j->traffic_class;
            }
        }
        cs_free(map);
    }
    cs_graph_sharer_free(sh);
    if (rc == CS_OK) {
        rc = cs_workload_from_graphs(graphs, (uint32_t)ng, idx, N, w, err);
        if (rc == CS_OK) {
            cs_free(w->prefix);
            w->prefix = cs_strdup(c->path);
        }
    } else {
        for (size_t g = 0; g < ng; g++) cs_graph_free(graphs[g]);
    }
    cs_free(graphs);
    cs_free(idx);
    return rc;
}

/* The cluster's communicator groups: per job its own ranks, then its named groups, numbered from 1. */
static void cluster_groups(const cs_cluster *c, job_src *js, cs_comm_groups *out) {
    memset(out, 0, sizeof *out);
    size_t n = 0;
    for (size_t j = 0; j < c->njobs; j++) n += 1 + js[j].g.ngroups;
    out->groups = cs_calloc(n, sizeof *out->groups);
    out->path = cs_strdup(c->path);
    for (size_t jj = 0; jj < c->njobs; jj++) {
        const cs_cluster_job *j = &c->jobs[jj];
        js[jj].all_group = (uint32_t)out->ngroups;
        for (size_t q = 0; q <= js[jj].g.ngroups; q++) {
            cs_comm_group *g = &out->groups[out->ngroups];
            const cs_comm_group *src = q ? &js[jj].g.groups[q - 1] : NULL;
            g->id = (uint32_t)++out->ngroups;
            char nm[16];
            snprintf(nm, sizeof nm, "%u", g->id);
            g->name = cs_strdup(nm);
            g->nranks = src ? src->nranks : j->npus;
            g->ranks = cs_malloc((size_t)g->nranks * sizeof *g->ranks);
            g->rank_lines = cs_calloc(g->nranks, sizeof *g->rank_lines);
            for (uint32_t r = 0; r < g->nranks; r++) g->ranks[r] = j->npu[src ? src->ranks[r] : r];
        }
    }
}

/* Every job's NPUs (seed k draws bare random placements anew), the map NPU -> job and the cluster's
 * communicator groups (rebuilt). */
static int place_all(cs_cluster *c, job_src *js, uint32_t k, const uint32_t *dom, uint32_t N, int32_t *rank_job,
                     cs_comm_groups *cg, cs_error *err) {
    uint8_t *free_ = cs_malloc(N ? N : 1);
    memset(free_, 1, N);
    for (uint32_t v = 0; v < N; v++) rank_job[v] = -1;
    c->allocated = 0;
    int rc = CS_OK;
    for (size_t j = 0; j < c->njobs && rc == CS_OK; j++) {
        cs_cluster_job *jb = &c->jobs[j];
        cs_free(jb->npu);
        jb->npu = NULL;
        rc = place_job(c, jb, free_, dom, N, k, err);
        if (rc) break;
        c->allocated += jb->npus;
        for (uint32_t r = 0; r < jb->npus; r++) rank_job[jb->npu[r]] = (int32_t)j;
        /* the switches (or dimension-0 groups) it spans */
        uint32_t *d = cs_malloc((size_t)jb->npus * sizeof *d);
        for (uint32_t r = 0; r < jb->npus; r++) d[r] = dom[jb->npu[r]];
        qsort(d, jb->npus, sizeof *d, cmp_u32);
        jb->domains = 0;
        for (uint32_t r = 0; r < jb->npus; r++) jb->domains += !r || d[r] != d[r - 1];
        cs_free(d);
    }
    cs_free(free_);
    if (rc == CS_OK) {
        cs_comm_groups_free(cg);
        cluster_groups(c, js, cg);
    }
    return rc;
}

/* ---- the traffic matrix and the routing policies ----------------------------------------- */

typedef struct tm_ent { uint64_t key, bytes; } tm_ent; /* key = (src << 32 | dst) + 1; 0 = empty */
typedef struct tmatrix { tm_ent *tab; size_t cap, n; } tmatrix;

static tm_ent *tm_slot(tmatrix *m, uint64_t key) {
    for (size_t i = cs_mix64(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1))
        if (m->tab[i].key == key || m->tab[i].key == 0) return &m->tab[i];
}

/* The network layer's message hook: bytes per (src, dst) NPU pair. */
static void tm_add(void *ud, uint32_t src, uint32_t dst, uint64_t bytes) {
    tmatrix *m = ud;
    if ((m->n + 1) * 2 > m->cap) {
        tmatrix g = {cs_calloc(m->cap ? m->cap * 2 : 1024, sizeof *g.tab), m->cap ? m->cap * 2 : 1024, m->n};
        for (size_t i = 0; i < m->cap; i++)
            if (m->tab[i].key) *tm_slot(&g, m->tab[i].key) = m->tab[i];
        cs_free(m->tab);
        *m = g;
    }
    tm_ent *e = tm_slot(m, ((uint64_t)src << 32 | dst) + 1);
    if (!e->key) {
        e->key = ((uint64_t)src << 32 | dst) + 1;
        m->n++;
    }
    e->bytes += bytes;
}

/* The routing table of traffic engineering for the traffic matrix: JSON node paths. */
static int te_routes(cs_cluster *c, const cs_topo *t, const tmatrix *m, json_t **out, cs_error *err) {
    cs_te_demand *d = cs_malloc((m->n ? m->n : 1) * sizeof *d);
    size_t n = 0;
    for (size_t i = 0; i < m->cap; i++)
        if (m->tab[i].key) {
            uint64_t k = m->tab[i].key - 1;
            d[n++] = (cs_te_demand){(uint32_t)(k >> 32), (uint32_t)k, m->tab[i].bytes};
        }
    cs_te_paths p;
    int rc = cs_te_route(t, d, n, &p, err);
    cs_free(d);
    if (rc) return rc;
    json_t *routes = json_array();
    for (size_t i = 0; i < p.n; i++) {
        json_t *r = json_array();
        for (size_t k = p.off[i]; k < p.off[i + 1]; k++) json_array_append_new(r, json_integer(p.nodes[k]));
        json_array_append_new(routes, r);
    }
    c->te_demands = p.n;
    for (size_t i = 0; i < c->nroutings; i++)
        if (strcmp(c->routings[i].name, "te") == 0) c->routings[i].planned_ns = p.max_load_ns;
    cs_te_paths_free(&p);
    *out = routes;
    return CS_OK;
}

/* The platform (with its operations) under routing policy p: topology.routing (and qps), or for te the
 * platform's routing table followed by the engineered routes (the later entry of a pair wins). */
static int routing_scenario(cs_cluster *c, const cs_cluster_routing *p, json_t *te, cs_scenario **out,
                            cs_error *err) {
    int rc = with_changes(c, NULL, out, err);
    if (rc) return rc;
    const char *mode = strcmp(p->name, "te") == 0 ? "ecmp" : strncmp(p->name, "qp", 2) == 0 ? "qp" : p->name;
    json_t *v = json_string(mode);
    rc = cs_scenario_set_json(*out, "topology.routing", v, "routings", err);
    json_decref(v);
    if (rc == CS_OK && strncmp(p->name, "qp:", 3) == 0) {
        v = json_integer(strtoll(p->name + 3, NULL, 10));
        rc = cs_scenario_set_json(*out, "topology.qps", v, "routings", err);
        json_decref(v);
    }
    if (rc == CS_OK && te && strcmp(p->name, "te") == 0) {
        json_t *all = json_deep_copy(json_object_get((*out)->sect[SC_TOPOLOGY], "routes"));
        if (!all) all = json_array();
        json_array_extend(all, te);
        rc = cs_scenario_set_json(*out, "topology.routes", all, "routings te", err);
        json_decref(all);
    }
    if (rc) {
        cs_scenario_free(*out);
        *out = NULL;
    }
    return rc;
}

/* ---- the runs ---------------------------------------------------------------------------- */

typedef struct bound_obs {
    const cs_cluster *c;
    const int32_t *rank_job;  /* cluster rank -> job (-1 idle) */
    const job_src *js;
    int shared;
} bound_obs;

static void boundary_done(void *ud, const cs_node_span *s) {
    const bound_obs *o = ud;
    if (s->node->type != CS_NODE_METADATA || strcmp(cs_graph_node_name(s->graph, s->node), CS_ITERATION_BOUNDARY))
        return;
    int32_t jj = o->rank_job[s->rank];
    if (jj < 0) return;
    const cs_cluster_job *j = &o->c->jobs[jj];
    uint64_t it = s->node->id / o->js[jj].span;
    cs_time *e = o->shared ? j->shared_end : j->alone_end;
    if (it + 1 < j->iterations && s->end > e[it]) e[it] = s->end;
}

/* Job j's time in a run: from its start to its last rank's last node. */
static cs_time job_time_of(const cs_cluster_job *j, const cs_result *r) {
    cs_time fin = 0;
    for (uint32_t k = 0; k < j->npus; k++)
        if (r->sim.ranks[j->npu[k]].finish > fin) fin = r->sim.ranks[j->npu[k]].finish;
    return fin > j->start ? fin - j->start : 0;
}

/* Job j's time, compute and last iteration's end from a run's rank rows. */
static void job_times(cs_cluster_job *j, const cs_result *r, int shared) {
    cs_time t = job_time_of(j, r), comp = 0;
    for (uint32_t k = 0; k < j->npus; k++) comp += r->sim.ranks[j->npu[k]].compute;
    cs_time *e = shared ? j->shared_end : j->alone_end;
    e[j->iterations - 1] = j->start + t;
    for (uint32_t i = j->iterations - 1; i-- > 0;) /* an iteration with nothing in it ends with the one before */
        if (e[i] < j->start) e[i] = j->start;
    *(shared ? &j->shared : &j->alone) = t;
    *(shared ? &j->compute_shared : &j->compute_alone) = comp;
}

/* Another seed of a run: topology.ecmp_seed (with an explicit topology) and run.jitter-seed. */
static int seeded(cs_scenario *sc, int64_t ecmp, int64_t jitter, cs_error *err) {
    int rc = CS_OK;
    if (json_object_size(sc->sect[SC_TOPOLOGY])) {
        json_t *v = json_integer((json_int_t)(ecmp % 2147483648LL));
        rc = cs_scenario_set_json(sc, "topology.ecmp_seed", v, "cluster seeds", err);
        json_decref(v);
    }
    if (rc == CS_OK) {
        json_t *v = json_integer((json_int_t)(jitter % 2147483648LL));
        rc = cs_scenario_set_json(sc, "run.jitter-seed", v, "cluster seeds", err);
        json_decref(v);
    }
    return rc;
}

/* ---- loading: everything a cluster run reads and checks before it simulates ------------------------ */

typedef struct cl_load {
    cs_network_config net;   /* the platform's dimensions */
    cs_run_params ro;        /* its run.* keys */
    const cs_net_backend *be;
    cs_topo *topo;           /* graph backends: the physical topology (te places its routes on it) */
    uint32_t N;              /* the cluster's NPUs */
    uint32_t *dom;           /* per NPU: its switch (graph backends) or dimension-0 group */
    job_src *js;             /* per job: its graphs and communicator groups, in its own numbering */
    cs_comm_groups cg;       /* the cluster's groups (after placement) */
    int32_t *rank_job;       /* per NPU: its job (-1 idle) */
    cs_time *start;          /* per NPU (compose fills them) */
    uint8_t *tclass;
    int any_plan;            /* a generated job: the generator's system defaults */
    const cs_device *plan_dev; /* the generated jobs' device, NULL when they differ */
    int replace;             /* a bare random placement, drawn anew per seed */
    cs_scenario *run_sc;     /* the platform with the operations' timed changes */
} cl_load;

static void cluster_unload(cs_cluster *c, cl_load *L) {
    for (size_t j = 0; L->js && j < c->njobs; j++) {
        cs_workload_free(&L->js[j].w);
        cs_comm_groups_free(&L->js[j].g);
    }
    cs_free(L->js);
    cs_comm_groups_free(&L->cg);
    cs_free(L->dom);
    cs_free(L->rank_job);
    cs_free(L->start);
    cs_free(L->tclass);
    cs_scenario_free(L->run_sc);
    if (L->topo) cs_topo_free(L->topo);
    cs_network_config_free(&L->net);
    cs_sc_free_typed(SC_RUN, &L->ro);
    memset(L, 0, sizeof *L);
}

/* The platform, every job's workload (its traces read, its plan checked and generated) and groups, the
 * placements, and the checks of operations, windows and routings against the backend: what the runs use
 * (cs_cluster_run) and what --check checks (cs_cluster_check).  Free with cluster_unload, also on failure. */
static int cluster_load(cs_cluster *c, const cs_run_hooks *hooks, cl_load *L, cs_error *err) {
    memset(L, 0, sizeof *L);
    L->js = cs_calloc(c->njobs, sizeof *L->js);
    int rc = cs_sc_network(c->sc, &L->net, err);
    if (rc == CS_OK) rc = cs_sc_parse_typed(c->sc, SC_RUN, &L->ro, err);
    if (rc == CS_OK && L->net.total_npus > (1u << 24))
        rc = CS_ERR(err, CS_EINVAL, "%s: %" PRIu64 " NPUs: a cluster holds at most 2^24", L->net.path,
                    L->net.total_npus);
    uint32_t N = L->N = rc == CS_OK ? (uint32_t)L->net.total_npus : 0;
    L->be = rc == CS_OK ? cs_net_backend_find(L->ro.backend) : NULL;
    if (rc == CS_OK && !L->be)
        rc = CS_ERR(err, CS_EINVAL, "run.backend %s: unknown network backend; expected one of the list in clustersim "
                                    "run --help",
                    L->ro.backend);
    /* where NPUs hang: switches of the topology (graph backends), else groups of dimension 0 */
    if (rc == CS_OK && (L->be->caps & CS_NET_NEEDS_TOPOLOGY)) {
        rc = cs_sc_topology(c->sc, &L->net, &L->topo, err);
        if (rc == CS_OK && L->topo) cs_sc_warn_dims_vs_topology(&L->net, L->topo); /* once, not per run */
        if (rc == CS_OK && !L->topo) {
            rc = cs_topo_check_astra(&L->net, err);
            if (rc == CS_OK) L->topo = cs_topo_build_astra(&L->net);
        }
    }
    if (rc) cs_error_prefix(err, "%s: ", c->path); /* the platform: the file's, with --set's keys */
    if (rc == CS_OK) {
        L->dom = cs_malloc((size_t)(N ? N : 1) * sizeof *L->dom);
        for (uint32_t v = 0; v < N; v++) {
            uint32_t s = L->topo ? cs_topo_npu_switch(L->topo, cs_topo_rank_npu(L->topo, v)) : v / L->net.npus[0];
            L->dom[v] = s != UINT32_MAX ? s : UINT32_MAX - 1 - v; /* no switch: a domain of its own */
        }
    }
    for (size_t j = 0; j < c->njobs && rc == CS_OK; j++)
        rc = job_load(c, &c->jobs[j], &L->ro, hooks->stop, &L->js[j], &L->any_plan, err);
    int mixed = 0;
    for (size_t j = 0; j < c->njobs && rc == CS_OK; j++) {
        if (!L->js[j].has_dev) continue;
        if (!L->plan_dev) L->plan_dev = &L->js[j].dev;
        else if (strcasecmp(L->plan_dev->name, L->js[j].dev.name) != 0) mixed = 1;
    }
    if (mixed) L->plan_dev = NULL;
    for (size_t j = 0; j < c->njobs; j++) L->replace |= strcmp(c->jobs[j].placement, "random") == 0;
    L->replace = L->replace && c->seeds > 1;
    for (size_t q = 0; L->replace && q < c->nroutings && rc == CS_OK; q++)
        if (strcmp(c->routings[q].name, "te") == 0)
            rc = CS_ERR(err, CS_EINVAL, "%s: routings te with a bare random placement over %u seeds: te plans its "
                                        "paths for one placement; expected random:SEED or seeds 1",
                        c->path, c->seeds);
    L->rank_job = cs_malloc((size_t)(N ? N : 1) * sizeof *L->rank_job);
    if (rc == CS_OK) rc = place_all(c, L->js, 0, L->dom, N, L->rank_job, &L->cg, err);
    c->npus = N;
    L->start = cs_malloc((size_t)(N ? N : 1) * sizeof *L->start);
    L->tclass = cs_malloc(N ? N : 1);
    /* the fabric's timed changes need a graph */
    if (rc == CS_OK && (c->ops || c->nwindows || c->nroutings) && !(L->be->caps & CS_NET_NEEDS_TOPOLOGY))
        rc = CS_ERR(err, CS_EINVAL, "%s: operations, windows and routings change links, switches and paths; "
                                    "expected a graph backend (run.backend flow), got %s",
                    c->path, L->ro.backend);
    if (rc == CS_OK && (c->ops || c->nwindows || c->nroutings) && !json_object_size(c->sc->sect[SC_TOPOLOGY]))
        rc = CS_ERR(err, CS_EINVAL, "%s: operations, windows and routings name links, switches and paths; expected "
                                    "an explicit topology (\"topology\": FILE, or topology.* keys)",
                    c->path);
    if (rc == CS_OK) rc = with_changes(c, NULL, &L->run_sc, err);
    if (rc == CS_OK) snprintf(c->backend, sizeof c->backend, "%s", L->ro.backend);
    return rc;
}

/* One run of cs_cluster_run checked, not simulated (cs_run_hooks.check_only: the system, the groups,
 * stragglers, the backend's options and the backend itself, the memory model, the topology with a window's
 * changes): job `only` alone (-1: every job), with window win or under routing rt (te's routes come from the
 * shared run's traffic: its scenario is checked with ECMP's); the error prefixed as the run prefixes it. */
static int check_run(cs_cluster *c, cl_load *L, const volatile sig_atomic_t *stop, int progress, long only,
                     const cs_cluster_window *win, const cs_cluster_routing *rt, cs_error *err) {
    char label[200];
    if (only >= 0) snprintf(label, sizeof label, "cluster: job %s alone", c->jobs[only].name);
    else if (win) snprintf(label, sizeof label, "cluster: %zu jobs with window %s", c->njobs, win->name);
    else if (rt) snprintf(label, sizeof label, "cluster: %zu jobs, routing %s", c->njobs, rt->name);
    else snprintf(label, sizeof label, "cluster: %zu jobs together", c->njobs);
    cs_run_hooks h;
    memset(&h, 0, sizeof h);
    h.stop = stop;
    h.no_collectives = 1;
    h.check_only = 1;
    cs_workload w;
    memset(&w, 0, sizeof w);
    cs_scenario *sc = NULL;
    int rc = compose(c, L->js, &L->cg, only, L->N, &w, L->start, L->tclass, err);
    if (rc == CS_OK) {
        if (win) rc = with_changes(c, win, &sc, err);
        else if (rt) rc = routing_scenario(c, rt, NULL, &sc, err);
        else sc = cs_scenario_copy(L->run_sc);
    }
    if (rc == CS_OK && progress) cs_info("checking %s", label);
    cs_run_inputs in = {.workload = &w, .groups = &L->cg, .rank_start = L->start, .rank_tclass = L->tclass,
                        .plan_defaults = L->any_plan, .plan_device = L->plan_dev, .label = label};
    cs_result *r = NULL;
    if (rc == CS_OK && (rc = cs_scenario_run_with(sc, &in, &h, &r, err)) != CS_OK)
        cs_error_prefix(err, "%s: %s: ", c->path, label + 9);
    cs_result_free(r);
    cs_scenario_free(sc);
    cs_workload_free(&w);
    return rc;
}

int cs_cluster_check(cs_cluster *c, const cs_run_hooks *hooks, cs_error *err) {
    static const cs_run_hooks no_hooks;
    if (!hooks) hooks = &no_hooks;
    cl_load L;
    int rc = cluster_load(c, hooks, &L, err);
    /* every job together: each job alone is a part of it (the same groups, a subset of the graphs and
     * ranks); when it fails, the first job alone that fails gives the error, as the runs (each job alone
     * first) would stop at it */
    if (rc == CS_OK) rc = check_run(c, &L, hooks->stop, hooks->progress, -1, NULL, NULL, err);
    for (size_t j = 0; rc != CS_OK && rc != CS_EINTR && L.run_sc && j < c->njobs; j++) {
        cs_error e;
        cs_error_clear(&e);
        if (check_run(c, &L, hooks->stop, 0, (long)j, NULL, NULL, &e) != CS_OK) {
            *err = e;
            rc = e.code;
            break;
        }
    }
    for (size_t k = 0; rc == CS_OK && k < c->nwindows + c->nroutings; k++)
        rc = check_run(c, &L, hooks->stop, hooks->progress, -1, k < c->nwindows ? &c->windows[k] : NULL,
                       k < c->nwindows ? NULL : &c->routings[k - c->nwindows], err);
    cluster_unload(c, &L);
    return rc;
}

int cs_cluster_run(cs_cluster *c, const cs_run_hooks *hooks, cs_error *err) {
    static const cs_run_hooks no_hooks;
    if (!hooks) hooks = &no_hooks;
    cl_load L;
    int rc = cluster_load(c, hooks, &L, err);
    /* (the names the runs below use) */
    const cs_run_params ro = L.ro;
    const cs_topo *topo = L.topo;
    job_src *js = L.js;
    cs_comm_groups *cg = &L.cg;
    const uint32_t N = L.N, *dom = L.dom;
    int32_t *rank_job = L.rank_job;
    cs_time *start = L.start;
    uint8_t *tclass = L.tclass;
    const int any_plan = L.any_plan, replace = L.replace;
    const cs_device *plan_dev = L.plan_dev;
    cs_scenario *run_sc = L.run_sc;
    uint64_t **bytes = cs_calloc(c->njobs, sizeof *bytes); /* per job, per link, alone */
    uint32_t nlinks = 0;
    size_t caplinks = 0;
    for (size_t j = 0; j < c->njobs && rc == CS_OK; j++) {
        cs_cluster_job *jb = &c->jobs[j];
        cs_free(jb->alone_end);
        cs_free(jb->shared_end);
        jb->alone_end = cs_calloc(jb->iterations, sizeof *jb->alone_end);
        jb->shared_end = cs_calloc(jb->iterations, sizeof *jb->shared_end);
    }
    cs_run_hooks h = *hooks;
    h.observer = NULL;
    h.coll_row = NULL;
    h.link_util = NULL;
    h.no_collectives = 1;
    bound_obs bo = {c, rank_job, js, 0};
    cs_exec_observer obs = {boundary_done, &bo};
    tmatrix tm;
    memset(&tm, 0, sizeof tm);
    int want_te = 0;
    for (size_t q = 0; q < c->nroutings; q++) want_te |= strcmp(c->routings[q].name, "te") == 0;
    cs_time *alone_k = cs_calloc(c->njobs, sizeof *alone_k), *shared_k = cs_calloc(c->njobs, sizeof *shared_k);
    int64_t ecmp0 = json_integer_value(json_object_get(c->sc->sect[SC_TOPOLOGY], "ecmp_seed"));
    for (size_t q = 0; q < c->njobs; q++) {
        cs_stats_init(&c->jobs[q].alone_st);
        cs_stats_init(&c->jobs[q].shared_st);
        cs_stats_init(&c->jobs[q].slowdown_st);
    }
    for (size_t q = 0; q < c->nwindows; q++) {
        cs_stats_init(&c->windows[q].extra_st);
        cs_stats_init(&c->windows[q].slowdown_st);
        c->windows[q].job_time = cs_calloc(c->njobs, sizeof *c->windows[q].job_time);
    }
    /* per seed: each job alone, then all together, then all together with each candidate window */
    for (uint32_t k = 0; rc == CS_OK && k < c->seeds; k++)
    for (long j = 0; rc == CS_OK && j <= (long)(c->njobs + c->nwindows); j++) {
        if (j == 0 && k > 0 && replace && (rc = place_all(c, js, k, dom, N, rank_job, cg, err)) != CS_OK) break;
        int shared = j == (long)c->njobs;
        cs_cluster_window *win = j > (long)c->njobs ? &c->windows[j - (long)c->njobs - 1] : NULL;
        cs_workload w;
        memset(&w, 0, sizeof w);
        rc = compose(c, js, cg, shared || win ? -1 : j, N, &w, start, tclass, err);
        if (rc) break;
        cs_scenario *wsc = NULL;
        if (win) rc = with_changes(c, win, &wsc, err);
        else wsc = cs_scenario_copy(run_sc);
        if (rc == CS_OK && k > 0) /* another seed: the ECMP hash and the compute jitter drawn anew */
            rc = seeded(wsc, ecmp0 + k, (int64_t)ro.jitter_seed + k, err);
        if (rc) {
            cs_scenario_free(wsc);
            cs_workload_free(&w);
            break;
        }
        char label[200];
        if (shared) snprintf(label, sizeof label, "cluster: %zu jobs together", c->njobs);
        else if (win) snprintf(label, sizeof label, "cluster: %zu jobs with window %s", c->njobs, win->name);
        else snprintf(label, sizeof label, "cluster: job %s alone", c->jobs[j].name);
        if (c->seeds > 1) snprintf(label + strlen(label), sizeof label - strlen(label), " (seed %u of %u)", k + 1,
                                   c->seeds);
        if (hooks->progress) cs_info("%s", label);
        cs_run_inputs in = {.workload = &w, .groups = cg, .rank_start = start, .rank_tclass = tclass,
                            .plan_defaults = any_plan, .plan_device = plan_dev, .label = label};
        bo.shared = shared;
        h.observer = win || k ? NULL : &obs;
        h.no_collectives = !shared || k;
        h.net_message = want_te && shared && k == 0 ? tm_add : NULL; /* the traffic matrix, for te */
        h.net_message_ud = &tm;
        cs_result *r = NULL;
        rc = cs_scenario_run_with(wsc, &in, &h, &r, err);
        cs_workload_free(&w);
        cs_scenario_free(wsc);
        if (rc) {
            cs_error_prefix(err, "%s: %s: ", c->path, label + 9);
            break;
        }
        if (win) { /* paired with the shared run of the same seed */
            double extra = 0, worst = 0;
            for (size_t q = 0; q < c->njobs; q++) {
                cs_time t = job_time_of(&c->jobs[q], r);
                if (k == 0) win->job_time[q] = t;
                extra += cs_time_as_ns_f(t) - cs_time_as_ns_f(shared_k[q]);
                double sd = shared_k[q] ? (double)t / (double)shared_k[q] : 1.0;
                if (sd > worst) worst = sd;
            }
            cs_stats_add(&win->extra_st, extra);
            cs_stats_add(&win->slowdown_st, worst);
            win->extra_ns = win->extra_st.mean;
            win->max_slowdown = win->slowdown_st.mean;
            cs_result_free(r);
        } else if (shared) {
            for (size_t q = 0; q < c->njobs; q++) {
                shared_k[q] = job_time_of(&c->jobs[q], r);
                cs_stats_add(&c->jobs[q].shared_st, cs_time_as_ns_f(shared_k[q]));
                cs_stats_add(&c->jobs[q].slowdown_st,
                             alone_k[q] ? (double)shared_k[q] / (double)alone_k[q] : 1.0);
                if (k == 0) job_times(&c->jobs[q], r, 1);
            }
            if (k == 0) {
                c->shared = r;
                c->makespan = r->sim.sim_time;
            } else {
                cs_result_free(r);
            }
        } else {
            alone_k[j] = job_time_of(&c->jobs[j], r);
            cs_stats_add(&c->jobs[j].alone_st, cs_time_as_ns_f(alone_k[j]));
            if (k == 0) {
                job_times(&c->jobs[j], r, 0);
                nlinks = r->links.nlinks;
                bytes[j] = cs_calloc(nlinks ? nlinks : 1, sizeof **bytes);
                for (uint32_t l = 0; l < nlinks; l++) bytes[j][l] = r->links.links[l].bytes;
            }
            cs_result_free(r);
        }
    }
    cs_free(alone_k);
    cs_free(shared_k);
    /* the windows ranked: least job time added first (the mean over the seeds), then the smallest worst
     * slowdown, then file order */
    for (size_t a = 0; rc == CS_OK && a < c->nwindows; a++) {
        uint32_t rank = 1;
        for (size_t b = 0; b < c->nwindows; b++) {
            const cs_cluster_window *x = &c->windows[a], *y = &c->windows[b];
            if (y->extra_ns < x->extra_ns ||
                (y->extra_ns == x->extra_ns && (y->max_slowdown < x->max_slowdown ||
                                                (y->max_slowdown == x->max_slowdown && b < a))))
                rank++;
        }
        c->windows[a].rank = rank;
    }
    /* the shared run under each routing policy (te: the traffic matrix of the first shared run, placed) */
    json_t *te = NULL;
    if (rc == CS_OK && want_te) {
        rc = te_routes(c, topo, &tm, &te, err);
        if (rc) cs_error_prefix(err, "%s: routings te: ", c->path);
    }
    h.observer = NULL;
    h.no_collectives = 1;
    h.net_message = NULL;
    for (size_t q = 0; rc == CS_OK && q < c->nroutings; q++) {
        cs_cluster_routing *p = &c->routings[q];
        p->job_st = cs_calloc(c->njobs, sizeof *p->job_st);
        for (size_t jj = 0; jj < c->njobs; jj++) cs_stats_init(&p->job_st[jj]);
        cs_stats_init(&p->makespan_st);
        cs_stats_init(&p->busiest_st);
        for (uint32_t k = 0; rc == CS_OK && k < c->seeds; k++) {
            if (replace) rc = place_all(c, js, k, dom, N, rank_job, cg, err);
            cs_scenario *psc = NULL;
            cs_workload w;
            memset(&w, 0, sizeof w);
            rc = routing_scenario(c, p, te, &psc, err);
            if (rc == CS_OK && k > 0) rc = seeded(psc, ecmp0 + k, (int64_t)ro.jitter_seed + k, err);
            if (rc == CS_OK) rc = compose(c, js, cg, -1, N, &w, start, tclass, err);
            char label[160];
            snprintf(label, sizeof label, "cluster: %zu jobs, routing %s", c->njobs, p->name);
            if (c->seeds > 1) snprintf(label + strlen(label), sizeof label - strlen(label), " (seed %u of %u)", k + 1,
                                       c->seeds);
            if (rc == CS_OK && hooks->progress) cs_info("%s", label);
            cs_run_inputs in = {.workload = &w, .groups = cg, .rank_start = start, .rank_tclass = tclass,
                                .plan_defaults = any_plan, .plan_device = plan_dev, .label = label};
            cs_result *r = NULL;
            if (rc == CS_OK) {
                rc = cs_scenario_run_with(psc, &in, &h, &r, err);
                if (rc) cs_error_prefix(err, "%s: %s: ", c->path, label + 9);
            }
            cs_workload_free(&w);
            cs_scenario_free(psc);
            if (rc) break;
            for (size_t jj = 0; jj < c->njobs; jj++)
                cs_stats_add(&p->job_st[jj], cs_time_as_ns_f(job_time_of(&c->jobs[jj], r)));
            cs_stats_add(&p->makespan_st, cs_time_as_ns_f(r->sim.sim_time));
            double busiest = 0;
            for (uint32_t l = 0; r->topo && l < r->links.nlinks && l < r->topo->nlinks; l++)
                if (r->topo->links[l].bw > 0 && (double)r->links.links[l].bytes / r->topo->links[l].bw > busiest)
                    busiest = (double)r->links.links[l].bytes / r->topo->links[l].bw;
            cs_stats_add(&p->busiest_st, busiest);
            if (k == 0) {
                p->nlinks = r->links.nlinks;
                p->link_bytes = cs_calloc(p->nlinks ? p->nlinks : 1, sizeof *p->link_bytes);
                for (uint32_t l = 0; l < p->nlinks; l++) p->link_bytes[l] = r->links.links[l].bytes;
            }
            cs_result_free(r);
        }
    }
    if (rc == CS_OK && replace) rc = place_all(c, js, 0, dom, N, rank_job, cg, err); /* the outputs: seed 0's */
    json_decref(te);
    cs_free(tm.tab);
    if (rc == CS_OK) {
        /* compute utilization over every NPU and the makespan */
        double comp = 0;
        for (uint32_t v = 0; v < N; v++) comp += (double)c->shared->sim.ranks[v].compute;
        c->compute_util = c->makespan && N ? comp / ((double)N * (double)c->makespan) : 0;
        /* the links two jobs or more cross when alone */
        const cs_net_link_report *lr = &c->shared->links;
        for (uint32_t l = 0; l < nlinks; l++) {
            uint32_t on = 0;
            for (size_t j = 0; j < c->njobs; j++) on += bytes[j][l] > 0;
            for (size_t j = 0; j < c->njobs; j++)
                if (bytes[j][l]) {
                    c->jobs[j].links_used++;
                    if (on >= 2) {
                        c->jobs[j].links_shared++;
                        c->jobs[j].bytes_on_shared += bytes[j][l];
                    }
                }
            if (on < 2) continue;
            CS_GROW(c->links, caplinks, c->nlinks + 1);
            cs_cluster_link *x = &c->links[c->nlinks++];
            memset(x, 0, sizeof *x);
            x->link = l;
            x->jobs = on;
            x->job_bytes = cs_malloc(c->njobs * sizeof *x->job_bytes);
            for (size_t j = 0; j < c->njobs; j++) x->job_bytes[j] = bytes[j][l];
            if (l < lr->nlinks) {
                x->shared_bytes = lr->links[l].bytes;
                x->shared_busy = lr->links[l].busy;
                x->shared_peak_util = lr->links[l].peak_util;
            }
        }
    }
    for (size_t j = 0; j < c->njobs; j++) cs_free(bytes[j]);
    cs_free(bytes);
    cluster_unload(c, &L);
    return rc;
}
