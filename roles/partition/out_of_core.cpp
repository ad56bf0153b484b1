#include "roles/partition/out_of_core.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>
#include <unistd.h>

#include "common/base/logging.h"
#include "common/io/npy.h"
#include "roles/partition/assign_nodes.h"
#include "roles/partition/external_sort.h"
#include "roles/partition/node_assignment.h"
#include "roles/partition/partition_output.h"
#include "roles/partition/partitioner.h"
#include "roles/partition/progress_log.h"

namespace dg {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;
double Seconds(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }


// One edge on its way to its destination's CSR row.
struct EdgeRec {
  int64_t dst, src, eid;  // new ids; eid = index in the (normalized) input list
};
struct ByDstThenEid {
  bool operator()(const EdgeRec& a, const EdgeRec& b) const {
    return a.dst != b.dst ? a.dst < b.dst : a.eid < b.eid;
  }
};

// Runs are filled in edge-id order, so a stable sort by dst is the (dst, eid)
// order: LSD radix on dst, 11 bits a pass (3 passes below 2^33 nodes).
void SortRun(std::vector<EdgeRec>* v, const ByDstThenEid&) {
  if (v->size() < 2) return;
  int64_t max_dst = 0;
  for (const EdgeRec& r : *v) max_dst = std::max(max_dst, r.dst);
  int bits = 1;
  while (bits < 63 && (max_dst >> bits) != 0) ++bits;
  std::vector<EdgeRec> tmp(v->size());
  constexpr int kDigit = 11;
  std::vector<size_t> count(size_t{1} << kDigit);
  for (int shift = 0; shift < bits; shift += kDigit) {
    std::fill(count.begin(), count.end(), 0);
    const uint64_t mask = (uint64_t{1} << kDigit) - 1;
    for (const EdgeRec& r : *v) ++count[(static_cast<uint64_t>(r.dst) >> shift) & mask];
    size_t sum = 0;
    for (size_t& c : count) {
      size_t x = c;
      c = sum;
      sum += x;
    }
    for (const EdgeRec& r : *v) tmp[count[(static_cast<uint64_t>(r.dst) >> shift) & mask]++] = r;
    v->swap(tmp);
  }
}

constexpr uint64_t kMergeBytes = 32ull << 20;   // read buffers of all runs of a merge
constexpr uint64_t kWriterBytes = 16ull << 20;  // npy writers' buffers, slack
constexpr uint64_t kMinRunBytes = 24ull << 10;  // 512 records (+ sort scratch)

uint64_t FixedBytes(int64_t n, PartitionMethod method) {
  return static_cast<uint64_t>(n) * (kOutOfCoreBytesPerNode + (method == PartitionMethod::kStream ? 4 : 0));
}

// Streams int64 values into an .npy of known length.
class Int64Writer {
 public:
  Status Open(const std::string& path, int64_t n) {
    buf_.reserve(1 << 15);
    return w_.Open(path, DType::kInt64, {n});
  }
  Status Add(int64_t v) {
    buf_.push_back(v);
    return buf_.size() == buf_.capacity() ? Flush() : Status::OK();
  }
  Status Finish() {
    DG_RETURN_IF_ERROR(Flush());
    return w_.Finish();
  }

