/*
 * cli.h -- the clustersim command line (run, inspect), callable from tests.
 */
#ifndef CS_CLI_CLI_H
#define CS_CLI_CLI_H

/* Entry point of the clustersim program; returns the process exit status:
 * 0 success, 1 bad input / simulation error, 2 usage error. */
int cs_cli_main(int argc, char **argv);

#endif
