/*
 * stats.h -- summary statistics of one metric over a design point's seeds:
 * count, mean, sample standard deviation, min, max and the half-width of
 * the two-sided 95 % confidence interval of the mean (Student's t with
 * n - 1 degrees of freedom; 0 with one sample).
 */
#ifndef CS_CORE_STATS_H
#define CS_CORE_STATS_H

#include <stdint.h>

typedef struct cs_stats {
    uint64_t n;
    double mean, m2, min, max; /* Welford's running mean and sum of squared deviations */
} cs_stats;

void cs_stats_init(cs_stats *s);
void cs_stats_add(cs_stats *s, double x);
double cs_stats_stddev(const cs_stats *s);
double cs_stats_ci95(const cs_stats *s);
/* t quantile 0.975 with df degrees of freedom (df >= 1). */
double cs_t975(uint64_t df);

#endif
