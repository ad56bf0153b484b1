#include "roles/trainer/typed_graph_input.h"

#include <utility>

namespace dg {

// The dataset is read and checked by LoadTypedDataset (the same reader the
// partitioner uses); this only moves its arrays into TypedInMemoryGraph's input.
Result<TypedGraphInput> LoadTypedGraphInput(const std::string& dir, bool undirected, int64_t* num_classes) {
  DG_ASSIGN_OR_RETURN(TypedDataset ds, LoadTypedDataset(dir, undirected));
  if (ds.target_type < 0) return Status::InvalidArgument(dir + "/meta.json: key 'target': no target node type");
  TypedGraphInput in;
  for (NodeTypeData& t : ds.node_types) {
    TypedGraphInput::NodeType n;
    n.name = t.name;
    n.count = t.count;
    if (const Array* f = t.Find("features")) n.features = *f;
    in.node_types.push_back(std::move(n));
  }
  for (EdgeTypeData& e : ds.edge_types) {
    TypedGraphInput::EdgeType et;
    et.src_type = e.src_type_id;
    et.dst_type = e.dst_type_id;
    et.relation = e.relation;
    et.src = std::move(e.src);
    et.dst = std::move(e.dst);
    in.edge_types.push_back(std::move(et));
  }
  in.target = ds.target_type;
  const NodeTypeData& target = ds.node_types[ds.target_type];
  const std::string tdir = dir + "/nodes/" + target.name;
  const Array* labels = target.Find("labels");
  const Array* split = target.Find("split");
  if (!labels) return Status::NotFound(tdir + "/labels.npy: the target type's labels are missing");
  if (!split) return Status::NotFound(tdir + "/split.npy: the target type's split is missing");
  in.labels = *labels;
  in.split = *split;
  if (num_classes && ds.num_classes > 0) *num_classes = ds.num_classes;
  return in;
}

}  // namespace dg
