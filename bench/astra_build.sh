#!/usr/bin/env bash
# bench/astra_build.sh -- build ASTRA-sim's analytical (congestion-unaware)
# binary beside the project, for bench_scale's side-by-side runs
# (`bench_scale BIN --astra ASTRA_BIN`, docs/performance.md "Scaling").
#
#   bench/astra_build.sh ASTRA_SIM_DIR
#
# ASTRA_SIM_DIR is a checkout of astra-sim/astra-sim with its submodules
# extern/graph_frontend/chakra, extern/network_backend/analytical and
# extern/remote_memory_backend/analytical in place (the ones its commit
# names; docs/performance.md lists what was used).  Nothing is downloaded and
# nothing of ASTRA-sim enters this repository: the script edits the peer's
# own build files so that fmt, spdlog and yaml-cpp come from Debian
# (apt-get install libfmt-dev libspdlog-dev libyaml-cpp-dev libprotobuf-dev
# protobuf-compiler) instead of its fmt/spdlog submodules and its
# FetchContent/yaml-cpp submodule, compiles Chakra's et_def.proto with protoc,
# and builds with its own CMake files (Release, -O3).  The binary is
# ASTRA_SIM_DIR/build/astra_analytical/build/bin/AstraSim_Analytical_Congestion_Unaware.
set -euo pipefail
a="${1:?usage: bench/astra_build.sh ASTRA_SIM_DIR}"
for f in CMakeLists.txt extern/network_backend/analytical/CMakeLists.txt \
         extern/graph_frontend/chakra/schema/protobuf/et_def.proto build/astra_analytical/CMakeLists.txt; do
  [ -f "$a/$f" ] || { echo "astra_build: $a/$f: not found (checkout with its submodules?)" >&2; exit 1; }
done
sed -i 's|^add_subdirectory("${CMAKE_CURRENT_SOURCE_DIR}/extern/helper/fmt")|find_package(fmt REQUIRED)|;
        s|^add_subdirectory("${CMAKE_CURRENT_SOURCE_DIR}/extern/helper/spdlog")|find_package(spdlog REQUIRED)|;
        /^FetchContent_Declare(/,/^FetchContent_MakeAvailable(yaml-cpp)/c\find_package(yaml-cpp REQUIRED)' \
    "$a/CMakeLists.txt"
sed -i 's|^add_subdirectory(${CMAKE_CURRENT_SOURCE_DIR}/extern/yaml-cpp yaml-cpp)|find_package(yaml-cpp REQUIRED)|' \
    "$a/extern/network_backend/analytical/CMakeLists.txt"
(cd "$a/extern/graph_frontend/chakra/schema/protobuf" && protoc et_def.proto --proto_path=. --cpp_out=.)
mkdir -p "$a/build/astra_analytical/build"
cd "$a/build/astra_analytical/build"
cmake .. -DBUILDTARGET=congestion_unaware -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build . -j"$(nproc)"
ls -l "$PWD/bin/AstraSim_Analytical_Congestion_Unaware"
