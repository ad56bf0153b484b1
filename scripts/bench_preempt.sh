#!/usr/bin/env bash
# From SIGTERM to a complete checkpoint on disk, on DGL's benchmark graph
# (uniform random 100k nodes / 2M edges, 100-d features, all nodes train,
# SAGE hidden 16, batch 1000, fanouts [10, 25]): 2 partitions on 127.0.0.1,
# 1 server and 1 trainer each (trainers sample in threads), launched with
# `distgnn launch`. Per run, SIGTERM goes to `launch` mid-epoch (half of
# epoch 1's time after its line) and the
# script records:
#   to_checkpoint_s  SIGTERM -> the step checkpoint's manifest.json exists
#                    (the checkpoint is complete: servers' part and trainer 0's)
#   to_exit_s        SIGTERM -> launch exits (4: preempted), every process gone
#   step_s           a training step: epoch 1's epoch_seconds / steps
#   write_s          the checkpoint's own write time (trainer 0's stop line)
# and, with --embedding D, the same with a D-dim learnt embedding on the
# servers (the checkpoint then writes its table and Adam state). The target:
# to_checkpoint_s <= step_s + write_s plus the launcher's poll (0.2 s).
# The last stdout line is JSON.
#
#   scripts/bench_preempt.sh [--runs 3] [--embedding 0] [--work DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=3 EMB=0 WORK=${TMPDIR:-/tmp}/distgnn-bench-preempt
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift ;;
    --embedding) EMB=$2; shift ;;
    --work) WORK=$2; shift ;;
    *) echo "unknown flag $1" >&2; exit 2 ;;
  esac
  shift
done
BIN=$PWD/build/distgnn
DATA=$WORK/data PARTS=$WORK/parts
mkdir -p "$WORK"
if [ ! -f "$DATA/.done" ]; then
  $BIN generate --model uniform --all-train --nodes 100000 --edges 2000000 --feat-dim 100 --classes 10 \
      --seed 1 --out "$DATA" --force >/dev/null
  touch "$DATA/.done"
fi
if [ ! -f "$PARTS/.done" ]; then
  $BIN partition --dataset "$DATA" --num-parts 2 --method metis --name bench --out "$PARTS" --force >/dev/null
  touch "$PARTS/.done"
fi
IN_DIM=$((100 + EMB))
MODEL=$WORK/sage-$IN_DIM.pt
$BIN model export --arch sage --in-dim "$IN_DIM" --hidden 16 --classes 10 --layers 2 -o "$MODEL" >/dev/null
EMB_YAML=""
[ "$EMB" -gt 0 ] && EMB_YAML="  embedding: {dim: $EMB, optimizer: sparse_adam, lr: 0.01}"
cat > "$WORK/job.yaml" <<YAML
job: preempt
partition: $PARTS/bench.json
machines:
  - host: 127.0.0.1
  - host: 127.0.0.1
ports: {server: 23100, trainer: 23104, rendezvous: 23108}
processes: {servers: 1, trainers: 1, samplers_per_trainer: 0}
train:
  model: $MODEL
  fanouts: [10, 25]
  batch_size: 1000
  epochs: 4
  lr: 0.003
  eval_every: 1000000
  seed: 0
$EMB_YAML
output_dir: $WORK
YAML

RESULTS=()
for run in $(seq 1 "$RUNS"); do
  rm -rf "$WORK/preempt"
  $BIN launch "$WORK/job.yaml" --quiet > "$WORK/launch.log" 2>&1 &
  LAUNCH=$!
  # Mid-epoch 2: half an epoch after epoch 1's line.
  until grep -q '"epoch": 1' "$WORK/preempt/metrics.jsonl" 2>/dev/null; do sleep 0.05; done
  HALF=$(python3 -c "import json; r=json.loads(open('$WORK/preempt/metrics.jsonl').readlines()[-1]); print(r['epoch_seconds']/2)")
  sleep "$HALF"
  T0=$(date +%s.%N)
  kill -TERM $LAUNCH
  T1=""
  while kill -0 $LAUNCH 2>/dev/null; do
    if [ -z "$T1" ] && compgen -G "$WORK/preempt/checkpoints/step-*/manifest.json" >/dev/null; then T1=$(date +%s.%N); fi
    sleep 0.005
  done
  T2=$(date +%s.%N)
  set +e; wait $LAUNCH; CODE=$?; set -e
  [ -z "$T1" ] && T1=$T2
  LINE=$(grep -h "stopped: " "$WORK"/preempt/logs/0-trainer-0.log | tail -1)
  RESULTS+=("$(python3 - "$WORK" "$T0" "$T1" "$T2" "$CODE" "$LINE" <<'PY'
import json, re, sys
work, t0, t1, t2, code, line = sys.argv[1], *map(float, sys.argv[2:5]), int(sys.argv[5]), sys.argv[6]
first = json.loads(open(work + "/preempt/metrics.jsonl").readline())
write = re.search(r"written in ([0-9.]+) s", line)
print(json.dumps({"exit": code, "to_checkpoint_s": round(t1 - t0, 3), "to_exit_s": round(t2 - t0, 3),
                  "step_s": round(first["epoch_seconds"] / first["steps"], 3),
                  "write_s": float(write.group(1)) if write else None, "stop": line.split("stopped: ")[-1][:80]}))
PY
)")
  echo "run $run: ${RESULTS[-1]}"
done
python3 - "$EMB" "${RESULTS[@]}" <<'PY'
import json, statistics, sys
emb, rows = int(sys.argv[1]), [json.loads(a) for a in sys.argv[2:]]
med = lambda k: statistics.median(r[k] for r in rows if r[k] is not None)
print(json.dumps({"embedding_dim": emb, "runs": len(rows), "exits": [r["exit"] for r in rows],
                  "to_checkpoint_s": med("to_checkpoint_s"), "to_exit_s": med("to_exit_s"),
                  "step_s": med("step_s"), "write_s": med("write_s")}))
PY
