#!/usr/bin/env bash
# Benchmark of distributed training against the in-process baseline, in one run
# on this machine (a ratio, so the machine's noise cancels out):
#   local_epoch_s  `distgnn train-local` (whole graph in memory, in-process sampling)
#   dist_epoch_s   `distgnn launch`: 2 partitions on 127.0.0.1, 1 server, 1 trainer
#                  and 1 sampler per partition (same seeds, batch size, fanouts, model)
#   ratio          dist_epoch_s / local_epoch_s (target <= 1.3)
#   wait_fraction  worst trainer's share of step time spent waiting for a batch (target <= 0.10)
#   infer_s        layer-wise inference of every node with the trained model (launch --mode infer),
#                  and infer_over_epoch = infer_s / dist_epoch_s
# Epoch times are training time only (evaluation excluded), the mean over epochs
# after the first. The last stdout line is one JSON object.
#
#   scripts/bench_train.sh                 1M nodes, 20M edges, 128-d, 10 classes, hidden 256
#   scripts/bench_train.sh --quick         100k nodes, 2M edges (a quick check)
#   scripts/bench_train.sh --dgl-setting   DGL's benchmark graph: uniform random 100k / 2M (as
#                                          dgl.rand_graph; METIS cuts ~40% of the edges), 100-d,
#                                          all nodes train, hidden 16, no sampler processes
# Other flags: --nodes --edges --feat-dim --classes --hidden --epochs --train-frac --work DIR
#   --graph rmat|uniform   the generator (default rmat)
#   --samplers K           sampler processes per trainer (default 1; 0 = trainers sample in threads)
#   scripts/bench_train.sh --hosts 2 --rate 1gbit   DGL's setting on separate hosts (network
#                                          namespaces, shaped links): scripts/bench_hosts.sh
set -euo pipefail
for a in "$@"; do [ "$a" = --hosts ] && exec "$(dirname "$0")/bench_hosts.sh" "$@"; done
cd "$(dirname "$0")/.."
NODES=1000000 EDGES=20000000 FEAT=128 CLASSES=10 HIDDEN=256 EPOCHS=3 TRAIN_FRAC=0.6 WORK=${TMPDIR:-/tmp}/distgnn-bench-train
GRAPH=rmat SAMPLERS=1
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) NODES=100000 EDGES=2000000 ;;
    --dgl-setting) NODES=100000 EDGES=2000000 FEAT=100 CLASSES=10 HIDDEN=16 TRAIN_FRAC=1.0 GRAPH=uniform SAMPLERS=0 ;;
    --graph) GRAPH=$2; shift ;;
    --samplers) SAMPLERS=$2; shift ;;
    --nodes) NODES=$2; shift ;;
    --edges) EDGES=$2; shift ;;
    --feat-dim) FEAT=$2; shift ;;
    --classes) CLASSES=$2; shift ;;
    --hidden) HIDDEN=$2; shift ;;
    --epochs) EPOCHS=$2; shift ;;
    --train-frac) TRAIN_FRAC=$2; shift ;;
    --work) WORK=$2; shift ;;
    *) echo "bench_train.sh: unknown flag $1" >&2; exit 2 ;;
  esac
  shift
done
BIN=${DISTGNN_BIN:-$PWD/build/distgnn}
[ -x "$BIN" ] || scripts/build.sh distgnn
VAL_FRAC=$(python3 -c "print(min(0.01, max(0.0, 1 - $TRAIN_FRAC)))")
KEY="$GRAPH-n${NODES}-e${EDGES}-f${FEAT}-c${CLASSES}-t${TRAIN_FRAC}"
GEN_FLAGS=(--model "$GRAPH")
if [ "$GRAPH" = uniform ] && [ "$TRAIN_FRAC" = 1.0 ]; then GEN_FLAGS+=(--all-train); else
  GEN_FLAGS+=(--train-frac "$TRAIN_FRAC" --val-frac "$VAL_FRAC"); fi
DATA=$WORK/data-$KEY PARTS=$WORK/parts-$KEY
mkdir -p "$WORK"
if [ ! -f "$DATA/.done" ]; then
  echo "== generate $KEY"
  rm -rf "$DATA"
  $BIN generate "${GEN_FLAGS[@]}" --nodes "$NODES" --edges "$EDGES" --feat-dim "$FEAT" --classes "$CLASSES" \
      --seed 1 --out "$DATA" --force
  touch "$DATA/.done"
fi
if [ ! -f "$PARTS/.done" ]; then
  echo "== partition into 2 (METIS)"
  $BIN partition --dataset "$DATA" --num-parts 2 --method metis --name bench --out "$PARTS" --force
  touch "$PARTS/.done"
