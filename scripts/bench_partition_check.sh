#!/usr/bin/env bash
# Partition check benchmark (not a timed test): the structure check a server runs
# before it listens, and the SHA-256 checksums of `partition verify`, on a
# 1M-node / 20M-edge synthetic graph (100-d features, 2 random parts), warm (page
# cache) and cold (the part's pages evicted first); then a server's start-up on
# DGL's benchmark graph (100k / 2M uniform, 2 parts), with this binary and, if
# BASE_BIN is set, with another one (e.g. a release's) for comparison: the two
# run by turns (base, this, base, this, ...) so that a change in the machine's
# load falls on both, and the line per binary gives min/median/max of RUNS runs
# and the ratio of the medians. STARTUP_ONLY=1 skips the 1M / 20M part.
#
#   scripts/bench_partition_check.sh [BUILD_DIR] [WORK_DIR]   (env: NODES EDGES FEAT RUNS BASE_BIN STARTUP_ONLY)
set -euo pipefail
BUILD=${1:-build}
WORK=${2:-/tmp/distgnn-bench-check}
NODES=${NODES:-1000000}
EDGES=${EDGES:-20000000}
FEAT=${FEAT:-100}
RUNS=${RUNS:-5}
BIN=$(realpath "$BUILD/distgnn")
[ -x "$BIN" ] || { echo "bench_partition_check: no $BIN (build first)"; exit 1; }
[ -x /usr/bin/time ] || { echo "bench_partition_check: needs GNU time (apt-get install time)"; exit 1; }
mkdir -p "$WORK"

# Drops the page-cache pages of every file under a folder (no root needed).
evict() {
  python3 - "$1" <<'EOF'
import os, sys
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        fd = os.open(os.path.join(root, f), os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
EOF
}

# Starts a server on part 0 of json with binary $1, waits for it to listen, stops
# it with SIGTERM; prints "START_SECONDS" and leaves its log (with GNU time's) in $3.
serve_once() {
  local bin=$1 json=$2 log=$3 extra=${4:-}
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/time -v "$bin" --role server --partition-config "$json" --part 0 --host 127.0.0.1 --port 0 \
      --threads 1 $extra > "$log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 6000); do
    grep -q "serving partition" "$log" && break
    kill -0 "$pid" 2>/dev/null || { cat "$log"; exit 1; }
    sleep 0.005
  done
  t1=$(date +%s.%N)
  pkill -TERM -P "$pid" 2>/dev/null || true  # the server under /usr/bin/time
  wait "$pid" || true
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf("%.3f\n", b - a) }'
}

median() { sort -g | awk '{ a[NR] = $1 } END { printf("%.3f", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
# "min / median / max" of the numbers on stdin, one a line.
spread() {
  sort -g | awk '{ a[NR] = $1 } END { printf("%.3f / %.3f / %.3f", a[1], NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2, a[NR]) }'
}

if [ "${STARTUP_ONLY:-0}" != 1 ]; then
  DATA=$WORK/data-$NODES-$EDGES-$FEAT
  PARTS=$WORK/parts-$NODES-$EDGES-$FEAT
  if [ ! -d "$DATA" ]; then
    "$BIN" generate --nodes "$NODES" --edges "$EDGES" --feat-dim "$FEAT" --classes 10 --seed 1 --out "$DATA"
  fi
  if [ ! -f "$PARTS/syn.json" ]; then
    "$BIN" partition --dataset "$DATA" --num-parts 2 --method random --name syn --out "$PARTS" --force > "$WORK/partition.log"
  fi

  echo "=== structure check, part 0 of $NODES nodes / $EDGES edges / $FEAT-d (2 parts) ==="
  for cache in warm cold; do
    [ "$cache" = cold ] && evict "$PARTS/part0"
    serve_once "$BIN" "$PARTS/syn.json" "$WORK/server-$cache.log" > /dev/null
    echo "$cache: $(grep -o 'part 0: structure checked.*' "$WORK/server-$cache.log" | head -1)"
    awk '/Maximum resident/ { printf("  server peak RSS %.1f MB (the part is mmap'"'"'d: pages read count)\n", $NF / 1024) }' \
        "$WORK/server-$cache.log"
  done
  echo "=== SHA-256 checksums: partition verify (every part and file) ==="
  /usr/bin/time -v "$BIN" partition verify "$PARTS/syn.json" > "$WORK/verify.log" 2>&1
  head -1 "$WORK/verify.log"
  awk '/Maximum resident/ { printf("  verify peak RSS %.1f MB\n", $NF / 1024) }' "$WORK/verify.log"
  echo "  (bytes hashed: $(du -sb "$PARTS" | cut -f1))"
fi

echo "=== server start-up on DGL's benchmark graph (100k / 2M uniform, 2 parts), $RUNS runs each ==="
DGL_DATA=$WORK/dgl-data
DGL_PARTS=$WORK/dgl-parts
if [ ! -f "$DGL_PARTS/dgl.json" ]; then
  [ -d "$DGL_DATA" ] || "$BIN" generate --nodes 100000 --edges 2000000 --model uniform --feat-dim 100 --classes 10 \
      --all-train --seed 1 --out "$DGL_DATA" > /dev/null
  "$BIN" partition --dataset "$DGL_DATA" --num-parts 2 --method metis --name dgl --out "$DGL_PARTS" --force > /dev/null
fi
names=(this)
[ -n "${BASE_BIN:-}" ] && names=(base this)
declare -A bins=([this]=$BIN)
[ -n "${BASE_BIN:-}" ] && bins[base]=$(realpath "$BASE_BIN")
for name in "${names[@]}"; do  # warm the page cache: the binary's libraries and the part
  serve_once "${bins[$name]}" "$DGL_PARTS/dgl.json" "$WORK/dgl-$name.log" > /dev/null
done
: > "$WORK/dgl-this.times"
: > "$WORK/dgl-base.times"
for _ in $(seq 1 "$RUNS"); do  # by turns: base, this, base, this, ...
  for name in "${names[@]}"; do
    serve_once "${bins[$name]}" "$DGL_PARTS/dgl.json" "$WORK/dgl-$name.log" >> "$WORK/dgl-$name.times"
  done
done
for name in "${names[@]}"; do
  echo "$name (${bins[$name]}): start-up to listening min / median / max $(spread < "$WORK/dgl-$name.times") s" \
       "(runs in order: $(echo $(cat "$WORK/dgl-$name.times")))"
done
if [ -n "${BASE_BIN:-}" ]; then
  awk -v a="$(median < "$WORK/dgl-this.times")" -v b="$(median < "$WORK/dgl-base.times")" \
      'BEGIN { printf("ratio of medians this / base: %.3f\n", a / b) }'
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
grep -o 'part 0: structure checked.*' "$WORK/dgl-this.log" | head -1 || true
