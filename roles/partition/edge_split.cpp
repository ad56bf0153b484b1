#include "roles/partition/edge_split.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "common/io/json_writer.h"
#include "common/io/npy.h"
#include "roles/partition/partition_output.h"

namespace dg {

namespace {

// The held-out edges in global ids -> partP/{val,test}_edges.npy (by the
// destination's owner) and link_split.json.
Status WriteGlobalLinkSplit(const PartitionConfig& cfg, const HeldOutEdges& held, const EdgeSplitFractions& fractions,
                            uint64_t seed, bool undirected, int64_t num_train_edges, const std::string& etype,
                            const std::string& reverse_etype) {
  auto owner = [&](int64_t gid) {
    return static_cast<int>(std::upper_bound(cfg.node_map.begin(), cfg.node_map.end(), gid) - cfg.node_map.begin()) - 1;
  };
  for (const char* which : {"val", "test"}) {
    const EdgeList& e = std::string(which) == "val" ? held.val : held.test;
    std::vector<std::vector<int64_t>> rows(cfg.num_parts);
    for (size_t i = 0; i < e.src.size(); ++i) {
      auto& r = rows[owner(e.dst[i])];
      r.push_back(e.src[i]);
      r.push_back(e.dst[i]);
    }
    for (int p = 0; p < cfg.num_parts; ++p) {
      Array a = Array::Zeros(DType::kInt64, {static_cast<int64_t>(rows[p].size() / 2), 2});
      std::copy(rows[p].begin(), rows[p].end(), a.as<int64_t>());
      DG_RETURN_IF_ERROR(NpyWrite(cfg.PartDir(p) + "/" + which + "_edges.npy", a));
    }
  }
  LinkSplitSummary summary{fractions,
                           seed,
                           undirected,
                           num_train_edges,
                           static_cast<int64_t>(held.val.src.size()),
                           static_cast<int64_t>(held.test.src.size()),
                           etype,
                           reverse_etype};
  DG_RETURN_IF_ERROR(WriteLinkSplitJson(cfg.base_dir, summary));
  PartitionConfig with_split = cfg;
  return RecordAddedFiles(&with_split);  // the held-out edges and link_split.json get checksums too
}

// `ids` (indices into `map`) through an int64 array of global ids.
Status MapIds(const std::string& path, const Array& map, std::vector<int64_t>* ids) {
  for (int64_t& v : *ids) {
    if (v < 0 || v >= map.rows()) return Status::Corruption(path + ": no row " + std::to_string(v));
    v = map.as<int64_t>()[v];
  }
  return Status::OK();
}

}  // namespace

Status WriteLinkSplitJson(const std::string& base_dir, const LinkSplitSummary& s) {
  const std::string path = base_dir + "/link_split.json";
  std::ofstream f(path + ".tmp");
  f << "{\"fractions\": ";
  if (s.fractions[0] < 0)  // the dataset's edge_split.npy
    f << "null";
  else
    f << "[" << JsonNumber(s.fractions[0]) << ", " << JsonNumber(s.fractions[1]) << ", " << JsonNumber(s.fractions[2])
      << "]";
  f << ", \"seed\": " << s.seed << ", \"undirected\": " << (s.undirected ? "true" : "false")
    << ", \"num_train\": " << s.num_train << ", \"num_val\": " << s.num_val << ", \"num_test\": " << s.num_test;
  if (!s.etype.empty())
    f << ", \"etype\": " << JsonQuote(s.etype) << ", \"reverse_etype\": "
      << (s.reverse_etype.empty() ? std::string("null") : JsonQuote(s.reverse_etype));
  f << "}\n";
  f.close();
  if (!f) return Status::IOError("write " + path + " failed");
  std::error_code ec;
  std::filesystem::rename(path + ".tmp", path, ec);
  if (ec) return Status::IOError("rename " + path + ": " + ec.message());
  return Status::OK();
}

Status WriteLinkSplit(const PartitionConfig& cfg, const HeldOutEdges& held, const EdgeSplitFractions& fractions,
                      uint64_t seed, bool undirected, int64_t num_train_edges) {
  const std::string orig_path = cfg.base_dir + "/" + cfg.orig_nids;
  DG_ASSIGN_OR_RETURN(Array orig, NpyLoad(orig_path));
  if (orig.dtype != DType::kInt64 || orig.rows() != cfg.num_nodes)
    return Status::Corruption(orig_path + ": expected int64 [" + std::to_string(cfg.num_nodes) + "]");
  Array new_id = Array::Zeros(DType::kInt64, {cfg.num_nodes});
  for (int64_t g = 0; g < cfg.num_nodes; ++g) new_id.as<int64_t>()[orig.as<int64_t>()[g]] = g;
  HeldOutEdges global = held;
  for (EdgeList* e : {&global.val, &global.test}) {
    DG_RETURN_IF_ERROR(MapIds(orig_path, new_id, &e->src));
    DG_RETURN_IF_ERROR(MapIds(orig_path, new_id, &e->dst));
  }
  return WriteGlobalLinkSplit(cfg, global, fractions, seed, undirected, num_train_edges, "", "");
}

Status WriteTypedLinkSplit(const PartitionConfig& cfg, const TypedEdgeSplit& split,
                           const EdgeSplitFractions& fractions, uint64_t seed, bool undirected) {
  const std::string src_path = cfg.TypeNidsPath(split.src_type), dst_path = cfg.TypeNidsPath(split.dst_type);
  DG_ASSIGN_OR_RETURN(Array src_map, NpyLoad(src_path));
  DG_ASSIGN_OR_RETURN(Array dst_map, NpyLoad(dst_path));
  for (const auto& [path, a] : {std::make_pair(&src_path, &src_map), std::make_pair(&dst_path, &dst_map)})
    if (a->dtype != DType::kInt64 || a->shape.size() != 1)
      return Status::Corruption(*path + ": expected a 1-d int64 array");
  HeldOutEdges global = split.held;
  for (EdgeList* e : {&global.val, &global.test}) {
    DG_RETURN_IF_ERROR(MapIds(src_path, src_map, &e->src));
    DG_RETURN_IF_ERROR(MapIds(dst_path, dst_map, &e->dst));
  }
  return WriteGlobalLinkSplit(cfg, global, fractions, seed, undirected, split.num_train, split.etype,
                              split.reverse_etype);
}

Result<TypedEdgeSplit> HoldOutTypedDatasetEdges(TypedDataset* ds, const std::string& spec,
                                                const EdgeSplitFractions& fractions, uint64_t seed) {
  std::vector<EdgeTypeNames> names;
  for (const EdgeTypeData& e : ds->edge_types) names.push_back({e.src_type, e.relation, e.dst_type});
  DG_ASSIGN_OR_RETURN(int etype, MatchEdgeType(names, spec, "--link-etype"));
  const int rev = MatchReverseEdgeType(names, etype);
  EdgeTypeData& e = ds->edge_types[static_cast<size_t>(etype)];
  EdgeTypeData* r = rev >= 0 ? &ds->edge_types[static_cast<size_t>(rev)] : nullptr;
  TypedEdgeSplit out;
  out.etype = names[etype].Name();
  if (r) out.reverse_etype = names[rev].Name();
  DG_ASSIGN_OR_RETURN(HeldOutEdges held, HoldOutTypePairs(&e.src, &e.dst, r ? &r->src : nullptr,
                                                          r ? &r->dst : nullptr, fractions, seed));
  out.num_train = e.size();
  if (out.num_train == 0)
    return Status::InvalidArgument("--link-etype " + out.etype + ": no training edges left after the split");
  out.held = std::move(held);
  out.src_type = e.src_type_id;
  out.dst_type = e.dst_type_id;
  return out;
}

}  // namespace dg
