#!/usr/bin/env bash
# DGL's benchmark graph on separate hosts (`scripts/bench_train.sh --hosts 2 ...`
# runs this): a cluster in a box (scripts/netns-cluster.sh: one network
# namespace per host, own address, sshd, optional tbf shaping), the job
# launched over ssh by address from host 0, as a user's multi-host job is (the
# hosts share this machine's file system, so nothing is copied). Per run:
#   epoch_s     median epoch time of epochs 2.. (trainer 0's metrics.jsonl)
#   MB/epoch    bytes each host sent per epoch: its interface's tx_bytes
#               (/sys/class/net/eth0 inside its namespace), sampled every 50 ms,
#               between the ends of epoch 1 and of the last epoch, / (epochs - 1)
#   wait_ms     the step's network wait: ms per step trainer 0 waited for its
#               batch (sampling + remote rows), median over epochs 2..
#   loss        trainer 0's loss of the last epoch (same data and seeds: runs agree)
#   cache_hit   with train.feature_cache_mb: the cache's hit rate over epochs 2..
# --graph rmat runs the same settings on an R-MAT graph of the same size
# (skewed degrees) instead of DGL's uniform one. --graph mag runs RGCN on the
# ogbn-mag-shaped typed graph instead (`generate --hetero mag`, --papers N
# papers, default 100000, 128-d paper features, 64 classes, 10 % train;
# partitioned --undirected; scripts/bench_mag.sh's model and settings: hidden
# 64, one weight per relation, no node embedding, fanouts 10,10 per edge type,
# batch 1000, lr 0.01).
# --loopback runs the same job with both machines on 127.0.0.1 inside one
# private namespace (bytes = its lo counter, i.e. all traffic between the two).
# Interleaved A/B: every binary in --bin (default build/distgnn) runs once per
# round, in order, so all see the same machine. The last stdout line is JSON.
#
# --nodes N --edges E: the uniform or R-MAT graph's size (default DGL's 100000 / 2000000).
# Historical rows run as a --bin with their keys, e.g.
#       --bin hist=build/distgnn,train.historical.layers=[1],train.historical.max_age_steps=50,train.historical.nodes=all
#
#   scripts/bench_hosts.sh --hosts 2 --rate 1gbit [--rounds 2] [--epochs 4] [--graph uniform|rmat|mag] [--papers N]
#       [--bin NAME=PATH[,KEY=VALUE...]]...   e.g. --bin main=/tmp/base/distgnn
#       --bin f16=build/distgnn,train.feature_wire_dtype=float16
#   scripts/bench_hosts.sh --loopback ...
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
HOSTS=2 RATE="" ROUNDS=2 EPOCHS=4 LOOPBACK=0 GRAPH=uniform PAPERS=100000 NODES=100000 EDGES=2000000 WORK=${TMPDIR:-/tmp}/distgnn-bench-hosts
PREFIX=${DISTGNN_BENCH_PREFIX:-wbench}
BINS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --hosts) HOSTS=$2; shift ;;
    --rate) RATE=$2; shift ;;
    --rounds) ROUNDS=$2; shift ;;
    --epochs) EPOCHS=$2; shift ;;
    --loopback) LOOPBACK=1 ;;
    --graph) GRAPH=$2; shift ;;
    --papers) PAPERS=$2; shift ;;
    --nodes) NODES=$2; shift ;;
    --edges) EDGES=$2; shift ;;
    --dgl-setting) ;;  # the only setting here
    --bin) BINS+=("$2"); shift ;;
    --work) WORK=$2; shift ;;
    *) echo "bench_hosts.sh: unknown flag $1" >&2; exit 2 ;;
  esac
  shift
