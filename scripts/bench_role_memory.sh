#!/usr/bin/env bash
# Peak RSS per role and the job's CPU, this build against a baseline binary in
# the same run: the bundled Cora job of config/examples/cora-local.yaml (2
# machines on 127.0.0.1, 1 server, 1 trainer and 2 samplers each, 60 epochs),
# launched once with each binary (baseline first). Each process's peak RSS is
# its log's last `peak RSS` line; the last lines give each role's largest peak
# and the ratio this / baseline.
#   BASE_BIN=/path/to/old/distgnn scripts/bench_role_memory.sh [WORK_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
: "${BASE_BIN:?set BASE_BIN to the baseline distgnn binary}"
W=${1:-${TMPDIR:-/tmp}/distgnn-bench-role-memory}
rm -rf "$W" && mkdir -p "$W"
[ -x build/distgnn ] || scripts/build.sh distgnn
build/distgnn partition --dataset data/cora --undirected --normalize-features --num-parts 2 --method metis \
  --name cora --out "$W/parts/cora2" > /dev/null
build/distgnn model export --arch sage --in-dim 1433 --hidden 128 --classes 7 --layers 2 -o "$W/parts/sage.pt" > /dev/null
declare -A peak
for pair in "base=$(realpath "$BASE_BIN")" "this=$ROOT/build/distgnn"; do
  name=${pair%%=*} bin=${pair#*=}
  sed -e "s#^job: cora-sage#job: $name#" -e "s#\.\./\.\./parts/#$W/parts/#" -e "s#\.\./\.\./runs#$W/runs#" \
    config/examples/cora-local.yaml > "$W/$name.yaml"
  /usr/bin/time -f "$name ($bin): job %e s wall, %U + %S CPU-s" "$bin" launch "$W/$name.yaml" > "$W/$name.log" 2>&1 ||
    { tail "$W/$name.log"; exit 1; }
  tail -n 1 "$W/$name.log"
  for role in server sampler trainer; do
    peak[$name-$role]=$(cat "$W/runs/$name/logs/"*-"$role"-*.log | grep -o 'peak RSS [0-9.]* MB' |
      awk '{if ($3 > m) m = $3} END {print m + 0}')
  done
done
for role in server sampler trainer; do
  awk -v r="$role" -v b="${peak[base-$role]}" -v t="${peak[this-$role]}" \
    'BEGIN {printf "%-8s peak RSS: base %.1f MB, this %.1f MB, ratio %.3f\n", r, b, t, t / b}'
done
