#!/usr/bin/env bash
# Set-up, build and the whole test suite: what CI runs.
#   scripts/test.sh              Release build in build/
#   scripts/test.sh --sanitize   the same suite built with ASan + UBSan in build-sanitize/
# A test whose prerequisite is missing (sshd, Python torch; setup.sh installs
# them) fails; DISTGNN_ALLOW_SKIP=1 makes it a visible skip instead.
# Then the libFuzzer targets run FUZZ_SECONDS (5) each (scripts/fuzz.sh; DISTGNN_SKIP_FUZZ=1 skips).
set -euo pipefail
cd "$(dirname "$0")/.."
for arg in "$@"; do
  case "$arg" in
    --sanitize)
      export BUILD_DIR=${BUILD_DIR:-build-sanitize}
      export DISTGNN_CMAKE_ARGS="${DISTGNN_CMAKE_ARGS:-} -DDISTGNN_SANITIZE=ON"
      # Leak reports from libtorch/gloo globals are noise; errors abort the test.
      export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
      export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
      ;;
    *) echo "usage: scripts/test.sh [--sanitize]" >&2; exit 2 ;;
  esac
done
scripts/setup.sh
scripts/build.sh
(cd "${BUILD_DIR:-build}" && ctest --output-on-failure -j "${TEST_JOBS:-2}" --timeout 600)
# The fuzz targets, a few seconds each (their own clang build in build-fuzz/).
if [ "${DISTGNN_SKIP_FUZZ:-0}" != 1 ]; then
  scripts/fuzz.sh "${FUZZ_SECONDS:-5}"
fi
