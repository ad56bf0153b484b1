// A small partition in memory for the targets that serve what they decode:
// part 0 of 2 owns nodes [0, 8) of 12 and their 12 in-edges (in-degrees
// 0 1 2 3 0 1 2 3, sources all over [0, 12)), with float32 features [8, 4]
// and int64 labels; it holds the mutable tensors (server index 0).
#pragma once

#include <cstdint>

#include "common/storage/partition_store.h"

namespace dg::fuzz {

constexpr int64_t kStoreNodes = 12;  // the graph's
constexpr int64_t kStoreOwned = 8;   // part 0's: [0, 8)

inline PartitionStore* NewSmallStore() {
  PartitionConfig c;
  c.graph_name = "fuzz";
  c.num_nodes = kStoreNodes;
  c.num_edges = 20;
  c.num_parts = 2;
  c.node_map = {0, kStoreOwned, kStoreNodes};
  c.edge_map = {0, 12, 20};
  c.node_data["features"] = ArrayInfo{DType::kFloat32, {kStoreNodes, 4}};
  c.node_data["labels"] = ArrayInfo{DType::kInt64, {kStoreNodes}};
  LocalPartition p;
  p.node_end = kStoreOwned;
  p.indptr = Array::Zeros(DType::kInt64, {kStoreOwned + 1});
  const int64_t indptr[] = {0, 0, 1, 3, 6, 6, 7, 9, 12};
  for (int i = 0; i <= kStoreOwned; ++i) p.indptr.as<int64_t>()[i] = indptr[i];
  p.indices = Array::Zeros(DType::kInt64, {12});
  const int64_t indices[] = {9, 0, 11, 4, 8, 2, 7, 10, 3, 1, 5, 6};
  for (int i = 0; i < 12; ++i) p.indices.as<int64_t>()[i] = indices[i];
  p.node_data["features"] = Array::Zeros(DType::kFloat32, {kStoreOwned, 4});
  for (int i = 0; i < kStoreOwned * 4; ++i) p.node_data["features"].as<float>()[i] = 0.25f * static_cast<float>(i) - 3.0f;
  p.node_data["labels"] = Array::Zeros(DType::kInt64, {kStoreOwned});
  return new PartitionStore(c, std::move(p), true);
}

}  // namespace dg::fuzz
