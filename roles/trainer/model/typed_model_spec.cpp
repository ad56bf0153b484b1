#include "roles/trainer/model/typed_model_spec.h"

#include <algorithm>

#include "common/storage/partition.h"
#include "roles/trainer/model/model_embedding.h"
#include "roles/trainer/model/typed_graph_input.h"

namespace dg {
namespace {

// Does every featureless node type have a neighbour type with features?
// links: the (source type, destination type) of each edge type.
bool EveryFeaturelessTypeAnchored(const std::vector<int64_t>& dims, const std::vector<std::pair<int, int>>& links) {
  std::vector<bool> anchored(dims.size(), false);
  for (auto [a, b] : links) {
    if (dims[b] > 0) anchored[a] = true;
    if (dims[a] > 0) anchored[b] = true;
  }
  for (size_t t = 0; t < dims.size(); ++t)
    if (dims[t] == 0 && !anchored[t]) return false;
  return true;
}

// Relation rows (R-GCN's one-hot input) where no type has features: there
// each node's own rows are all the model has, and a row per relation weight
// lets every relation read the node apart, as the one-hot input does
// (docs/models.md "Featureless node types"). A width the user sets, or rows
// past kRelationRowsMaxValues, keep the types' rows.
FeaturelessInput ChooseFeaturelessInput(const ModelSpec& spec, bool no_features, int64_t nodes) {
  if (!no_features || spec.embedding_dim != kEmbeddingDimAuto) return FeaturelessInput::kTypeRows;
  return nodes * RelationRowsWidth(spec) <= kRelationRowsMaxValues ? FeaturelessInput::kRelationRows
                                                                   : FeaturelessInput::kTypeRows;
}

}  // namespace

Status FillTypedModelSpec(const TypedModelSource& source, ModelSpec* spec) {
  const std::string arch = std::string("--arch ") + Name(spec->arch);
  if (source.dataset.empty() == source.partition_config.empty())
    return Status::InvalidArgument(arch + " needs the typed graph: --dataset DIR or --partition-config NAME.json "
                                          "(one of them)");
  int64_t classes = 0;
  std::string classes_from;
  std::vector<std::pair<int, int>> links;
  int64_t nodes = 0;
  spec->type_feature_dims.clear();
  if (!source.dataset.empty()) {
    DG_ASSIGN_OR_RETURN(TypedGraphInput input, LoadTypedGraphInput(source.dataset, source.undirected, &classes));
    for (const auto& t : input.node_types)
      spec->type_feature_dims.push_back(t.features.shape.size() == 2 ? t.features.shape[1] : 0);
    for (const auto& e : input.edge_types) links.emplace_back(e.src_type, e.dst_type);
    spec->num_relations = static_cast<int>(input.edge_types.size());
    for (const auto& t : input.node_types) nodes += t.count;
    classes_from = source.dataset + "/meta.json has no num_classes";
  } else {
    if (source.undirected)
      return Status::InvalidArgument("--undirected goes with --dataset: the edge types of " + source.partition_config +
                                     " already include any rev_ relations");
    DG_ASSIGN_OR_RETURN(PartitionConfig pc, LoadAnyPartitionConfig(source.partition_config));
    if (!pc.typed())
      return Status::InvalidArgument(arch + ": " + source.partition_config +
                                     " has no node or edge types (export sage, gcn, gat or mlp for it)");
    for (const std::string& t : pc.node_types) {
      auto it = pc.node_data.find(t + "/features");
      spec->type_feature_dims.push_back(it != pc.node_data.end() && it->second.shape.size() == 2 ? it->second.shape[1]
                                                                                                  : 0);
    }
    for (const auto& e : pc.edge_types) links.emplace_back(e.src_type, e.dst_type);
    spec->num_relations = static_cast<int>(pc.edge_types.size());
    for (int64_t n : pc.num_nodes_per_type) nodes += n;
    classes = pc.num_classes;
    classes_from = source.partition_config + " records no num_classes";
  }
  if (spec->classes <= 0) {
    if (classes <= 0) return Status::InvalidArgument("--classes is required: " + classes_from);
    spec->classes = classes;
  }
  spec->relation_src_types.clear();
  for (const auto& [src, dst] : links) spec->relation_src_types.push_back(src);
  int64_t fmax = 0;
  bool featureless_type = false;
  for (int64_t f : spec->type_feature_dims) {
    fmax = std::max(fmax, f);
    featureless_type = featureless_type || f == 0;
  }
  spec->featureless_input = source.featureless_input.value_or(
      ChooseFeaturelessInput(*spec, fmax == 0, nodes));
  // Learnt rows per node: a vector shared by a type's nodes cannot tell two
  // of them apart (docs/models.md "Featureless node types").
  if (spec->embedding_dim == kEmbeddingDimAuto)
    spec->embedding_dim = spec->featureless_input == FeaturelessInput::kRelationRows ? RelationRowsWidth(*spec)
                          : featureless_type                                     ? spec->hidden
                                                                                 : 0;
  spec->in_dim = fmax + spec->embedding_dim;
  const bool anchored = EveryFeaturelessTypeAnchored(spec->type_feature_dims, links);
  spec->embedding_init_scale = anchored ? kFeaturelessTypeInitScale : kUnanchoredTypeInitScale;
  spec->embedding_lr = anchored ? kFeaturelessTypeLr : kUnanchoredTypeLr;
  spec->embedding_weight_decay = -1;
  if (spec->featureless_input == FeaturelessInput::kRelationRows) {
    spec->embedding_init_scale = RelationRowsInitScale(nodes, RelationRowBlockWidth(*spec));
    spec->embedding_weight_decay = kRelationRowsWeightDecay;
  }
  return Status::OK();
}

}  // namespace dg
