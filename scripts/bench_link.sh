#!/usr/bin/env bash
# Link prediction throughput: positive edges trained per second,
# train-local and distributed, on the uniform and R-MAT graphs of `distgnn generate`.
#   local_eps   `distgnn train-local --task link` (in-process sampling, --sampler-threads 1)
#   dist_eps    `distgnn launch`, train.task link: 2 partitions on 127.0.0.1, 1 server and
#               1 trainer per partition, SAMPLERS sampler processes per trainer (all trainers)
# Edges/s = positive edges stepped on / training seconds of the epoch (evaluation is
# excluded), the last epoch. Edge split 0.98/0.01/0.01 (val/test only evaluated
# at the end, with 10 negatives each and the training fanouts); SAGE hidden 16,
# 100-d features, fanouts 10,25, batch 1000 edges, 5 uniform negatives each.
#
#   scripts/bench_link.sh [--nodes N] [--edges E] [--epochs K] [--samplers K] [--graphs "uniform rmat"] [--work DIR]
# Default 100k nodes / 500k directed edges, 2 epochs, 1 sampler process per trainer.
# The last stdout line is one JSON object per graph.
set -euo pipefail
cd "$(dirname "$0")/.."
NODES=100000 EDGES=500000 EPOCHS=2 SAMPLERS=1 GRAPHS="uniform rmat" WORK=${TMPDIR:-/tmp}/distgnn-bench-link
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) NODES=$2; shift ;;
    --edges) EDGES=$2; shift ;;
    --epochs) EPOCHS=$2; shift ;;
    --samplers) SAMPLERS=$2; shift ;;
    --graphs) GRAPHS=$2; shift ;;
    --work) WORK=$2; shift ;;
    *) echo "bench_link.sh: unknown flag $1" >&2; exit 2 ;;
  esac
  shift
done
BIN=$PWD/build/distgnn
[ -x "$BIN" ] || scripts/build.sh distgnn
mkdir -p "$WORK"
MODEL=$WORK/sage-link-f100-h16.pt
$BIN model export --arch sage --in-dim 100 --hidden 16 --layers 2 --task link -o "$MODEL" >/dev/null
RESULTS=()
for GRAPH in $GRAPHS; do
  KEY="$GRAPH-n${NODES}-e${EDGES}"
  DATA=$WORK/data-$KEY PARTS=$WORK/parts-$KEY
  if [ ! -f "$DATA/.done" ]; then
    echo "== generate $KEY"
    rm -rf "$DATA"
    $BIN generate --model "$GRAPH" --nodes "$NODES" --edges "$EDGES" --feat-dim 100 --classes 10 --seed 1 \
        --out "$DATA" --force >/dev/null
    touch "$DATA/.done"
  fi
  if [ ! -f "$PARTS/.done" ]; then
    echo "== partition $KEY into 2 (METIS) with --edge-split 0.98,0.01,0.01"
    $BIN partition --dataset "$DATA" --num-parts 2 --method metis --name bench --out "$PARTS" --force \
        --edge-split 0.98,0.01,0.01 >/dev/null
    touch "$PARTS/.done"
  fi
  echo "== $GRAPH: train-local --task link ($EPOCHS epochs)"
  rm -rf "$WORK/run-local-$GRAPH"
  $BIN train-local --task link --dataset "$DATA" --model "$MODEL" --fanouts 10,25 --batch-size 1000 \
      --epochs "$EPOCHS" --eval-every 1000000 --eval-fanouts 10,25 --eval-negatives 10 --lr 0.003 \
      --edge-split 0.98,0.01,0.01 --sampler-threads 1 --log-every 100 --out "$WORK/run-local-$GRAPH" 2>&1 \
      | grep -E "epoch [0-9]+:|error" || true
  echo "== $GRAPH: distributed, 2 partitions ($SAMPLERS sampler processes per trainer)"
  PORT=$(python3 -c "import random; print(random.randrange(20000, 60000, 10))")
  cat > "$WORK/job-$GRAPH.yaml" <<YAML
job: link-$GRAPH
partition: $PARTS/bench.json
machines:
  - host: 127.0.0.1
  - host: 127.0.0.1
ports: {server: $PORT, trainer: $((PORT + 4)), rendezvous: $((PORT + 8))}
processes: {servers: 1, trainers: 1, samplers_per_trainer: $SAMPLERS}
train: {model: $MODEL, task: link, negative: {k: 5, distribution: uniform}, eval_negatives: 10, fanouts: [10, 25],
        batch_size: 500, epochs: $EPOCHS, lr: 0.003, eval_every: 1000000, eval_full_neighbors: false, seed: 0}
output_dir: $WORK
YAML
  rm -rf "$WORK/link-$GRAPH"
  $BIN launch "$WORK/job-$GRAPH.yaml" 2>&1 | grep -E "epoch [0-9]+:|error|finished" || true
  RESULTS+=("$GRAPH")
done
python3 - "$WORK" "${RESULTS[@]}" <<'PY'
import json, sys
work, graphs = sys.argv[1], sys.argv[2:]
def last(path):
    rows = [json.loads(l) for l in open(path) if '"epoch"' in l and '"final"' not in l]
    return rows[-1]
out = {}
for g in graphs:
    lo, di = last(f"{work}/run-local-{g}/metrics.jsonl"), last(f"{work}/link-{g}/metrics.jsonl")
    out[g] = {"local_eps": round(lo["edges_per_second"]), "dist_eps": round(di["edges_per_second"]),
              "positive_edges": di["positive_edges"], "local_epoch_s": lo["epoch_seconds"],
              "dist_epoch_s": di["epoch_seconds"], "dist_wait_fraction": di["wait_fraction"]}
    print(f"{g}: train-local {out[g]['local_eps']} positive edges/s, distributed (2 trainers) "
          f"{out[g]['dist_eps']} positive edges/s")
print(json.dumps(out))
PY
