#!/usr/bin/env bash
# The main job, end to end on a fresh machine: install dependencies, build,
# partition the bundled Cora graph into 2 parts with METIS, export a GraphSAGE
# model, and train it on a local cluster on 127.0.0.1 (2 servers, 2 trainers,
# 2 samplers per trainer, all separate processes started by `distgnn launch`).
# Outputs: runs/cora-sage/ (metrics.jsonl, model.pt, checkpoint.pt, report.html, logs/).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
mkdir -p build
echo "== build distgnn (log: build/demo-build.log)"
if ! scripts/build.sh distgnn > build/demo-build.log 2>&1; then
  tail -n 30 build/demo-build.log
  echo "== build failed; full log in build/demo-build.log"
  exit 1
fi
BIN=build/distgnn

echo "== partition data/cora into 2 parts (METIS, feature rows normalized as DGL/PyG do) -> parts/cora2"
$BIN partition --dataset data/cora --undirected --normalize-features --num-parts 2 --method metis \
    --name cora --out parts/cora2 --force > build/demo-partition.log
grep -E '^(  edge cut|done)' build/demo-partition.log

echo "== export GraphSAGE (1433 -> 128 -> 7) -> parts/sage.pt"
$BIN model export --arch sage --in-dim 1433 --hidden 128 --classes 7 --layers 2 -o parts/sage.pt

echo "== check and launch config/examples/cora-local.yaml"
$BIN config check config/examples/cora-local.yaml >/dev/null
$BIN launch config/examples/cora-local.yaml

final=$(tail -n 1 runs/cora-sage/metrics.jsonl)
acc=$(echo "$final" | sed -n 's/.*"test_acc": *\([0-9.]*\).*/\1/p')
best=$(echo "$final" | sed -n 's/.*"best_epoch": *\([0-9]*\).*/\1/p')
echo "== done: test accuracy $acc (model of best validation epoch $best)"
echo "   trained model (TorchScript): runs/cora-sage/model.pt"
echo "   metrics per epoch:           runs/cora-sage/metrics.jsonl"
echo "   checkpoint (--resume):       runs/cora-sage/checkpoint.pt"
echo "   per-process logs:            runs/cora-sage/logs/"
echo "   run report (open in a browser): runs/cora-sage/report.html"
