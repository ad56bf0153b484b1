// The settings of every synthetic model of `distgnn generate` (the models:
// synthetic_graph.h, synthetic_edges.h, synthetic_hetero.h, synthetic_ogb.h).
#pragma once

#include <cstdint>

#include "config/generate_spec.h"

namespace dg {

struct SyntheticOptions {
  int64_t num_nodes = 0, num_edges = 0;
  int feat_dim = 16, num_classes = 2;
  uint64_t seed = 0;
  double homophily = 0.8;
  double separation = 2.0;
  double train_frac = 0.6, val_frac = 0.2;
  double test_frac = -1;  // < 0: the rest is test; else the rest is in no split (-1)
  int threads = 2;
  GraphModel model = GraphModel::kRmat;
  bool all_train = false;      // every node split 0 (train), as DGL's benchmark
};

}  // namespace dg
