// Shared invariant checks for partition outputs, against the in-memory input.
#pragma once

#include <catch2/catch.hpp>
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/io/npy.h"
#include "common/storage/dataset.h"
#include "common/storage/partition.h"
#include "common/storage/typed_dataset.h"

namespace dg::test {

struct ReferenceGraph {
  int64_t num_nodes = 0;
  std::vector<int64_t> src, dst;           // the edge list given to the partitioner
  std::map<std::string, Array> node_data;  // input node arrays
  std::map<std::string, Array> edge_data;  // rows per edge of src/dst
};

// The graph of dataset directory `dir` as the partitioner reads it (LoadDataset).
inline ReferenceGraph LoadReference(const std::string& dir, bool undirected) {
  EdgeListOptions eo;
  eo.undirected = undirected;
  auto ds = LoadDataset(dir, eo);
  REQUIRE(ds.ok());
  ReferenceGraph g;
  g.num_nodes = ds->num_nodes;
  g.src = ds->edges.src;
  g.dst = ds->edges.dst;
  g.node_data = ds->node_data;
  return g;
}

// Verifies every docs/formats.md invariant of the partition at json_path; returns the config.
inline PartitionConfig CheckPartition(const std::string& json_path, const ReferenceGraph& g, int k) {
  auto cfg_r = LoadPartitionConfig(json_path);
  INFO(json_path);
  REQUIRE(cfg_r.ok());
  PartitionConfig cfg = *cfg_r;
  const int64_t N = g.num_nodes, E = static_cast<int64_t>(g.src.size());
  REQUIRE(cfg.num_parts == k);
  REQUIRE(cfg.num_nodes == N);
  REQUIRE(cfg.num_edges == E);
  // Ownership ranges tile [0, N).
  REQUIRE(cfg.node_map.front() == 0);
  REQUIRE(cfg.node_map.back() == N);
  for (int p = 0; p < k; ++p) REQUIRE(cfg.node_map[p] <= cfg.node_map[p + 1]);
  PartitionBook book(cfg.node_map);
  // orig_nids is a permutation.
  auto on = NpyMap(cfg.base_dir + "/" + cfg.orig_nids);
  REQUIRE(on.ok());
  REQUIRE(on->shape == std::vector<int64_t>{N});
  const int64_t* orig_nids = on->as<int64_t>();
  std::vector<char> seen_node(N, 0);
  for (int64_t i = 0; i < N; ++i) {
    REQUIRE(orig_nids[i] >= 0);
    REQUIRE(orig_nids[i] < N);
    REQUIRE(!seen_node[orig_nids[i]]);
    seen_node[orig_nids[i]] = 1;
  }
  auto oe = NpyMap(cfg.base_dir + "/" + cfg.orig_eids);
  REQUIRE(oe.ok());
  REQUIRE(oe->shape == std::vector<int64_t>{E});
  const int64_t* orig_eids = oe->as<int64_t>();
  std::vector<char> seen_edge(E, 0);
  int64_t cut = 0;
  for (int p = 0; p < k; ++p) {
    auto lp_r = OpenLocalPartition(cfg, p);
    REQUIRE(lp_r.ok());
    const LocalPartition& lp = *lp_r;
    REQUIRE(lp.node_begin == cfg.node_map[p]);
    const int64_t* ip = lp.indptr.as<int64_t>();
    const int64_t* ix = lp.indices.as<int64_t>();
    for (int64_t i = 0; i < lp.num_owned(); ++i) {
      int64_t gid = lp.node_begin + i;
      REQUIRE(book.Owner(gid) == p);
      REQUIRE(ip[i] <= ip[i + 1]);
      for (int64_t j = ip[i]; j < ip[i + 1]; ++j) {
        int64_t eid = lp.edge_begin + j;
        int64_t e = orig_eids[eid];
        REQUIRE(e >= 0);
        REQUIRE(e < E);
        REQUIRE(!seen_edge[e]);  // every input edge exactly once...
        seen_edge[e] = 1;
        REQUIRE(orig_nids[gid] == g.dst[e]);     // ...in the part owning its destination
        REQUIRE(orig_nids[ix[j]] == g.src[e]);  // with the global id of its source
        if (book.Owner(ix[j]) != p) ++cut;
        for (const auto& [name, a] : g.edge_data) {
          const Array& got = lp.edge_data.at(name);
          REQUIRE(std::memcmp(static_cast<const char*>(got.data) + j * got.row_bytes(),
                              static_cast<const char*>(a.data) + e * a.row_bytes(), a.row_bytes()) == 0);
        }
      }
      for (const auto& [name, a] : g.node_data) {
        const Array& got = lp.node_data.at(name);
        REQUIRE(got.dtype == a.dtype);
        REQUIRE(std::memcmp(static_cast<const char*>(got.data) + i * got.row_bytes(),
                            static_cast<const char*>(a.data) + orig_nids[gid] * a.row_bytes(),
                            a.row_bytes()) == 0);
      }
    }
    REQUIRE(cfg.parts[p].num_nodes == lp.num_owned());
    REQUIRE(cfg.parts[p].num_edges == lp.num_edges());
    // Per-part seed files: owned global ids with split 0/1/2 (train_mask != 0), in order.
    if (cfg.parts[p].num_val >= 0) {
      auto sp = g.node_data.find("split");
      auto tm = g.node_data.find("train_mask");
      REQUIRE((sp != g.node_data.end() || tm != g.node_data.end()));
      const char* files[] = {"train_nids.npy", "val_nids.npy", "test_nids.npy"};
      for (int v = 0; v < 3; ++v) {
        std::vector<int64_t> want;
        for (int64_t gid = lp.node_begin; gid < lp.node_end; ++gid) {
          const int64_t o = orig_nids[gid];
          int64_t s = -1;
          if (sp != g.node_data.end()) s = sp->second.as<int8_t>()[o];
          else s = tm->second.as<uint8_t>()[o] ? 0 : -1;
          if (s == v) want.push_back(gid);
        }
        auto ids = NpyMap(cfg.PartDir(p) + "/" + files[v]);
        REQUIRE(ids.ok());
        REQUIRE(ids->shape == std::vector<int64_t>{static_cast<int64_t>(want.size())});
        REQUIRE(std::equal(want.begin(), want.end(), ids->as<int64_t>()));
      }
      REQUIRE(cfg.parts[p].num_train == static_cast<int64_t>(
                  NpyMap(cfg.PartDir(p) + "/train_nids.npy")->shape[0]));
    }
  }
  for (int64_t e = 0; e < E; ++e) REQUIRE(seen_edge[e]);
  REQUIRE(cfg.edge_cut == cut);
  return cfg;
}

// Verifies a typed (format_version 2) partition against the typed dataset it
// was made from (edge types in the dataset's order, reverse types included):
// every (part, type) range holds exactly the nodes of that type, orig_nids /
// type_nids are inverse of each other, every input edge appears once in its
// destination's part with its edge type, in-edges are sorted by edge type
// within each row, node arrays per type and seed files (target type only)
// hold the right rows. Returns the config.
inline PartitionConfig CheckTypedPartition(const std::string& json_path, const TypedDataset& g, int k) {
  INFO(json_path);
  REQUIRE(!LoadPartitionConfig(json_path).ok());  // homogeneous readers refuse it
  auto cfg_r = LoadAnyPartitionConfig(json_path);
  INFO(cfg_r.status().ToString());
  REQUIRE(cfg_r.ok());
  PartitionConfig cfg = *cfg_r;
  const int T = static_cast<int>(g.node_types.size());
  REQUIRE(cfg.typed());
  REQUIRE(cfg.num_parts == k);
  REQUIRE(cfg.num_nodes == g.NumNodes());
  REQUIRE(cfg.num_edges == g.NumEdges());
  REQUIRE(cfg.num_node_types() == T);
  for (int t = 0; t < T; ++t) {
    REQUIRE(cfg.node_types[t] == g.node_types[t].name);
    REQUIRE(cfg.num_nodes_per_type[t] == g.node_types[t].count);
  }
  REQUIRE(cfg.edge_types.size() == g.edge_types.size());
  std::vector<int64_t> eoff(1, 0);
  for (size_t r = 0; r < g.edge_types.size(); ++r) {
    REQUIRE(cfg.edge_types[r].src == g.edge_types[r].src_type);
    REQUIRE(cfg.edge_types[r].relation == g.edge_types[r].relation);
    REQUIRE(cfg.edge_types[r].dst == g.edge_types[r].dst_type);
    eoff.push_back(eoff.back() + g.edge_types[r].size());
  }
  REQUIRE(cfg.target == g.target);
  // (part, type) ranges tile each part in type order.
  for (int p = 0; p < k; ++p) {
    REQUIRE(cfg.node_type_offsets[p].front() == cfg.node_map[p]);
    REQUIRE(cfg.node_type_offsets[p].back() == cfg.node_map[p + 1]);
    for (int t = 0; t < T; ++t) REQUIRE(cfg.node_type_offsets[p][t] <= cfg.node_type_offsets[p][t + 1]);
  }
  auto on = NpyMap(cfg.base_dir + "/" + cfg.orig_nids);
  REQUIRE(on.ok());
  REQUIRE(on->shape == std::vector<int64_t>{cfg.num_nodes});
  const int64_t* orig_nids = on->as<int64_t>();
  // type_nids[t] (type-local -> global) and orig_nids (global -> type-local) are inverse.
  std::vector<Array> type_nids(T);
  for (int t = 0; t < T; ++t) {
    auto a = NpyMap(cfg.TypeNidsPath(t));
    REQUIRE(a.ok());
    REQUIRE(a->shape == std::vector<int64_t>{g.node_types[t].count});
    type_nids[t] = *a;
    for (int64_t i = 0; i < g.node_types[t].count; ++i) {
      const int64_t gid = a->as<int64_t>()[i];
      REQUIRE(gid >= 0);
      REQUIRE(gid < cfg.num_nodes);
      REQUIRE(cfg.NodeTypeOf(gid) == t);
      REQUIRE(orig_nids[gid] == i);
    }
  }
  PartitionBook book(cfg.node_map);
  auto oe = NpyMap(cfg.base_dir + "/" + cfg.orig_eids);
  REQUIRE(oe.ok());
  const int64_t* orig_eids = oe->as<int64_t>();
  std::vector<char> seen(static_cast<size_t>(g.NumEdges()), 0);
  int64_t cut = 0;
  for (int p = 0; p < k; ++p) {
    auto lp_r = OpenLocalPartition(cfg, p);
    INFO(lp_r.status().ToString());
    REQUIRE(lp_r.ok());
    const LocalPartition& lp = *lp_r;
    REQUIRE(lp.type_offsets == cfg.node_type_offsets[p]);
    REQUIRE(lp.edge_types.dtype == DType::kUInt8);
    const uint8_t* et = lp.edge_types.as<uint8_t>();
    const int64_t* ip = lp.indptr.as<int64_t>();
    const int64_t* ix = lp.indices.as<int64_t>();
    for (int64_t i = 0; i < lp.num_owned(); ++i) {
      const int64_t gid = lp.node_begin + i;
      const int t = cfg.NodeTypeOf(gid);
      for (int64_t j = ip[i]; j < ip[i + 1]; ++j) {
        if (j > ip[i]) REQUIRE(et[j - 1] <= et[j]);  // sorted by edge type within the row
        const int r = et[j];
        REQUIRE(r < static_cast<int>(g.edge_types.size()));
        const int64_t e = orig_eids[lp.edge_begin + j];
        REQUIRE(e >= eoff[r]);
        REQUIRE(e < eoff[r + 1]);
        REQUIRE(!seen[e]);
        seen[e] = 1;
        const EdgeTypeData& ref = g.edge_types[r];
        REQUIRE(t == ref.dst_type_id);
        REQUIRE(orig_nids[gid] == ref.dst[e - eoff[r]]);
        REQUIRE(cfg.NodeTypeOf(ix[j]) == ref.src_type_id);
        REQUIRE(orig_nids[ix[j]] == ref.src[e - eoff[r]]);
        if (book.Owner(ix[j]) != p) ++cut;
      }
    }
    for (int t = 0; t < T; ++t) {
      const int64_t tb = lp.type_offsets[t], count = lp.type_offsets[t + 1] - tb;
      for (const auto& [name, a] : g.node_types[t].data) {
        const Array& got = lp.node_data.at(g.node_types[t].name + "/" + name);
        REQUIRE(got.dtype == a.dtype);
        REQUIRE(got.rows() == count);
        for (int64_t i = 0; i < count; ++i)
          REQUIRE(std::memcmp(static_cast<const char*>(got.data) + i * got.row_bytes(),
                              static_cast<const char*>(a.data) + orig_nids[tb + i] * a.row_bytes(), a.row_bytes()) == 0);
      }
    }
    if (g.target_type >= 0 && g.node_types[g.target_type].Find("split")) {
      const int tt = g.target_type;
      const int8_t* split = g.node_types[tt].Find("split")->as<int8_t>();
      const char* files[] = {"train_nids.npy", "val_nids.npy", "test_nids.npy"};
      for (int v = 0; v < 3; ++v) {
        std::vector<int64_t> want;
        for (int64_t gid = lp.type_offsets[tt]; gid < lp.type_offsets[tt + 1]; ++gid)
          if (split[orig_nids[gid]] == v) want.push_back(gid);
        auto ids = NpyMap(cfg.PartDir(p) + "/" + files[v]);
        REQUIRE(ids.ok());
        REQUIRE(ids->shape == std::vector<int64_t>{static_cast<int64_t>(want.size())});
        REQUIRE(std::equal(want.begin(), want.end(), ids->as<int64_t>()));
      }
      REQUIRE(cfg.parts[p].num_train == static_cast<int64_t>(NpyMap(cfg.PartDir(p) + "/train_nids.npy")->shape[0]));
    }
  }
  for (char c : seen) REQUIRE(c);
  REQUIRE(cfg.edge_cut == cut);
  return cfg;
}

// Every file under a and b (relative paths) with equal bytes, but for `skip`
// (a relative path, present in both); at least min_files of them.
inline void RequireSameTree(const std::string& a, const std::string& b, size_t min_files,
                            const std::string& skip = "") {
  namespace fs = std::filesystem;
  auto read = [](const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  };
  std::vector<std::string> fa, fb;
  for (const auto& e : fs::recursive_directory_iterator(a))
    if (e.is_regular_file()) fa.push_back(fs::relative(e.path(), a).string());
  for (const auto& e : fs::recursive_directory_iterator(b))
    if (e.is_regular_file()) fb.push_back(fs::relative(e.path(), b).string());
  std::sort(fa.begin(), fa.end());
  std::sort(fb.begin(), fb.end());
  REQUIRE(fa == fb);
  REQUIRE(fa.size() >= min_files);
  for (const std::string& f : fa) {
    INFO(f);
    if (f != skip) CHECK(read(a + "/" + f) == read(b + "/" + f));
  }
}

}  // namespace dg::test
