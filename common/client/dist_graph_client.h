// DistGraphClient: what samplers and trainers use to reach the partitioned
// graph (DGL's DistGraph, in C++).
//
// Connect() dials every server of every partition (clients always open the
// connections; nobody connects back), shakes hands, and maps the partitions
// listed in options.local_partitions straight from disk (mmap) unless
// disable_local_shortcut. Each call splits its ids by owner (the partition
// book), sends one request per owner (chunked to max_ids_per_request and
// pipelined, spread round-robin over the partition's servers), answers
// machine-local partitions from the mmap with the same PartitionStore code the
// server runs, and reassembles results in the caller's order. Duplicate and
// empty id lists are fine. Mutable tensors (InitTensor) live on server index 0
// of each partition and are always reached through it.
//
// Every call has a deadline (options.deadline_seconds); connections carry
// heartbeats, so a dead or frozen server turns into PeerLost/Timeout naming
// host:port, role and partition within peer_timeout_seconds -- never a hang.
// Thread-safe: any number of threads may call concurrently.
//
// Building endpoints from a job YAML (config/job_config.h): for partition m,
// host = machines[m].host, ports = {ServerPort(m, i) for i < servers_per_machine}.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/net/messages.h"
#include "common/net/pull_aggregate.h"
#include "common/storage/partition.h"
#include "common/storage/partition_store.h"
#include "common/net/rpc_channel.h"

namespace dg {

class FeatureCache;

struct ServerEndpoints {
  std::string host;
  std::vector<int> ports;  // one per server of the partition (index order)
};

struct ClientOptions {
  double deadline_seconds = 60;        // per call
  double connect_timeout_seconds = 10;
  ConnectionOptions connection;        // frame limit, heartbeats, peer timeout
  std::vector<int> local_partitions;   // read these via mmap, not the socket
  bool disable_local_shortcut = false;
  int io_threads = 1;                  // threads reading sockets
  int64_t max_ids_per_request = 4096;  // larger requests are split and pipelined
};

struct SampledEdges {
  std::vector<int64_t> offsets;  // [n+1]: seed i's neighbors are [offsets[i], offsets[i+1])
  std::vector<int64_t> src;      // global source ids
  std::vector<int64_t> eids;     // global edge ids
  std::vector<uint8_t> etypes;   // SampleNeighborsTyped: the edge type of each, aligned with src; else empty
};

class DistGraphClient {
 public:
  static Result<std::unique_ptr<DistGraphClient>> Connect(const PartitionConfig& config,
                                                          const std::vector<ServerEndpoints>& servers,
                                                          const std::string& token, const std::string& role,
                                                          int rank, const ClientOptions& options);
  ~DistGraphClient();

  int64_t num_nodes() const { return config_.num_nodes; }
  int64_t num_edges() const { return config_.num_edges; }
  int num_parts() const { return config_.num_parts; }
  const PartitionBook& book() const { return book_; }
  const PartitionConfig& config() const { return config_; }
  // Bytes sent plus received on every server connection so far (the
  // bytes per step; reads served by the local shortcut move none).
  uint64_t network_bytes() const;
  bool is_local(int part) const { return part < (int)local_.size() && local_[part] != nullptr; }
  // Rows of PULL replies read straight from the socket into the caller's
  // array so far (runs of consecutive positions; the rest is copied once).
  uint64_t rows_received_in_place() const { return rows_in_place_.load(std::memory_order_relaxed); }

  // For requests without a method here (PULL_BLOCK, common/client/block_input.h):
  // starts `type` on one of partition `part`'s servers (round-robin); wait
  // with CallDeadline(). local_store(part) is the mmap'd partition when
  // is_local(part), else null. mutable_holder: to the partition's index 0,
  // which holds its mutable tensors (CHECKPOINT).
  std::shared_ptr<PendingCall> StartRequest(int part, MsgType type, BufferList payload, bool mutable_holder = false) {
    return Channel(part, mutable_holder)->Start(type, std::move(payload));
  }
  std::chrono::steady_clock::time_point CallDeadline() const { return Deadline(); }
  const PartitionStore* local_store(int part) const { return is_local(part) ? local_[part].get() : nullptr; }

