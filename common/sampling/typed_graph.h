// TypedInMemoryGraph: a graph with node types and edge types held in one
// process; the NeighborSource of train-local on a typed dataset.
//
// Global ids are type-major: the nodes of type 0 first (type-local ids in
// order), then type 1, ... (type_offsets()). Each row (destination) lists its
// in-edges grouped by edge type, by source id within a type, with the edge
// type of every edge, so typed sampling (SampleRowByType) draws exactly what a
// server holding the same rows draws.
//
// Node data: "features" rows are float32 [n, F_max], F_max the widest type's
// features, a type's own columns first and zeros after them (all zeros for a
// type without features); "labels" int64 (-1 off the target type) and "split"
// int8 (-1 off the target type) are global arrays.
//
// merged = true makes the graph look untyped (num_edge_types() == 0; one
// fanout over all in-edges; no node types): the same edges for a homogeneous
// model, the baseline a typed model is compared with. Thread-safe for readers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/base/status.h"
#include "common/sampling/minibatch.h"
#include "common/storage/typed_dataset.h"

namespace dg {

struct TypedGraphInput {
  struct NodeType {
    std::string name;
    int64_t count = 0;
    Array features;  // float32 [count, F], or empty for a featureless type
  };
  struct EdgeType {
    int src_type = 0, dst_type = 0;
    std::string relation;
    std::vector<int64_t> src, dst;  // type-local ids, src[i] -> dst[i]
  };
  std::vector<NodeType> node_types;
  std::vector<EdgeType> edge_types;  // at most 255
  int target = 0;                    // the labelled type
  Array labels;                      // int64 [count of target]
  Array split;                       // int8 [count of target]: 0 train, 1 val, 2 test, else none
};

// The input of a typed dataset as LoadTypedDataset read it (dir names its
// files in the errors): its arrays are moved, not copied. The dataset needs a
// target type with labels and split.
Result<TypedGraphInput> TypedGraphInputOf(TypedDataset ds, const std::string& dir);

class TypedInMemoryGraph : public NeighborSource {
 public:
  static Result<std::unique_ptr<TypedInMemoryGraph>> Create(TypedGraphInput input, bool merged);

  int64_t num_nodes() const override { return type_offsets_.back(); }
  int64_t num_edges() const { return static_cast<int64_t>(indices_.size()); }
  int num_edge_types() const override { return merged_ ? 0 : static_cast<int>(relations_.size()); }
  int num_node_types() const { return static_cast<int>(type_names_.size()); }
  // First global id of each type, then num_nodes() (num_node_types() + 1 entries).
  const std::vector<int64_t>& type_offsets() const { return type_offsets_; }
  const std::vector<std::string>& type_names() const { return type_names_; }
  const std::vector<std::string>& relations() const { return relations_; }
  // Feature width of each node type (0 = none) and of the padded rows.
  const std::vector<int64_t>& feature_dims() const { return feature_dims_; }
  int64_t max_feature_dim() const { return max_feature_dim_; }
  const std::vector<int64_t>& indptr() const { return indptr_; }
  const std::vector<int64_t>& indices() const { return indices_; }
  const std::vector<uint8_t>& etypes() const { return etypes_; }
  const Array& labels() const { return labels_; }
  const Array& split() const { return split_; }

  Status SampleNeighbors(const std::vector<int64_t>& seeds, const SampleSpec& spec,
                         SampledNeighbors* out) override;
  Status NodeTypes(const std::vector<int64_t>& ids, std::vector<int64_t>* out) override;
  // "features", "labels" or "split" (see above).
  Result<Array> Gather(const std::string& name, const std::vector<int64_t>& ids) override;

 private:
  int TypeOf(int64_t gid) const;

  bool merged_ = false;
  std::vector<std::string> type_names_, relations_;
  std::vector<int64_t> type_offsets_, feature_dims_;
  int64_t max_feature_dim_ = 0;
  std::vector<Array> features_;  // per node type
  std::vector<int64_t> indptr_, indices_;
  std::vector<uint8_t> etypes_;
  Array labels_, split_;  // global
};

}  // namespace dg
