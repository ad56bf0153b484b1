#include "common/base/radix_sort.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace dg {

void RadixSortU64(std::vector<uint64_t>* keys, int key_bits) {
  const size_t n = keys->size();
  if (n < 2) return;
  if (key_bits < 1) key_bits = 1;
  if (key_bits > 64) key_bits = 64;
  // 11-bit digits: 2048 counters stay in L1, and 40-bit keys need 4 passes.
  constexpr int kBits = 11;
  constexpr size_t kBuckets = size_t{1} << kBits;
  int passes = (key_bits + kBits - 1) / kBits;
  std::vector<uint64_t> tmp(n);
  uint64_t* src = keys->data();
  uint64_t* dst = tmp.data();
  std::vector<size_t> count(kBuckets);
  for (int pass = 0; pass < passes; ++pass) {
    int shift = pass * kBits;
    std::fill(count.begin(), count.end(), 0);
    for (size_t i = 0; i < n; ++i) ++count[(src[i] >> shift) & (kBuckets - 1)];
    if (count[(src[0] >> shift) & (kBuckets - 1)] == n) continue;  // all in one bucket
    size_t sum = 0;
    for (size_t b = 0; b < kBuckets; ++b) {
      size_t c = count[b];
      count[b] = sum;
      sum += c;
    }
    for (size_t i = 0; i < n; ++i) dst[count[(src[i] >> shift) & (kBuckets - 1)]++] = src[i];
    std::swap(src, dst);
  }
  if (src != keys->data()) std::memcpy(keys->data(), src, n * sizeof(uint64_t));
}

}  // namespace dg
