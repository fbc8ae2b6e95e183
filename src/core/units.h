/*
 * units.h -- conversions of configuration units into the units the
 * simulator computes in, for every layer that reads a configuration
 * (network backends, topology builders, config readers).
 *
 * Bandwidth: configurations say "GB/s" the way ASTRA-sim reads it, as GiB/s
 * (2^30 bytes per GB); inside, bandwidth is bytes per ns.  Time: see
 * core/time.h (cs_time_from_ns_f for ns given as a number).  The unit names
 * below are what option tables (core/opts.h, cs_opt.unit) declare, so help
 * and the effective-config dump show the same text.
 */
#ifndef CS_CORE_UNITS_H
#define CS_CORE_UNITS_H

#define CS_UNIT_GBPS "GB/s" /* read as GiB/s: cs_gbps_to_bytes_per_ns */
#define CS_UNIT_NS "ns"     /* cs_time_from_ns_f (core/time.h) */

/* The smallest bandwidth a configuration may give, in GB/s: below it one
 * byte takes longer than the simulated-time range (core/time.h), so nothing
 * could ever be sent.  (Runs with a bandwidth above it can still overflow:
 * the layers computing durations refuse those with a located error.) */
#define CS_GBPS_MIN 1e-16

/* The largest: 1e15 GB/s (a petabyte per microsecond; one byte in 1e-6 ps,
 * a million times below the clock's resolution, and 10^12 times the
 * fastest link built).  Above it the rates of the flow backend's max-min
 * filling overflow to infinity (1e308 GB/s stalled every flow with "no
 * route up"); option tables (core/opts.c) and the network YAML refuse it. */
#define CS_GBPS_MAX 1e15

/* ASTRA-sim reads "GB/s" as GiB/s: bytes per ns = gbps * 2^30 / 1e9. */
double cs_gbps_to_bytes_per_ns(double gbps);

#endif
