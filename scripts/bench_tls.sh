#!/usr/bin/env bash
# Encrypted against plaintext: DGL's benchmark graph (100,000 nodes, 2,000,000
# edges, 100 features; 2 machines, 1 server and 1 trainer each) on 127.0.0.1 in
# a private network namespace (scripts/bench_hosts.sh --loopback), the same
# binary once plain and once with `tls: true` (a throw-away job CA; features,
# blocks and gradients all over TLS 1.3), interleaved round by round. Prints
# the CPU model, bench_hosts.sh's table and the ratio of the median epoch
# times (TLS / plain); the last line is JSON.
#
#   scripts/bench_tls.sh [--rounds 3] [--epochs 4] [--bin PATH] [--work DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=3 EPOCHS=4 BIN=$PWD/build/distgnn WORK=${TMPDIR:-/tmp}/distgnn-bench-tls
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift ;;
    --epochs) EPOCHS=$2; shift ;;
    --work) WORK=$2; shift ;;
    --bin) BIN=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift ;;
    *) echo "bench_tls.sh: unknown flag $1" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$BIN" ] || scripts/build.sh distgnn
CPU=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
echo "CPU: $CPU ($(nproc) cores), load $(cut -d' ' -f1-3 /proc/loadavg)"
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
DISTGNN_BENCH_PREFIX=${DISTGNN_BENCH_PREFIX:-tlsbench} scripts/bench_hosts.sh --loopback --rounds "$ROUNDS" \
    --epochs "$EPOCHS" --work "$WORK" --bin "plain=$BIN" --bin "tls=$BIN,tls=true" | tee "$OUT"
python3 - "$OUT" "$CPU" <<'PY'
import json, statistics, sys
rows = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
med = {n: statistics.median(r["epoch_s"] for r in rows if r["name"] == n) for n in ("plain", "tls")}
ratio = med["tls"] / med["plain"]
print(f"median epoch: plain {med['plain']:.2f} s, TLS {med['tls']:.2f} s, TLS/plain {ratio:.3f}")
print(json.dumps({"cpu": sys.argv[2], "plain_epoch_s": med["plain"], "tls_epoch_s": med["tls"],
                  "ratio": round(ratio, 3), "rounds": rows}))
PY
