/*
 * main.c -- the clustersim program: hands the command line to cs_cli_main.
 */
#include "cli/cli.h"

int main(int argc, char **argv) { return cs_cli_main(argc, argv); }
