// Typed sampling (fanout per edge type) and typed blocks against a brute-force
// reading of the edge lists.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <vector>

#include "common/sampling/minibatch.h"
#include "common/sampling/typed_graph.h"
#include "common/storage/neighbor_sampling.h"

namespace dg {
namespace {

// Three node types (a: 30 nodes with 2 features, b: 20 featureless, c: 10 with
// 3 features) and four edge types with random (multi-)edges.
TypedGraphInput RandomTypedInput(uint64_t seed) {
  Rng rng(seed);
  TypedGraphInput in;
  const int64_t counts[3] = {30, 20, 10};
  const int64_t dims[3] = {2, 0, 3};
  const char* names[3] = {"a", "b", "c"};
  for (int t = 0; t < 3; ++t) {
    TypedGraphInput::NodeType nt;
    nt.name = names[t];
    nt.count = counts[t];
    if (dims[t] > 0) {
      nt.features = Array::Zeros(DType::kFloat32, {counts[t], dims[t]});
      for (int64_t i = 0; i < counts[t] * dims[t]; ++i) nt.features.as<float>()[i] = 100.0f * t + i;
    }
    in.node_types.push_back(nt);
  }
  const int pairs[4][2] = {{0, 1}, {1, 0}, {2, 0}, {0, 0}};
  for (int e = 0; e < 4; ++e) {
    TypedGraphInput::EdgeType et;
    et.src_type = pairs[e][0];
    et.dst_type = pairs[e][1];
    et.relation = "r" + std::to_string(e);
    for (int k = 0; k < 150; ++k) {
      et.src.push_back(static_cast<int64_t>(rng.Uniform(counts[et.src_type])));
      et.dst.push_back(static_cast<int64_t>(rng.Uniform(counts[et.dst_type])));
    }
    in.edge_types.push_back(et);
  }
  in.target = 0;
  in.labels = Array::Zeros(DType::kInt64, {30});
  in.split = Array::Zeros(DType::kInt8, {30});
  for (int64_t i = 0; i < 30; ++i) {
    in.labels.as<int64_t>()[i] = i % 3;
    in.split.as<int8_t>()[i] = static_cast<int8_t>(i % 3);
  }
  return in;
}

// (dst global id, edge type) -> sorted source global ids, from the edge lists.
std::map<std::pair<int64_t, int>, std::vector<int64_t>> Reference(const TypedGraphInput& in,
                                                                  const std::vector<int64_t>& offsets) {
  std::map<std::pair<int64_t, int>, std::vector<int64_t>> ref;
  for (size_t e = 0; e < in.edge_types.size(); ++e) {
    const auto& et = in.edge_types[e];
    for (size_t i = 0; i < et.src.size(); ++i)
      ref[{offsets[et.dst_type] + et.dst[i], static_cast<int>(e)}].push_back(offsets[et.src_type] + et.src[i]);
  }
  for (auto& kv : ref) std::sort(kv.second.begin(), kv.second.end());
  return ref;
}

}  // namespace

TEST_CASE("typed sampling draws fanouts[t] in-edges of each edge type", "[typed]") {
  TypedGraphInput in = RandomTypedInput(7);
  auto g = TypedInMemoryGraph::Create(in, false);
  REQUIRE(g.ok());
  const auto& graph = **g;
  REQUIRE(graph.num_nodes() == 60);
  REQUIRE(graph.num_edge_types() == 4);
  REQUIRE(graph.type_offsets() == std::vector<int64_t>{0, 30, 50, 60});
  auto ref = Reference(in, graph.type_offsets());
  std::vector<int64_t> seeds;
  for (int64_t v = 0; v < graph.num_nodes(); ++v) seeds.push_back(v);
  const std::vector<int> fanouts{2, -1, 0, 3};
  SampledNeighbors s;
  REQUIRE(graph.num_edges() == 600);
  SampleSpec spec;
  spec.etype_fanouts = fanouts;
  spec.seed = 99;
  REQUIRE((*g)->SampleNeighbors(seeds, spec, &s).ok());
  REQUIRE(s.etypes.size() == s.sources.size());
  for (size_t i = 0; i < seeds.size(); ++i) {
    std::map<int, std::vector<int64_t>> got;
    for (int64_t k = s.indptr[i]; k < s.indptr[i + 1]; ++k) got[s.etypes[k]].push_back(s.sources[k]);
    for (int t = 0; t < 4; ++t) {
      auto it = ref.find({seeds[i], t});
      const std::vector<int64_t> all = it == ref.end() ? std::vector<int64_t>{} : it->second;
      std::vector<int64_t> picked = got[t];
      std::sort(picked.begin(), picked.end());
      const int64_t want = fanouts[t] < 0 ? static_cast<int64_t>(all.size())
                                          : std::min<int64_t>(fanouts[t], static_cast<int64_t>(all.size()));
      CHECK(static_cast<int64_t>(picked.size()) == want);
      // A sub-multiset of the reference in-edges of that type.
      CHECK(std::includes(all.begin(), all.end(), picked.begin(), picked.end()));
      if (fanouts[t] < 0) CHECK(picked == all);
    }
  }
  // Deterministic, and a type's sample does not depend on the other types' fanouts.
  SampledNeighbors again, other;
  REQUIRE((*g)->SampleNeighbors(seeds, spec, &again).ok());
  CHECK(again.sources == s.sources);
  SampleSpec other_spec = spec;
  other_spec.etype_fanouts = {2, 0, 5, 0};
  REQUIRE((*g)->SampleNeighbors(seeds, other_spec, &other).ok());
  for (size_t i = 0; i < seeds.size(); ++i) {
    std::vector<int64_t> a, b;
    for (int64_t k = s.indptr[i]; k < s.indptr[i + 1]; ++k)
      if (s.etypes[k] == 0) a.push_back(s.sources[k]);
    for (int64_t k = other.indptr[i]; k < other.indptr[i + 1]; ++k)
      if (other.etypes[k] == 0) b.push_back(other.sources[k]);
    CHECK(a == b);
  }
}

TEST_CASE("typed row kernel samples each run of one type on its own", "[typed]") {
  const std::vector<uint8_t> etypes{0, 0, 0, 2, 2, 5, 5, 5, 5};
  std::vector<int64_t> pos;
  CHECK(SampleRowByType(etypes.data(), 9, {-1, 7, 1, 0, 0, 2}, false, 5, &pos) == 6);
  REQUIRE(pos.size() == 6);
  CHECK(pos[0] == 0);
  CHECK(pos[2] == 2);
  CHECK((pos[3] == 3 || pos[3] == 4));
  CHECK((pos[4] >= 5 && pos[5] >= 5 && pos[4] != pos[5]));
  pos.clear();
  CHECK(SampleRowByType(etypes.data(), 9, {1}, false, 5, &pos) == 1);  // types beyond the list: none
  CHECK(pos[0] < 3);
}

TEST_CASE("typed mini-batches carry edge types and node types", "[typed]") {
  TypedGraphInput in = RandomTypedInput(11);
  auto g = TypedInMemoryGraph::Create(in, false);
  REQUIRE(g.ok());
  TypedInMemoryGraph* graph = g->get();
  MiniBatchOptions mo;
  mo.fanouts = {3, 4};
  mo.etype_fanouts = {{1, 2, 3, 4}, {2, 2, -1, 1}};
  auto mb = SampleMiniBatch(graph, {0, 5, 7, 29}, mo, 3, 1, 2);
  REQUIRE(mb.ok());
  REQUIRE(mb->input_ntypes.size() == mb->input_nodes.size());
  for (size_t i = 0; i < mb->input_nodes.size(); ++i)
    CHECK(mb->input_ntypes[i] == (mb->input_nodes[i] < 30 ? 0 : mb->input_nodes[i] < 50 ? 1 : 2));
  for (const Block& b : mb->blocks) {
    REQUIRE(static_cast<int64_t>(b.etypes.size()) == b.num_edges());
    for (int64_t d = 0; d < b.num_dst; ++d)
      for (int64_t k = b.indptr[d]; k < b.indptr[d + 1]; ++k) {
        const auto& et = in.edge_types[b.etypes[k]];
        CHECK(mb->input_ntypes[b.indices[k]] == et.src_type);
        CHECK(mb->input_ntypes[d] == et.dst_type);
      }
  }
  // Features: each type's own columns, zero padded; labels -1 off the target.
  auto f = graph->Gather("features", {1, 31, 55});
  REQUIRE(f.ok());
  REQUIRE(f->shape == std::vector<int64_t>{3, 3});
  const float* x = f->as<float>();
  CHECK(x[0] == 2.0f);
  CHECK(x[1] == 3.0f);
  CHECK(x[2] == 0.0f);
  CHECK((x[3] == 0.0f && x[4] == 0.0f && x[5] == 0.0f));
  CHECK(x[6] == 215.0f);
  CHECK(x[8] == 217.0f);
  auto l = graph->Gather("labels", {4, 40});
  REQUIRE(l.ok());
  CHECK(l->as<int64_t>()[0] == 1);
  CHECK(l->as<int64_t>()[1] == -1);
}

TEST_CASE("a merged typed graph samples all in-edges as one type", "[typed]") {
  TypedGraphInput in = RandomTypedInput(3);
  auto g = TypedInMemoryGraph::Create(in, true);
  REQUIRE(g.ok());
  CHECK((*g)->num_edge_types() == 0);
  auto ref = Reference(in, (*g)->type_offsets());
  SampledNeighbors s;
  SampleSpec every_edge;
  every_edge.seed = 1;
  REQUIRE((*g)->SampleNeighbors({0, 3, 35}, every_edge, &s).ok());
  CHECK(s.etypes.empty());
  const std::vector<int64_t> seeds{0, 3, 35};
  for (size_t i = 0; i < 3; ++i) {
    std::vector<int64_t> all;
    for (int t = 0; t < 4; ++t) {
      auto it = ref.find({seeds[i], t});
      if (it != ref.end()) all.insert(all.end(), it->second.begin(), it->second.end());
    }
    std::sort(all.begin(), all.end());
    std::vector<int64_t> got(s.sources.begin() + s.indptr[i], s.sources.begin() + s.indptr[i + 1]);
    std::sort(got.begin(), got.end());
    CHECK(got == all);
  }
}

}  // namespace dg
