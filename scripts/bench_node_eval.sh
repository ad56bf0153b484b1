#!/usr/bin/env bash
# Node classification's full-neighbour evaluation, layer by layer (the default
# where it computes less, docs/guide.md "Evaluation") against node batches
# (`--eval-fanouts -1,-1`: the same figures), one binary, interleaved by
# farm-bench in the same run. Each run is the whole process: `train-local
# --dataset D --undirected --epochs E --threads 1`, a SAGE export with the
# panel's defaults, evaluation after every epoch; both runs train the same
# steps, so the difference is the evaluation. Prints the CPU model, each
# graph's wall seconds and peak RSS (min / median / max) and the median ratio.
#   scripts/bench_node_eval.sh [--graphs coauthor-cs,amazon-photo,cora] [--epochs 2] [--runs 3] [--work DIR]
# A graph is a panel graph's name (bench/panel/graphs.tsv, homogeneous with features).
set -euo pipefail
cd "$(dirname "$0")/.."
GRAPHS=coauthor-cs,amazon-photo,cora EPOCHS=2 RUNS=3 WORK=${TMPDIR:-/tmp}/distgnn-bench-node-eval
while [ $# -gt 0 ]; do
  case "$1" in
    --graphs) GRAPHS=$2; shift ;;
    --epochs) EPOCHS=$2; shift ;;
    --runs) RUNS=$2; shift ;;
    --work) WORK=$2; shift ;;
    *) echo "bench_node_eval.sh: unknown flag $1" >&2; exit 2 ;;
  esac
  shift
done
BIN=${DISTGNN_BIN:-$PWD/build/distgnn}
[ -x "$BIN" ] || scripts/build.sh distgnn distgnn_torch
command -v farm-bench > /dev/null || { echo "bench_node_eval.sh: farm-bench is not on PATH" >&2; exit 2; }
mkdir -p "$WORK"
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'); $(nproc) cores; $EPOCHS epochs, $RUNS runs each, interleaved"
IFS=, read -r -a names <<< "$GRAPHS"
for g in "${names[@]}"; do
  data=$(awk -F'\t' -v g="$g" '$1 == g { print $4 }' bench/panel/graphs.tsv)
  [ -n "$data" ] && [ -d "$data" ] || { echo "bench_node_eval.sh: no panel dataset named $g" >&2; exit 2; }
  # The export's shape: the dataset's feature width and number of classes, as the panel reads them.
  read -r width classes < <(/usr/bin/python3 - "$g" <<'PY'
import sys
sys.path.insert(0, "bench/panel")
import panel
row = next(r for r in (l.rstrip("\n").split("\t") for l in open("bench/panel/graphs.tsv")) if r[0] == sys.argv[1])
print(*panel.Graph(row, "", "").shape())
PY
)
  "$BIN" model export --arch sage --in-dim "$width" --classes "$classes" --seed 0 -o "$WORK/$g.pt" > /dev/null
  run="$BIN train-local --dataset $data --undirected --model $WORK/$g.pt --epochs $EPOCHS --threads 1 --seed 0"
  echo "== $g (A: layer by layer, B: node batches, --eval-fanouts -1,-1)"
  # shellcheck disable=SC2086  # $run is one command split into words on purpose
  farm-bench -n "$RUNS" --timeout 3600 --vs "$run --out $WORK/$g-batches --eval-fanouts -1,-1" -- \
    $run --out "$WORK/$g-layers"
done
