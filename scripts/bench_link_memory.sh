#!/usr/bin/env bash
# Peak RSS of link prediction's full-neighbour evaluation on a 1M-node graph:
# this build against a baseline binary in the same run. The job: `distgnn
# generate` uniform graph (NODES nodes, EDGES directed edges, 32-d features),
# 2 partitions (random: the cut does not change what a trainer holds), edge
# split 0.99/0.005/0.005, SAGE hidden HIDDEN with 2 layers, 2 machines on
# 127.0.0.1 with 1 server and 1 trainer each, no sampler processes, one
# epoch of fanouts 5,5 then the layer-wise evaluation of every node
# (evaluation fanouts: every neighbour) and save_embeddings. Each binary runs
# the same job ROUNDS times, alternating; the lines give each role's peak RSS
# (the logs' `peak RSS` lines) and the evaluation's seconds.
#   [THIS_BIN=/path/to/distgnn] BASE_BIN=/path/to/old/distgnn scripts/bench_link_memory.sh [--nodes N] [--edges E] [--hidden D]
#       [--rounds R] [--work DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BASE_BIN:?set BASE_BIN to the baseline distgnn binary}"
NODES=1000000 EDGES=5000000 HIDDEN=128 ROUNDS=1 WORK=${TMPDIR:-/tmp}/distgnn-bench-link-memory
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) NODES=$2; shift ;;
    --edges) EDGES=$2; shift ;;
    --hidden) HIDDEN=$2; shift ;;
    --rounds) ROUNDS=$2; shift ;;
    --work) WORK=$2; shift ;;
    *) echo "bench_link_memory.sh: unknown flag $1" >&2; exit 2 ;;
  esac
  shift
done
BIN=${THIS_BIN:-$PWD/build/distgnn}
[ -x "$BIN" ] || scripts/build.sh distgnn
mkdir -p "$WORK"
KEY="n${NODES}-e${EDGES}"
DATA=$WORK/data-$KEY PARTS=$WORK/parts-$KEY MODEL=$WORK/sage-link-f32-h$HIDDEN.pt
if [ ! -f "$DATA/.done" ]; then
  rm -rf "$DATA"
  "$BIN" generate --model uniform --nodes "$NODES" --edges "$EDGES" --feat-dim 32 --classes 2 --seed 1 \
    --out "$DATA" --force > /dev/null
  touch "$DATA/.done"
fi
if [ ! -f "$PARTS/.done" ]; then
  "$BIN" partition --dataset "$DATA" --num-parts 2 --method random --name bench --out "$PARTS" --force \
    --edge-split 0.99,0.005,0.005 > /dev/null
  touch "$PARTS/.done"
fi
"$BIN" model export --arch sage --in-dim 32 --hidden "$HIDDEN" --layers 2 --task link -o "$MODEL" > /dev/null
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'); $NODES nodes, $EDGES edges, hidden $HIDDEN"
run() {  # name binary round
  local name=$1 bin=$2 round=$3 port
  port=$((20000 + 20 * round))
  [ "$name" = this ] && port=$((port + 10))
  cat > "$WORK/$name.yaml" <<YAML
job: $name-$round
partition: $PARTS/bench.json
machines:
  - host: 127.0.0.1
  - host: 127.0.0.1
ports: {server: $port, trainer: $((port + 4)), rendezvous: $((port + 8))}
processes: {servers: 1, trainers: 1, samplers_per_trainer: 0}
train: {model: $MODEL, task: link, negative: {k: 1, distribution: uniform}, eval_negatives: 10, fanouts: [5, 5],
        batch_size: 4000, epochs: 1, lr: 0.003, eval_every: 1, seed: 0, save_embeddings: true}
output_dir: $WORK/runs
YAML
  rm -rf "$WORK/runs/$name-$round"
  "$bin" launch "$WORK/$name.yaml" > "$WORK/$name-$round.log" 2>&1 || { tail "$WORK/$name-$round.log"; exit 1; }
  local logs=$WORK/runs/$name-$round/logs
  for role in server trainer; do
    printf '%s round %s: %s peak RSS %s MB\n' "$name" "$round" "$role" \
      "$(cat "$logs/"*-"$role"-*.log | grep -o 'peak RSS [0-9.]* MB' | awk '{if ($3 > m) m = $3} END {print m + 0}')"
  done
  grep -ho 'layer-wise full-neighbor embeddings of all [0-9]* nodes in [0-9.]* s' "$logs/"*-trainer-*.log |
    sed "s/^/$name round $round: /"
  grep -ho '"test_auc": [0-9.]*' "$WORK/runs/$name-$round/metrics.jsonl" | tail -1 | sed "s/^/$name round $round: /"
}
for r in $(seq 1 "$ROUNDS"); do
  run base "$(realpath "$BASE_BIN")" "$r"
  run this "$BIN" "$r"
done
