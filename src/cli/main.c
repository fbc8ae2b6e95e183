/*
 * main.c -- the clustersim program: hands the command line to the library.
 */
#include "clustersim/clustersim.h"

int main(int argc, char **argv) { return clustersim_main(argc, argv); }
