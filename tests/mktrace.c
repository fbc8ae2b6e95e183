/*
 * mktrace.c -- test tool: write Chakra traces from the compact spec of
 * testutil.h, for the shell tests.
 *   cs_mktrace FILE.et 'SPEC'
 *   cs_mktrace --ranks PREFIX 'SPEC rank 0' 'SPEC rank 1' ...
 */
#include <stdio.h>
#include <string.h>

#include "testutil.h"

int main(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[1], "--ranks") == 0)
        return tu_write_traces(argv[2], (const char *const *)argv + 3, (unsigned)(argc - 3)) ? 1 : 0;
    if (argc != 3) {
        fprintf(stderr, "usage: cs_mktrace FILE.et SPEC | --ranks PREFIX SPEC...\n");
        return 2;
    }
    return tu_write_trace(argv[1], argv[2]) ? 1 : 0;
}