 private:
  Status Flush() {
    DG_RETURN_IF_ERROR(w_.Append(buf_.data(), buf_.size() * sizeof(int64_t)));
    buf_.clear();
    return Status::OK();
  }
  NpyWriter w_;
  std::vector<int64_t> buf_;
};

// The merge of the sorted runs into each part's CSR (indptr, indices, edge
// types) and orig_eids.npy, in (dst, edge id) order; the edge cut and the
// halo of each part counted on the way.
Status MergeIntoCsr(ExternalSorter<EdgeRec, ByDstThenEid>* sorter, const std::string& stage_dir,
                    const std::vector<int64_t>& node_map, const std::vector<int64_t>& edge_map,
                    const TypeLayout* types, PartitionConfig* cfg) {
  Int64Writer orig_eids;
  DG_RETURN_IF_ERROR(orig_eids.Open(stage_dir + "/orig_eids.npy", static_cast<int64_t>(cfg->num_edges)));
  std::vector<int32_t> mark(static_cast<size_t>(node_map.back()), -1);
  int cur = -1;              // part being written
  int64_t row = 0, in_part = 0;  // next row whose indptr end is due; edges written in this part
  Int64Writer indptr, indices;
  EdgeTypeWriter etypes;  // typed graphs
  auto open_part = [&](int p) -> Status {
    cur = p;
    row = node_map[p];
    in_part = 0;
    const std::string dir = stage_dir + "/" + cfg->parts[p].dir;
    DG_RETURN_IF_ERROR(indptr.Open(dir + "/indptr.npy", node_map[p + 1] - node_map[p] + 1));
    DG_RETURN_IF_ERROR(indices.Open(dir + "/indices.npy", edge_map[p + 1] - edge_map[p]));
    if (types)
      DG_RETURN_IF_ERROR(etypes.Open(dir + "/edge_types.npy", static_cast<int>(types->edge_types.size()),
                                     edge_map[p + 1] - edge_map[p]));
    return indptr.Add(0);
  };
  auto close_part = [&]() -> Status {
    for (; row < node_map[cur + 1]; ++row) DG_RETURN_IF_ERROR(indptr.Add(in_part));
    DG_RETURN_IF_ERROR(indptr.Finish());
    if (types) DG_RETURN_IF_ERROR(etypes.Finish());
    return indices.Finish();
  };
  auto advance_to = [&](int p) -> Status {  // close parts before p, open up to p
    while (cur < p) {
      if (cur >= 0) DG_RETURN_IF_ERROR(close_part());
      DG_RETURN_IF_ERROR(open_part(cur + 1));
    }
    return Status::OK();
  };
  PartitionBook book(node_map);
  DG_RETURN_IF_ERROR(sorter->Merge([&](const EdgeRec& r) -> Status {
    if (r.dst >= node_map[cur < 0 ? 0 : cur + 1]) DG_RETURN_IF_ERROR(advance_to(book.Owner(r.dst)));
    for (; row < r.dst; ++row) DG_RETURN_IF_ERROR(indptr.Add(in_part));
    ++in_part;
    DG_RETURN_IF_ERROR(indices.Add(r.src));
    DG_RETURN_IF_ERROR(orig_eids.Add(r.eid));
    if (types) DG_RETURN_IF_ERROR(etypes.Add(types->EdgeType(r.eid)));
    if (r.src < node_map[cur] || r.src >= node_map[cur + 1]) {
      ++cfg->edge_cut;
      if (mark[r.src] != cur) {
        mark[r.src] = cur;
        ++cfg->parts[cur].num_halo;
      }
    }
    return Status::OK();
  }));
  DG_RETURN_IF_ERROR(advance_to(static_cast<int>(node_map.size()) - 2));
  DG_RETURN_IF_ERROR(close_part());
  DG_RETURN_IF_ERROR(orig_eids.Finish());
  return Status::OK();
}

// The node arrays, part by part, in id order from the (mmap'd) inputs.
Status WriteNodeArrays(const OutOfCoreInput& in, const std::string& stage_dir, const std::vector<int64_t>& node_map,
                       const std::vector<int64_t>& orig_nids, const PartitionOptions& o, PartitionConfig* cfg,
                       LabelStats* labels) {
  const TypeLayout* types = in.types.get();
  for (int p = 0; p + 1 < static_cast<int>(node_map.size()); ++p) {
    const int64_t nb = node_map[p], ne = node_map[p + 1];
    NodeDataOptions nd;
    nd.normalize_features = o.normalize_rows;
    nd.drop_pages_of = types ? types->mapped : in.mapped;  // only mmaps may have their pages dropped
    PartInfo& pi = cfg->parts[p];
    const std::string dir = stage_dir + "/" + pi.dir;
    if (types)
      DG_RETURN_IF_ERROR(WriteTypedPartNodeData(dir, *types, orig_nids.data() + nb, cfg->node_type_offsets[p], nd, &pi, labels));
    else
      DG_RETURN_IF_ERROR(WritePartNodeData(dir, in.node_data, orig_nids.data() + nb, ne - nb, nb, nd, &pi, labels));
  }
  return Status::OK();
}

}  // namespace

