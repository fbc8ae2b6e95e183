/*
 * engine.h -- the engine of one simulation: the event queue, the network
 * backend, the system and memory layers and the workload executor composed
 * for a run, with the symmetry policy (one representative rank, or one per
 * class of ranks) and its fallback to the full simulation.
 *
 * cs_sim_run (engine.c) is the entry point: it checks whether a symmetric
 * mode applies (engine_symmetry.c), runs it, and falls back to simulating
 * every rank when the representative run meets something the symmetry
 * argument does not cover.  The executor (workload/exec.h) issues the
 * graphs' nodes; the engine owns the loop and the counts.
 */
#ifndef CS_SCENARIO_ENGINE_H
#define CS_SCENARIO_ENGINE_H

#include "workload/sim.h"

#endif
