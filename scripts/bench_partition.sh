#!/usr/bin/env bash
# Partitioning benchmark (not a timed test): generates a 1M-node / 20M-edge
# synthetic graph with 100-d features, partitions it with METIS into 4 and 2
# parts under /usr/bin/time -v, and prints stage times, peak RSS, edge cut, the
# ratio of peak RSS to (CSR + features) bytes and of non-METIS time to METIS time.
#
#   scripts/bench_partition.sh [BUILD_DIR] [WORK_DIR]    (env: NODES EDGES FEAT PARTS)
#
# --mpi: the same graph into K=2 parts with distgnn-mpi-partition on 1, 2 and 3
# ranks (env RANKS, on 127.0.0.1, oversubscribed) against single-machine METIS:
# edge cut (and its ratio to METIS's), balance per measure, peak RSS of the
# largest rank, bytes sent by the largest rank and by all, wall time.
#
#   scripts/bench_partition.sh --mpi [BUILD_DIR] [WORK_DIR]   (env: NODES EDGES FEAT RANKS)
set -euo pipefail
MPI=0
if [ "${1:-}" = "--mpi" ]; then MPI=1; shift; fi
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
if [ "$MPI" = 1 ]; then
  MPIBIN=$BUILD/distgnn-mpi-partition
  [ -x "$MPIBIN" ] || { echo "bench_partition: no $MPIBIN (install OpenMPI and PT-Scotch: scripts/setup.sh; build)"; exit 1; }
  LOG=$WORK/metis-2.log
  /usr/bin/time -v "$BIN" partition --dataset "$DATA" --num-parts 2 --method metis --balance train,edges --name syn \
      --out "$WORK/metis-2" --force > "$LOG" 2>&1 || { cat "$LOG"; exit 1; }
  metis_cut=$(awk '/edge cut:/ { print $3; exit }' "$LOG")
  metis_rss=$(awk '/Maximum resident/ { printf("%.0f", $NF / 1024) }' "$LOG")
  metis_wall=$(awk '/Elapsed \(wall/ { n = split($NF, t, ":"); print (n == 3) ? t[1]*3600 + t[2]*60 + t[3] : t[1]*60 + t[2] }' "$LOG")
  echo "METIS (1 machine, K=2): edge cut $metis_cut, peak RSS $metis_rss MB, wall $metis_wall s"
  for P in ${RANKS:-1 2 3}; do
    LOG=$WORK/mpi-$P.log
    start=$(date +%s.%N)
    mpirun --allow-run-as-root --oversubscribe -np "$P" --host "127.0.0.1:$P" "$MPIBIN" --dataset "$DATA" \
        --num-parts 2 --balance train,edges --name syn --out "$WORK/mpi-$P" --force > "$LOG" 2>&1 || { cat "$LOG"; exit 1; }
    wall=$(echo "$(date +%s.%N) - $start" | bc)
    awk -v p="$P" -v mcut="$metis_cut" -v mrss="$metis_rss" -v wall="$wall" '
      /edge cut:/          { cut = $3 }
      /balance /           { bal = bal " " $2 " " $5 }
      /peak RSS/           { rss = $(NF-1) }
      /sent to other/      { sent = $7; total = $11 }
      END {
        printf("PT-Scotch, %d rank(s): edge cut %d (%.3f x METIS) | balance (largest/mean):%s | peak RSS largest rank %s MB (%.2f x METIS) | sent %s MB largest rank, %s MB all | wall %.1f s\n",
               p, cut, cut / mcut, bal, rss, rss / mrss, sent, total, wall);
      }' "$LOG"
  done
  exit 0
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