done
[ "$(id -u)" = 0 ] || { echo "bench_hosts.sh: needs root (network namespaces)" >&2; exit 1; }
[ "$HOSTS" = 2 ] || { echo "bench_hosts.sh: DGL's setting has 2 partitions: --hosts 2" >&2; exit 2; }
case "$GRAPH" in uniform|rmat|mag) ;; *) echo "bench_hosts.sh: --graph: uniform, rmat or mag, got $GRAPH" >&2; exit 2 ;; esac
[ "$EPOCHS" -ge 2 ] || { echo "bench_hosts.sh: --epochs must be >= 2 (epoch 1 warms up)" >&2; exit 2; }
[ ${#BINS[@]} -gt 0 ] || BINS=("ours=$ROOT/build/distgnn")
BIN0=${BINS[0]#*=}
BIN0=${BIN0%%,*}
[ -x "$BIN0" ] || scripts/build.sh distgnn
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

# DGL's graph (or R-MAT's), partitioned once (shared with bench_train.sh --dgl-setting's layout).
KEY="$GRAPH-n$NODES-e$EDGES-f100-c10-t1.0"
[ "$GRAPH" = mag ] && KEY="mag-p$PAPERS-f128-c64-t0.1"
DATA=$WORK/data-$KEY PARTS=$WORK/parts-$KEY
MODEL=$WORK/sage-f100-h16-c10.pt
EXPORTER=$ROOT/build/distgnn
[ -x "$EXPORTER" ] || EXPORTER=$BIN0
FANOUTS="[10, 25]" LR=0.003
if [ "$GRAPH" = mag ]; then
  if [ ! -f "$DATA/.done" ]; then
    rm -rf "$DATA"
    "$BIN0" generate --hetero mag --nodes "$PAPERS" --feat-dim 128 --classes 64 --train-frac 0.1 --val-frac 0.01 \
        --test-frac 0.01 --seed 1 --out "$DATA" --force
    touch "$DATA/.done"
  fi
  if [ ! -f "$PARTS/.done" ]; then
    "$BIN0" partition --dataset "$DATA" --undirected --num-parts 2 --method metis --name bench --out "$PARTS" --force
    touch "$PARTS/.done"
  fi
  MODEL=$WORK/rgcn-$KEY.pt
  "$EXPORTER" model export --arch rgcn --partition-config "$PARTS/bench.json" --hidden 64 --bases 0 \
      --embedding-dim 0 --classes 64 --seed 0 -o "$MODEL" >/dev/null
  FANOUTS="[10, 10]" LR=0.01
fi
if [ ! -f "$DATA/.done" ]; then
  rm -rf "$DATA"
  "$BIN0" generate --model "$GRAPH" --all-train --nodes "$NODES" --edges "$EDGES" --feat-dim 100 --classes 10 \
      --seed 1 --out "$DATA" --force
  touch "$DATA/.done"
fi
if [ ! -f "$PARTS/.done" ]; then
  "$BIN0" partition --dataset "$DATA" --num-parts 2 --method metis --name bench --out "$PARTS" --force
  touch "$PARTS/.done"
fi
# Exported by this tree's build (its SAGE has forward_agg; an older binary ignores the method).
[ "$GRAPH" = mag ] || "$EXPORTER" model export --arch sage --in-dim 100 --hidden 16 --classes 10 --layers 2 -o "$MODEL" >/dev/null

STATE=/tmp/distgnn-netns-$PREFIX
LO_NS=$PREFIX-lo
SAMPLER_PID="" LAUNCH_PID=""
cleanup() {
  # Every step tolerates failure: under set -e a failing one would skip the rest.
  if [ -n "$SAMPLER_PID" ]; then kill "$SAMPLER_PID" 2>/dev/null || true; fi
  # A stopped benchmark stops its job: launch ends every role it started.
  if [ -n "$LAUNCH_PID" ]; then kill -TERM "$LAUNCH_PID" 2>/dev/null || true; wait "$LAUNCH_PID" 2>/dev/null || true; fi
  if [ "$LOOPBACK" = 1 ]; then
    ip netns pids "$LO_NS" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
    ip netns del "$LO_NS" 2>/dev/null || true
  else
    DISTGNN_NETNS_PREFIX=$PREFIX scripts/netns-cluster.sh down >/dev/null 2>&1 || true
  fi
  return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$LOOPBACK" = 1 ]; then
  ip netns del "$LO_NS" 2>/dev/null || true
  ip netns add "$LO_NS"
  ip -n "$LO_NS" link set lo up
  ADDR=(127.0.0.1 127.0.0.1)
  NS=("$LO_NS" "$LO_NS")
  DEV=lo
  LABEL=loopback
else
  DISTGNN_NETNS_PREFIX=$PREFIX DISTGNN_NETNS_SUBNET=${DISTGNN_BENCH_SUBNET:-10.78.0} \
    scripts/netns-cluster.sh up "$HOSTS" ${RATE:+--rate "$RATE"} >/dev/null
  mapfile -t ADDR < "$STATE/hosts"
  NS=("$PREFIX-h0" "$PREFIX-h1")
  DEV=eth0
  LABEL=${RATE:-unshaped}
fi

tx_bytes() {  # host -> its interface's bytes sent so far
  ip netns exec "${NS[$1]}" cat /sys/class/net/$DEV/statistics/tx_bytes
}

job_yaml() {  # name binary port -> YAML on stdout
  local name=$1 bin=$2 port=$3 m
  cat <<YAML
job: $name
partition: $PARTS/bench.json
machines:
YAML
  for m in 0 1; do
    if [ "$LOOPBACK" = 1 ]; then
      echo "  - {host: 127.0.0.1, binary: $bin}"
    else
      cat <<YAML
  - host: ${ADDR[$m]}
    ssh: root@${ADDR[$m]}
    ssh_key: $STATE/id_ed25519
    ssh_options: [StrictHostKeyChecking=no, UserKnownHostsFile=/dev/null, LogLevel=ERROR]
    binary: $bin
YAML
    fi
  done
  cat <<YAML
ports: {server: $port, trainer: $((port + 4)), rendezvous: $((port + 8))}
processes: {servers: 1, trainers: 1, samplers_per_trainer: 0}
train:
  model: $MODEL
  fanouts: $FANOUTS
  batch_size: 1000
  epochs: $EPOCHS
  lr: $LR
  eval_every: 1000000
  eval_full_neighbors: false
  seed: 0
output_dir: $WORK/runs
YAML
}

[ "$GRAPH" = uniform ] || LABEL=$LABEL-$GRAPH
RESULTS=$WORK/results-$LABEL.jsonl
: > "$RESULTS"
run_one() {  # name spec round
  local name=$1 spec=$2 round=$3 bin sets=() port yaml log samples
  bin=${spec%%,*}
  IFS=',' read -r -a extra <<< "${spec#"$bin"}"
  for kv in "${extra[@]}"; do [ -n "$kv" ] && sets+=(--set "$kv"); done
  port=$((20000 + (RANDOM % 1200) * 10))  # below the kernel's ephemeral range (32768-60999)
  yaml=$WORK/job-$name.yaml
  job_yaml "bench-$name" "$bin" "$port" > "$yaml"
  rm -rf "$WORK/runs/bench-$name"
  log=$WORK/launch-$name.log
  samples=$WORK/tx-$name.txt
  (while true; do echo "$(date +%s.%N) $(tx_bytes 0) $(tx_bytes 1)"; sleep 0.05; done) > "$samples" &
  SAMPLER_PID=$!
  # launch's lines, time-stamped, into $log. launch runs in the background and is
  # waited for, so that INT/TERM reach the trap (which stops the job) at once.
  exec 3> >(while IFS= read -r line; do echo "$(date +%s.%N) $line"; done > "$log")
  STAMP_PID=$!
  ip netns exec "${NS[0]}" "$bin" launch "$yaml" "${sets[@]}" >&3 2>&1 &
  LAUNCH_PID=$!
  exec 3>&-
  wait "$LAUNCH_PID" || true
  LAUNCH_PID=""
  wait "$STAMP_PID" 2>/dev/null || true  # every line written before it is read
  kill "$SAMPLER_PID" 2>/dev/null; wait "$SAMPLER_PID" 2>/dev/null || true
  SAMPLER_PID=""
  python3 - "$WORK/runs/bench-$name" "$log" "$samples" "$name" "$LABEL" "$round" "$LOOPBACK" >> "$RESULTS" <<'PY'
import bisect, glob, json, re, statistics, sys
run, log, samples, name, label, rnd, loopback = sys.argv[1:]
rows = [json.loads(l) for l in open(run + "/metrics.jsonl") if '"epoch"' in l and '"final"' not in l]
if len(rows) < 2:
    sys.exit(f"bench_hosts: {name}: fewer than 2 epochs in {run}/metrics.jsonl (see {log})")
ends = {}
for line in open(log):
    m = re.match(r"(\S+) .*epoch (\d+): loss", line)
    if m: ends.setdefault(int(m.group(2)), float(m.group(1)))
t = [list(map(float, l.split())) for l in open(samples) if len(l.split()) == 3]
def at(ts, k):  # counter k at time ts, interpolated between samples
    i = bisect.bisect_left([r[0] for r in t], ts)
    i = min(max(i, 1), len(t) - 1)
    (t0, *a), (t1, *b) = t[i - 1], t[i]
    w = 0 if t1 == t0 else (ts - t0) / (t1 - t0)
    return a[k] + w * (b[k] - a[k])
last = max(ends)
per_epoch = [(at(ends[last], k) - at(ends[1], k)) / (last - 1) / 1e6 for k in (0, 1)]
if loopback == "1": per_epoch = [per_epoch[0], 0.0]  # lo: one counter holds both hosts' traffic
later = rows[1:]
out = {"name": name, "network": label, "round": int(rnd),
       "epoch_s": round(statistics.median(r["epoch_seconds"] for r in later), 3),
       "epoch_s_all": [round(r["epoch_seconds"], 3) for r in rows],
       "mb_sent_per_epoch": [round(x, 1) for x in per_epoch], "mb_total": round(sum(per_epoch), 1),
       "wait_ms": round(statistics.median(r["step_ms"]["wait"] for r in later), 1),
       "loss": rows[-1]["loss"], "train_acc": rows[-1]["train_acc"]}
cache = [r["feature_cache"] for r in later if "feature_cache" in r]
if cache:
    hits, misses = sum(c["hits"] for c in cache), sum(c["misses"] for c in cache)
    out["cache_hit"] = round(hits / max(1, hits + misses), 4)
    out["cache_rows"] = cache[0]["rows"]
print(json.dumps(out))
PY
  tail -1 "$RESULTS"
}

echo "== $LABEL: ${#BINS[@]} binaries x $ROUNDS rounds, $EPOCHS epochs each"
for ((r = 1; r <= ROUNDS; r++)); do
  for b in "${BINS[@]}"; do run_one "${b%%=*}" "${b#*=}" "$r"; done
done
python3 - "$RESULTS" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print(f"{'run':10s} {'network':10s} {'epoch s':>8s} {'MB sent/epoch h0 h1 (total)':>30s} {'wait ms':>8s} {'loss':>7s} {'cache hit':>9s}")
for r in rows:
    h = r["mb_sent_per_epoch"]
    hit = f"{r['cache_hit']:9.3f}" if "cache_hit" in r else f"{'-':>9s}"
    print(f"{r['name']:10s} {r['network']:10s} {r['epoch_s']:8.2f} {h[0]:12.0f} {h[1]:7.0f} ({r['mb_total']:5.0f}) {r['wait_ms']:8.1f} {r['loss']:7.4f} {hit}")
print(json.dumps(rows))
PY
