/*
 * compute.c -- replay and roofline compute timing (see compute.h).
 */
#include "compute/compute.h"

#include <math.h>

#include "core/rand.h"

cs_time cs_compute_replay_time(uint64_t duration_us) {
    if (duration_us == 0) return cs_time_from_ns(1);
    return cs_time_from_us_sat(duration_us);
}

int cs_compute_work_time(const cs_compute_model *m, const cs_compute_work *w, cs_time *t) {
    if (w->duration_in_ns) { /* a time given in ns: nothing for a roofline to derive it from */
        *t = w->duration_us ? cs_time_from_ns_sat(w->duration_us) : cs_time_from_ns(1);
        return CS_COMP_TIMED;
    }
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

int cs_compute_has_stragglers(const cs_compute_model *m) { return m->rank_factor || m->jitter_cv > 0; }

cs_time cs_compute_straggle(const cs_compute_model *m, uint32_t rank, uint64_t node_id, cs_time t) {
    double f = m->rank_factor ? m->rank_factor[rank] : 1.0;
    if (m->jitter_cv > 0) { /* lognormal, mean 1: exp(sigma z - sigma^2 / 2), sigma^2 = ln(1 + cv^2) */
        uint64_t a = cs_mix64(m->jitter_seed ^ cs_mix64(((uint64_t)rank << 32) ^ 0x5bd1e995u) ^ node_id);
        uint64_t b = cs_mix64(a);
        double u1 = ((double)(a >> 11) + 0.5) / 9007199254740992.0, u2 = (double)(b >> 11) / 9007199254740992.0;
        double z = sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2);
        double s2 = log1p(m->jitter_cv * m->jitter_cv);
        f *= exp(sqrt(s2) * z - s2 / 2);
    }
    if (f == 1.0) return t;
    double x = (double)t * f;
    if (!(x < 18446744073709549568.0)) return CS_TIME_MAX;
    cs_time r = (cs_time)(x + 0.5); /* x < 2^64: defined */
    return r ? r : 1;
}
