#!/usr/bin/env bash
# Runs the same `distgnn generate` and `distgnn partition` commands (in memory,
# out of core, typed, merged, OGB, edge data and split, and every --mpi method
# under mpirun) with two builds and compares every file they write byte for
# byte. A restructure of the partitioner must leave all of them identical.
#
#   scripts/compare_partition_outputs.sh BASE_BIN_DIR NEW_BIN_DIR [WORK_DIR]
#
# Each *_BIN_DIR holds distgnn and, for the --mpi cases, distgnn-mpi-partition
# (skipped when either build or mpirun lacks it). Exit 0 when every output is
# identical; the differing files are listed otherwise. Logs (timings) are not
# compared.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASE=$(realpath "${1:?BASE_BIN_DIR}")
NEW=$(realpath "${2:?NEW_BIN_DIR}")
WORK=${3:-$(mktemp -d /tmp/distgnn-compare.XXXXXX)}
mkdir -p "$WORK"
WORK=$(realpath "$WORK")
MPI=1
for d in "$BASE" "$NEW"; do [ -x "$d/distgnn-mpi-partition" ] || MPI=0; done
command -v mpirun > /dev/null || MPI=0

# Inputs (written once, by the base build's generate): OGB-shaped CSVs, an edge
# list with node and edge arrays.
IN=$WORK/inputs
if [ ! -d "$IN/ogb" ]; then
  mkdir -p "$IN"
  "$BASE/distgnn" generate --format ogb --nodes 3000 --edges 24000 --feat-dim 8 --classes 5 --seed 3 --out "$IN/ogb" > /dev/null
  "$BASE/distgnn" generate --nodes 4000 --edges 40000 --feat-dim 6 --classes 4 --seed 5 --out "$IN/rmat" > /dev/null
  python3 - "$IN" <<'EOF'
import struct, sys, random
d = sys.argv[1]
random.seed(7)
n, m = 300, 2000
with open(d + "/edges.tsv", "w") as f:
    for _ in range(m):
        f.write("%d\t%d\n" % (random.randrange(n), random.randrange(n)))
def npy(path, fmt, descr, rows):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, len(rows))
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(rows), fmt), *rows))
npy(d + "/labels.npy", "q", "<i8", [random.randrange(3) for _ in range(n)])
npy(d + "/split.npy", "b", "|i1", [random.choice([0, 0, 1, 2]) for _ in range(n)])
npy(d + "/w.npy", "f", "<f4", [random.random() for _ in range(m)])
EOF
fi

