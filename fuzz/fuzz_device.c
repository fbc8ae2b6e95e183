/*
 * fuzz_device.c -- libFuzzer target for the device-file reader
 * (src/compute/device.c: cs_device_load_json) and the efficiency model it
 * feeds.
 *
 * Each input is a whole device JSON file (as --device FILE reads it).
 * Contracts checked besides the sanitizers: a refusal carries its code and
 * a message starting with the file's path; an accepted device has positive
 * peak FLOP/s, HBM size and bandwidth, and its matmul and streaming times
 * are non-negative numbers.  Seeds: fuzz/corpus/device/.
 */
#include <math.h>

#include "compute/device.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_init("fuzz_device");
    const char *path = fz_input("device.json", data, size);
    cs_device d;
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_device_load_json(path, &d, &err);
    if (rc != CS_OK) {
        fz_check_error(rc, &err, path);
        return 0;
    }
    fz_check(d.peak_bf16_flops > 0 && d.hbm_bytes > 0, "required keys are positive");
    double g = cs_device_gemm_s(&d, 4096, 4096, 4096, 2);
    double s = cs_device_stream_s(&d, 1e9);
    fz_check(g >= 0 && !isnan(g), "a matmul takes a non-negative time");
    fz_check(s >= 0 && !isnan(s), "streaming takes a non-negative time");
    return 0;
}
