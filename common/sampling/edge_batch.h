// Link-prediction mini-batches: batches of training edges, their
// negatives, and blocks for the union of all endpoints, sampled with the
// batch's positive edges (and their reverses) excluded.
//
// Contract of a link MiniBatch (SampleLinkBatch):
//   seeds     the distinct endpoints of the batch (positive sources, positive
//             destinations, negative destinations, in order of first appearance);
//             the model's output has one row per seed
//   blocks / input_nodes / features   as for node batches (minibatch.h)
//   labels    int64 [P * (1 + k), 3]: rows (source seed position, destination
//             seed position, target), the P positives first (target 1) in batch
//             order, then positive i's k negatives (i * k + j, target 0), each the
//             positive's source paired with a drawn destination
// Exclusion (DGL's exclude="reverse_id" done as a post-filter of the sampled
// in-edges): an in-edge s -> d sampled in any layer is dropped when (s, d) is a
// positive of the batch, or, with exclude_reverse, when (d, s) is. Parallel
// copies of an excluded pair are dropped too. On a typed graph with
// LinkBatchOptions::positive_etype set (link prediction on one edge type), only
// s -> d of the positives' edge type and d -> s of its reverse edge type are
// dropped: an edge of another relation between the same two nodes stays.
// Determinism: the negatives of batch b of epoch e come from
// Rng(SamplingSeed(job_seed, e, b, 15)) and the blocks from the same per-layer
// seeds as node batches, so in-process threads and sampler processes make
// identical batches. Torch-free.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "common/sampling/batch_provider.h"
#include "common/sampling/minibatch.h"
#include "common/sampling/negative_sampler.h"
#include "common/base/status.h"

namespace dg {

// Edges by global edge id: contiguous ranges [first, first + n) of (src, dst).
class EdgeTable {
 public:
  // Appends CSR rows (in-edge CSR: row r is node first_node + r; indices are
  // global source ids) as edges first_edge, first_edge + 1, ...
  void AddCsr(int64_t first_edge, int64_t first_node, const int64_t* indptr, int64_t rows, const int64_t* indices);
  // InvalidArgument if no range holds `gid`.
  Status Pair(int64_t gid, int64_t* src, int64_t* dst) const;
  int64_t num_edges() const;
  // Every stored edge id, ascending.
  std::vector<int64_t> EdgeIds() const;
  // Appends the pairs src[i] -> dst[i] as edges first_edge + i.
  void AddPairs(int64_t first_edge, std::vector<int64_t> src, std::vector<int64_t> dst);

 private:
  struct Range {
    int64_t first = 0;
    std::vector<int64_t> src, dst;
  };
  std::vector<Range> ranges_;  // sorted by first
};

struct LinkBatchOptions {
  std::vector<int> fanouts;
  bool replace = false;
  std::string feature_name = "features";  // "" = do not gather
  int negatives = 5;                      // k per positive
  std::shared_ptr<const NegativeSampler> sampler;
  bool exclude = true;                    // drop the batch's positive edges from its blocks
  bool exclude_reverse = true;            // ... and their reverses (undirected graphs)
  // Typed graphs, link prediction on one edge type: the positives' edge type
  // and its reverse type (-1 = none); exclusion is then by (s, d, edge type).
  // -1 = exclusion by pair, whatever the edge type.
  int positive_etype = -1;
  int reverse_etype = -1;
  // Each negative is a sampler draw plus this offset (on a typed graph: the
  // first global id of the destination type, so negatives are of that type).
  int64_t negative_offset = 0;
  // Non-empty: a draw i is the i-th id of these ranges instead (a typed
  // partition's destination type, one range per part; negative_offset unused).
  IdRanges negative_ranges;
};

// A NeighborSource that drops sampled in-edges s -> d whose pair is listed
// (whatever the edge type), or whose (s, d, edge type) is listed in `typed`
// (typed graphs: the edge type comes with each sampled edge). Typed sampling
// and node types pass through to the inner source.
class ExcludingSource : public NeighborSource {
 public:
  using TypedEdge = std::tuple<int64_t, int64_t, int>;  // (src, dst, edge type)
  // `pairs`, `typed`: edges to drop; sorted inside.
  ExcludingSource(NeighborSource* inner, std::vector<std::pair<int64_t, int64_t>> pairs,
                  std::vector<TypedEdge> typed = {});
  int64_t num_nodes() const override { return inner_->num_nodes(); }
  Status SampleNeighbors(const std::vector<int64_t>& seeds, const SampleSpec& spec, SampledNeighbors* out) override;
  Result<Array> Gather(const std::string& name, const std::vector<int64_t>& ids) override {
    return inner_->Gather(name, ids);
  }
  int num_edge_types() const override { return inner_->num_edge_types(); }
  Status NodeTypes(const std::vector<int64_t>& ids, std::vector<int64_t>* out) override {
    return inner_->NodeTypes(ids, out);
  }
  int64_t dropped() const { return dropped_; }

 private:
  void Filter(const std::vector<int64_t>& seeds, SampledNeighbors* out);

  NeighborSource* inner_;
  std::vector<std::pair<int64_t, int64_t>> pairs_;
  std::vector<TypedEdge> typed_;
  int64_t dropped_ = 0;
};

Result<MiniBatch> SampleLinkBatch(NeighborSource* source, const std::vector<int64_t>& pos_src,
                                  const std::vector<int64_t>& pos_dst, const LinkBatchOptions& options,
                                  uint64_t job_seed, int64_t epoch, int64_t batch_index);

// Batches of training edges: EpochRequest::seeds are global edge ids of
// `edges` (shuffled and cut as node seeds are); fanouts/replace/job seed come
// from the request; each batch is SampleLinkBatch of its edges. Same threading
// and prefetch as LocalBatchProvider (BatchPrefetcher).
class LinkBatchProvider : public BatchProvider {
 public:
  LinkBatchProvider(NeighborSource* source, const EdgeTable* edges, LinkBatchOptions options, int workers = 1,
                    int prefetch = 4);
  Status BeginEpoch(const EpochRequest& request) override;
  Result<bool> Next(MiniBatch* out) override;

 private:
  NeighborSource* source_;
  const EdgeTable* edges_;
  LinkBatchOptions options_;
  BatchPrefetcher batches_;  // last: destroyed (its workers joined) first
};

}  // namespace dg
