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
# ccache (installed by setup.sh) makes rebuilds in fresh clones and worktrees cheap.
LAUNCHER=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(pwd)}
  LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  cmake -S . -B "$BUILD_DIR" "${GEN[@]}" "${LAUNCHER[@]}" -DCMAKE_BUILD_TYPE=Release "${CMAKE_ARGS[@]}"
fi
TARGETS=()
for t in "$@"; do TARGETS+=(--target "$t"); done
cmake --build "$BUILD_DIR" -j "${JOBS:-2}" "${TARGETS[@]}"
