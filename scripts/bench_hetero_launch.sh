#!/usr/bin/env bash
# Movie classification on the typed IMDB graph via `launch`: 2 partitions, 2
# machines of 127.0.0.1 with a server and a trainer each (sampling in the
# trainers' threads), the models and settings of scripts/bench_hetero.sh:
#   rgcn         typed partition, RGCN with export's defaults (one weight per
#                relation, hidden 64, learnt rows for the featureless types)
#   rgcn-shared  the same with one learnt vector per featureless type
#                (--embedding-dim 0; docs/models.md's launch table)
#   sage-merged  partition --merge-types, SAGE over padded features + a 64-wide
#                node embedding (train.embedding), input dropout 0.5
#   mlp          partition --merge-types, an MLP on the movie features, weight decay 5e-4
# Each trainer takes half of train-local's batch (64 of 128), so a step sees as
# many seeds. Prints, per model and seed, the test accuracy at the best
# validation epoch, then per model the mean, min and max (docs/models.md quotes it).
#   scripts/bench_hetero_launch.sh [--bin PATH] [--seeds "0 1 2"] [--epochs N] [--models "rgcn rgcn-shared sage-merged mlp"]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$PWD/build/distgnn SEEDS="0 1 2" DATA=$PWD/data/imdb-hetero EPOCHS=8 MODELS="rgcn sage-merged mlp"
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) BIN=$2; shift ;;
    --seeds) SEEDS=$2; shift ;;
    --epochs) EPOCHS=$2; shift ;;
    --models) MODELS=$2; shift ;;
    *) echo "bench_hetero_launch.sh: unknown flag $1" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$BIN" ] || scripts/build.sh distgnn
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
H=64 EMB=64 F=2669  # F: IMDB's movie features, the widest type
"$BIN" partition --dataset "$DATA" --undirected --num-parts 2 --name imdb --out "$WORK/typed" >/dev/null
"$BIN" partition --dataset "$DATA" --undirected --merge-types --num-parts 2 --name imdb --out "$WORK/merged" >/dev/null
PORT=$((20000 + RANDOM % 20000))
declare -A ACCS=()
for seed in $SEEDS; do
  for model in $MODELS; do
    case $model in
      rgcn)
        "$BIN" model export --arch rgcn --partition-config "$WORK/typed/imdb.json" --hidden $H --seed "$seed" \
          -o "$WORK/$model.pt" >/dev/null
        part=typed extra="" ;;
      rgcn-shared)
        "$BIN" model export --arch rgcn --partition-config "$WORK/typed/imdb.json" --hidden $H --embedding-dim 0 \
          --seed "$seed" -o "$WORK/$model.pt" >/dev/null
        part=typed extra="" ;;
      sage-merged)
        "$BIN" model export --arch sage --in-dim $((F + EMB)) --hidden $H --classes 3 --input-dropout 0.5 --seed "$seed" \
          -o "$WORK/$model.pt" >/dev/null
        part=merged extra=", embedding: {dim: $EMB, lr: 0.01}" ;;
      mlp)
        "$BIN" model export --arch mlp --in-dim $F --hidden $H --classes 3 --seed "$seed" -o "$WORK/$model.pt" >/dev/null
        part=merged extra=", weight_decay: 0.0005" ;;
      *) echo "bench_hetero_launch.sh: unknown model $model" >&2; exit 2 ;;
    esac
    job=$model-$seed
    cat >"$WORK/$job.yaml" <<YAML
job: $job
partition: $WORK/$part/imdb.json
machines:
  - host: 127.0.0.1
  - host: 127.0.0.1
ports: {server: $PORT, trainer: $((PORT + 2)), rendezvous: $((PORT + 4))}
processes: {servers: 1, trainers: 1, samplers_per_trainer: 0}
train: {model: $WORK/$model.pt, fanouts: [10, 10], batch_size: 64, epochs: $EPOCHS, lr: 0.005, seed: $seed,
        intra_op_threads: 1$extra}
output_dir: $WORK/runs
YAML
    "$BIN" launch "$WORK/$job.yaml" >"$WORK/log-$job" 2>&1 || { tail -5 "$WORK/log-$job"; exit 1; }
    final=$(grep '"final"' "$WORK/runs/$job/metrics.jsonl")
    acc=$(echo "$final" | sed 's/.*"test_acc": \([0-9.e-]*\).*/\1/')
    val=$(echo "$final" | sed 's/.*"best_val_acc": \([0-9.e-]*\).*/\1/')
    epoch=$(echo "$final" | sed 's/.*"best_epoch": \([0-9]*\).*/\1/')
    echo "$model seed $seed test_acc $acc (best val $val at epoch $epoch)"
    ACCS[$model]="${ACCS[$model]:-} $acc"
  done
done
n=$(echo $SEEDS | wc -w)
for model in $MODELS; do
  /usr/bin/python3 -c "
a = [float(v) for v in '${ACCS[$model]}'.split()]
print('%-12s test_acc mean %.4f min %.4f max %.4f over $n seeds' % ('$model', sum(a) / len(a), min(a), max(a)))"
done
