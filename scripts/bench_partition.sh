#!/usr/bin/env bash
# Partitioning benchmark (not a timed test): generates a 1M-node / 20M-edge
# synthetic graph with 100-d features, partitions it with METIS into 4 and 2
# parts under /usr/bin/time -v, and prints stage times, peak RSS, edge cut, the
# ratio of peak RSS to (CSR + features) bytes and of non-METIS time to METIS time.
#
#   scripts/bench_partition.sh [BUILD_DIR] [WORK_DIR]    (env: NODES EDGES FEAT PARTS)
#
# --mpi: partitioning across machines (scripts/bench_partition_mpi.sh: the
# cluster method and PT-Scotch on 1, 2 and 3 namespace hosts against
# single-machine METIS and the stream partitioner, on a uniform and an R-MAT
# graph).
#
#   scripts/bench_partition.sh --mpi [BUILD_DIR] [WORK_DIR]   (env: see bench_partition_mpi.sh)
#
# Two builds against each other (wall time and peak RSS, run in turn, the
# median of the pairwise ratios): scripts/bench_partition_vs.sh BASE_BIN NEW_BIN.
set -euo pipefail
if [ "${1:-}" = "--mpi" ]; then shift; exec "$(dirname "$0")/bench_partition_mpi.sh" "$@"; fi
BUILD=${1:-build}
WORK=${2:-/tmp/distgnn-bench-partition}
NODES=${NODES:-1000000}
EDGES=${EDGES:-20000000}
FEAT=${FEAT:-100}
PARTS=${PARTS:-"4 2"}
BIN=$BUILD/distgnn
[ -x "$BIN" ] || { echo "bench_partition: no $BIN (build first)"; exit 1; }
if [ ! -x /usr/bin/time ]; then
  echo "bench_partition: installing GNU time"; (sudo -n true 2>/dev/null && sudo apt-get install -y time || apt-get install -y time) >/dev/null
fi
mkdir -p "$WORK"
DATA=$WORK/data-$NODES-$EDGES-$FEAT
if [ ! -d "$DATA" ]; then
  "$BIN" generate --nodes "$NODES" --edges "$EDGES" --feat-dim "$FEAT" --classes 10 --seed 1 --out "$DATA"
fi
for K in $PARTS; do
  OUT=$WORK/parts-$K
  LOG=$WORK/partition-$K.log
  echo "=== METIS into $K parts ==="
  /usr/bin/time -v "$BIN" partition --dataset "$DATA" --num-parts "$K" --method metis --name syn \
      --out "$OUT" --force > "$LOG" 2>&1 || { cat "$LOG"; exit 1; }
  grep -E '^  |^done' "$LOG" | grep -v -E '^\s+(Command|User|System|Percent|Average|Major|Minor|Volun|Invol|Swaps|File|Socket|Signals|Page|Exit|Elapsed|Maximum)' || true
  awk -v n="$NODES" -v e="$EDGES" -v f="$FEAT" '
    /read input:/        { read = $3 }
    /build METIS graph:/ { mg = $4 }
    /METIS:  /           { metis = $2 }
    /build CSR:/         { csr = $3 }
    /write:/             { wr = $2 }
    /Elapsed \(wall/     { split($NF, t, ":"); wall = (length(t) == 3) ? t[1]*3600 + t[2]*60 + t[3] : t[1]*60 + t[2] }
    /Maximum resident/   { rss = $NF * 1024 }
    END {
      base = (n + 1) * 8 + e * 8 + n * f * 4;   # CSR (indptr + indices) + float32 features
      other = wall - metis;
      printf("wall %.1f s | METIS %.1f s | non-METIS %.1f s (read %.1f, METIS graph %.1f, CSR %.1f, write %.1f)\n", wall, metis, other, read, mg, csr, wr);
      printf("peak RSS %.2f GB | CSR+features %.2f GB | RSS ratio %.2f (target <= 3) | non-METIS/METIS %.2f (target < 1)\n",
             rss / 1e9, base / 1e9, rss / base, other / metis);
    }' "$LOG"
done
