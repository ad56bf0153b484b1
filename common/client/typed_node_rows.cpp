#include "common/client/typed_node_rows.h"

#include <algorithm>
#include <cstring>

namespace dg {

Status TypedNodeTypes(const PartitionConfig& c, const std::vector<int64_t>& ids, std::vector<int64_t>* out) {
  const PartitionBook book(c.node_map);
  out->resize(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    const int64_t id = ids[i];
    if (id < 0 || id >= c.num_nodes)
      return Status::InvalidArgument("node types: node id " + std::to_string(id) + " (at position " +
                                     std::to_string(i) + ") is outside [0, " + std::to_string(c.num_nodes) + ")");
    const std::vector<int64_t>& off = c.node_type_offsets[book.Owner(id)];
    (*out)[i] = (std::upper_bound(off.begin() + 1, off.end(), id) - off.begin()) - 1;
  }
  return Status::OK();
}

int64_t TypedFeatureDim(const PartitionConfig& c) {
  int64_t f = 0;
  for (const std::string& t : c.node_types) {
    auto it = c.node_data.find(t + "/features");
    if (it != c.node_data.end() && it->second.shape.size() == 2) f = std::max(f, it->second.shape[1]);
  }
  return f;
}

Result<Array> PullTypedNodeRows(DistGraphClient* client, const std::string& name, const std::vector<int64_t>& ids) {
  const PartitionConfig& c = client->config();
  const bool features = name == "features";
  if (!features && name != "labels" && name != "split") return client->Pull(name, ids);
  std::vector<int64_t> types;
  DG_RETURN_IF_ERROR(TypedNodeTypes(c, ids, &types));
  const int64_t n = static_cast<int64_t>(ids.size());
  Array out;
  if (features) {
    out = Array::Zeros(DType::kFloat32, {n, TypedFeatureDim(c)});
  } else {
    out = Array::Zeros(name == "labels" ? DType::kInt64 : DType::kInt8, {n});
    if (name == "labels") std::fill(out.as<int64_t>(), out.as<int64_t>() + n, int64_t{-1});
    else std::fill(out.as<int8_t>(), out.as<int8_t>() + n, int8_t{-1});
  }
  const int target = c.NodeTypeId(c.target);
  const size_t out_row = out.row_bytes();
  std::vector<int64_t> type_ids, pos;
  for (int t = 0; t < c.num_node_types(); ++t) {
    if (!features && t != target) continue;
    const std::string tensor = c.node_types[t] + "/" + name;
    if (!c.node_data.count(tensor)) {
      if (features) continue;  // a featureless type: zero rows
      return Status::NotFound(c.path + ": the target type " + c.target + " has no node array '" + tensor + "'");
    }
    type_ids.clear();
    pos.clear();
    for (int64_t i = 0; i < n; ++i)
      if (types[i] == t) {
        type_ids.push_back(ids[i]);
        pos.push_back(i);
      }
    if (type_ids.empty()) continue;
    DG_ASSIGN_OR_RETURN(Array rows, client->Pull(tensor, type_ids));
    if (rows.dtype != out.dtype || rows.row_bytes() > out_row)
      return Status::InvalidArgument(c.path + ": node array '" + tensor + "' is " + DTypeName(rows.dtype) + " " +
                                     rows.ShapeString() + ", expected " + DTypeName(out.dtype) +
                                     (features ? " [N, F]" : " [N]"));
    const size_t rb = rows.row_bytes();
    const auto* src = static_cast<const uint8_t*>(rows.data);
    auto* dst = static_cast<uint8_t*>(out.data);
    for (size_t k = 0; k < pos.size(); ++k) std::memcpy(dst + pos[k] * out_row, src + k * rb, rb);
  }
  return out;
}

}  // namespace dg
