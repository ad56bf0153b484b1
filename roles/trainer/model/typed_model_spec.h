// The types of an rgcn / hetero-sage model (roles/trainer/model/model_export.h),
// read from a typed dataset directory (with --undirected as it is trained)
// or from a typed partition's NAME.json (its edge types already hold any
// rev_ relations): each node type's feature width, the number of relations,
// in_dim = the widest features + the embedding width, and, when classes is
// 0, the number of classes the dataset or partition records.
#pragma once

#include <optional>
#include <string>

#include "common/base/status.h"
#include "roles/trainer/model/model_export.h"

namespace dg {

struct TypedModelSource {
  std::string dataset;           // a typed dataset directory, or
  bool undirected = false;       //   (with dataset) add rev_<relation> per edge type
  std::string partition_config;  // a typed partition's NAME.json
  // --featureless-input; unset: chosen from the types (FillTypedModelSpec).
  std::optional<FeaturelessInput> featureless_input;
};

// Relation rows hold (blocks + 1) x width values per node; past this many in
// all (1 GiB of float32) the types' rows are chosen instead.
constexpr int64_t kRelationRowsMaxValues = int64_t{1} << 28;

// Fills spec->type_feature_dims, num_relations, in_dim and (if 0) classes;
// spec->featureless_input is the source's, or, unset, relation-rows when no
// node type has features, the width is left to export and the rows fit
// kRelationRowsMaxValues, else type-rows; spec->embedding_dim
// kEmbeddingDimAuto becomes the relation rows' width, or spec->hidden when a
// node type has no features, else 0; the learnt rows' start and rate are
// chosen by whether every featureless type has a featured neighbour type
// (model_embedding.h). Exactly one of dataset / partition_config.
Status FillTypedModelSpec(const TypedModelSource& source, ModelSpec* spec);

}  // namespace dg
