#!/usr/bin/env bash
# deps.sh -- install the Debian 12 packages clustersim needs to build and test.
# Runs apt-get as root, or through sudo when not root.
set -euo pipefail
PKGS=(build-essential cmake pkg-config
      libprotobuf-c-dev protobuf-c-compiler   # Chakra traces
      libjansson-dev libyaml-dev zlib1g-dev   # JSON, YAML, gzip
      libcmocka-dev                           # unit tests
      clang libclang-rt-14-dev                # libFuzzer target
      mpich libmpich-dev                      # clustersim sweep across machines (mpiexec)
      chromium                                # the HTML reports tested in a real (headless) browser
      python3                                 # tests' independent checks
      procps)                                 # pgrep: tests that stop a worker process
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
