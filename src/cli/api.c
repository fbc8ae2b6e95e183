/*
 * api.c -- the public interface of include/clustersim/clustersim.h, on top of
 * the command line (cli.c).
 */
#include "clustersim/clustersim.h"

#include "cli/cli.h"
#include "output/report.h"

_Static_assert(CLUSTERSIM_SUMMARY_SCHEMA == CS_SUMMARY_SCHEMA_VERSION,
               "public and internal summary schema versions must agree");

const char *clustersim_version(void) { return CS_VERSION; }

int clustersim_main(int argc, char **argv) { return cs_cli_main(argc, argv); }
