/*
 * model.c -- models by name or file: the presets of every family (in
 * registry order), and the model-file reader.  A model file is "name",
 * "arch" (a family; default the registry's first) and the family's keys,
 * read by the option engine (core/opts.h) from the family's key table; a
 * key that belongs to another family is an error at its line.  Also the
 * custom option parsers the families' key tables share.  See gen.h.
 */
#include <string.h>
#include <strings.h>

#include "core/alloc.h"
#include "core/opts.h"
#include "gen/gen_int.h"

#include <stdlib.h>

#define MAXKEYS 64

const cs_gen_model *cs_gen_model_preset_at(size_t i) {
    for (size_t f = 0; cs_gen_family_at(f); f++) {
        const cs_model_family *fam = cs_gen_family_at(f);
        if (i < fam->npresets) return &fam->presets[i];
        i -= fam->npresets;
    }
    return NULL;
}

const cs_gen_model *cs_gen_model_preset(const char *name) {
    for (size_t i = 0; cs_gen_model_preset_at(i); i++)
        if (strcasecmp(cs_gen_model_preset_at(i)->name, name) == 0) return cs_gen_model_preset_at(i);
    return NULL;
}

int cs_gen_model_resolve(const char *name_or_path, cs_gen_model *out, cs_error *err) {
    const cs_gen_model *p = cs_gen_model_preset(name_or_path);
    if (p) {
        *out = *p;
        return CS_OK;
    }
    if (!strchr(name_or_path, '/') && !strstr(name_or_path, ".json")) {
        char list[1024] = "";
        for (size_t i = 0; cs_gen_model_preset_at(i); i++) {
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%.63s", i ? ", " : "", cs_gen_model_preset_at(i)->name);
        }
        return CS_ERR(err, CS_EINVAL, "--model %s: unknown preset; expected one of %s, or a JSON file", name_or_path,
                      list);
    }
    return cs_gen_model_load_json(name_or_path, out, err);
}

static int has_key(const cs_model_family *f, const char *key) {
    for (size_t i = 0; i < f->nkeys; i++)
        if (strcmp(f->keys[i].key, key) == 0) return 1;
    return 0;
}

/* "arch": a registered family's name. */
static int read_family(const cs_jdoc *doc, const cs_model_family **out, cs_error *err) {
    json_t *ar = json_object_get(doc->root, "arch");
    *out = cs_gen_family_at(0);
    if (!ar) return CS_OK;
    if (json_is_string(ar) && (*out = cs_gen_family_find(json_string_value(ar))) != NULL) return CS_OK;
    char got[64], list[256] = "";
    cs_json_repr(ar, got, sizeof got);
    for (size_t i = 0; cs_gen_family_at(i); i++) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s\"%s\"", i == 0 ? "" : cs_gen_family_at(i + 1) ? ", " : " or ",
                 cs_gen_family_at(i)->name);
    }
    return CS_ERR(err, CS_EINVAL, "%s:%d: arch: expected %s, got %s", doc->path, cs_jdoc_key_line(doc, "arch"), list,
                  got);
}

/* A key of another family is an error (a model file mixing families). */
static int foreign_keys(const cs_jdoc *doc, const cs_model_family *fam, cs_error *err) {
    for (size_t j = 0; j < doc->nm; j++) {
        const char *key = doc->m[j].key;
        if (strcmp(key, "name") == 0 || strcmp(key, "arch") == 0 || has_key(fam, key)) continue;
        for (size_t i = 0; cs_gen_family_at(i); i++) {
            const cs_model_family *o = cs_gen_family_at(i);
            if (o != fam && has_key(o, key))
                return CS_ERR(err, CS_EINVAL, "%s:%d: %s: a key of %s models, not of %s (\"arch\": \"%s\")", doc->path,
                              doc->m[j].key_line, key, o->name, fam->name, fam->name);
        }
    }
    return CS_OK;
}

/* The family's key table with (required = 0 when optional) name and arch. */
static size_t key_table(const cs_model_family *fam, cs_opt *keys, int optional) {
    size_t n = 0;
    keys[n++] = (cs_opt){.key = "name", .type = CS_OPT_IGNORED, .help = "the model's name (default: the path)"};
    keys[n++] = (cs_opt){.key = "arch", .type = CS_OPT_IGNORED, .help = "the model family"};
    for (size_t i = 0; i < fam->nkeys && i < MAXKEYS; i++) {
        keys[n] = fam->keys[i];
        if (optional) keys[n].required = 0;
        n++;
    }
    return n;
}

