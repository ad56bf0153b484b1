// Seeded random orders for the partitioners: a Fisher-Yates shuffle over Rng,
// the same draws wherever it runs, so every seeded order (random parts,
// generated graphs' relabelling, the sweeps of label propagation and of the
// stream) is repeatable for the same seed.
#pragma once

#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "common/storage/neighbor_sampling.h"

namespace dg {

// Shuffles *v in place with rng's next draws.
inline void Shuffle(std::vector<int64_t>* v, Rng* rng) {
  for (int64_t i = static_cast<int64_t>(v->size()) - 1; i > 0; --i)
    std::swap((*v)[i], (*v)[rng->Uniform(static_cast<uint64_t>(i) + 1)]);
}

// 0 .. n-1 in the order of a shuffle seeded with `seed`.
inline std::vector<int64_t> Permutation(int64_t n, uint64_t seed) {
  std::vector<int64_t> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), int64_t{0});
  Rng rng(seed);
  Shuffle(&p, &rng);
  return p;
}

}  // namespace dg
