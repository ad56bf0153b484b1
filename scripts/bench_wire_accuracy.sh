#!/usr/bin/env bash
# Test accuracy on Cora of a 2-partition job (127.0.0.1, no sampler processes,
# SAGE 1433 -> 128 -> 7, the demo's settings) with each way input rows can
# travel (docs/guide.md "Fewer bytes on the wire"):
#   pull      train.input_aggregation off, float32 rows (PULL)
#   agg       input_aggregation on (PULL_BLOCK), float32
#   agg-f16   on, feature_wire_dtype float16
#   agg-bf16  on, feature_wire_dtype bfloat16
# for a few seeds; prints one line per run, then the mean per way.
#   scripts/bench_wire_accuracy.sh [--bin PATH] [--seeds "0 1 2"] [--epochs 60]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$PWD/build/distgnn SEEDS="0 1 2" EPOCHS=60
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) BIN=$2; shift ;;
    --seeds) SEEDS=$2; shift ;;
    --epochs) EPOCHS=$2; shift ;;
    *) echo "bench_wire_accuracy.sh: unknown flag $1" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$BIN" ] || scripts/build.sh distgnn
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$BIN" partition --dataset data/cora --undirected --normalize-features --num-parts 2 --method metis \
    --name cora --out "$WORK/parts" --force > "$WORK/partition.log"
"$BIN" model export --arch sage --in-dim 1433 --hidden 128 --classes 7 --layers 2 -o "$WORK/sage.pt" >/dev/null
PORT=$(python3 -c "import random; print(random.randrange(20000, 60000, 10))")
cat > "$WORK/job.yaml" <<YAML
job: cora
partition: $WORK/parts/cora.json
machines:
  - host: 127.0.0.1
  - host: 127.0.0.1
ports: {server: $PORT, trainer: $((PORT + 4)), rendezvous: $((PORT + 8))}
processes: {servers: 1, trainers: 1, samplers_per_trainer: 0}
train:
  model: $WORK/sage.pt
  fanouts: [10, 25]
  batch_size: 70
  epochs: $EPOCHS
  lr: 0.01
  weight_decay: 0.0005
  eval_every: 1
  seed: 0
output_dir: $WORK/runs
YAML
declare -A SETS=(
  [pull]="train.input_aggregation=off"
  [agg]="train.input_aggregation=on"
  [agg-f16]="train.input_aggregation=on train.feature_wire_dtype=float16"
  [agg-bf16]="train.input_aggregation=on train.feature_wire_dtype=bfloat16"
)
: > "$WORK/results.txt"
for seed in $SEEDS; do
  for way in pull agg agg-f16 agg-bf16; do
    args=(--set "train.seed=$seed" --quiet)
    for kv in ${SETS[$way]}; do args+=(--set "$kv"); done
    "$BIN" launch "$WORK/job.yaml" "${args[@]}" > "$WORK/launch.log" 2>&1 || { tail -20 "$WORK/launch.log"; exit 1; }
    acc=$(tail -n 1 "$WORK/runs/cora/metrics.jsonl" | sed -n 's/.*"test_acc": *\([0-9.]*\).*/\1/p')
    echo "$way seed $seed test_acc $acc" | tee -a "$WORK/results.txt"
  done
done
python3 - "$WORK/results.txt" <<'PY'
import collections, sys
acc = collections.defaultdict(list)
for line in open(sys.argv[1]):
    way, _, seed, _, a = line.split()
    acc[way].append(float(a))
base = sum(acc["pull"]) / len(acc["pull"])
for way, v in acc.items():
    m = sum(v) / len(v)
    print(f"{way:9s} mean test_acc {m:.4f} ({100 * (m - base):+.2f} points against pull) over {len(v)} seeds")
PY
