/*
 * stats.c -- running statistics and the 95 % confidence interval (see
 * stats.h).  The t quantiles are the standard table (0.975, df 1..30, then
 * 40, 60, 120, infinity), interpolated linearly in 1/df beyond 30.
 */
#include "core/stats.h"

#include <math.h>

void cs_stats_init(cs_stats *s) {
    s->n = 0;
    s->mean = s->m2 = 0;
    s->min = INFINITY;
    s->max = -INFINITY;
}

void cs_stats_add(cs_stats *s, double x) {
    s->n++;
    double d = x - s->mean;
    s->mean += d / (double)s->n;
    s->m2 += d * (x - s->mean);
    if (x < s->min) s->min = x;
    if (x > s->max) s->max = x;
}

double cs_stats_stddev(const cs_stats *s) { return s->n > 1 ? sqrt(s->m2 / (double)(s->n - 1)) : 0.0; }

double cs_t975(uint64_t df) {
    static const double t[31] = {0,      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                 2.201,  2.179,  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080,
                                 2.074,  2.069,  2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    static const struct { double df, t; } tail[] = {{30, 2.042}, {40, 2.021}, {60, 2.000}, {120, 1.980}, {INFINITY, 1.960}};
    if (df == 0) return NAN;
    if (df <= 30) return t[df];
    double x = 1.0 / (double)df;
    for (int i = 0; i < 4; i++) {
        double x0 = 1.0 / tail[i].df, x1 = isinf(tail[i + 1].df) ? 0.0 : 1.0 / tail[i + 1].df;
        if (x <= x0 && x >= x1) return tail[i + 1].t + (tail[i].t - tail[i + 1].t) * (x - x1) / (x0 - x1);
    }
    return 1.960;
}

double cs_stats_ci95(const cs_stats *s) {
    if (s->n < 2) return 0.0;
    return cs_t975(s->n - 1) * cs_stats_stddev(s) / sqrt((double)s->n);
}
