#!/usr/bin/env bash
# Two builds of the partitioner side by side (not a timed test): the same
# `distgnn partition` commands (in memory: METIS, stream; out of core; and,
# when both builds have distgnn-mpi-partition, --mpi on 2 ranks: auto, cluster,
# stream, scotch, and random from OGB's CSV files of the same graph), run in turn A B A B ... so that a machine whose speed drifts
# slows both alike. Prints the CPU model, then one markdown row per command:
# the median wall time and peak RSS of each build and the median of the
# pairwise ratios NEW / BASE (under /usr/bin/time; for an MPI run the peak is
# what /usr/bin/time sees of mpirun's process tree, not the ranks' peak, which
# the partitioner's log gives per stage).
#
#   scripts/bench_partition_vs.sh BASE_BIN_DIR NEW_BIN_DIR [WORK_DIR]
#   env: ROUNDS  runs of each build per command (default 5; one warm-up more)
#        NODES EDGES FEAT   the generated graph (default 200000 2000000 16)
#        CASES   the commands to run (default "metis stream ooc mpi-auto mpi-cluster mpi-stream mpi-scotch
#                mpi-ogb")
set -euo pipefail
BASE=$(realpath "${1:?BASE_BIN_DIR}")
NEW=$(realpath "${2:?NEW_BIN_DIR}")
WORK=${3:-/tmp/distgnn-bench-partition-vs}
ROUNDS=${ROUNDS:-5}
NODES=${NODES:-200000}
EDGES=${EDGES:-2000000}
FEAT=${FEAT:-16}
CASES=${CASES:-"metis stream ooc mpi-auto mpi-cluster mpi-stream mpi-scotch mpi-ogb"}
[ -x /usr/bin/time ] || apt-get install -y time > /dev/null
mkdir -p "$WORK"
DATA=$WORK/data-$NODES-$EDGES-$FEAT
[ -d "$DATA" ] || "$BASE/distgnn" generate --nodes "$NODES" --edges "$EDGES" --feat-dim "$FEAT" --classes 10 \
  --seed 1 --out "$DATA" > /dev/null
OGB=$WORK/ogb-$NODES-$EDGES-$FEAT
case " $CASES " in *" mpi-ogb "*)
  [ -d "$OGB" ] || "$BASE/distgnn" generate --format ogb --nodes "$NODES" --edges "$EDGES" --feat-dim "$FEAT" \
    --classes 10 --seed 1 --out "$OGB" > /dev/null ;;
esac
MPIRUN="mpirun --allow-run-as-root --oversubscribe -np 2 --host 127.0.0.1:2"

# The command of case $1 with build dir $2 writing to $3.
command_of() {
  local c=$1 bin=$2 out=$3
  local common="--dataset $DATA --undirected --num-parts 2 --name g --out $out --force"
  case $c in
    metis) echo "$bin/distgnn partition $common --method metis" ;;
    stream) echo "$bin/distgnn partition $common --method stream" ;;
    ooc) echo "$bin/distgnn partition $common --method stream --memory-budget 64M --tmp-dir $WORK" ;;
    mpi-ogb) echo "$MPIRUN $bin/distgnn-mpi-partition ${common/$DATA/$OGB} --format ogb --method random" ;;
    mpi-*) echo "$MPIRUN $bin/distgnn-mpi-partition $common --method ${c#mpi-}" ;;
  esac
}

# Runs a command under /usr/bin/time; prints "WALL_SECONDS PEAK_KB".
timed() {
  local out=$1
  shift
  rm -rf "$out"
  /usr/bin/time -f "%e %M" -o "$WORK/time" "$@" > "$WORK/run.log" 2>&1 || { cat "$WORK/run.log"; exit 1; }
  cat "$WORK/time"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "CPU: $(lscpu | sed -n 's/^Model name: *//p') ($(nproc) cores); $ROUNDS rounds, A B interleaved"
echo "| command | base wall (s) | new wall (s) | wall new/base | base peak (MB) | new peak (MB) | peak new/base |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for c in $CASES; do
  case $c in mpi-*) [ -x "$BASE/distgnn-mpi-partition" ] && [ -x "$NEW/distgnn-mpi-partition" ] || continue ;; esac
  : > "$WORK/$c.rows"
  for ((i = 0; i <= ROUNDS; i++)); do
    # shellcheck disable=SC2046
    a=$(timed "$WORK/out-base" $(command_of "$c" "$BASE" "$WORK/out-base"))
    # shellcheck disable=SC2046
    b=$(timed "$WORK/out-new" $(command_of "$c" "$NEW" "$WORK/out-new"))
    [ "$i" -eq 0 ] || echo "$a $b" >> "$WORK/$c.rows"  # round 0 warms the page cache
  done
  awk '{ print $1 }' "$WORK/$c.rows" | median > "$WORK/m1"
  awk '{ print $3 }' "$WORK/$c.rows" | median > "$WORK/m2"
  awk '{ print $3 / $1 }' "$WORK/$c.rows" | median > "$WORK/m3"
  awk '{ print $2 / 1024 }' "$WORK/$c.rows" | median > "$WORK/m4"
  awk '{ print $4 / 1024 }' "$WORK/$c.rows" | median > "$WORK/m5"
  awk '{ print $4 / $2 }' "$WORK/$c.rows" | median > "$WORK/m6"
  printf "| %s | %.2f | %.2f | %.3f | %.0f | %.0f | %.3f |\n" "$c" "$(cat "$WORK/m1")" "$(cat "$WORK/m2")" \
    "$(cat "$WORK/m3")" "$(cat "$WORK/m4")" "$(cat "$WORK/m5")" "$(cat "$WORK/m6")"
done
