#include "common/storage/neighbor_sampling.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <unordered_set>
#include <utility>

namespace dg {

int64_t SampleRowUniform(int64_t degree, int64_t fanout, bool replace, uint64_t row_seed,
                         std::vector<int64_t>* out) {
  if (degree <= 0 || fanout == 0) return 0;
  if (fanout < 0 || (!replace && fanout >= degree)) {
    for (int64_t i = 0; i < degree; ++i) out->push_back(i);
    return degree;
  }
  Rng rng(row_seed);
  const size_t start = out->size();
  if (replace) {
    for (int64_t i = 0; i < fanout; ++i) out->push_back(static_cast<int64_t>(rng.Uniform(degree)));
    return fanout;
  }
  // Floyd: for j in [degree-fanout, degree): pick t in [0, j]; take t unless
  // already taken, else take j. Every fanout-subset is equally likely. The
  // membership test is a linear scan: fanouts are small (tens).
  // Large fanouts use a hash set for the same test (same draws, same result),
  // so the work stays O(fanout) whatever a request asks for.
  if (fanout <= 64) {
    for (int64_t j = degree - fanout; j < degree; ++j) {
      int64_t t = static_cast<int64_t>(rng.Uniform(static_cast<uint64_t>(j) + 1));
      bool taken = std::find(out->begin() + start, out->end(), t) != out->end();
      out->push_back(taken ? j : t);
    }
    return fanout;
  }
  std::unordered_set<int64_t> seen;
  seen.reserve(static_cast<size_t>(fanout) * 2);
  for (int64_t j = degree - fanout; j < degree; ++j) {
    int64_t t = static_cast<int64_t>(rng.Uniform(static_cast<uint64_t>(j) + 1));
    int64_t pick = seen.count(t) ? j : t;
    seen.insert(pick);
    out->push_back(pick);
  }
  return fanout;
}

int64_t SampleRowWeighted(const float* weights, int64_t degree, int64_t fanout, bool replace,
                          uint64_t row_seed, std::vector<int64_t>* out) {
  if (degree <= 0 || fanout == 0) return 0;
  int64_t positive = 0;
  double total = 0;
  for (int64_t i = 0; i < degree; ++i) {
    if (weights[i] > 0) {
      ++positive;
      total += weights[i];
    }
  }
  if (positive == 0) return 0;
  if (fanout < 0 || (!replace && fanout >= positive)) {
    for (int64_t i = 0; i < degree; ++i)
      if (weights[i] > 0) out->push_back(i);
    return positive;
  }
  Rng rng(row_seed);
  if (replace) {
    // Inverse CDF over a prefix sum; rows are short, so a linear prefix is fine.
    std::vector<double> cdf(degree);
    double acc = 0;
    for (int64_t i = 0; i < degree; ++i) cdf[i] = (acc += std::max(0.0f, weights[i]));
    for (int64_t k = 0; k < fanout; ++k) {
      double u = rng.UniformDouble() * total;
      int64_t i = std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
      if (i >= degree) i = degree - 1;
      while (weights[i] <= 0) --i;  // u landed exactly on a zero-width step
      out->push_back(i);
    }
    return fanout;
  }
  // A-Res: key_i = u^(1/w_i); keep the fanout largest keys (min-heap).
  using Item = std::pair<double, int64_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
  for (int64_t i = 0; i < degree; ++i) {
    if (weights[i] <= 0) continue;
    double u = rng.UniformDouble();
    double key = std::log(u > 0 ? u : 1e-300) / weights[i];  // log of u^(1/w), monotone
    if (static_cast<int64_t>(heap.size()) < fanout) {
      heap.emplace(key, i);
    } else if (key > heap.top().first) {
      heap.pop();
      heap.emplace(key, i);
    }
  }
  std::vector<int64_t> picked;
  while (!heap.empty()) {
    picked.push_back(heap.top().second);
    heap.pop();
  }
  std::sort(picked.begin(), picked.end());
  out->insert(out->end(), picked.begin(), picked.end());
  return static_cast<int64_t>(picked.size());
}

int64_t SampleRowByType(const uint8_t* etypes, int64_t degree, const std::vector<int>& fanouts, bool replace,
                        uint64_t row_seed, std::vector<int64_t>* out) {
  int64_t appended = 0;
  for (int64_t begin = 0; begin < degree;) {
    const uint8_t t = etypes[begin];
    int64_t end = begin + 1;
    while (end < degree && etypes[end] == t) ++end;
    const int fanout = t < fanouts.size() ? fanouts[t] : 0;
    const size_t first = out->size();
    appended += SampleRowUniform(end - begin, fanout, replace, MixSeed(row_seed, t), out);
    for (size_t i = first; i < out->size(); ++i) (*out)[i] += begin;
    begin = end;
  }
  return appended;
}

int64_t SampleRow(const SampleSpec& spec, int64_t gid, int64_t degree, const float* weights, const uint8_t* etypes,
                  std::vector<int64_t>* out) {
  const uint64_t row_seed = MixSeed(spec.seed, static_cast<uint64_t>(gid));
  if (spec.typed()) return SampleRowByType(etypes, degree, spec.etype_fanouts, spec.replace, row_seed, out);
  if (weights) return SampleRowWeighted(weights, degree, spec.fanout, spec.replace, row_seed, out);
  return SampleRowUniform(degree, spec.fanout, spec.replace, row_seed, out);
}

}  // namespace dg
