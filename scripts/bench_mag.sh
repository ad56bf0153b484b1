#!/usr/bin/env bash
# Distributed against in-process training of RGCN on the ogbn-mag-shaped
# synthetic graph (`distgnn generate --hetero mag`: paper, author, institution,
# field_of_study; 8 edge types with the rev_ relations), in one run on this
# machine, so the machine's noise cancels out in the ratio:
#   local epoch   `distgnn train-local --undirected` (whole typed graph in memory)
#   dist epoch    `distgnn launch`: 2 METIS partitions on 127.0.0.1, a server and a
#                 trainer per partition (same model, fanouts per edge type, batch
#                 per trainer, seed)
#   ratio         dist / local (target <= 1.3)
# Runs alternate local, launch, local, launch ... (--rounds) and the ratio is
# taken from the medians. Epoch times are training time only (no evaluation,
# no loading). Also prints each role's peak RSS, the partitioner's peak RSS and
# the per-step phase times of both sides. The last stdout line is one JSON object.
#
#   scripts/bench_mag.sh               1M papers (2.63M nodes, 57M edges with rev_)
#   scripts/bench_mag.sh --quick       20k papers (a smoke run, about a minute)
# Val and test are 1% of the papers each (the run ends with one evaluation of
# both), the rest of the papers are in no split.
# Flags: --papers N --train-frac F (share of papers that are training seeds,
#   default 0.1; an epoch's steps scale with it, a step's work does not) --fanouts A,B (each edge
#   type, as DGL's example) --batch N --hidden N --bases B (0 = one weight per
#   relation) --embedding-dim D (0 = a featureless type learns one vector)
#   --samplers K (sampler processes per trainer) --rounds R --work DIR --bin PATH
set -euo pipefail
cd "$(dirname "$0")/.."
PAPERS=1000000 TRAIN_FRAC=0.1 FANOUTS=10,10 BATCH=1000 HIDDEN=64 BASES=0 EMB=0 SAMPLERS=0 ROUNDS=1
FEAT=128 CLASSES=64 WORK=${TMPDIR:-/tmp}/distgnn-bench-mag BIN=$PWD/build/distgnn
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) PAPERS=20000 TRAIN_FRAC=0.5 ;;
    --papers) PAPERS=$2; shift ;;
    --train-frac) TRAIN_FRAC=$2; shift ;;
    --fanouts) FANOUTS=$2; shift ;;
    --batch) BATCH=$2; shift ;;
    --hidden) HIDDEN=$2; shift ;;
    --bases) BASES=$2; shift ;;
    --embedding-dim) EMB=$2; shift ;;
    --samplers) SAMPLERS=$2; shift ;;
    --rounds) ROUNDS=$2; shift ;;
    --work) WORK=$2; shift ;;
    --bin) BIN=$2; shift ;;
    *) echo "bench_mag.sh: unknown flag $1" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$BIN" ] || scripts/build.sh distgnn
KEY="mag-n${PAPERS}-t${TRAIN_FRAC}"
DATA=$WORK/data-$KEY PARTS=$WORK/parts-$KEY
mkdir -p "$WORK"
if [ ! -f "$DATA/.done" ]; then
  echo "== generate $KEY"
  rm -rf "$DATA"
  "$BIN" generate --hetero mag --nodes "$PAPERS" --feat-dim $FEAT --classes $CLASSES --train-frac "$TRAIN_FRAC" \
      --val-frac 0.01 --test-frac 0.01 --seed 1 --out "$DATA" --force
  touch "$DATA/.done"
fi
if [ ! -f "$PARTS/.done" ]; then
  echo "== partition into 2 (METIS)"
  "$BIN" partition --dataset "$DATA" --undirected --num-parts 2 --method metis --name mag --out "$PARTS" --force \
      2>&1 | tee "$WORK/partition-$KEY.log"
  touch "$PARTS/.done"
fi
MODEL=$WORK/rgcn-$KEY.pt
"$BIN" model export --arch rgcn --partition-config "$PARTS/mag.json" --hidden "$HIDDEN" --bases "$BASES" \
    --embedding-dim "$EMB" --classes $CLASSES --seed 0 -o "$MODEL" >/dev/null
EMB_LOCAL=() EMB_YAML=""
if [ "$EMB" -gt 0 ]; then EMB_LOCAL=(--embedding-dim "$EMB"); EMB_YAML=", embedding: {dim: $EMB}"; fi
PORT=$(python3 -c "import random; print(random.randrange(20000, 60000, 10))")
mkdir -p "$WORK/runs"
cat > "$WORK/job.yaml" <<YAML
job: magbench
partition: $PARTS/mag.json
machines:
  - host: 127.0.0.1
  - host: 127.0.0.1
