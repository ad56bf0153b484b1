#!/usr/bin/env bash
# Movie classification on the typed IMDB graph (train-local) for a few seeds:
# RGCN and heterogeneous SAGE (typed sampling, featureless types learn a node
# embedding), homogeneous SAGE over the same edges with all types merged (same
# input: padded features + embedding), and an MLP on the movie features alone.
# Prints the test accuracy at the best validation epoch per model and seed,
# then the mean per model (docs/models.md quotes it).
#   scripts/bench_hetero.sh [--bin PATH] [--seeds "0 1 2"] [--dataset DIR] [--epochs N]
#                           [--models "rgcn hetero-sage sage-merged mlp"]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$PWD/build/distgnn SEEDS="0 1 2" DATA=$PWD/data/imdb-hetero EPOCHS=20 MODELS="rgcn hetero-sage sage-merged mlp"
[ -d "$DATA" ] || DATA=$PWD/../shared/datasets/imdb-hetero
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) BIN=$2; shift ;;
    --seeds) SEEDS=$2; shift ;;
    --dataset) DATA=$2; shift ;;
    --epochs) EPOCHS=$2; shift ;;
    --models) MODELS=$2; shift ;;
    *) echo "bench_hetero.sh: unknown flag $1" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$BIN" ] || scripts/build.sh distgnn
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
H=64 EMB=64
F=$(/usr/bin/python3 - "$DATA" <<'PY'
import gzip, os, sys, numpy
f = sys.argv[1] + "/nodes/movie/features.npy"
x = numpy.load(f, mmap_mode="r") if os.path.exists(f) else numpy.load(gzip.open(f + ".gz"))
print(x.shape[1])
PY
)
COMMON=(--dataset "$DATA" --undirected --fanouts 10,10 --epochs "$EPOCHS" --batch-size 128 --lr 0.005 --threads 2)
declare -A SUM=()
for seed in $SEEDS; do
  "$BIN" model export --arch rgcn --dataset "$DATA" --undirected --embedding-dim $EMB --hidden $H --bases 2 --seed "$seed" -o "$WORK/rgcn.pt" >/dev/null
  "$BIN" model export --arch hetero-sage --dataset "$DATA" --undirected --embedding-dim $EMB --hidden $H --seed "$seed" -o "$WORK/hetero-sage.pt" >/dev/null
  "$BIN" model export --arch sage --in-dim $((F + EMB)) --hidden $H --classes 3 --seed "$seed" -o "$WORK/sage-merged.pt" >/dev/null
  "$BIN" model export --arch mlp --in-dim "$F" --hidden $H --classes 3 --seed "$seed" -o "$WORK/mlp.pt" >/dev/null
  for model in $MODELS; do
    extra=()
    case $model in
      rgcn|hetero-sage) extra=(--embedding-dim $EMB) ;;
      sage-merged) extra=(--embedding-dim $EMB --merge-types) ;;
      mlp) extra=(--merge-types) ;;
    esac
    "$BIN" train-local "${COMMON[@]}" "${extra[@]}" --seed "$seed" --model "$WORK/$model.pt" --out "$WORK/run-$model-$seed" \
      >"$WORK/log-$model-$seed" 2>&1 || { tail -5 "$WORK/log-$model-$seed"; exit 1; }
    acc=$(grep '"final"' "$WORK/run-$model-$seed/metrics.jsonl" | sed 's/.*"test_acc": \([0-9.e-]*\).*/\1/')
    echo "$model seed $seed test_acc $acc"
    SUM[$model]=$(/usr/bin/python3 -c "print(${SUM[$model]:-0} + $acc)")
  done
done
n=$(echo $SEEDS | wc -w)
for model in $MODELS; do
  /usr/bin/python3 -c "print('$model mean test_acc %.4f over $n seeds' % (${SUM[$model]} / $n))"
done
