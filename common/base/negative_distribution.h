// The distribution link prediction draws negative destinations from
// (train.negative.distribution; common/sampling/negative_sampler.h draws them).
// Its spelling ("uniform", "degree") is config/'s: Name/Parse in train_spec.h.
#pragma once

namespace dg {

enum class NegativeDistribution {
  kUniform,  // every candidate alike
  kDegree,   // in-degree^0.75 (word2vec / DGL's "degree")
};

}  // namespace dg
