// LSD radix sort of unsigned 64-bit keys, in place (uses a scratch buffer of
// the same size). Only the bytes below `key_bits` are sorted on, so keys must be
// < 2^key_bits. Used to dedupe edge lists packed as (src << k) | dst: far faster
// than std::sort at tens of millions of keys, and no per-edge objects.
#pragma once

#include <cstdint>
#include <vector>

namespace dg {

void RadixSortU64(std::vector<uint64_t>* keys, int key_bits);

}  // namespace dg
