#!/usr/bin/env bash
# Builds the libFuzzer targets with clang, ASan and UBSan in build-fuzz/ (a
# separate build: the normal one does not need clang) and runs each for
# SECONDS (default 5) on a scratch copy of its seed corpus (test/fuzz/corpus).
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-5}
BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$BUILD" -G Ninja -DDISTGNN_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake "$BUILD" -DDISTGNN_FUZZ_SECONDS="$SECONDS_EACH" >/dev/null
cmake --build "$BUILD" -j "${JOBS:-2}"
cd "$BUILD"
# Each target's libFuzzer output (its final stats: runs, exec/s, peak RSS) is kept
# in build-fuzz/fuzz-NAME.log; a line per target summarises it.
rm -f fuzz-*.log
status=0
ctest -L fuzz -V -j "${JOBS:-2}" --timeout $((SECONDS_EACH * 2 + 120)) > fuzz-ctest.log 2>&1 || status=$?
for name in frame messages pull_block minibatch npy job_yaml in_degrees save_tensor checkpoint pull_aggregate; do
  # ctest -V prefixes each line of test k's output with "k: ".
  k=$(grep -a -E "^[0-9]+: Test command: .*fuzz_$name['\" ]" fuzz-ctest.log | head -1 | cut -d: -f1 || true)
  [ -n "$k" ] || { echo "fuzz_$name: did not run"; continue; }
  grep -a "^$k: " fuzz-ctest.log > "fuzz-$name.log" || true
  runs=$(grep -a -o "stat::number_of_executed_units: *[0-9]*" "fuzz-$name.log" | awk '{print $2}' | tail -1 || true)
  rate=$(grep -a -o "stat::average_exec_per_sec: *[0-9]*" "fuzz-$name.log" | awk '{print $2}' | tail -1 || true)
  crash=$(grep -a -c -E "ERROR: (libFuzzer|AddressSanitizer|UndefinedBehaviorSanitizer)|runtime error" "fuzz-$name.log" || true)
  echo "fuzz_$name: ${runs:-?} inputs in ${SECONDS_EACH} s, ${rate:-?} exec/s, ${crash:-0} crashes"
done
grep -a -E "tests passed|tests failed|\*\*\*Failed|Timeout" fuzz-ctest.log || true
if [ "$status" != 0 ]; then grep -a -B5 -A40 -E "ERROR: |runtime error" fuzz-ctest.log | head -120; fi
exit "$status"
