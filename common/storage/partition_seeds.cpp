#include "common/storage/partition_seeds.h"

#include <sys/stat.h>

#include <algorithm>

#include "common/storage/dataset.h"
#include "common/io/npy.h"

namespace dg {

namespace {

const char* FileOf(int value) { return value == 0 ? "train_nids.npy" : value == 1 ? "val_nids.npy" : "test_nids.npy"; }

int64_t CountOf(const PartInfo& p, int value) { return value == 0 ? p.num_train : value == 1 ? p.num_val : p.num_test; }

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

bool HasPartSeeds(const PartitionConfig& c) {
  if (c.num_classes <= 0) return false;
  for (const PartInfo& p : c.parts)
    if (p.num_val < 0 || p.num_test < 0) return false;
  return true;
}

Status RequirePartSeeds(const PartitionConfig& c) {
  if (HasPartSeeds(c)) return Status::OK();
  return Status::InvalidArgument(c.path + ": the partition has no per-part seed files (partN/train_nids.npy, "
                                 "val_nids.npy, test_nids.npy) or no num_classes; it was written by an older "
                                 "distgnn: re-partition the dataset with `distgnn partition`");
}

Result<std::vector<int64_t>> PartSeedSlice(const PartitionConfig& c, int value, int world, int rank, bool even,
                                           const PullSplitFn& pull_split) {
  int64_t total = 0;
  for (const PartInfo& p : c.parts) total += CountOf(p, value);
  const int64_t base = total / world, rem = total % world;
  const int64_t begin = even ? rank * base : rank * base + std::min<int64_t>(rank, rem);
  const int64_t count = even ? base : base + (rank < rem ? 1 : 0);
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(count));
  int64_t off = 0;  // position of part p's first id in the global list
  for (int p = 0; p < c.num_parts && static_cast<int64_t>(out.size()) < count; ++p) {
    const int64_t n = CountOf(c.parts[p], value);
    const int64_t lo = std::max(begin, off), hi = std::min(begin + count, off + n);
    if (lo < hi) {
      const std::string path = c.PartDir(p) + "/" + FileOf(value);
      if (Exists(path)) {
        DG_ASSIGN_OR_RETURN(Array ids, NpyMap(path));
        if (ids.dtype != DType::kInt64 || ids.shape != std::vector<int64_t>{n})
          return Status::Corruption(path + ": expected int64 [" + std::to_string(n) + "] (NAME.json's count)");
        out.insert(out.end(), ids.as<int64_t>() + (lo - off), ids.as<int64_t>() + (hi - off));
      } else {
        DG_ASSIGN_OR_RETURN(Array split, pull_split(c.node_map[p], c.node_map[p + 1]));
        DG_ASSIGN_OR_RETURN(std::vector<int64_t> local, NodesWithSplit(split, value));
        if (static_cast<int64_t>(local.size()) != n)
          return Status::Corruption(c.path + ": part " + std::to_string(p) + " has " + std::to_string(local.size()) +
                                    " nodes with split " + std::to_string(value) + ", NAME.json says " +
                                    std::to_string(n));
        for (int64_t i = lo - off; i < hi - off; ++i) out.push_back(c.node_map[p] + local[i]);
      }
    }
    off += n;
  }
  return out;
}

}  // namespace dg
