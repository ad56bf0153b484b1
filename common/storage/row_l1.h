// The mean L1 size of feature rows: what the default learning rate reads
// (config/default_lr.h). All-zero rows are left out: they are a typed graph's
// padding for its featureless types, or nodes without features.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <string>

#include "common/base/array.h"

namespace dg {

// `count` ids spread evenly over [0, n) (all of them when n <= count), so a
// sample of a large matrix's rows costs the same on every graph.
std::vector<int64_t> EvenlySpacedIds(int64_t n, int64_t count);

struct RowL1Mean {
  double sum = 0;
  int64_t rows = 0;
  // Adds rows[ids] (2-d, any numeric dtype); ids out of range are skipped.
  void Add(const Array& matrix, const std::vector<int64_t>& ids);
  // Adds every row of `matrix`.
  void AddAll(const Array& matrix);
  // nullopt when no row had a non-zero entry.
  std::optional<double> Mean() const;
};

}  // namespace dg

namespace dg {

// The mean L1 size of a dataset directory's feature rows (train-local's
// --dataset): features.npy[.gz] of a homogeneous one, every
// nodes/<type>/features.npy[.gz] of a typed one; kRowL1SampleRows evenly
// spaced rows of each matrix. nullopt: no feature rows.
Result<std::optional<double>> DatasetRowL1(const std::string& dir, int64_t sample_rows);

}  // namespace dg
