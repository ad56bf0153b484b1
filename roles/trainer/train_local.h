// `distgnn train-local`: the trainer on one process with the whole graph in
// memory and in-process sampling (the baseline of distributed runs): node
// classification with neighbour sampling or control variates, or, with task
// link, link prediction (train_local_link.h). Writes the run directory
// (run.json with `command`, metrics, model, report).
#pragma once

#include <cstdint>
#include <string>

#include "common/base/status.h"
#include "roles/trainer/train_local_link.h"
#include "roles/trainer/trainer.h"

namespace dg {

struct TrainLocalOptions {
  std::string dataset_dir;
  bool undirected = false;
  bool normalize_features = false;  // divide each feature row by its sum
  bool no_features = false;         // the embedding is the whole input
  int sampler_threads = 1;
  int64_t embedding_dim = 0;        // 0 = no learnable node embedding
  std::string embedding_optimizer = "sparse_adam";
  double embedding_lr = 0.01;
  std::string algorithm = "sample";  // sample | control_variate
  std::string cv_input;              // control_variate: dataset array with the propagated input
  std::string task = "node";         // node | link
  // Typed datasets (a meta.json, docs/formats.md): merge every node and edge
  // type into one (a homogeneous model over the same edges) instead of
  // sampling by edge type for a typed model.
  bool merge_types = false;
  TrainerOptions trainer;            // fanouts, epochs, out_dir, ...
  LinkLocalArgs link;                // task link
  std::string command;               // the command line, recorded in run.json
};

Status TrainLocal(TrainLocalOptions options);
// TrainLocal on a typed dataset directory (node classification of the target
// type, neighbour sampling; roles/trainer/train_local_typed.cpp).
Status TrainLocalTyped(TrainLocalOptions options);

}  // namespace dg
