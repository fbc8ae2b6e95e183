#!/bin/sh
# make_trace.sh -- writes topics.txt, the activation trace of examples/partition
# (docs/inference.md, "Neuron partitioning"): 256 neurons in 8 topics of 32
# scattered neurons (neuron i is in topic ((37 i + 11) mod 256) / 32), 1,024
# tokens; each token picks a topic, 8 draws among its 32 neurons and 2 among
# all 256 (duplicates merged).  Park-Miller's generator (seed 1): the file is
# the same on every machine.  Usage: sh make_trace.sh > topics.txt
awk 'BEGIN {
    s = 1
    print "# examples/partition/topics.txt: written by make_trace.sh (256 neurons, 8 topics, 1024 tokens)"
    print "activations,256"
    for (t = 0; t < 1024; t++) {
        s = (s * 16807) % 2147483647; k = s % 8
        split("", on)
        for (d = 0; d < 8; d++) {
            s = (s * 16807) % 2147483647; p = k * 32 + s % 32
            on[((p - 11 + 256) * 173) % 256] = 1   # 173 = 37^-1 mod 256
        }
        for (d = 0; d < 2; d++) { s = (s * 16807) % 2147483647; on[s % 256] = 1 }
        line = ""
        for (i = 0; i < 256; i++) if (i in on) line = line (line == "" ? "" : ",") i
        print line
    }
}'
