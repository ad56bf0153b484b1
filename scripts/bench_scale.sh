#!/usr/bin/env bash
# Scale benchmark (not in CI): a graph larger than a comfortable share
# of memory, generated and partitioned in bounded memory, then trained on.
#   1. distgnn generate (streamed): NODES / EDGES / FEAT-d R-MAT, 1% train seeds
#   2. distgnn partition --method stream --memory-budget BUDGET into PARTS parts
#      (time, peak RSS, edge cut printed)
#   3. distgnn launch on 127.0.0.1: 1 server, 1 trainer, 1 sampler per part, one
#      epoch of ~STEPS steps per trainer; steps/s and each role's peak RSS.
# With --parts-list "1 2 4" steps 2-3 run once per part count (per-process RSS
# should fall as parts are added: every role holds only its own part's data).
#
#   scripts/bench_scale.sh                    20M nodes, 400M edges, 32-d, 4 parts, --memory-budget 4G
#   scripts/bench_scale.sh --small            2M nodes, 40M edges (a quick check)
# Flags: --nodes --edges --feat-dim --parts --parts-list --budget --method --steps --work DIR
# Needs about EDGES x 16 B + NODES x FEAT x 4 B of disk (400M edges: 6.4 GB + 2.6 GB)
# and twice that again in WORK for the spilled runs and the partitions.
set -euo pipefail
cd "$(dirname "$0")/.."
NODES=20000000 EDGES=400000000 FEAT=32 CLASSES=10 PARTS_LIST=4 BUDGET=4G METHOD=stream STEPS=50 HIDDEN=64
WORK=${TMPDIR:-/tmp}/distgnn-bench-scale
while [ $# -gt 0 ]; do
  case "$1" in
    --small) NODES=2000000 EDGES=40000000 BUDGET=1G ;;
    --nodes) NODES=$2; shift ;;
    --edges) EDGES=$2; shift ;;
    --feat-dim) FEAT=$2; shift ;;
    --parts) PARTS_LIST=$2; shift ;;
    --parts-list) PARTS_LIST=$2; shift ;;
    --budget) BUDGET=$2; shift ;;
    --method) METHOD=$2; shift ;;
    --steps) STEPS=$2; shift ;;
    --work) WORK=$2; shift ;;
    *) echo "bench_scale.sh: unknown flag $1" >&2; exit 2 ;;
  esac
  shift
done
BIN=$PWD/build/distgnn
[ -x "$BIN" ] || scripts/build.sh distgnn
mkdir -p "$WORK"
KEY="n${NODES}-e${EDGES}-f${FEAT}"
DATA=$WORK/data-$KEY
# Train seeds: STEPS batches of 1000 for each of up to 4 trainers; tiny val/test
# so the end-of-run evaluation stays short.
TRAIN_FRAC=$(python3 -c "print(min(1.0, $STEPS * 1000 * 4 / $NODES))")
if [ ! -f "$DATA/.done" ]; then
  echo "== generate $KEY (streamed)"
  rm -rf "$DATA"
  /usr/bin/time -f "generate: %e s, peak RSS %M KB" $BIN generate --nodes "$NODES" --edges "$EDGES" \
      --feat-dim "$FEAT" --classes "$CLASSES" --seed 1 --train-frac "$TRAIN_FRAC" --val-frac 0.0005 \
      --test-frac 0.0005 --out "$DATA"
  touch "$DATA/.done"
fi
MODEL=$WORK/sage-f${FEAT}-h${HIDDEN}.pt
$BIN model export --arch sage --in-dim "$FEAT" --hidden "$HIDDEN" --classes "$CLASSES" --layers 2 -o "$MODEL" >/dev/null

SUMMARY=()
for K in $PARTS_LIST; do
  PARTS=$WORK/parts-$KEY-$METHOD-$K
  echo "== partition into $K ($METHOD, --memory-budget $BUDGET)"
  rm -rf "$PARTS"
  /usr/bin/time -f "partition: %e s, peak RSS %M KB" $BIN partition --dataset "$DATA" --num-parts "$K" \
      --method "$METHOD" --memory-budget "$BUDGET" --name scale --out "$PARTS" 2>&1 \
      | grep -E "edge cut|stream assignment|spill|merge|node data|done:|partition:|error" || true
  echo "== launch $K parts on 127.0.0.1 (1 server, 1 trainer, 1 sampler each)"
  # Below the kernel's ephemeral range, so no outgoing connection takes a listening port.
  PORT=$(python3 -c "import random; print(random.randrange(20000, 32000, 20))")
  MACHINES=$(for i in $(seq 1 "$K"); do echo "  - host: 127.0.0.1"; done)
  cat > "$WORK/job-$K.yaml" <<YAML
job: scale$K
partition: $PARTS/scale.json
machines:
$MACHINES
ports: {server: $PORT, trainer: $((PORT + 8)), rendezvous: $((PORT + 16))}
processes: {servers: 1, trainers: 1, samplers_per_trainer: 1}
train:
  model: $MODEL
  fanouts: [10, 25]
  batch_size: 1000
  epochs: 1
  lr: 0.003
  eval_every: 1000000
  eval_full_neighbors: false
  seed: 0
output_dir: $WORK
YAML
  rm -rf "$WORK/scale$K"
  $BIN launch "$WORK/job-$K.yaml" 2>&1 | grep -E "epoch [0-9]+:|error|finished" || true
  LINE=$(python3 - "$WORK/scale$K" "$K" <<'PY'
import glob, json, re, sys
run, k = sys.argv[1], int(sys.argv[2])
trainers = [json.load(open(p)) for p in sorted(glob.glob(run + "/trainer-*.json"))]
steps = sum(t["steps"] for t in trainers) / max(1, len(trainers))
secs = max(sum(t["epoch_seconds"]) for t in trainers) if trainers else 0
rss = {}
for path in glob.glob(run + "/logs/*"):
    role = "server" if "server" in path else "sampler" if "sampler" in path else "trainer" if "trainer" in path else None
    if role is None:
        continue
    for m in re.finditer(r"peak RSS ([0-9.]+) MB", open(path, errors="replace").read()):
        rss[role] = max(rss.get(role, 0), float(m.group(1)))
print(json.dumps({"parts": k, "steps_per_trainer": steps, "steps_per_s": round(steps / secs, 2) if secs else None,
                  "peak_rss_mb": rss}))
PY
)
  echo "$LINE"
  SUMMARY+=("$LINE")
done
echo "== summary"
printf '%s\n' "${SUMMARY[@]}"
