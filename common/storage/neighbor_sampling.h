// The neighbor-sampling kernel shared by the server (SAMPLE_NEIGHBORS) and the
// in-process sampler, so that local and distributed runs draw identical samples.
//
// The settings of one hop are a SampleSpec (common/base/sample_spec.h).
//
// Determinism contract: the sample of node `gid` depends only on
// (request_seed, gid, its CSR row, fanout, replace, weights) -- never on which
// server, thread, batch order or other seeds -- because each row seeds its own
// generator with MixSeed(request_seed, gid).
//
// Uniform without replacement uses Floyd's algorithm (O(fanout) time and memory,
// no shuffle of the neighbor list). fanout < 0 or fanout >= degree (without
// replacement) returns the whole row in CSR order. Weighted sampling is
// probability-proportional-to-weight: with replacement by inverse-CDF draws,
// without replacement by Efraimidis-Spirakis keys (A-Res).
#pragma once

#include <cstdint>
#include <vector>

#include "common/base/sample_spec.h"

namespace dg {

// splitmix64: a tiny, fast, well-mixed generator; fine for sampling, not crypto.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n), n > 0 (Lemire's multiply-shift; bias < 2^-64 * n).
  uint64_t Uniform(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64);
  }
  // Uniform in [0, 1).
  double UniformDouble() { return (Next() >> 11) * (1.0 / 9007199254740992.0); }

 private:
  uint64_t state_;
};

inline uint64_t MixSeed(uint64_t a, uint64_t b) {
  Rng r(a ^ (b * 0xD1B54A32D192ED03ull + 0x8CB92BA72F3D8DD7ull));
  r.Next();
  return r.Next();
}

// Positions (offsets in [0, degree)) of the sampled neighbors of one row,
// appended to *out. Returns how many were appended.
int64_t SampleRowUniform(int64_t degree, int64_t fanout, bool replace, uint64_t row_seed,
                         std::vector<int64_t>* out);
// Same, probability proportional to weights[0..degree). Zero-weight neighbors are
// never chosen; a row whose weights are all zero yields nothing.
int64_t SampleRowWeighted(const float* weights, int64_t degree, int64_t fanout, bool replace,
                          uint64_t row_seed, std::vector<int64_t>* out);

// Typed graphs (DGL's sample_etype_neighbors): etypes[0..degree) is the edge
// type of each in-edge of the row, grouped by type (each type's edges
// contiguous, as typed partitions and TypedInMemoryGraph store them). Each
// type t's group is sampled on its own with fanouts[t] (as SampleRowUniform:
// < 0 = all, 0 = none; a type >= fanouts.size() gets none) and the row seed
// MixSeed(row_seed, t), so a type's sample does not depend on the others'.
// Positions are appended in row order of the groups. Returns how many were
// appended; a row whose types are not grouped is sampled group by group all
// the same (every maximal run is a group; the same type in two runs draws the
// same seed).
int64_t SampleRowByType(const uint8_t* etypes, int64_t degree, const std::vector<int>& fanouts, bool replace,
                        uint64_t row_seed, std::vector<int64_t>* out);

// One row as `spec` asks (the one entry every sampler calls: the partition
// store, the in-memory graphs): spec.typed() samples by edge type (etypes must
// then be given), else weights (non-null when spec.weight_name names them)
// weight the draws, else uniform; the row seed is MixSeed(spec.seed, gid).
// Positions in [0, degree) are appended to *out; returns how many.
int64_t SampleRow(const SampleSpec& spec, int64_t gid, int64_t degree, const float* weights, const uint8_t* etypes,
                  std::vector<int64_t>* out);

}  // namespace dg
