/*
 * fuzz_comm_group.c -- libFuzzer target for the communicator-group JSON
 * reader (src/config/comm_group.c) and the group look-ups of
 * system/comm_groups.c.
 *
 * Each input is a whole comm_group.json read from a file.  Contracts
 * checked besides the sanitizers: a refusal carries its code and a message
 * starting with the file's path; accepted groups are sorted by id, each
 * non-empty; every group is found by its own name and resolved; validation
 * against 1, 16 and 2^32 NPUs answers without crashing; the groups dumped
 * as JSON read back to the same groups.  Seeds: fuzz/corpus/comm_group/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/comm_group.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_init("fuzz_comm_group");
    const char *path = fz_input("comm_group.json", data, size);
    cs_comm_groups g;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_comm_groups_load(path, &g, &err);
    if (rc != CS_OK) {
        fz_check_error(rc, &err, path);
        return 0;
    }
    static const uint64_t npus[] = {1, 16, (uint64_t)1 << 32};
    for (size_t i = 0; i < 3; i++) {
        cs_error_clear(&err);
        rc = cs_comm_groups_validate(&g, npus[i], &err);
        if (rc != CS_OK) fz_check(rc < 0 && err.code == rc, "validation error code");
    }
    for (size_t i = 0; i < g.ngroups; i++) {
        if (i > 0) fz_check(g.groups[i - 1].id < g.groups[i].id, "groups sorted by id, ids distinct");
        char name[32];
        snprintf(name, sizeof name, "%u", (unsigned)g.groups[i].id);
        fz_check(cs_comm_groups_find(&g, name) == &g.groups[i], "a group is found by its id");
        const cs_comm_group *out = NULL;
        cs_error_clear(&err);
        fz_check(cs_comm_groups_resolve(&g, name, &out, &err) == CS_OK && out == &g.groups[i],
                 "a group's name resolves to it");
    }
    const cs_comm_group *all = NULL;
    cs_error_clear(&err);
    fz_check(cs_comm_groups_resolve(&g, "", &all, &err) == CS_OK && all == NULL, "\"\" means all ranks");

    json_t *j = cs_comm_groups_to_json(&g);
    char *s = json_dumps(j, JSON_COMPACT);
    fz_check(s != NULL, "the groups dump");
    cs_comm_groups g2;
    cs_error_clear(&err);
    rc = cs_comm_groups_load_text("roundtrip.json", s, strlen(s), &g2, &err);
    if (rc != CS_OK) fprintf(stderr, "dump: %s\nerror: %s\n", s, err.msg);
    fz_check(rc == CS_OK, "the dumped groups load again");
    json_t *j2 = cs_comm_groups_to_json(&g2);
    fz_check(json_equal(j, j2), "the groups round-trip");
    json_decref(j2);
    cs_comm_groups_free(&g2);
    free(s);
    json_decref(j);
    cs_comm_groups_free(&g);
    return 0;
}
