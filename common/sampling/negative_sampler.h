// Negative destinations for link prediction.
//
// Contract: Draw(rng) returns a node id in [0, num_nodes) with probability
//   uniform:  1 / num_nodes
//   degree:   deg(i)^0.75 / sum_j deg(j)^0.75   (word2vec / DGL's "degree" sampler)
// using Walker's alias method (O(1) per draw, O(N) table). The draws depend only
// on the generator's state, so every process that seeds it alike draws alike
// (train-local, in-process and sampler-process batches are identical). A degree
// table whose weights are all zero falls back to uniform.
//
// NthInRanges maps a draw to a node id when the candidates are not one
// contiguous range: a typed partition's destination type is one range
// (first, count) per part, and draw i is the i-th id of the ranges in order.
// Torch-free.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/storage/neighbor_sampling.h"
#include "common/base/negative_distribution.h"
#include "common/base/status.h"

namespace dg {

class NegativeSampler {
 public:
  // `degrees` (one per node) is read only for kDegree; errors name `key`.
  static Result<std::shared_ptr<const NegativeSampler>> Create(NegativeDistribution distribution, int64_t num_nodes,
                                                               const std::vector<int64_t>& degrees,
                                                               const std::string& key = "negative.distribution");
  int64_t num_nodes() const { return n_; }
  NegativeDistribution distribution() const { return distribution_; }
  int64_t Draw(Rng& rng) const {
    const uint64_t i = rng.Uniform(static_cast<uint64_t>(n_));
    if (prob_.empty()) return static_cast<int64_t>(i);
    return rng.UniformDouble() < prob_[i] ? static_cast<int64_t>(i) : alias_[i];
  }
  // The probability of node i (for tests).
  double Probability(int64_t i) const;

 private:
  int64_t n_ = 0;
  NegativeDistribution distribution_ = NegativeDistribution::kUniform;
  std::vector<double> prob_;     // empty = uniform
  std::vector<int64_t> alias_;
  std::vector<double> weight_;   // normalized, for Probability
};

using IdRanges = std::vector<std::pair<int64_t, int64_t>>;  // (first id, count) per range

// The i-th id of `ranges` concatenated; i in [0, total count).
int64_t NthInRanges(const IdRanges& ranges, int64_t i);

}  // namespace dg
