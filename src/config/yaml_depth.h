/*
 * yaml_depth.h -- the nesting limit of a YAML input, checked on libyaml's
 * event stream before its recursive document loader sees the text (libyaml
 * spends time quadratic in the depth: a 200 KB file of nested lists took 27 s).
 * Shared by every YAML reader of the config layer.
 */
#ifndef CS_CONFIG_YAML_DEPTH_H
#define CS_CONFIG_YAML_DEPTH_H

#include <stddef.h>

#include "core/error.h"

/* CS_OK when lists and mappings nest at most max_depth deep in buf[0..len);
 * else CS_EINVAL "PATH:LINE: expected at most N levels of nested lists and
 * mappings (WHAT), got level D at column C", at the first level too deep.
 * A syntax error is left to the loader, which reports it (CS_OK here). */
int cs_yaml_check_depth(const char *path, const char *buf, size_t len, int max_depth, const char *what,
                        cs_error *err);

#endif
