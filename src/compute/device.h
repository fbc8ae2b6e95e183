/*
 * device.h -- the accelerator library: peak throughput, HBM, scale-up
 * bandwidth, and the calibration of the generator's compute-efficiency model.
 *
 * Built-in devices carry public spec-sheet values (docs/devices.md cites the
 * source of each); user devices come from a JSON file
 * (cs_device_load_json; errors are "file:line: key: expected ...").
 * The efficiency model (docs/devices.md, "Efficiency model"):
 *   matmul  t = max(flops / (peak * gemm_eff_max * f(m) f(n) f(k)),
 *                   bytes / (hbm_bw * mem_eff)),   f(d) = d / (d + gemm_dim_half)
 *   other   t = bytes / (hbm_bw * mem_eff)
 * A cs_device is a plain value; the caller owns it.
 */
#ifndef CS_COMPUTE_DEVICE_H
#define CS_COMPUTE_DEVICE_H

#include <stddef.h>

#include <stdio.h>

#include "core/error.h"

typedef struct cs_device {
    char name[48];
    double peak_bf16_flops;  /* dense FP16/BF16 tensor FLOP/s */
    double peak_fp8_flops;   /* dense FP8 FLOP/s; 0 = not supported */
    double hbm_bytes;        /* capacity, bytes (1 GB = 1e9) */
    double hbm_bw;           /* bytes/s */
    double scaleup_bw;       /* scale-up (NVLink / Infinity Fabric) bytes/s per direction */
    /* efficiency model (calibration) */
    double gemm_eff_max;     /* fraction of peak reached by a large matmul */
    double gemm_dim_half;    /* matmul dimension at which f(d) = 1/2 */
    double mem_eff;          /* fraction of HBM bandwidth reached by streaming ops */
    /* power and price (the cost model, src/cost; docs/cost.md); 0 = unknown */
    double tdp_w;            /* board power at full load, W */
    double idle_w;           /* board power idle, W */
    double price_usd;        /* purchase price estimate, US$ */
} cs_device;

/* Built-in device by name (case-insensitive: "A100-80GB", "H100-SXM", ...);
 * NULL when unknown. */
const cs_device *cs_device_find(const char *name);
/* i-th built-in device, NULL past the end. */
const cs_device *cs_device_builtin(size_t i);

/* Read a user device from JSON:
 *   {"name": "X", "peak_bf16_tflops": 400, "peak_fp8_tflops": 800,
 *    "hbm_gb": 96, "hbm_bw_gbps": 3000, "scaleup_bw_gbps": 450,
 *    "gemm_eff_max": 0.8, "gemm_dim_half": 40, "mem_eff": 0.8}
 * peak_bf16_tflops, hbm_gb, hbm_bw_gbps are required; the calibration keys
 * default to the built-in A100 calibration. */
int cs_device_load_json(const char *path, cs_device *out, cs_error *err);

/* Name or path: a built-in name, else a JSON file. */
/* Every key of a device file, from the reader's table. */
void cs_device_print_help(FILE *f);
int cs_device_resolve(const char *name_or_path, cs_device *out, cs_error *err);

/* Time in seconds of a matmul (m x k) x (k x n) with elem-byte elements. */
double cs_device_gemm_s(const cs_device *d, double m, double n, double k, double elem);
/* Time in seconds of a bandwidth-bound op moving `bytes`. */
double cs_device_stream_s(const cs_device *d, double bytes);

#endif
