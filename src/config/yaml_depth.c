/*
 * yaml_depth.c -- the nesting limit of a YAML input (see yaml_depth.h).
 */
#include "config/yaml_depth.h"

#include <yaml.h>

int cs_yaml_check_depth(const char *path, const char *buf, size_t len, int max_depth, const char *what,
                        cs_error *err) {
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) return CS_ERR(err, CS_ENOMEM, "%s: cannot initialise the YAML parser", path);
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
    int rc = CS_OK, depth = 0, done = 0;
    while (!done && rc == CS_OK) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) break;
        switch (ev.type) {
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            if (++depth > max_depth)
                rc = CS_ERR(err, CS_EINVAL,
                            "%s:%d: expected at most %d levels of nested lists and mappings (%s), got level %d at "
                            "column %d",
                            path, (int)ev.start_mark.line + 1, max_depth, what, depth, (int)ev.start_mark.column + 1);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: depth--; break;
        case YAML_STREAM_END_EVENT: done = 1; break;
        default: break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    return rc;
}
