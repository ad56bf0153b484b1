#!/usr/bin/env bash
# Partitioning across machines (not a timed test): for each graph, single-machine
# METIS and the stream partitioner against distgnn-mpi-partition (each of
# METHODS: clusters partitioned by METIS, PT-Scotch) on 1, 2 and 3 ranks, one
# rank per namespace host (scripts/netns-cluster.sh, mpirun over the hosts'
# sshd). One markdown row per run: edge cut and its ratio to METIS's, the
# largest part over the mean for nodes, train nodes and in-edges, peak RSS (the
# largest rank's for MPI) and its ratio to METIS's, bytes the largest rank sent
# and all ranks sent, wall time. The hosts share this machine's cores, so wall
# time across ranks is not a speed-up: memory per rank and bytes are the measure.
#
#   scripts/bench_partition_mpi.sh [BUILD_DIR] [WORK_DIR]
#   env: GRAPHS   "MODEL:NODES:EDGES ..." (default "uniform:1000000:20000000 rmat:2000000:40000000")
#        RANKS    ranks (= hosts) per run (default "1 2 3")
#        PARTS    K, the parts of every run (default 2), or "ranks": K = the run's ranks,
#                 each rank writing the one part its machine serves (METIS runs at each K)
#        METHODS  --method of distgnn-mpi-partition (default "cluster scotch")
#        BALANCE  --balance of METIS and the MPI methods (default train; the stream
#                 partitioner balances nodes)
#        FEAT     feature width of the generated graphs (default 100)
#        HOSTS    netns (default) or local (every rank on 127.0.0.1)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
BUILD=$(cd "${1:-build}" && pwd)
WORK=${2:-/tmp/distgnn-bench-partition-mpi}
GRAPHS=${GRAPHS:-"uniform:1000000:20000000 rmat:2000000:40000000"}
RANKS=${RANKS:-"1 2 3"}
METHODS=${METHODS:-"cluster scotch"}
PARTS=${PARTS:-2}
BALANCE=${BALANCE:-train}
FEAT=${FEAT:-100}
HOSTS=${HOSTS:-netns}
BIN=$BUILD/distgnn
MPIBIN=$BUILD/distgnn-mpi-partition
PREFIX=dgbench
SUBNET=10.76.0
[ -x "$MPIBIN" ] || { echo "bench_partition_mpi: no $MPIBIN (install OpenMPI and PT-Scotch: scripts/setup.sh; build)"; exit 1; }
[ -x /usr/bin/time ] || apt-get install -y time > /dev/null
mkdir -p "$WORK"

MAX_RANKS=$(printf '%s\n' $RANKS | sort -n | tail -1)
if [ "$HOSTS" = netns ]; then
  bash "$HERE/netns-cluster.sh" up "$MAX_RANKS" --prefix "$PREFIX" --subnet "$SUBNET" > /dev/null
  trap 'bash "$HERE/netns-cluster.sh" down --prefix "$PREFIX" > /dev/null' EXIT
fi

# mpirun for P ranks: one per namespace host (from host 0), or all on 127.0.0.1.
mpirun_for() {
  local p="$1" list="" i
  if [ "$HOSTS" != netns ]; then
    echo mpirun --allow-run-as-root --oversubscribe -np "$p" --host "127.0.0.1:$p"
    return
  fi
  for ((i = 0; i < p; i++)); do list="$list${list:+,}$SUBNET.$((i + 1))"; done
  echo ip netns exec "$PREFIX-h0" mpirun --allow-run-as-root --oversubscribe -np "$p" --host "$list" \
    --mca plm_rsh_agent "\"ssh -i /tmp/distgnn-netns-$PREFIX/id_ed25519 -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR\"" \
    --mca btl tcp,self --mca btl_tcp_if_include "$SUBNET.0/24" --mca oob_tcp_if_include "$SUBNET.0/24"
}

