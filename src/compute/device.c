/*
 * device.c -- built-in accelerator table (spec-sheet values cited in
 * docs/devices.md), the user-device JSON reader and the efficiency model.
 */
#include "compute/device.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
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
    /* name         bf16      fp8       HBM       HBM bw       scale-up/dir  calibration
     *                                                                      TDP W  idle W  price US$ (docs/cost.md) */
    {"A100-40GB", 312 * T, 0, 40 * G, 1555 * G, 300 * G, CAL_GEMM_EFF_MAX, CAL_GEMM_DIM_HALF, CAL_MEM_EFF,
     400, 50, 10000},
    {"A100-80GB", 312 * T, 0, 80 * G, 2039 * G, 300 * G, CAL_GEMM_EFF_MAX, CAL_GEMM_DIM_HALF, CAL_MEM_EFF,
     400, 50, 15000},
    {"H100-SXM", 989 * T, 1979 * T, 80 * G, 3350 * G, 450 * G, CAL_GEMM_EFF_MAX, CAL_GEMM_DIM_HALF, CAL_MEM_EFF,
     700, 90, 25000},
    {"H200", 989 * T, 1979 * T, 141 * G, 4800 * G, 450 * G, CAL_GEMM_EFF_MAX, CAL_GEMM_DIM_HALF, CAL_MEM_EFF,
     700, 90, 32000},
    {"B200", 2250 * T, 4500 * T, 180 * G, 8000 * G, 900 * G, CAL_GEMM_EFF_MAX, CAL_GEMM_DIM_HALF, CAL_MEM_EFF,
     1000, 130, 40000},
    {"MI300X", 1307.4 * T, 2614.9 * T, 192 * G, 5300 * G, 448 * G, CAL_GEMM_EFF_MAX, CAL_GEMM_DIM_HALF, CAL_MEM_EFF,
     750, 100, 15000},
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

/* The device file: its keys as written (units of the file), declared once
 * for the option engine (core/opts.h): type, range, unit, default, help. */
typedef struct dev_file {
    char *name;
    double peak_bf16_tflops, peak_fp8_tflops, hbm_gb, hbm_bw_gbps, scaleup_bw_gbps;
    double gemm_eff_max, gemm_dim_half, mem_eff;
    double tdp_w, idle_w, price_usd;
} dev_file;

#define D(f) offsetof(dev_file, f)
#define POS .type = CS_OPT_NUM, .min = 0, .min_open = 1, .max = DBL_MAX
static const cs_opt DEV_OPTS[] = {
    {.key = "name", .type = CS_OPT_STR, .nodef = 1, .off = D(name), .help = "device name (default: the file's path)"},
    {.key = "peak_bf16_tflops", POS, .required = 1, .unit = "TFLOP/s", .off = D(peak_bf16_tflops),
     .help = "dense FP16/BF16 tensor throughput"},
    {.key = "peak_fp8_tflops", .type = CS_OPT_NUM, .min = 0, .max = DBL_MAX, .unit = "TFLOP/s",
     .off = D(peak_fp8_tflops), .help = "dense FP8 throughput (0 = not supported)"},
    {.key = "hbm_gb", POS, .required = 1, .unit = "GB", .off = D(hbm_gb), .help = "HBM capacity (1 GB = 1e9 bytes)"},
    {.key = "hbm_bw_gbps", POS, .required = 1, .unit = "GB/s", .off = D(hbm_bw_gbps),
     .help = "HBM bandwidth (1 GB/s = 1e9 bytes/s)"},
    {.key = "scaleup_bw_gbps", .type = CS_OPT_NUM, .min = 0, .max = DBL_MAX, .unit = "GB/s",
     .off = D(scaleup_bw_gbps), .help = "scale-up (NVLink / Infinity Fabric) bandwidth per direction"},
    {.key = "gemm_eff_max", .type = CS_OPT_NUM, .def = CAL_GEMM_EFF_MAX, .min = 0, .min_open = 1, .max = 1,
     .off = D(gemm_eff_max), .help = "fraction of peak a large matmul reaches (calibration, docs/validation.md)"},
    {.key = "gemm_dim_half", POS, .def = CAL_GEMM_DIM_HALF, .off = D(gemm_dim_half),
     .help = "matmul dimension at which the efficiency factor is 1/2 (calibration)"},
    {.key = "mem_eff", .type = CS_OPT_NUM, .def = CAL_MEM_EFF, .min = 0, .min_open = 1, .max = 1, .off = D(mem_eff),
     .help = "fraction of HBM bandwidth streaming operations reach (calibration)"},
    {.key = "tdp_w", .type = CS_OPT_NUM, .min = 0, .max = 1e6, .unit = "W", .off = D(tdp_w),
     .help = "board power at full load, for the power model (0 = unknown: set cost.npu-power-w)"},
    {.key = "idle_w", .type = CS_OPT_NUM, .min = 0, .max = 1e6, .unit = "W", .off = D(idle_w),
     .help = "board power idle, for the power model (at most tdp_w; 0 with tdp_w set = no idle draw)"},
    {.key = "price_usd", .type = CS_OPT_NUM, .min = 0, .max = 1e9, .unit = "US$", .off = D(price_usd),
     .help = "purchase price, for the cost model (0 = unknown: set cost.npu-price-usd)"},
};
#undef POS
#define NDEV (sizeof DEV_OPTS / sizeof DEV_OPTS[0])

int cs_device_load_json(const char *path, cs_device *out, cs_error *err) {
    cs_jdoc doc;
    int rc = cs_jdoc_load(path, "device description", &doc, err);
    if (rc) return rc;
    dev_file f;
    memset(&f, 0, sizeof f);
    cs_opts_defaults(DEV_OPTS, NDEV, &f);
    rc = cs_opts_parse(&doc, DEV_OPTS, NDEV, &f, NULL, err);
    if (rc == CS_OK) {
        memset(out, 0, sizeof *out);
        snprintf(out->name, sizeof out->name, "%s", f.name ? f.name : path);
        out->peak_bf16_flops = f.peak_bf16_tflops * 1e12;
        out->peak_fp8_flops = f.peak_fp8_tflops * 1e12;
        out->hbm_bytes = f.hbm_gb * 1e9;
        out->hbm_bw = f.hbm_bw_gbps * 1e9;
        out->scaleup_bw = f.scaleup_bw_gbps * 1e9;
        out->gemm_eff_max = f.gemm_eff_max;
        out->gemm_dim_half = f.gemm_dim_half;
        out->mem_eff = f.mem_eff;
        out->tdp_w = f.tdp_w;
        out->idle_w = f.idle_w;
        out->price_usd = f.price_usd;
        if (out->idle_w > out->tdp_w && out->tdp_w > 0)
            rc = CS_ERR(err, CS_EINVAL, "%s: idle_w: expected at most tdp_w (%g W), got %g W", path, out->tdp_w,
                        out->idle_w);
    }
    cs_opts_free(DEV_OPTS, NDEV, &f);
    cs_jdoc_free(&doc);
    return rc;
}

void cs_device_print_help(FILE *fp) {
    fputs("Device description (JSON object; --device FILE, device.name):\n", fp);
    cs_opts_print_help(fp, DEV_OPTS, NDEV);
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
