#include "common/sampling/negative_sampler.h"

#include <cmath>

namespace dg {

Result<std::shared_ptr<const NegativeSampler>> NegativeSampler::Create(NegativeDistribution distribution,
                                                                       int64_t num_nodes,
                                                                       const std::vector<int64_t>& degrees,
                                                                       const std::string& key) {
  if (num_nodes <= 0) return Status::InvalidArgument(key + ": the graph has no nodes to draw negatives from");
  auto s = std::make_shared<NegativeSampler>();
  s->n_ = num_nodes;
  s->distribution_ = distribution;
  if (distribution == NegativeDistribution::kUniform) return std::shared_ptr<const NegativeSampler>(s);
  if (static_cast<int64_t>(degrees.size()) != num_nodes)
    return Status::InvalidArgument(key + ": degree table has " + std::to_string(degrees.size()) + " entries for " +
                                   std::to_string(num_nodes) + " nodes");
  std::vector<double> w(num_nodes);
  double total = 0;
  for (int64_t i = 0; i < num_nodes; ++i) total += (w[i] = std::pow(static_cast<double>(degrees[i]), 0.75));
  if (total <= 0) return std::shared_ptr<const NegativeSampler>(s);  // all isolated: uniform
  // Walker / Vose alias table.
  s->prob_.assign(num_nodes, 1.0);
  s->alias_.resize(num_nodes);
  s->weight_.resize(num_nodes);
  std::vector<double> scaled(num_nodes);
  std::vector<int64_t> small, large;
  for (int64_t i = 0; i < num_nodes; ++i) {
    s->weight_[i] = w[i] / total;
    scaled[i] = w[i] / total * static_cast<double>(num_nodes);
    s->alias_[i] = i;
    (scaled[i] < 1.0 ? small : large).push_back(i);
  }
  while (!small.empty() && !large.empty()) {
    const int64_t l = small.back(), g = large.back();
    small.pop_back();
    s->prob_[l] = scaled[l];
    s->alias_[l] = g;
    scaled[g] = (scaled[g] + scaled[l]) - 1.0;
    if (scaled[g] < 1.0) {
      large.pop_back();
      small.push_back(g);
    }
  }
  for (int64_t i : large) s->prob_[i] = 1.0;
  for (int64_t i : small) s->prob_[i] = 1.0;
  return std::shared_ptr<const NegativeSampler>(s);
}

double NegativeSampler::Probability(int64_t i) const {
  if (weight_.empty()) return 1.0 / static_cast<double>(n_);
  return weight_[i];
}

int64_t NthInRanges(const IdRanges& ranges, int64_t i) {
  for (const auto& [first, count] : ranges) {
    if (i < count) return first + i;
    i -= count;
  }
  return -1;  // past the end: the callers draw below the total
}

}  // namespace dg
