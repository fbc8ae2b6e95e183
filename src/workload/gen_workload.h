/*
 * gen_workload.h -- a generated plan as Chakra ET files and as a workload.
 *
 * cs_tx_write_rank writes one rank's graph (gen_transformer.h) as a Chakra
 * ET file.  cs_tx_workload turns a plan into the cs_workload the executor
 * runs: each graph it needs is written through the ET writer into a
 * scratch directory and read back with the trace reader, so what is
 * simulated is byte for byte what `clustersim generate` writes.  With
 * symmetric axes (cs_tx_sym_axes) only the class representatives' graphs
 * are generated and every other rank shares its representative's graph:
 * such a workload may only be run in class mode (cs_sim_options.sym_axes
 * with sym_no_fallback).  Owned by the workload layer.
 */
#ifndef CS_WORKLOAD_GEN_WORKLOAD_H
#define CS_WORKLOAD_GEN_WORKLOAD_H

#include "workload/gen_transformer.h"
#include "workload/workload.h"

int cs_tx_write_rank(const cs_tx_model *m, const cs_tx_plan *p, const cs_device *d, uint32_t rank, const char *path,
                     cs_error *err);

/* ax NULL: every rank's graph; else the representatives' only.  The caller
 * frees *w with cs_workload_free. */
int cs_tx_workload(const cs_tx_model *m, const cs_tx_plan *p, const cs_device *d, const cs_sym_axes *ax,
                   cs_workload *w, cs_error *err);

/* The system configuration of a generated plan when none is given (train,
 * and the PREFIX.system.json that generate writes): ring collectives on
 * every one of ndims network dimensions, endpoint-delay 10 ns, one active
 * chunk per dimension, replayed-free compute (roofline off); the rest
 * cs_system_config_defaults.  One source for every command. */
int cs_gen_system_defaults(int ndims, cs_system_config *out);

#endif