# One table row from a run's log: "| run | cut | ratio | nodes | train | edges | RSS | ratio | sent | wall |".
row() {
  local name="$1" log="$2" wall="$3" metis_cut="$4" metis_rss="$5"
  awk -v name="$name" -v wall="$wall" -v mcut="$metis_cut" -v mrss="$metis_rss" '
    function bal(a, k,   i, s, m) { s = 0; m = 0; for (i = 0; i < k; i++) { s += a[i]; if (a[i] > m) m = a[i] } return s > 0 ? m / (s / k) : 0 }
    /edge cut:/                { cut = $3 }
    /^  part [0-9]+: /         { i = $2 + 0; nodes[i] = $3; edges[i] = $6; train[i] = $8; k = i + 1 }
    /Maximum resident/         { time_rss = $NF / 1024 }
    /peak RSS \(largest rank\)/ { rank_rss = $(NF-1) }
    /sent to other ranks/      { sent = $7 " MB, " $11 " MB" }
    END {
      if (sent == "") sent = "-";
      rss = rank_rss != "" ? rank_rss : time_rss;  # under mpirun, time -v measures mpirun
      printf("| %s | %d | %.2f | %.3f | %.3f | %.3f | %.0f MB | %.2f | %s | %.0f s |\n", name, cut,
             mcut > 0 ? cut / mcut : 1, bal(nodes, k), bal(train, k), bal(edges, k), rss,
             mrss > 0 ? rss / mrss : 1, sent, wall);
    }' "$log"
}

timed() {  # LOG CMD...: runs CMD under /usr/bin/time -v into LOG, prints the wall seconds
  local log="$1" start
  shift
  start=$(date +%s.%N)
  /usr/bin/time -v "$@" > "$log" 2>&1 || { cat "$log" >&2; exit 1; }
  echo "$(date +%s.%N) - $start" | bc
}

# METIS and the stream partitioner on one machine into K parts: their rows, and
# METIS's cut and peak RSS (MB) in METIS_CUT / METIS_RSS for the ratios.
baselines() {
  local model="$1" data="$2" k="$3" log wall
  log=$WORK/$model-metis-$k.log
  wall=$(timed "$log" "$BIN" partition --dataset "$data" --num-parts "$k" --method metis --balance "$BALANCE" \
    --name g --out "$WORK/out" --force)
  METIS_CUT=$(awk '/edge cut:/ { print $3; exit }' "$log")
  METIS_RSS=$(awk '/Maximum resident/ { printf("%.0f", $NF / 1024) }' "$log")
  row "METIS, 1 machine, K = $k" "$log" "$wall" "$METIS_CUT" "$METIS_RSS"
  log=$WORK/$model-stream-$k.log
  wall=$(timed "$log" "$BIN" partition --dataset "$data" --num-parts "$k" --method stream \
    --name g --out "$WORK/out" --force)
  row "stream, 1 machine, K = $k" "$log" "$wall" "$METIS_CUT" "$METIS_RSS"
}

for spec in $GRAPHS; do
  IFS=: read -r model nodes edges <<< "$spec"
  data=$WORK/$model-$nodes-$edges-$FEAT
  [ -d "$data" ] || "$BIN" generate --model "$model" --nodes "$nodes" --edges "$edges" --feat-dim "$FEAT" \
    --classes 10 --seed 1 --out "$data" > /dev/null
  echo
  echo "$model graph, $nodes nodes / $edges edges, K = $PARTS, --balance $BALANCE, ranks on $HOSTS hosts:"
  echo
  echo "| run | edge cut | vs METIS | nodes | train | in-edges | peak RSS | vs METIS | sent (largest rank, all) | wall |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  [ "$PARTS" = ranks ] || baselines "$model" "$data" "$PARTS"
  for p in $RANKS; do
    k=$PARTS
    if [ "$PARTS" = ranks ]; then
      k=$p
      baselines "$model" "$data" "$k"
    fi
    for method in $METHODS; do
      log=$WORK/$model-$method-$p-$k.log
      wall=$(eval "timed $log $(mpirun_for "$p") $MPIBIN --dataset $data --num-parts $k --balance $BALANCE \
        --method $method --name g --out $WORK/out --force")
      row "$method, $p rank(s), K = $k" "$log" "$wall" "$METIS_CUT" "$METIS_RSS"
    done
  done
  rm -rf "$WORK/out"
done
