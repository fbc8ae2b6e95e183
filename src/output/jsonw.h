/*
 * jsonw.h -- tiny streaming JSON helpers for outputs too large to build as a
 * jansson tree (per-rank arrays, timelines).
 */
#ifndef CS_OUTPUT_JSONW_H
#define CS_OUTPUT_JSONW_H

#include <stdint.h>
#include <stdio.h>

#include "core/time.h"

/* Write s as a JSON string literal (quotes included), escaping as needed;
 * invalid UTF-8 bytes are replaced by U+FFFD. */
void cs_jsonw_string(FILE *f, const char *s);
/* Write a picosecond time as nanoseconds, exactly ("12", "12.5", "12.345"). */
void cs_jsonw_ns(FILE *f, cs_time t);
/* Write v in decimal (as printf's PRIu64). */
void cs_jsonw_u64(FILE *f, uint64_t v);
/* Write a picosecond time as microseconds with 6 decimals ("1.000500"). */
void cs_jsonw_us(FILE *f, cs_time t);

#endif
