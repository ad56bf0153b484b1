// A random in-memory graph for trainer tests: n nodes, n * degree uniform
// random edges, float features in [0, 1) plus 1.0 at column `label` (so labels
// are learnable from features), and, with classes > 0, int64 labels.
#pragma once

#include <catch2/catch.hpp>

#include <memory>

#include "common/sampling/in_memory_graph.h"
#include "common/storage/neighbor_sampling.h"

namespace dg::test {

inline std::unique_ptr<InMemoryGraph> RandomGraph(int64_t n, int64_t dim, int64_t classes, int64_t degree,
                                                  uint64_t seed) {
  Rng rng(seed);
  std::vector<int64_t> src, dst;
  for (int64_t e = 0; e < n * degree; ++e) {
    src.push_back(static_cast<int64_t>(rng.Uniform(n)));
    dst.push_back(static_cast<int64_t>(rng.Uniform(n)));
  }
  Array feat = Array::Zeros(DType::kFloat32, {n, dim});
  Array labels = Array::Zeros(DType::kInt64, {n});
  for (int64_t i = 0; i < n; ++i) {
    const int64_t label = classes > 0 ? static_cast<int64_t>(rng.Uniform(classes)) : -1;
    labels.as<int64_t>()[i] = label;
    for (int64_t j = 0; j < dim; ++j)
      feat.as<float>()[i * dim + j] = static_cast<float>(rng.UniformDouble()) + (j == label ? 1.0f : 0.0f);
  }
  std::map<std::string, Array> data{{"features", feat}};
  if (classes > 0) data.emplace("labels", labels);
  auto g = InMemoryGraph::FromEdges(n, src, dst, std::move(data));
  REQUIRE(g.ok());
  return std::move(g).value();
}

}  // namespace dg::test
