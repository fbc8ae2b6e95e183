/*
 * device.c -- built-in accelerator table (spec-sheet values cited in
 * docs/devices.md), the user-device JSON reader and the efficiency model.
 */
#include "compute/device.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/opts.h"

/* One calibration shared by every device and case (docs/validation.md):
 * fitted once against Korthikanti et al. 2022 on A100 80 GB. */
#define CAL_GEMM_EFF_MAX 0.80
#define CAL_GEMM_DIM_HALF 32.0
#define CAL_MEM_EFF 0.80

#define T 1e12
#define G 1e9
static const cs_device builtin[] = {
    /* name         bf16      fp8       HBM       HBM bw       scale-up/dir */
    {"A100-40GB", 312 * T, 0, 40 * G, 1555 * G, 300 * G, CAL_GEMM_EFF_MAX, CAL_GEMM_DIM_HALF, CAL_MEM_EFF},
    {"A100-80GB", 312 * T, 0, 80 * G, 2039 * G, 300 * G, CAL_GEMM_EFF_MAX, CAL_GEMM_DIM_HALF, CAL_MEM_EFF},
    {"H100-SXM", 989 * T, 1979 * T, 80 * G, 3350 * G, 450 * G, CAL_GEMM_EFF_MAX, CAL_GEMM_DIM_HALF, CAL_MEM_EFF},
    {"H200", 989 * T, 1979 * T, 141 * G, 4800 * G, 450 * G, CAL_GEMM_EFF_MAX, CAL_GEMM_DIM_HALF, CAL_MEM_EFF},
    {"B200", 2250 * T, 4500 * T, 180 * G, 8000 * G, 900 * G, CAL_GEMM_EFF_MAX, CAL_GEMM_DIM_HALF, CAL_MEM_EFF},
    {"MI300X", 1307.4 * T, 2614.9 * T, 192 * G, 5300 * G, 448 * G, CAL_GEMM_EFF_MAX, CAL_GEMM_DIM_HALF, CAL_MEM_EFF},
};
#undef T
#undef G

const cs_device *cs_device_builtin(size_t i) {
    return i < sizeof builtin / sizeof builtin[0] ? &builtin[i] : NULL;
}

const cs_device *cs_device_find(const char *name) {
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        if (strcasecmp(builtin[i].name, name) == 0) return &builtin[i];
    return NULL;
}

typedef struct dkey {
    const char *key;
    int required;
    double scale;
    size_t off;
} dkey;

static const dkey dkeys[] = {
    {"peak_bf16_tflops", 1, 1e12, offsetof(cs_device, peak_bf16_flops)},
    {"peak_fp8_tflops", 0, 1e12, offsetof(cs_device, peak_fp8_flops)},
    {"hbm_gb", 1, 1e9, offsetof(cs_device, hbm_bytes)},
    {"hbm_bw_gbps", 1, 1e9, offsetof(cs_device, hbm_bw)},
    {"scaleup_bw_gbps", 0, 1e9, offsetof(cs_device, scaleup_bw)},
    {"gemm_eff_max", 0, 1, offsetof(cs_device, gemm_eff_max)},
    {"gemm_dim_half", 0, 1, offsetof(cs_device, gemm_dim_half)},
    {"mem_eff", 0, 1, offsetof(cs_device, mem_eff)},
};
#define NDKEYS (sizeof dkeys / sizeof dkeys[0])

int cs_device_load_json(const char *path, cs_device *out, cs_error *err) {
    cs_jdoc doc;
    int rc = cs_jdoc_load(path, "device description", &doc, err);
    if (rc) return rc;
    memset(out, 0, sizeof *out);
    out->gemm_eff_max = CAL_GEMM_EFF_MAX;
    out->gemm_dim_half = CAL_GEMM_DIM_HALF;
    out->mem_eff = CAL_MEM_EFF;
    json_t *nm = json_object_get(doc.root, "name");
    if (nm && !json_is_string(nm)) {
        char got[64];
        cs_json_repr(nm, got, sizeof got);
        rc = CS_ERR(err, CS_EINVAL, "%s:%d: name: expected a string, got %s", path,
                    cs_jdoc_key_line(&doc, "name"), got);
        goto done;
    }
    snprintf(out->name, sizeof out->name, "%s", nm ? json_string_value(nm) : path);
    const char *known[NDKEYS + 1];
    for (size_t i = 0; i < NDKEYS; i++) known[i] = dkeys[i].key;
    known[NDKEYS] = "name";
    for (size_t j = 0; j < doc.nm; j++) {
        int ok = 0;
        for (size_t i = 0; i < NDKEYS + 1; i++) ok |= strcmp(doc.m[j].key, known[i]) == 0;
        if (!ok) cs_warn_unknown_key(path, doc.m[j].key_line, doc.m[j].key, known, NDKEYS + 1);
    }
    for (size_t i = 0; i < NDKEYS; i++) {
        const dkey *k = &dkeys[i];
        json_t *v = json_object_get(doc.root, k->key);
        int line = cs_jdoc_key_line(&doc, k->key);
        if (!v) {
            if (k->required) {
                rc = CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected a number > 0, the key is missing", path, line,
                            k->key);
                goto done;
            }
            continue;
        }
        int frac = strcmp(k->key, "gemm_eff_max") == 0 || strcmp(k->key, "mem_eff") == 0;
        double d = json_is_number(v) ? json_number_value(v) : -1;
        if (!json_is_number(v) || !(d > 0) || !isfinite(d) || (frac && d > 1)) {
            char got[64];
            cs_json_repr(v, got, sizeof got);
            rc = CS_ERR(err, CS_EINVAL, "%s:%d: %s: expected a number %s, got %s", path, line, k->key,
                        frac ? "in (0, 1]" : "> 0", got);
            goto done;
        }
        *(double *)((char *)out + k->off) = d * k->scale;
    }
done:
    cs_jdoc_free(&doc);
    return rc;
}

int cs_device_resolve(const char *name_or_path, cs_device *out, cs_error *err) {
    const cs_device *d = cs_device_find(name_or_path);
    if (d) {
        *out = *d;
        return CS_OK;
    }
    if (!strchr(name_or_path, '/') && !strstr(name_or_path, ".json")) {
        char list[1024] = "";
        for (size_t i = 0; cs_device_builtin(i); i++) {
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%.47s", i ? ", " : "", cs_device_builtin(i)->name);
        }
        return CS_ERR(err, CS_EINVAL, "--device %s: unknown device; expected one of %s, or a JSON file",
                      name_or_path, list);
    }
    return cs_device_load_json(name_or_path, out, err);
}

static double dim_f(const cs_device *d, double x) { return x / (x + d->gemm_dim_half); }

double cs_device_gemm_s(const cs_device *d, double m, double n, double k, double elem) {
    double flops = 2.0 * m * n * k;
    double eff = d->gemm_eff_max * dim_f(d, m) * dim_f(d, n) * dim_f(d, k);
    double tc = flops / (d->peak_bf16_flops * eff);
    double tm = cs_device_stream_s(d, elem * (m * k + k * n + m * n));
    return tc > tm ? tc : tm;
}

double cs_device_stream_s(const cs_device *d, double bytes) { return bytes / (d->hbm_bw * d->mem_eff); }