int cs_gen_model_load_json(const char *path, cs_gen_model *out, cs_error *err) {
    cs_jdoc doc;
    int rc = cs_jdoc_load(path, "model description", &doc, err);
    if (rc) return rc;
    memset(out, 0, sizeof *out);
    json_t *nm = json_object_get(doc.root, "name");
    const cs_model_family *fam = NULL;
    if (nm && !json_is_string(nm)) {
        rc = CS_ERR(err, CS_EINVAL, "%s:%d: name: expected a string", path, cs_jdoc_key_line(&doc, "name"));
        goto done;
    }
    if (nm && strlen(json_string_value(nm)) >= sizeof out->name) {
        rc = CS_ERR(err, CS_EINVAL, "%s:%d: name: expected at most %zu bytes, got %zu", path,
                    cs_jdoc_key_line(&doc, "name"), sizeof out->name - 1, strlen(json_string_value(nm)));
        goto done;
    }
    /* reports print the name on the terminal: no control characters (an escape sequence would drive it) */
    for (const unsigned char *c = nm ? (const unsigned char *)json_string_value(nm) : NULL; c && *c; c++)
        if (*c < 0x20 || *c == 0x7f) {
            rc = CS_ERR(err, CS_EINVAL, "%s:%d: name: expected printable text, got the control character \\x%02x at "
                        "byte %zu", path, cs_jdoc_key_line(&doc, "name"), *c,
                        (size_t)(c - (const unsigned char *)json_string_value(nm)) + 1);
            goto done;
        }
    snprintf(out->name, sizeof out->name, "%s", nm ? json_string_value(nm) : path);
    if (!nm && strlen(path) >= sizeof out->name) { /* a long path is cut: never in the middle of a character */
        size_t i = strlen(out->name);
        while (i > 0 && ((unsigned char)out->name[i - 1] & 0xC0) == 0x80) i--;
        if (i > 0 && (unsigned char)out->name[i - 1] >= 0xC0 && cs_utf8_seq((const unsigned char *)out->name + i - 1) == 0)
            out->name[i - 1] = '\0';
    }
    rc = read_family(&doc, &fam, err);
    if (rc == CS_OK) rc = foreign_keys(&doc, fam, err);
    if (rc) goto done;
    /* the family's keys, and name and arch (read above) */
    cs_opt keys[MAXKEYS + 2];
    size_t n = key_table(fam, keys, 0);
    out->family = fam;
    fam->init(out);
    rc = cs_opts_parse(&doc, keys, n, &out->u, NULL, err);
    if (rc == CS_OK) rc = fam->finish(&doc, out, err);
done:
    cs_jdoc_free(&doc);
    return rc;
}

static int parse_keys(cs_gen_model *m, json_t *obj, const char *where, int optional, cs_error *err) {
    char *text = json_dumps(obj, JSON_COMPACT | JSON_REAL_PRECISION(17));
    cs_jdoc doc;
    int rc = cs_jdoc_load_text(where, text, strlen(text), "model keys", &doc, err);
    cs_json_free(text);
    if (rc) return rc;
    cs_opt keys[MAXKEYS + 2];
    size_t n = key_table(m->family, keys, optional);
    rc = foreign_keys(&doc, m->family, err);
    if (rc == CS_OK) rc = cs_opts_parse(&doc, keys, n, &m->u, NULL, err);
    if (rc == CS_OK) rc = m->family->finish(&doc, m, err);
    cs_jdoc_free(&doc);
    return rc;
}

int cs_gen_model_set_keys(cs_gen_model *m, json_t *keys, const char *where, cs_error *err) {
    return parse_keys(m, keys, where, 1, err);
}

int cs_gen_model_from_keys(const cs_model_family *fam, json_t *keys, const char *where, cs_gen_model *out,
                           cs_error *err) {
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "custom %s", fam->name);
    out->family = fam;
    fam->init(out);
    return parse_keys(out, keys, where, 0, err);
}

json_t *cs_gen_model_keys_json(const cs_gen_model *m) {
    return cs_opts_to_json(m->family->keys, m->family->nkeys, &m->u);
}

json_t *cs_gen_opt_u32_dump(const cs_opt *o, const void *field) {
    (void)o;
    uint32_t x = *(const uint32_t *)field;
    return x ? json_integer((json_int_t)x) : NULL; /* 0 = not set (the family derives it) */
}

json_t *cs_gen_opt_mlp_dump(const cs_opt *o, const void *field) {
    (void)o;
    const cs_gen_mlp *mlp = field;
    json_t *a = json_array();
    for (uint32_t k = 0; k < mlp->n; k++) json_array_append_new(a, json_integer((json_int_t)mlp->w[k]));
    return a;
}

int cs_gen_opt_u32(const cs_jdoc *doc, const cs_opt *o, const json_t *v, void *field, cs_error *err) {
    long long x;
    if (cs_json_ll(v, &x) || (double)x < o->min || (double)x > o->max) {
        char got[64];
        cs_json_repr(v, got, sizeof got);
        return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected %s, got %s", doc->path, cs_jdoc_key_line(doc, o->key),
                      o->key, o->type_text, got);
    }
    *(uint32_t *)field = (uint32_t)x;
    return CS_OK;
}

int cs_gen_opt_mlp(const cs_jdoc *doc, const cs_opt *o, const json_t *v, void *field, cs_error *err) {
    cs_gen_mlp *mlp = field;
    char got[64];
    cs_json_repr(v, got, sizeof got);
    int line = cs_jdoc_key_line(doc, o->key);
    if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > CS_GEN_DLRM_MAXMLP)
        return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected an array of 1 to %d layer widths, got %s", doc->path, line,
                      o->key, CS_GEN_DLRM_MAXMLP, got);
    for (size_t k = 0; k < json_array_size(v); k++) {
        long long x;
        if (cs_json_ll(json_array_get(v, k), &x) || (double)x < o->min || (double)x > o->max)
            return CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected integers >= 1, got %s", doc->path, line, o->key, got);
        mlp->w[k] = (uint32_t)x;
    }
    mlp->n = (uint32_t)json_array_size(v);
    return CS_OK;
}
