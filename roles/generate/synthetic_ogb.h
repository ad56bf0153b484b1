// `distgnn generate --format ogb`: the synthetic dataset of synthetic_graph.h
// written in OGB's homogeneous node property layout (common/storage/
// ogb_dataset.h), as ogbn-products or ogbn-papers100M are downloaded:
//   raw/edge.csv.gz, raw/node-feat.csv.gz, raw/node-label.csv.gz,
//   raw/num-node-list.csv.gz, raw/num-edge-list.csv.gz,
//   split/random/{train,valid,test}.csv.gz
// so that `partition --format ogb` can be tried and measured at any size. The
// .npy dataset is generated first inside the staging directory and converted
// a row at a time (features printed shortest-round-trip, unlabeled nodes as
// "nan", gzip level 1 for speed), then removed; the output appears by a rename.
#pragma once

#include <string>

#include "common/base/status.h"
#include "roles/generate/synthetic_graph.h"

namespace dg {

Status WriteSyntheticOgb(const SyntheticOptions& opts, const std::string& out_dir, bool force);

}  // namespace dg
