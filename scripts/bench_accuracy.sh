#!/usr/bin/env bash
# Test accuracy of the built-in models on Cora (train-local, the settings of
# the test suite) for a few seeds: SAGE, GCN, GAT. Prints one line per model
# and seed, then the mean per model. Used to check that a change to the
# models or kernels leaves accuracy unchanged.
#   scripts/bench_accuracy.sh [--bin PATH] [--seeds "0 1 2"] [--dataset DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$PWD/build/distgnn SEEDS="0 1 2" DATA=$PWD/data/cora
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) BIN=$2; shift ;;
    --seeds) SEEDS=$2; shift ;;
    --dataset) DATA=$2; shift ;;
    *) echo "bench_accuracy.sh: unknown flag $1" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$BIN" ] || scripts/build.sh distgnn
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
read -r IN C < <(/usr/bin/python3 - "$DATA" <<'PY'
import gzip, os, sys, numpy
d = sys.argv[1]
f = d + "/features.npy"
x = numpy.load(f, mmap_mode="r") if os.path.exists(f) else numpy.load(gzip.open(f + ".gz"))
print(x.shape[1], int(numpy.load(d + "/labels.npy").max()) + 1)
PY
)
declare -A EXPORT=(
  [sage]="--arch sage --hidden 64 --dropout 0.7"
  [gcn]="--arch gcn --hidden 64 --dropout 0.5"
  [gat]="--arch gat --hidden 64 --heads 8 --dropout 0.6 --attn-dropout 0.6")
declare -A WD=([sage]=5e-3 [gcn]=5e-3 [gat]=5e-4)
for arch in sage gcn gat; do
  sum=0 n=0
  for seed in $SEEDS; do
    # shellcheck disable=SC2086
    "$BIN" model export ${EXPORT[$arch]} --in-dim "$IN" --classes "$C" --seed "$seed" -o "$WORK/$arch.pt" >/dev/null
    "$BIN" train-local --dataset "$DATA" --undirected --model "$WORK/$arch.pt" --fanouts 10,25 --batch-size 32 \
        --epochs 50 --lr 0.01 --weight-decay "${WD[$arch]}" --seed "$seed" --out "$WORK/run-$arch-$seed" >/dev/null 2>&1
    acc=$(tail -1 "$WORK/run-$arch-$seed/metrics.jsonl" | /usr/bin/python3 -c "import json,sys; print(json.load(sys.stdin)['test_acc'])")
    echo "$arch seed $seed test_acc $acc"
    sum=$(/usr/bin/python3 -c "print($sum + $acc)"); n=$((n + 1))
  done
  echo "$arch mean test_acc $(/usr/bin/python3 -c "print(round($sum / $n, 4))")"
done
