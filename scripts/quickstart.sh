#!/usr/bin/env bash
# quickstart.sh -- install dependencies, build a release binary, and simulate the
# example: a 4-stage pipeline-parallel training step on a 4-GPU switch.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
echo "built build/clustersim"
build/clustersim run \
    --workload-configuration=examples/pipeline/pipeline \
    --network-configuration=examples/pipeline/network.yml \
    --system-configuration=examples/pipeline/system.json \
    --out out/pipeline --trace out/pipeline/trace.json --report out/pipeline/report.html
echo "Open out/pipeline/report.html in a browser for the charts, out/pipeline/trace.json in"
echo "https://ui.perfetto.dev for the full timeline."
