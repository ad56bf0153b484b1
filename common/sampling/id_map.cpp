#include "common/sampling/id_map.h"

namespace dg {

IdMap::IdMap(size_t expected_ids) {
  size_t capacity = 16;
  while (capacity < 2 * expected_ids) capacity *= 2;
  Rehash(capacity);
}

void IdMap::Rehash(size_t capacity) {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(capacity, Slot());
  shift_ = 64;
  for (size_t c = capacity; c > 1; c /= 2) --shift_;
  const size_t mask = capacity - 1;
  for (const Slot& s : old) {
    if (s.id < 0) continue;
    size_t i = SlotOf(s.id);
    while (slots_[i].id >= 0) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

int64_t IdMap::Insert(int64_t id, int64_t index_if_new, bool* inserted) {
  if (2 * (size_ + 1) > slots_.size()) Rehash(2 * slots_.size());
  const size_t mask = slots_.size() - 1;
  size_t i = SlotOf(id);
  while (true) {
    Slot& s = slots_[i];
    if (s.id == id) {
      *inserted = false;
      return s.index;
    }
    if (s.id < 0) {
      s.id = id;
      s.index = index_if_new;
      ++size_;
      *inserted = true;
      return s.index;
    }
    i = (i + 1) & mask;
  }
}

}  // namespace dg
