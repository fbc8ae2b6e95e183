/*
 * units.c -- unit conversions of configuration values (see core/units.h).
 */
#include "core/units.h"

double cs_gbps_to_bytes_per_ns(double gbps) { return gbps * 1073741824.0 / 1e9; }
