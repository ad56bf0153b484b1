#!/usr/bin/env bash
# The benchmark panel: every default of distgnn (node classification, link
# prediction, partitioning) on every graph of bench/panel/graphs.tsv it applies
# to, over 3 seeds (10 for node classification on a test set of fewer than 100
# nodes: AIFB, MUTAG), beside a small grid of alternatives (a setting that beats a
# default by more than a point is run again with it on held-out seeds); writes docs/panel.md.
# A run's result is kept in the work directory, so an interrupted panel resumes.
#   bench/panel.sh [--graphs a,b] [--tasks node,link,partition] [--seeds 0,1,2]
#                  [--small-test-seeds 0,1,2,3,4,5,6,7,8,9] [--held-out-seeds 10,...,19] [--grid full|small|extra|none]
#                  [--jobs 2] [--work DIR] [--bin PATH] [--doc-only]
#   bench/panel.sh --slice [--graphs a,b]   the CI slice: seed 0 of each default on one graph
#                                           per kind, checked against bench/panel/floors.tsv
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=build/distgnn
for ((i = 1; i <= $#; i++)); do [ "${!i}" = --bin ] && { j=$((i + 1)); BIN=${!j}; }; done
[ -x "$BIN" ] || scripts/build.sh distgnn distgnn_torch
exec /usr/bin/python3 bench/panel/panel.py "$@"
