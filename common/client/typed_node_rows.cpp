#include "common/client/typed_node_rows.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "common/net/pull_block.h"

namespace dg {
namespace {

constexpr int64_t kRowsPerRequest = 4096;

// Rows `ids` (all of node type t) of node array `tensor` ("<type>/features",
// float32 [n, F]) into a float32 [ids, F] array: remote ones by PULL_BLOCK
// in `wire` (a row addressed from the type's first id on its partition),
// machine-local ones from the mmap.
Result<Array> PullTypedWireRows(DistGraphClient* client, const std::string& tensor, int t,
                                const std::vector<int64_t>& ids, WireDType wire) {
  const PartitionConfig& c = client->config();
  const int64_t F = c.node_data.at(tensor).shape[1], n = static_cast<int64_t>(ids.size());
  DG_ASSIGN_OR_RETURN(Array out, Array::TryUninitialized(DType::kFloat32, {n, F}, "typed input rows"));
  const PartitionBook& book = client->book();
  std::vector<std::vector<int64_t>> pos(static_cast<size_t>(c.num_parts));  // per partition: rows of `out`
  for (int64_t i = 0; i < n; ++i) pos[book.Owner(ids[i])].push_back(i);
  struct Piece {
    std::vector<int64_t> pos;
    std::shared_ptr<PendingCall> call;
  };
  std::vector<Piece> sent;
  for (int p = 0; p < c.num_parts; ++p) {
    if (pos[p].empty()) continue;
    if (client->is_local(p)) {
      std::vector<int64_t> local(pos[p].size());
      for (size_t i = 0; i < local.size(); ++i) local[i] = ids[pos[p][i]];
      DG_RETURN_IF_ERROR(client->local_store(p)->GatherRows(TensorKind::kNode, tensor, local.data(), local.size(),
                                                            static_cast<uint8_t*>(out.data), pos[p].data()));
      continue;
    }
    const int64_t first = c.node_type_offsets[p][t];
    for (size_t a = 0; a < pos[p].size(); a += kRowsPerRequest) {
      Piece pc;
      pc.pos.assign(pos[p].begin() + a, pos[p].begin() + std::min(pos[p].size(), a + kRowsPerRequest));
      auto req = std::make_shared<PullBlockIds>();
      for (int64_t i : pc.pos) req->rows.push_back(static_cast<int32_t>(ids[i] - first));
      Encoder e;
      EncodePullBlock(&e, tensor, wire, req);
      pc.call = client->StartRequest(p, MsgType::kPullBlock, e.Finish());
      sent.push_back(std::move(pc));
    }
  }
  const auto deadline = client->CallDeadline();
  Status first_error;
  for (Piece& pc : sent) {  // every answer waited for, so none outlives this call
    auto f = pc.call->Wait(deadline);
    if (!first_error.ok()) continue;
    if (!f.ok()) {
      first_error = f.status();
      continue;
    }
    const std::string what = "PULL_BLOCK reply for '" + tensor + "'";
    Decoder d = f->decoder(what);
    WireRowsView rows, sums;
    Status st = DecodeWireRows(&d, wire, static_cast<int64_t>(pc.pos.size()), F, what + " (rows)", &rows);
    if (st.ok()) st = DecodeWireRows(&d, wire, 0, F, what + " (sums)", &sums);
    if (st.ok()) st = d.Finish();
    if (!st.ok()) {
      first_error = st;
      continue;
    }
    for (size_t i = 0; i < pc.pos.size(); ++i) rows.Row(static_cast<int64_t>(i), out.as<float>() + pc.pos[i] * F);
  }
  DG_RETURN_IF_ERROR(first_error);
  return out;
}

}  // namespace

Status CheckTypedWireRows(const PartitionConfig& c) {
  for (int p = 0; p < c.num_parts; ++p)
    if (c.node_map[p + 1] - c.node_map[p] > INT32_MAX)
      return Status::InvalidArgument(c.path + ": partition " + std::to_string(p) +
                                     " owns more than 2^31 nodes; PULL_BLOCK addresses rows by int32 offsets");
  for (const std::string& type : c.node_types) {
    auto it = c.node_data.find(type + "/features");
    if (it != c.node_data.end() && (it->second.dtype != DType::kFloat32 || it->second.shape.size() != 2))
      return Status::InvalidArgument(c.path + ": node array '" + type + "/features' is " +
                                     DTypeName(it->second.dtype) + " of rank " +
                                     std::to_string(it->second.shape.size()) + "; wire rows need float32 [N, F]");
  }
  return Status::OK();
}

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

Result<Array> PullTypedNodeRows(DistGraphClient* client, const std::string& name, const std::vector<int64_t>& ids,
                                WireDType wire) {
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
    DG_ASSIGN_OR_RETURN(Array rows, features && wire != WireDType::kFloat32
                                        ? PullTypedWireRows(client, tensor, t, type_ids, wire)
                                        : client->Pull(tensor, type_ids));
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