  // Rows of node tensor `name` (partition data or mutable) in the caller's order.
  // Rows of the feature cache's array come from it where it has them.
  Result<Array> Pull(const std::string& name, const int64_t* ids, size_t n);
  Result<Array> PullUncached(const std::string& name, const int64_t* ids, size_t n) {
    return PullImpl(TensorKind::kNode, name, ids, n);
  }
  // The cache of remote feature rows (common/client/feature_cache.h) that
  // Pull and the block input use; set once before the first Pull (null = none).
  void set_feature_cache(std::shared_ptr<const FeatureCache> cache) { feature_cache_ = std::move(cache); }
  const FeatureCache* feature_cache() const { return feature_cache_.get(); }
  Result<Array> Pull(const std::string& name, const std::vector<int64_t>& ids) {
    return Pull(name, ids.data(), ids.size());
  }
  // Rows of edge tensor `name` by global edge id.
  Result<Array> PullEdges(const std::string& name, const std::vector<int64_t>& eids);
  // Writes rows [n, row shape...] into a mutable tensor.
  Status Push(const std::string& name, const std::vector<int64_t>& ids, const Array& rows,
              PushMode mode = PushMode::kOverwrite);
  // One hop of neighbour sampling as `spec` asks (SAMPLE_NEIGHBORS; the
  // partition store's Sample on machine-local partitions). spec.edge_ids =
  // false: out.eids stays empty and the servers send none. spec.typed():
  // typed partitions (format_version 2), etype_fanouts[t] in-edges of edge
  // type t per seed; out.etypes gets each sampled edge's type.
  Result<SampledEdges> SampleNeighbors(const int64_t* seeds, size_t n, const SampleSpec& spec);
  Result<SampledEdges> SampleNeighbors(const std::vector<int64_t>& seeds, const SampleSpec& spec) {
    return SampleNeighbors(seeds.data(), seeds.size(), spec);
  }
  Result<std::vector<int64_t>> InDegrees(const std::vector<int64_t>& ids);
  // Sum or mean of node tensor `name` over each id's full in-neighbourhood,
  // aggregated by the servers (PULL_AGGREGATE, common/net/pull_aggregate.h);
  // [n, row shape...] in the tensor's dtype. degrees (optional) gets each
  // id's in-degree. Never uses the local shortcut.
  Result<Array> PullAggregate(const std::string& name, const int64_t* ids, size_t n, AggregateOp op,
                              std::vector<int64_t>* degrees = nullptr);
  // Creates the tensor on every partition (idempotent for the same dtype/shape;
  // an existing tensor keeps its data, e.g. one loaded from a persisted file).
  Status InitTensor(const InitTensorSpec& spec);
  // Writes every partition's rows of persistent tensor `name` to
  // <partition dir>/tensors/<name>.npy on its server index 0; returns when all
  // partitions have written it.
  Status SaveTensor(const std::string& name);
  // One sparse optimizer step (SPARSE_UPDATE) on float32 mutable tensor `name`:
  // this caller is contributor `rank` of `contributors` (W) for step `step`.
  // ids (global, duplicates allowed) and grads [n, row shape...] are split by
  // owner and sent to server index 0 of EVERY partition -- an empty piece where
  // the caller has no ids, so each server learns that all W contributed -- as
  // one request per partition (never chunked; mind max_frame_bytes). Each
  // server applies `opt` once when all W ranks have sent the step, to the sum
  // of their gradients per row (summed in rank order); this returns after every
  // partition applied the step, so a following Pull sees the updated rows.
  // Every rank of a step must use the same W and opt. Never uses the local shortcut.
  // A step that fails (a rank missing after the server's peer timeout, a bad
  // request) may have been applied on some partitions and not others: do not
  // retry it, stop the job. A rank whose request fails a local check sends
  // nothing; the others then time out with a message naming it as missing.
  Status SparseUpdate(const std::string& name, const SparseOptimizerSpec& opt, uint64_t step, uint32_t contributors,
                      uint32_t rank, const std::vector<int64_t>& ids, const Array& grads);
  // Waits until n participants reached barrier `name` (held by partition 0's
  // server 0). timeout_s < 0 = options.deadline_seconds.
  Status Barrier(const std::string& name, uint32_t participants, double timeout_s = -1);
  // One reply per partition (from its server 0).
  Result<std::vector<MetadataReply>> Metadata();
  Result<StatsReply> Stats(int part, int index);
  // Asks one server to shut down (it answers, then exits).
  Status Shutdown(int part, int index);
  Status ShutdownAll();

 private:
  DistGraphClient() = default;
  struct Piece {  // one request's share of a call
    int part;
    std::shared_ptr<std::vector<int64_t>> ids = std::make_shared<std::vector<int64_t>>();
    std::vector<int64_t> pos;  // caller positions
  };
  // keep_empty: one piece per partition, in partition order, even without ids.
  Status SplitByOwner(const char* what, const int64_t* ids, size_t n, std::vector<Piece>* pieces,
                      bool keep_empty = false) const;
  // Rows pc.pos of `rows`, as a new [pc.ids.size(), ...] Array (zero copy when pc has every row).
  static Result<Array> GatherPieceRows(const Piece& pc, const Array& rows);
  // Waits for every call; the first error wins.
  Status WaitAll(std::vector<std::shared_ptr<PendingCall>>& calls, std::chrono::steady_clock::time_point deadline);
  Status SplitEdges(const std::vector<int64_t>& eids, std::vector<Piece>* pieces) const;
  std::shared_ptr<RpcChannel> Channel(int part, bool mutable_tensor);
  Result<TensorMeta> NodeTensorMeta(const std::string& name);
  Result<Array> PullImpl(TensorKind kind, const std::string& name, const int64_t* ids, size_t n);
  std::chrono::steady_clock::time_point Deadline(double seconds = -1) const;
  // SampleNeighbors in steps (dist_graph_client.cpp): the requests to remote
  // partitions started, the machine-local ones answered from the mmap, the
  // replies received and checked, then every part's edges put in caller order.
  struct SamplePart;
  void StartSampleRequests(const std::vector<Piece>& pieces, const SampleSpec& spec, std::vector<SamplePart>* parts);
  Status SampleLocalParts(const std::vector<Piece>& pieces, const SampleSpec& spec, std::vector<SamplePart>* parts);

  PartitionConfig config_;
  PartitionBook book_;
  ClientOptions options_;
  asio::io_context io_;
  std::unique_ptr<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  std::vector<std::thread> io_threads_;
  std::vector<std::vector<std::shared_ptr<RpcChannel>>> channels_;  // [part][index]
  std::vector<std::unique_ptr<PartitionStore>> local_;              // [part] or null
  std::atomic<uint64_t> round_robin_{0};
  std::atomic<uint64_t> rows_in_place_{0};
  std::mutex meta_mu_;
  std::map<std::string, TensorMeta> mutable_meta_;
  std::shared_ptr<const FeatureCache> feature_cache_;
};

}  // namespace dg
