#!/usr/bin/env bash
# Set-up, build and the whole test suite: what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j "${TEST_JOBS:-2}" --timeout 600
