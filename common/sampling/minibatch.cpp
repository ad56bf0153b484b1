#include "common/sampling/minibatch.h"

#include <algorithm>
#include <chrono>

#include "common/sampling/id_map.h"
#include "common/storage/neighbor_sampling.h"

namespace dg {

uint64_t SamplingSeed(uint64_t job_seed, int64_t epoch, int64_t batch_index, int layer) {
  return MixSeed(MixSeed(job_seed, static_cast<uint64_t>(epoch)),
                 static_cast<uint64_t>(batch_index) * 16 + static_cast<uint64_t>(layer));
}

namespace {

// Graphs up to this many nodes relabel through a per-thread array indexed by
// global id (8 bytes per node: 64 MB at the limit): one access that usually
// hits L2, where the hash map (IdMap) takes a miss per edge into a table
// sized by the block. Larger graphs use the hash map.
constexpr int64_t kDenseRelabelMaxNodes = int64_t{1} << 23;

// Per-thread id -> local index table; an entry is valid when its stamp is the
// current block's, so nothing is cleared between blocks.
struct DenseRelabel {
  struct Slot {
    uint32_t stamp = 0;
    uint32_t index = 0;
  };
  std::vector<Slot> slots;
  uint32_t stamp = 0;

  void Begin(int64_t num_nodes) {
    if (static_cast<int64_t>(slots.size()) < num_nodes) slots.resize(static_cast<size_t>(num_nodes));
    if (++stamp == 0) {  // wrapped: forget every old stamp
      std::fill(slots.begin(), slots.end(), Slot());
      stamp = 1;
    }
  }
  void Prefetch(int64_t id) const { __builtin_prefetch(&slots[static_cast<size_t>(id)]); }
  int64_t Insert(int64_t id, int64_t index_if_new, bool* inserted) {
    Slot& s = slots[static_cast<size_t>(id)];
    *inserted = s.stamp != stamp;
    if (*inserted) {
      s.stamp = stamp;
      s.index = static_cast<uint32_t>(index_if_new);
    }
    return s.index;
  }
};

// to_block with any id -> index map offering Insert(id, index_if_new, &inserted).
template <typename Map>
Block BuildBlockWith(Map* local, const std::vector<int64_t>& dst_nodes, const SampledNeighbors& sampled,
                     std::vector<int64_t>* src_nodes) {
  Block block;
  block.num_dst = static_cast<int64_t>(dst_nodes.size());
  src_nodes->assign(dst_nodes.begin(), dst_nodes.end());
  bool inserted = false;
  for (int64_t i = 0; i < block.num_dst; ++i) local->Insert(dst_nodes[i], i, &inserted);
  block.indptr.assign(sampled.indptr.begin(), sampled.indptr.end());
  block.etypes.assign(sampled.etypes.begin(), sampled.etypes.end());
  block.indices.resize(sampled.sources.size());
  // Sources are random ids: their slots are cache misses, so load them ahead.
  constexpr size_t kAhead = 16;
  const size_t num_sources = sampled.sources.size();
  for (size_t e = 0; e < num_sources; ++e) {
    if (e + kAhead < num_sources) local->Prefetch(sampled.sources[e + kAhead]);
    const int64_t gid = sampled.sources[e];
    block.indices[e] = local->Insert(gid, static_cast<int64_t>(src_nodes->size()), &inserted);
    if (inserted) src_nodes->push_back(gid);
  }
  block.num_src = static_cast<int64_t>(src_nodes->size());
  return block;
}

// Stable partition of the sources after the first num_dst by owning
// partition; block indices follow their sources.
void GroupNewSourcesByOwner(const std::vector<int64_t>& offsets, Block* block, std::vector<int64_t>* src) {
  const int parts = static_cast<int>(offsets.size()) - 1;
  const int64_t nd = block->num_dst, extra = static_cast<int64_t>(src->size()) - nd;
  if (parts < 2 || extra < 2) return;
  // Bad ids land in the first or last group; whoever reads their rows rejects them.
  auto owner = [&](int64_t gid) {
    if (parts <= 8) {  // a few comparisons beat a binary search
      int p = 0;
      while (p + 1 < parts && gid >= offsets[p + 1]) ++p;
      return p;
    }
    int p = static_cast<int>(std::upper_bound(offsets.begin(), offsets.end(), gid) - offsets.begin()) - 1;
    return std::min(std::max(p, 0), parts - 1);
  };
  thread_local std::vector<int32_t> owners;
  thread_local std::vector<int64_t> new_index, grouped;
  owners.resize(static_cast<size_t>(extra));
  std::vector<int64_t> next(static_cast<size_t>(parts) + 1, 0);
  bool sorted = true;
  for (int64_t i = 0; i < extra; ++i) {
    owners[i] = owner((*src)[nd + i]);
    sorted = sorted && (i == 0 || owners[i] >= owners[i - 1]);
    ++next[owners[i] + 1];
  }
  if (sorted) return;
  next[0] = nd;
  for (int p = 0; p < parts; ++p) next[p + 1] += next[p];
  new_index.resize(static_cast<size_t>(extra));
  grouped.resize(src->size());
  std::copy(src->begin(), src->begin() + nd, grouped.begin());
  for (int64_t i = 0; i < extra; ++i) {
    const int64_t at = next[owners[i]]++;
    new_index[i] = at;
    grouped[at] = (*src)[nd + i];
  }
  for (int64_t& idx : block->indices)
    if (idx >= nd) idx = new_index[idx - nd];
  src->swap(grouped);
}

bool IdsBelow(const std::vector<int64_t>& ids, int64_t n) {
  for (int64_t id : ids)
    if (id < 0 || id >= n) return false;
  return true;
}

}  // namespace

Status NeighborSource::NodeTypes(const std::vector<int64_t>&, std::vector<int64_t>*) {
  return Status::InvalidArgument("node types of a graph without node types");
}

Block BuildBlock(const std::vector<int64_t>& dst_nodes, const SampledNeighbors& sampled,
                 std::vector<int64_t>* src_nodes, int64_t num_nodes, const std::vector<int64_t>* owner_offsets) {
  DG_CHECK(static_cast<int64_t>(sampled.indptr.size()) == static_cast<int64_t>(dst_nodes.size()) + 1);
  const size_t total = dst_nodes.size() + sampled.sources.size();
  Block block;
  if (num_nodes > 0 && num_nodes <= kDenseRelabelMaxNodes && total < (size_t{1} << 31) &&
      IdsBelow(dst_nodes, num_nodes) && IdsBelow(sampled.sources, num_nodes)) {
    thread_local DenseRelabel dense;
    dense.Begin(num_nodes);
    block = BuildBlockWith(&dense, dst_nodes, sampled, src_nodes);
  } else {
    IdMap local(dst_nodes.size() + sampled.sources.size() / 2);
    block = BuildBlockWith(&local, dst_nodes, sampled, src_nodes);
  }
  if (owner_offsets != nullptr) GroupNewSourcesByOwner(*owner_offsets, &block, src_nodes);
  return block;
}

Status SampleBlocksDownTo(NeighborSource* source, const std::vector<int64_t>& seeds, const MiniBatchOptions& options,
                          uint64_t job_seed, int64_t epoch, int64_t batch_index, int lowest_layer, MiniBatch* mb,
                          std::vector<int64_t>* frontier) {
  if (options.fanouts.empty()) return Status::InvalidArgument("fanouts: empty (need one per layer)");
  mb->epoch = epoch;
  mb->batch_index = batch_index;
  mb->seeds = seeds;
  const int num_layers = static_cast<int>(options.fanouts.size());
  mb->blocks.resize(num_layers);
  std::vector<int64_t>& dst = *frontier;
  dst = seeds;
  std::vector<int64_t> src;
  SampledNeighbors sampled;
  const int num_etypes = source->num_edge_types();
  const LayeredSampleSpec& layers = options;
  if (!options.etype_fanouts.empty() && static_cast<int>(options.etype_fanouts.size()) != num_layers)
    return Status::InvalidArgument("etype fanouts: " + std::to_string(options.etype_fanouts.size()) +
                                   " layers, fanouts have " + std::to_string(num_layers));
  for (int layer = num_layers - 1; layer >= lowest_layer; --layer) {
    uint64_t seed = SamplingSeed(job_seed, epoch, batch_index, layer);
    sampled.indptr.clear();
    sampled.sources.clear();
    sampled.etypes.clear();
    SampleSpec spec = layers.At(layer, seed);
    if (num_etypes > 0 && !spec.typed()) spec.etype_fanouts.assign(num_etypes, spec.fanout);
    DG_RETURN_IF_ERROR(source->SampleNeighbors(dst, spec, &sampled));
    mb->blocks[layer] = BuildBlock(dst, sampled, &src, source->num_nodes(), &options.owner_offsets);
    dst.swap(src);
  }
  return Status::OK();
}

Result<MiniBatch> SampleMiniBatch(NeighborSource* source, const std::vector<int64_t>& seeds,
                                  const MiniBatchOptions& options, uint64_t job_seed,
                                  int64_t epoch, int64_t batch_index) {
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  MiniBatch mb;
  std::vector<int64_t> dst;
  DG_RETURN_IF_ERROR(SampleBlocksDownTo(source, seeds, options, job_seed, epoch, batch_index, 0, &mb, &dst));
  mb.input_nodes = std::move(dst);
  if (source->num_edge_types() > 0) DG_RETURN_IF_ERROR(source->NodeTypes(mb.input_nodes, &mb.input_ntypes));
  auto t1 = Clock::now();
  if (!options.feature_name.empty()) {
    DG_ASSIGN_OR_RETURN(mb.features, source->Gather(options.feature_name, mb.input_nodes));
  }
  if (!options.label_name.empty()) {
    DG_ASSIGN_OR_RETURN(mb.labels, source->Gather(options.label_name, mb.seeds));
  }
  mb.sample_seconds = std::chrono::duration<double>(t1 - t0).count();
  mb.gather_seconds = std::chrono::duration<double>(Clock::now() - t1).count();
  return mb;
}

std::vector<int64_t> EpochOrder(const std::vector<int64_t>& seeds, bool shuffle,
                                uint64_t job_seed, int64_t epoch) {
  std::vector<int64_t> order = seeds;
  if (!shuffle) return order;
  Rng rng(MixSeed(job_seed, static_cast<uint64_t>(epoch)) ^ 0x5bd1e995ull);
  for (size_t i = order.size(); i > 1; --i) {
    size_t j = static_cast<size_t>(rng.Uniform(i));
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

int64_t NumBatches(int64_t num_seeds, int64_t batch_size) {
  if (batch_size <= 0) return 0;
  return (num_seeds + batch_size - 1) / batch_size;
}

std::vector<int64_t> BatchSeeds(const std::vector<int64_t>& order, int64_t batch_size,
                                int64_t index) {
  const int64_t n = static_cast<int64_t>(order.size());
  int64_t begin = std::min(n, index * batch_size);
  int64_t end = std::min(n, begin + batch_size);
  return std::vector<int64_t>(order.begin() + begin, order.begin() + end);
}

std::vector<int64_t> NodeSplit(const std::vector<int64_t>& sorted_ids, int num_trainers, int rank,
                               bool even) {
  DG_CHECK(num_trainers > 0 && rank >= 0 && rank < num_trainers);
  const int64_t n = static_cast<int64_t>(sorted_ids.size());
  const int64_t base = n / num_trainers, rem = n % num_trainers;
  int64_t begin, count;
  if (even) {
    begin = rank * base;
    count = base;
  } else {
    begin = rank * base + std::min<int64_t>(rank, rem);
    count = base + (rank < rem ? 1 : 0);
  }
  return std::vector<int64_t>(sorted_ids.begin() + begin, sorted_ids.begin() + begin + count);
}

}  // namespace dg
