#!/usr/bin/env bash
# Configures and builds distgnn (Release, -j2, Ninja if present) into build/.
#   scripts/build.sh            everything (binary and tests)
#   scripts/build.sh distgnn    only the binary
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
read -r -a CMAKE_ARGS <<< "${DISTGNN_CMAKE_ARGS:-}"
GEN=()
if command -v ninja >/dev/null 2>&1; then GEN=(-G Ninja); fi
# CMakeLists.txt compiles through ccache when it is installed (setup.sh installs it).
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  cmake -S . -B "$BUILD_DIR" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release "${CMAKE_ARGS[@]}"
fi
TARGETS=()
for t in "$@"; do TARGETS+=(--target "$t"); done
cmake --build "$BUILD_DIR" -j "${JOBS:-2}" "${TARGETS[@]}"