Status CheckMemoryBudget(int64_t n, int64_t e, const PartitionOptions& o) {
  const uint64_t budget = o.spec.memory_budget;
  const uint64_t fixed = FixedBytes(n, o.spec.method);
  const uint64_t need = fixed + kMergeBytes + kWriterBytes + kMinRunBytes;
  if (need > budget)
    return Status::InvalidArgument("--memory-budget " + FormatBytes(budget) + " is too small for " +
                                   std::to_string(n) + " nodes: the per-node arrays and buffers need " +
                                   FormatBytes(need) + " (" + std::to_string(fixed / std::max<int64_t>(n, 1)) +
                                   " B per node + 48 MB); give --memory-budget " + FormatBytes(need) + " or more");
  if (o.spec.method == PartitionMethod::kMetis && o.spec.num_parts > 1) {
    const uint64_t metis = MetisMemoryEstimate(n, e) + 5ull * n;
    if (metis > budget)
      return Status::InvalidArgument(
          "--method metis needs about " + FormatBytes(metis) + " for this graph (" + std::to_string(n) +
          " nodes, up to " + std::to_string(e) + " edges: METIS holds the whole symmetric adjacency and its "
          "coarsened copies), more than --memory-budget " + FormatBytes(budget) +
          "; use --method stream (streaming, " + std::to_string(fixed / std::max<int64_t>(n, 1) + 4) +
          " B per node) or random, or a budget of at least " + FormatBytes(metis));
  }
  return Status::OK();
}