CORA=$ROOT/data/cora IMDB=$ROOT/data/imdb-hetero ACM=$ROOT/data/acm AIFB=$ROOT/bench/panel/aifb/data
# name|args (the output directory is appended as --out OUT)
CASES=(
  "gen-rmat|generate --nodes 2000 --edges 16000 --feat-dim 4 --classes 3 --seed 9"
  "gen-uniform|generate --model uniform --nodes 2000 --edges 16000 --feat-dim 4 --classes 3 --seed 9"
  "gen-ogb|generate --format ogb --nodes 1500 --edges 9000 --feat-dim 4 --classes 3 --seed 9"
  "gen-mag|generate --hetero mag --nodes 1500 --feat-dim 4 --classes 3 --seed 9"
  "cora-metis|partition --dataset $CORA --undirected --normalize-features --num-parts 2 --method metis --name cora"
  "cora-metis-bal|partition --dataset $CORA --undirected --num-parts 3 --balance train,edges --metis-niter 1 --name cora"
  "cora-random|partition --dataset $CORA --undirected --num-parts 3 --method random --seed 4 --name cora"
  "cora-stream|partition --dataset $CORA --undirected --num-parts 3 --method stream --stream-passes 2 --name cora"
  "cora-split|partition --dataset $CORA --undirected --num-parts 2 --edge-split 0.8,0.1,0.1 --seed 2 --name cora"
  "cora-ooc-metis|partition --dataset $CORA --undirected --num-parts 2 --memory-budget 64M --run-size 64K --name cora"
  "cora-ooc-stream|partition --dataset $CORA --undirected --drop-self-loops --num-parts 3 --method stream --memory-budget 64M --run-size 64K --name cora"
  "cora-ooc-random|partition --dataset $CORA --undirected --normalize-features --num-parts 2 --method random --memory-budget 64M --name cora"
  "rmat-metis|partition --dataset $IN/rmat --undirected --drop-duplicates --num-parts 4 --name rmat"
  "rmat-ooc-stream|partition --dataset $IN/rmat --undirected --num-parts 4 --method stream --memory-budget 64M --run-size 256K --name rmat"
  "edges-data|partition --edges $IN/edges.tsv --num-nodes 300 --node-data labels=$IN/labels.npy --node-data split=$IN/split.npy --edge-data w=$IN/w.npy --undirected --num-parts 3 --name e"
  "edges-split|partition --edges $IN/edges.tsv --node-data labels=$IN/labels.npy --drop-self-loops --edge-split 0.7,0.2,0.1 --num-parts 2 --method random --name e"
  "imdb-metis|partition --dataset $IMDB --undirected --num-parts 3 --name imdb"
  "imdb-random|partition --dataset $IMDB --undirected --num-parts 3 --method random --name imdb"
  "imdb-ooc|partition --dataset $IMDB --undirected --num-parts 3 --method stream --memory-budget 64M --name imdb"
  "imdb-merged|partition --dataset $IMDB --undirected --merge-types --num-parts 2 --name imdb"
  "imdb-merged-ooc|partition --dataset $IMDB --undirected --merge-types --num-parts 2 --method random --memory-budget 64M --name imdb"
  "acm-split|partition --dataset $ACM --undirected --num-parts 2 --edge-split 0.8,0.1,0.1 --link-etype paper:has_author:author --name acm"
  "aifb-metis|partition --dataset $AIFB --undirected --num-parts 2 --name aifb"
  "ogb-metis|partition --dataset $IN/ogb --format ogb --undirected --num-parts 2 --name ogb"
  "ogb-ooc|partition --dataset $IN/ogb --format ogb --undirected --num-parts 3 --method stream --memory-budget 64M --name ogb"
)
if [ "$MPI" = 1 ]; then
  for m in auto cluster scotch stream random; do
    CASES+=("mpi-cora-$m|mpi partition --mpi --dataset $CORA --undirected --num-parts 2 --method $m --name cora")
  done
  CASES+=(
    "mpi-cora-cluster-small|mpi partition --mpi --dataset $CORA --undirected --num-parts 3 --cluster-max-arcs 2000 --name cora"
    "mpi-rmat-stream|mpi partition --mpi --dataset $IN/rmat --undirected --normalize-features --num-parts 4 --method stream --batch-edges 5000 --name rmat"
    "mpi-rmat-bal|mpi partition --mpi --dataset $IN/rmat --undirected --num-parts 3 --balance train,edges --name rmat"
    "mpi-imdb|mpi partition --mpi --dataset $IMDB --undirected --num-parts 3 --name imdb"
    "mpi-imdb-cluster|mpi partition --mpi --dataset $IMDB --undirected --num-parts 2 --method cluster --name imdb"
    "mpi-ogb|mpi partition --mpi --dataset $IN/ogb --format ogb --undirected --num-parts 2 --name ogb"
    "mpi-ogb-stream|mpi partition --mpi --dataset $IN/ogb --format ogb --undirected --num-parts 2 --method stream --name ogb"
    "mpi-split|mpi partition --mpi --dataset $CORA --undirected --num-parts 2 --method random --edge-split 0.8,0.1,0.1 --name cora"
  )
  # The edge-data dataset: the edge list as .npy columns beside w.npy.
  if [ ! -d "$IN/edgeds" ]; then
    "$BASE/distgnn" partition --edges "$IN/edges.tsv" --num-nodes 300 --num-parts 1 --name tmp --out "$IN/tmp-e1" > /dev/null
    mkdir -p "$IN/edgeds"
    python3 - "$IN" <<'EOF'
import struct, sys
d = sys.argv[1]
rows = [l.split() for l in open(d + "/edges.tsv")]
def npy(path, vals):
    header = "{'descr': '<i8', 'fortran_order': False, 'shape': (%d,), }" % len(vals)
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%dq" % len(vals), *vals))
npy(d + "/edgeds/src.npy", [int(r[0]) for r in rows])
npy(d + "/edgeds/dst.npy", [int(r[1]) for r in rows])
EOF
    cp "$IN/labels.npy" "$IN/edgeds/labels.npy"
    rm -rf "$IN/tmp-e1"
  fi
  CASES+=("mpi-edgedata|mpi partition --mpi --dataset $IN/edgeds --edge-data w=$IN/w.npy --undirected --num-parts 3 --name e")
fi

run_case() {  # bin_dir root name args...
  local bin=$1 root=$2 name=$3
  shift 3
  local argv=("$@")
  local pre=()
  if [ "${argv[0]}" = mpi ]; then
    pre=(mpirun --allow-run-as-root --oversubscribe -np 2 --host 127.0.0.1:2)
    argv=("${argv[@]:1}")
  fi
  mkdir -p "$root/out" "$root/log"
  rm -rf "${root:?}/out/$name"
  (cd "$root/out" && "${pre[@]}" "$bin/distgnn" "${argv[@]}" --out "$name" > "$root/log/$name.log" 2>&1) ||
    { echo "  $name: FAILED with $bin (log: $root/log/$name.log)"; return 1; }
}

fail=0
for c in "${CASES[@]}"; do
  name=${c%%|*}
  read -r -a args <<< "${c#*|}"
  run_case "$BASE" "$WORK/base" "$name" "${args[@]}" || { fail=1; continue; }
  run_case "$NEW" "$WORK/new" "$name" "${args[@]}" || { fail=1; continue; }
  if diff -r "$WORK/base/out/$name" "$WORK/new/out/$name" > "$WORK/$name.diff" 2>&1; then
    echo "  same  $name ($(find "$WORK/new/out/$name" -type f | wc -l) files)"
  else
    echo "  DIFF  $name:"; sed 's/^/        /' "$WORK/$name.diff" | head -20
    fail=1
  fi
done
[ "$MPI" = 1 ] || echo "  (no --mpi cases: mpirun or distgnn-mpi-partition missing)"
if [ "$fail" = 0 ]; then echo "compare: every output identical ($WORK)"; else echo "compare: differences ($WORK)"; fi
exit "$fail"
