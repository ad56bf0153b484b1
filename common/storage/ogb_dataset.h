// OGB's node property datasets read as they are downloaded (`--format ogb`),
// no conversion step (docs/formats.md, "OGB datasets"):
//
// Homogeneous (ogbn-products, ogbn-arxiv, ...), into a Dataset:
//   raw/edge.csv.gz              "src,dst" per line
//   raw/num-node-list.csv.gz     the node count (optional: else node-feat rows, else max id + 1)
//   raw/node-feat.csv.gz         F comma-separated floats per node   -> features float32 [N, F]
//   raw/node-label.csv.gz        one label per node (nan = none)     -> labels int64 [N] (-1 = none)
//   split/<name>/{train,valid,test}.csv.gz   one node id per line   -> split int8 [N]
//
// Heterogeneous (ogbn-mag), into a TypedDataset:
//   raw/num-node-dict.csv.gz     header "type,type,..." then the counts (node type order)
//   raw/relations/<src>___<rel>___<dst>/edge.csv.gz   (edge types in name order)
//   raw/node-feat/<type>/node-feat.csv.gz, raw/node-label/<type>/node-label.csv.gz
//   split/<name>/<type>/{train,valid,test}.csv.gz
// The target is the type with labels; num_classes = 1 + its largest label.
// split/ must hold one split directory (OGB ships one per dataset). Every
// error names the file (and line).
#pragma once

#include <string>

#include "common/base/status.h"
#include "common/storage/dataset.h"
#include "common/storage/typed_dataset.h"

namespace dg {

// True if dir is OGB's heterogeneous layout (raw/num-node-dict.csv.gz).
bool IsOgbHeterogeneous(const std::string& dir);

// Edges as in the files (opts applied: undirected, self loops, duplicates).
Result<Dataset> LoadOgbDataset(const std::string& dir, const EdgeListOptions& opts);
Result<TypedDataset> LoadOgbTypedDataset(const std::string& dir, const TypedLoadOptions& opts);

}  // namespace dg