Result<PartitionConfig> PartitionGraphOutOfCore(OutOfCoreInput* in, const PartitionOptions& o) {
  const int K = o.spec.num_parts;
  const int64_t N = in->num_nodes;
  const int64_t E = in->edges.size();
  std::FILE* log = o.log;
  DG_RETURN_IF_ERROR(CheckMemoryBudget(N, E, o));
  const uint64_t fixed = FixedBytes(N, o.spec.method);
  uint64_t run_bytes = o.spec.run_bytes ? o.spec.run_bytes : o.spec.memory_budget - fixed - kMergeBytes - kWriterBytes;
  run_bytes = std::max(run_bytes, kMinRunBytes);
  const std::string tmp_root = o.spec.tmp_dir.empty() ? DefaultTmpRoot(o) : o.spec.tmp_dir;
  PartitionLog(log, "partition (out of core): %lld nodes, %lld edges, %d parts, method %s, budget %s, runs of %s in %s\n",
      (long long)N, (long long)E, K, Name(o.spec.method), FormatBytes(o.spec.memory_budget).c_str(),
      FormatBytes(run_bytes).c_str(), tmp_root.c_str());

  ScratchDir scratch;  // removed with everything in it at the end
  DG_RETURN_IF_ERROR(scratch.Create(tmp_root));
  const std::string& spill_dir = scratch.path();

  // 1. Assignment.
  const TypeLayout* types = in->types.get();
  std::vector<uint8_t> is_train = types ? types->TrainFlags() : TrainFlags(in->node_data);
  StreamSpill spill;
  spill.tmp_dir = spill_dir;
  spill.sort_records = std::max<uint64_t>(1, run_bytes / (2 * sizeof(uint64_t)));  // + radix scratch
  spill.merge_bytes = kMergeBytes;
  DG_ASSIGN_OR_RETURN(std::vector<int32_t> part, AssignNodes(N, in->edges, types, is_train, o, spill));

  // 2. Renumber: part p owns [node_map[p], node_map[p+1]); original order within a part.
  auto t = Clock::now();
  Renumbering renumbering = RenumberByPart(part, K);
  std::vector<int64_t>& node_map = renumbering.node_map;
  std::vector<int64_t>& new_id = renumbering.new_id;
  std::vector<int64_t>& orig_nids = renumbering.orig_nids;

  // 3. Spill: records (new dst, new src, edge id) in sorted runs; edges per part.
  std::vector<int64_t> part_edges(K, 0);
  // A run and its radix-sort scratch share run_bytes. The runs are removed
  // once merged (sorter.reset()): the node data and the aggregation index
  // written after the merge need their disk.
  std::optional<ExternalSorter<EdgeRec, ByDstThenEid>> sorter;
  sorter.emplace(spill_dir, "csr", run_bytes / (2 * sizeof(EdgeRec)), kMergeBytes);
  DG_RETURN_IF_ERROR(in->edges.ForEachChunk(1 << 20, [&](const int64_t* src, const int64_t* dst, int64_t n, int64_t first) {
    for (int64_t e = 0; e < n; ++e) {
      if (src[e] < 0 || src[e] >= N || dst[e] < 0 || dst[e] >= N)
        return Status::InvalidArgument("edge " + std::to_string(first + e) + " (" + std::to_string(src[e]) + ", " +
                                       std::to_string(dst[e]) + ") has a node id outside [0, " + std::to_string(N) + ")");
      ++part_edges[part[dst[e]]];
      DG_RETURN_IF_ERROR(sorter->Add(EdgeRec{new_id[dst[e]], new_id[src[e]], first + e}));
    }
    return Status::OK();
  }));
  DG_RETURN_IF_ERROR(sorter->Finish());
  std::vector<int64_t>().swap(new_id);
  std::vector<int64_t> edge_map(K + 1, 0);
  for (int p = 0; p < K; ++p) edge_map[p + 1] = edge_map[p] + part_edges[p];
  PartitionLog(log, "  spill:             %.2f s (%zu sorted runs, %s)\n", Seconds(t), sorter->runs(),
      FormatBytes(sorter->spilled_bytes()).c_str());

  // 4. Merge into each part's CSR.
  t = Clock::now();
  PartitionConfig cfg =
      BaseConfig(o.spec.name, o.spec.num_parts, Name(o.spec.method), N, E, node_map, edge_map, in->node_data, {});
  if (types) TypedConfig(*types, &cfg);
  StagingDir stage;
  DG_RETURN_IF_ERROR(stage.Create(o));
  if (types) {
    DG_RETURN_IF_ERROR(WriteTypedNodeIds(stage.path(), *types, orig_nids, &cfg));
  } else {
    NpyWriter w;
    DG_RETURN_IF_ERROR(w.Open(stage.path() + "/orig_nids.npy", DType::kInt64, {N}));
    DG_RETURN_IF_ERROR(w.Append(orig_nids.data(), static_cast<size_t>(N) * sizeof(int64_t)));
    DG_RETURN_IF_ERROR(w.Finish());
  }
  for (int p = 0; p < K; ++p) DG_RETURN_IF_ERROR(MakeDir(stage.path() + "/" + cfg.parts[p].dir));
  DG_RETURN_IF_ERROR(MergeIntoCsr(&*sorter, stage.path(), node_map, edge_map, types, &cfg));
  sorter.reset();
  PartitionLog(log, "  merge into CSR:    %.2f s\n", Seconds(t));

  // 5. Node arrays, part by part, in id order from the (mmap'd) inputs.
  t = Clock::now();
  LabelStats labels;
  DG_RETURN_IF_ERROR(WriteNodeArrays(*in, stage.path(), node_map, orig_nids, o, &cfg, &labels));
  cfg.num_classes = types && types->num_classes > 0 ? types->num_classes
                    : o.num_classes > 0            ? o.num_classes
                                                   : labels.NumClasses();
  PartitionLog(log, "  node data:         %.2f s\n", Seconds(t));
  LogPartStats(log, cfg);
  DG_RETURN_IF_ERROR(stage.Commit(&cfg));
  PartitionLog(log, "  written -> %s\n", cfg.path.c_str());
  PartitionLog(log, "  peak RSS: %.1f MB\n", PeakRssBytes() / 1048576.0);
  return cfg;
}

}  // namespace dg
