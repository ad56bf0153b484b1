// `distgnn train-local --task link`: link prediction on one process.
//
// Reads the dataset (edges normalized as --undirected asks), splits the edges
// with --edge-split fractions and --split-seed exactly as `partition
// --edge-split ... --seed` does (common/storage/link_split.h) -- or, without
// --edge-split, by the dataset's edge_split.npy if it has one --, builds the
// message-passing graph from the train edges only, and trains with
// LinkTrainer: batches of train edges in in-edge CSR order (edge id = CSR
// position, as in a 1-partition partition), `negatives` destinations per
// positive from the uniform or degree^0.75 distribution (degrees of the
// message-passing graph), the batch's edges and (undirected) their reverses
// excluded from its blocks.
//
// On a typed dataset (RunTrainLocalTypedLink, train_local_typed_link.cpp) the
// edges predicted are those of one edge type (link_etype, common/sampling/
// typed_link.h): its distinct pairs are split by the fractions and
// --split-seed, val and test edges leave the graph together with their rev_
// copies, the train edges of that type are the positives (each batch's
// positives of that type and their rev_ edges excluded from its blocks),
// negatives are nodes of the destination type (uniform, or degree^0.75 of the
// type's train in-degrees), and the model is typed (typed sampling) or, with
// merge_types, homogeneous over the merged graph. The dataset's edge_split.npy
// is not read there.
#pragma once

#include <cstdint>
#include <string>

#include "common/base/status.h"
#include "roles/trainer/trainer.h"

namespace dg {

struct LinkLocalArgs {
  std::string dataset_dir;
  bool undirected = false;
  bool normalize_features = false;
  bool no_features = false;
  std::string edge_split = "0.85,0.05,0.10";
  bool edge_split_given = false;  // else DIR/edge_split.npy (one int8 per input edge) wins if present
  uint64_t split_seed = 0;
  int negatives = 5;
  std::string negative_distribution = "uniform";
  int eval_negatives = 100;
  int sampler_threads = 1;
  int64_t embedding_dim = 0;
  std::string embedding_optimizer = "sparse_adam";
  double embedding_lr = 0.01;
  // Typed datasets: the edge type to predict ("src:relation:dst", the edge
  // file's "src__relation__dst" or a relation naming one edge type), and
  // whether to merge the types for a homogeneous model.
  std::string link_etype;
  bool merge_types = false;
};

Status RunTrainLocalLink(const LinkLocalArgs& args, TrainerOptions o);
Status RunTrainLocalTypedLink(const LinkLocalArgs& args, TrainerOptions o);

}  // namespace dg
