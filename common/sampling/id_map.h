// IdMap: global node id -> local index (the relabelling of DGL's to_block).
//
// Open addressing with linear probing over one power-of-two array of
// (id, index) pairs kept at most half full: one cache miss per lookup and no
// allocation per entry, several times faster than std::unordered_map on the
// hundreds of thousands of ids a mini-batch block relabels. Ids must be >= 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dg {

class IdMap {
 public:
  explicit IdMap(size_t expected_ids = 0);

  // The local index of `id`; a new id gets `index_if_new` and *inserted = true.
  int64_t Insert(int64_t id, int64_t index_if_new, bool* inserted);
  size_t size() const { return size_; }
  // Starts loading the slot where `id` would be (a lookup soon after hits cache).
  void Prefetch(int64_t id) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[SlotOf(id)]);
  }

 private:
  struct Slot {
    int64_t id = -1;  // -1 = empty
    int64_t index = 0;
  };
  void Rehash(size_t capacity);
  size_t SlotOf(int64_t id) const {
    return static_cast<size_t>((static_cast<uint64_t>(id) * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  std::vector<Slot> slots_;
  int shift_ = 64;
  size_t size_ = 0;
};

}  // namespace dg
