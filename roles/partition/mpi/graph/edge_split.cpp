#include "roles/partition/mpi/graph/edge_split.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "common/io/npy.h"

namespace dg::mpi {

namespace {

// splitmix64's finalizer: a bijection of 64-bit values.
uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

struct UnitKeys {
  uint64_t salt = 0, n = 0;
  bool undirected = false;
  uint64_t operator()(const Edge& e) const {
    uint64_t u = static_cast<uint64_t>(e.src), v = static_cast<uint64_t>(e.dst);
    if (undirected && u > v) std::swap(u, v);
    return Mix((u * n + v) ^ salt);  // u * n + v wraps only past N^2 >= 2^64
  }
};

// The k-th smallest (from 0) of the keys all ranks hold (sorted, distinct).
uint64_t KeyAt(const Rank& r, const std::vector<uint64_t>& keys, int64_t k) {
  uint64_t lo = 0, hi = ~uint64_t{0};
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    const int64_t at_most = std::upper_bound(keys.begin(), keys.end(), mid) - keys.begin();
    if (SumAll(r, at_most) >= k + 1) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// Split of a unit key: 0 train, 1 val, 2 test. all_*: the class takes every key left.
struct Bounds {
  bool all_train = false, all_val = false;
  uint64_t train = 0, val = 0;  // keys below `train` are train, below `val` val
  int Of(uint64_t key) const {
    if (all_train || key < train) return 0;
    return all_val || key < val ? 1 : 2;
  }
};

Bounds FindBounds(const Rank& r, const LinkSplitOptions& o, const UnitKeys& key, int64_t batch,
                  const std::vector<Edge>& edges) {
  std::vector<uint64_t> keys;  // distinct unit keys, spread over ranks by key
  AllToAll<uint64_t>(r, static_cast<int64_t>(edges.size()), batch, [&](int64_t i, auto send) {
    const uint64_t k = key(edges[i]);
    send(static_cast<int>(k % static_cast<uint64_t>(r.size)), k);
  }, &keys);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  const int64_t n = SumAll(r, static_cast<int64_t>(keys.size()));
  const int64_t n_train = std::min<int64_t>(n, std::llround(o.fractions[0] * static_cast<double>(n)));
  const int64_t n_val = std::min<int64_t>(n - n_train, std::llround(o.fractions[1] * static_cast<double>(n)));
  Bounds b;
  b.all_train = n_train == n;
  if (!b.all_train) b.train = KeyAt(r, keys, n_train);
  b.all_val = n_train + n_val == n;
  if (!b.all_val) b.val = KeyAt(r, keys, n_train + n_val);
  return b;
}

}  // namespace

HeldOut SplitShards(const Rank& r, const LinkSplitOptions& o, int64_t batch, std::vector<Edge>* edges,
                    std::vector<int64_t>* origins) {
  UnitKeys key;
  key.salt = Mix(o.seed * 0x9E3779B97F4A7C15ull + 0xed9e);
  key.n = static_cast<uint64_t>(o.num_nodes);
  key.undirected = o.undirected;
  const Bounds bounds = FindBounds(r, o, key, batch, *edges);
  HeldOut held;
  size_t kept = 0;
  for (size_t i = 0; i < edges->size(); ++i) {
    const Edge& e = (*edges)[i];
    const int split = bounds.Of(key(e));
    if (split == 1) held.val.push_back(e);
    if (split == 2) held.test.push_back(e);
    if (split != 0) continue;
    if (origins) (*origins)[kept] = (*origins)[i];
    (*edges)[kept++] = e;
  }
  edges->resize(kept);
  if (origins) origins->resize(kept);
  const int64_t mine = static_cast<int64_t>(kept);
  const int64_t first = ExclusiveScan(r, mine);  // train ids: positions in the train list
  for (size_t i = 0; i < kept; ++i) (*edges)[i].id = first + static_cast<int64_t>(i);
  held.num_train = SumAll(r, mine);
  held.num_val = SumAll(r, static_cast<int64_t>(held.val.size()));
  held.num_test = SumAll(r, static_cast<int64_t>(held.test.size()));
  return held;
}

Status WriteHeldOutEdges(const std::string& part_dir, const Edge* val, int64_t num_val, const Edge* test,
                         int64_t num_test) {
  for (const auto& [which, e, m] : {std::make_tuple("val", val, num_val), std::make_tuple("test", test, num_test)}) {
    Array a = Array::Zeros(DType::kInt64, {m, 2});
    for (int64_t i = 0; i < m; ++i) {
      a.as<int64_t>()[2 * i] = e[i].src;
      a.as<int64_t>()[2 * i + 1] = e[i].dst;
    }
    DG_RETURN_IF_ERROR(NpyWrite(part_dir + "/" + which + "_edges.npy", a));
  }
  return Status::OK();
}

}  // namespace dg::mpi