ports: {server: $PORT, trainer: $((PORT + 4)), rendezvous: $((PORT + 8))}
processes: {servers: 1, trainers: 1, samplers_per_trainer: $SAMPLERS}
train: {model: $MODEL, fanouts: [$FANOUTS], batch_size: $BATCH, epochs: 1, lr: 0.01, eval_every: 1000000,
        eval_full_neighbors: false, seed: 0$EMB_YAML}
output_dir: $WORK/runs
YAML
echo "== $ROUNDS round(s): train-local, then launch (fanouts $FANOUTS per edge type, batch $BATCH, hidden $HIDDEN," \
     "load $(cut -d' ' -f1-3 /proc/loadavg))"
for r in $(seq 1 "$ROUNDS"); do
  rm -rf "$WORK/runs/local-$r"
  /usr/bin/time -f "peak RSS %M KB" -o "$WORK/runs/local-$r.time" "$BIN" train-local --dataset "$DATA" --undirected \
      --model "$MODEL" "${EMB_LOCAL[@]}" --fanouts "$FANOUTS" --batch-size "$BATCH" --epochs 1 --lr 0.01 \
      --eval-every 1000000 --eval-fanouts "$FANOUTS" --sampler-threads 2 --log-every 1000000 --seed 0 \
      --out "$WORK/runs/local-$r" >"$WORK/runs/local-$r.log" 2>&1 || { tail -5 "$WORK/runs/local-$r.log"; exit 1; }
  grep -h "epoch 1:" "$WORK/runs/local-$r.log" | sed "s/^/  local  $r: /" || true
  rm -rf "$WORK/runs/magbench" "$WORK/runs/dist-$r"
  "$BIN" launch "$WORK/job.yaml" --quiet >"$WORK/runs/dist-$r.log" 2>&1 || { tail -5 "$WORK/runs/dist-$r.log"; exit 1; }
  mv "$WORK/runs/magbench" "$WORK/runs/dist-$r"
  grep -h "epoch 1:" "$WORK/runs/dist-$r"/logs/*trainer*.log | sed "s/^/  launch $r: /" || true
done
python3 - "$WORK/runs" "$ROUNDS" "$WORK/partition-$KEY.log" <<'PY'
import glob, json, os, re, statistics, sys
runs, rounds, plog = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def rows(path):
    return [json.loads(l) for l in open(path) if l.startswith("{")]
def epoch_s(path):
    return [r["epoch_seconds"] for r in rows(path) if "epoch_seconds" in r][-1]
def steps(path):
    s = [r["step_ms"] for r in rows(path) if "step_ms" in r]
    return s[-1] if s else {}
def rss(log):
    m = re.findall(r"peak RSS:? ([0-9.]+) MB", open(log).read())
    return float(m[-1]) if m else float("nan")
local = [epoch_s(f"{runs}/local-{r}/metrics.jsonl") for r in range(1, rounds + 1)]
dist = [epoch_s(f"{runs}/dist-{r}/metrics.jsonl") for r in range(1, rounds + 1)]
lm, dm = statistics.median(local), statistics.median(dist)
print("local epochs  " + " ".join(f"{x:.1f}" for x in local) + " s")
print("launch epochs " + " ".join(f"{x:.1f}" for x in dist) + " s")
print(f"median local epoch {lm:.1f} s, distributed epoch {dm:.1f} s, ratio {dm / lm:.2f}")
local_rss = int(open(f"{runs}/local-{rounds}.time").read().split()[-2]) / 1024
roles = {"train-local": local_rss}
for log in sorted(glob.glob(f"{runs}/dist-{rounds}/logs/*.log")):
    roles[os.path.basename(log)[:-4]] = rss(log)
print("peak RSS (MB): " + ", ".join(f"{k} {v:.0f}" for k, v in roles.items()))
if os.path.exists(plog):
    m = re.findall(r"peak RSS:? ([0-9.]+) MB", open(plog).read())
    if m: print(f"partition peak RSS {float(m[-1]):.0f} MB"); roles["partition"] = float(m[-1])
def show(name, ms):
    print(f"  {name:12s} " + "  ".join(f"{k} {v:.1f}" for k, v in ms.items()))
print("per-step milliseconds (last round):")
show("train-local", steps(f"{runs}/local-{rounds}/metrics.jsonl"))
trainers = [json.load(open(p)) for p in sorted(glob.glob(f"{runs}/dist-{rounds}/trainer-*.json"))]
for t in trainers:
    show(f"trainer {t['rank']}", t.get("step_ms", {}))
print(json.dumps({"local_epoch_s": [round(x, 2) for x in local], "dist_epoch_s": [round(x, 2) for x in dist],
                  "ratio": round(dm / lm, 3), "peak_rss_mb": {k: round(v) for k, v in roles.items()},
                  "wait_fractions": [round(t.get("wait_fraction", 0), 4) for t in trainers]}))
PY