fi
MODEL=$WORK/sage-f${FEAT}-h${HIDDEN}-c${CLASSES}.pt
$BIN model export --arch sage --in-dim "$FEAT" --hidden "$HIDDEN" --classes "$CLASSES" --layers 2 -o "$MODEL" >/dev/null

# Evaluation runs only after the last epoch and is not part of epoch_seconds.
echo "== train-local ($EPOCHS epochs)"
rm -rf "$WORK/run-local"
/usr/bin/time -f "local peak RSS %M KB" $BIN train-local --dataset "$DATA" --model "$MODEL" --fanouts 10,25 \
    --batch-size 1000 --epochs "$EPOCHS" --eval-every 1000000 --eval-fanouts 10,25 --lr 0.003 \
    --sampler-threads 2 --log-every 100 --out "$WORK/run-local" 2>&1 | grep -E "epoch [0-9]+:|peak|error" || true

echo "== distributed: 2 partitions on 127.0.0.1 (1 server, 1 trainer, $SAMPLERS sampler processes each)"
PORT=$(python3 -c "import random; print(random.randrange(20000, 60000, 10))")
cat > "$WORK/job.yaml" <<YAML
job: bench
partition: $PARTS/bench.json
machines:
  - host: 127.0.0.1
  - host: 127.0.0.1
ports: {server: $PORT, trainer: $((PORT + 4)), rendezvous: $((PORT + 8))}
processes: {servers: 1, trainers: 1, samplers_per_trainer: $SAMPLERS}
train:
  model: $MODEL
  fanouts: [10, 25]
  batch_size: 1000
  epochs: $EPOCHS
  lr: 0.003
  eval_every: 1000000
  eval_full_neighbors: false
  seed: 0
output_dir: $WORK
YAML
rm -rf "$WORK/bench"
# CPU seconds of every process of the job (launch waits for all of them), set-up included.
/usr/bin/time -f "%U %S" -o "$WORK/launch-cpu.txt" $BIN launch "$WORK/job.yaml" 2>&1 | grep -E "epoch [0-9]+:|error|finished" || true

echo "== layer-wise inference of the trained model over all nodes (launch --mode infer)"
$BIN launch "$WORK/job.yaml" --mode infer --set "train.model=$WORK/bench/model.pt" --quiet 2>&1 | grep -E "error" || true

python3 - "$WORK" <<'PY'
import json, sys, glob
work = sys.argv[1]
def epochs(path):
    rows = [json.loads(l) for l in open(path) if '"epoch"' in l]
    secs = [r["epoch_seconds"] for r in rows]
    return sum(secs[1:]) / len(secs[1:]) if len(secs) > 1 else secs[0]
local = epochs(work + "/run-local/metrics.jsonl")
dist = epochs(work + "/bench/metrics.jsonl")
trainers = [json.load(open(p)) for p in sorted(glob.glob(work + "/bench/trainer-*.json"))]
wait = max(t["wait_fraction"] for t in trainers)
print(f"local epoch {local:.2f} s, distributed epoch {dist:.2f} s, ratio {dist / local:.2f}, "
      f"worst trainer wait fraction {wait:.3f}")
def split(path):
    rows = [json.loads(l) for l in open(path) if '"step_ms"' in l]
    return rows[-1]["step_ms"] if rows else {}
def show(name, ms):
    print(f"  {name:12s} " + "  ".join(f"{k} {v:.1f}" for k, v in ms.items()))
print("per-step milliseconds (last epoch; sample/gather/transfer run ahead of the trainer):")
show("train-local", split(work + "/run-local/metrics.jsonl"))
for t in trainers:
    show(f"trainer {t['rank']}", t.get("step_ms", {}))
infer = json.load(open(work + "/bench/inference.json"))["seconds"]
print(f"layer-wise inference of all nodes {infer:.2f} s = {infer / dist:.2f} distributed epochs")
user, system = (float(v) for v in open(work + "/launch-cpu.txt").read().split()[-2:])
print(f"CPU seconds of the whole distributed job (all processes, set-up included): {user + system:.1f}")
print(json.dumps({"local_epoch_s": round(local, 3), "dist_epoch_s": round(dist, 3),
                  "infer_s": round(infer, 3), "infer_over_epoch": round(infer / dist, 3),
                  "ratio": round(dist / local, 3), "wait_fraction": round(wait, 4), "job_cpu_s": round(user + system, 1),
                  "trainer_wait_fractions": [round(t["wait_fraction"], 4) for t in trainers],
                  "dist_step_ms": trainers[0].get("step_ms", {})}))
PY
