// `distgnn bench train --local-only`: steps/s of the in-process trainer
// (train-local) on a synthetic graph, and where a step's time goes.
//
//  1. pipelined: one epoch share of `--steps` batches through the real
//     pipeline (LocalBatchProvider workers sample and gather ahead of the
//     trainer) -> steps/s and the fraction of time the trainer waited.
//  2. sequential: the same number of batches, each phase timed on its own in
//     one thread: sampling (blocks), feature gathering, compute (forward,
//     backward, optimizer step). Their sum is the baseline the pipelined step
//     time is compared with (speedup = sequential / pipelined).
//
// The graph is `distgnn generate`'s (cached under $TMPDIR, keyed by its
// parameters) unless --dataset names one. The distributed comparison (launch
// of servers, samplers and trainers) is scripts/bench_train.sh. Prints a table
// and, last, one JSON line.
#include <spdlog/spdlog.h>
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "roles/generate/synthetic_graph.h"

namespace dg {

struct BenchTrainOptions {
  std::string dataset;  // "" = synthetic
  SyntheticOptions synthetic;
  int64_t hidden = 256;
  std::vector<int> fanouts{10, 25};
  int64_t batch_size = 1000;
  int64_t steps = 40;
  int threads = 0;
  int sampler_threads = 1;
};

Status BenchTrain(const BenchTrainOptions& options);

}  // namespace dg
