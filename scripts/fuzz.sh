#!/usr/bin/env bash
# Builds the libFuzzer targets with clang, ASan and UBSan in build-fuzz/ (a
# separate build: the normal one does not need clang) and runs each for
# SECONDS (default 5) on a scratch copy of its seed corpus (test/fuzz/corpus).
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-5}
BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
LAUNCHER=()
if command -v ccache >/dev/null 2>&1; then LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache); fi
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$BUILD" -G Ninja "${LAUNCHER[@]}" -DDISTGNN_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake "$BUILD" -DDISTGNN_FUZZ_SECONDS="$SECONDS_EACH" >/dev/null
cmake --build "$BUILD" -j "${JOBS:-2}"
cd "$BUILD"
ctest -L fuzz --output-on-failure --timeout $((SECONDS_EACH * 2 + 120))
