/*
 * compute.c -- replay and roofline compute timing (see compute.h).
 */
#include "compute/compute.h"

#include <math.h>

cs_time cs_compute_replay_time(uint64_t duration_us) {
    if (duration_us == 0) return cs_time_from_ns(1);
    return cs_time_from_us_sat(duration_us);
}

int cs_compute_work_time(const cs_compute_model *m, const cs_compute_work *w, cs_time *t) {
    if (!m->roofline || w->is_cpu) {
        *t = cs_compute_replay_time(w->duration_us);
        return CS_COMP_TIMED;
    }
    if (!w->has_num_ops) {
        *t = cs_compute_replay_time(w->duration_us);
        return CS_COMP_REPLAYED;
    }
    if (w->tensor_size == 0) {
        *t = 0;
        return CS_COMP_SKIP;
    }
    double ops = (double)w->num_ops;
    double intensity = ops / (double)w->tensor_size;
    double perf = m->mem_bw_bytes_ps * intensity;
    if (perf > m->peak_flops) perf = m->peak_flops;
    double ns = perf > 0 ? ops / perf * 1e9 : 0.0;
    /* ASTRA-sim truncates to whole nanoseconds; CS_TIME_MAX beyond the range */
    *t = cs_time_from_whole_ns_f(ns);
    return CS_COMP_TIMED;
}
