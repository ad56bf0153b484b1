// Shared invariant checks for partition outputs, against the in-memory input.
#pragma once

#include <catch2/catch.hpp>
#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/io/npy.h"
#include "common/storage/partition.h"

namespace dg::test {

struct ReferenceGraph {
  int64_t num_nodes = 0;
  std::vector<int64_t> src, dst;           // the edge list given to the partitioner
  std::map<std::string, Array> node_data;  // input node arrays
  std::map<std::string, Array> edge_data;  // rows per edge of src/dst
};

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

}  // namespace dg::test
