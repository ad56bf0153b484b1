#include "roles/partition/edge_split.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "common/io/json_writer.h"
#include "common/io/npy.h"

namespace dg {

Status WriteLinkSplit(const PartitionConfig& cfg, const HeldOutEdges& held, const EdgeSplitFractions& fractions,
                      uint64_t seed, bool undirected, int64_t num_train_edges) {
  const std::string orig_path = cfg.base_dir + "/" + cfg.orig_nids;
  DG_ASSIGN_OR_RETURN(Array orig, NpyLoad(orig_path));
  if (orig.dtype != DType::kInt64 || orig.rows() != cfg.num_nodes)
    return Status::Corruption(orig_path + ": expected int64 [" + std::to_string(cfg.num_nodes) + "]");
  std::vector<int64_t> new_id(static_cast<size_t>(cfg.num_nodes), -1);
  for (int64_t g = 0; g < cfg.num_nodes; ++g) new_id[orig.as<int64_t>()[g]] = g;
  auto owner = [&](int64_t gid) {
    return static_cast<int>(std::upper_bound(cfg.node_map.begin(), cfg.node_map.end(), gid) - cfg.node_map.begin()) - 1;
  };
  for (const char* which : {"val", "test"}) {
    const EdgeList& e = std::string(which) == "val" ? held.val : held.test;
    std::vector<std::vector<int64_t>> rows(cfg.num_parts);
    for (size_t i = 0; i < e.src.size(); ++i) {
      const int64_t s = new_id[e.src[i]], d = new_id[e.dst[i]];
      auto& r = rows[owner(d)];
      r.push_back(s);
      r.push_back(d);
    }
    for (int p = 0; p < cfg.num_parts; ++p) {
      Array a = Array::Zeros(DType::kInt64, {static_cast<int64_t>(rows[p].size() / 2), 2});
      std::copy(rows[p].begin(), rows[p].end(), a.as<int64_t>());
      DG_RETURN_IF_ERROR(NpyWrite(cfg.PartDir(p) + "/" + which + "_edges.npy", a));
    }
  }
  const std::string path = cfg.base_dir + "/link_split.json";
  std::ofstream f(path + ".tmp");
  f << "{\"fractions\": ";
  if (fractions[0] < 0)  // the dataset's edge_split.npy
    f << "null";
  else
    f << "[" << JsonNumber(fractions[0]) << ", " << JsonNumber(fractions[1]) << ", " << JsonNumber(fractions[2]) << "]";
  f << ", \"seed\": " << seed << ", \"undirected\": " << (undirected ? "true" : "false")
    << ", \"num_train\": " << num_train_edges << ", \"num_val\": " << held.val.src.size()
    << ", \"num_test\": " << held.test.src.size() << "}\n";
  f.close();
  if (!f) return Status::IOError("write " + path + " failed");
  std::error_code ec;
  std::filesystem::rename(path + ".tmp", path, ec);
  if (ec) return Status::IOError("rename " + path + ": " + ec.message());
  return Status::OK();
}

}  // namespace dg
