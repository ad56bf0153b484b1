// TrainHooks: what a training run needs besides its settings (TrainSpec,
// config/train_spec.h): where it writes, who its peers are, and the
// callbacks and non-owned pointers of the process that runs it. The spec
// says how to train; the hooks say with what. Torch-free.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "common/base/status.h"
#include "common/net/ring_allreduce.h"

namespace dg {

class NodeEmbedding;
struct TrainProgress;

// The trainers of a data-parallel run (roles/trainer/grad_sync.h).
struct DataParallelOptions {
  int world_size = 1;                      // 1 = no process group
  int rank = 0;
  std::string master_host = "127.0.0.1";   // rank 0's address (TCPStore)
  int master_port = 0;
  std::string host = "127.0.0.1";          // this trainer's address
  double timeout_seconds = 60;             // every collective
  double rendezvous_timeout_seconds = 300; // waiting for all trainers to join
  RingOptions ring;  // with ring.connection.tls set: the TLS ring instead of gloo
};

struct TrainHooks {
  // The run directory ("" = write nothing); only rank 0 writes into it.
  std::string out_dir;
  DataParallelOptions dp;
  // Saves (load = false) or loads step N of the servers' mutable tensors (a
  // DistEmbedding, control variate's history), keeping the newest `keep`;
  // null = none (train-local: the trainer holds that state itself).
  std::function<Status(bool load, int64_t step, int keep)> server_checkpoint;
  // Keeps (restore = false) the servers' mutable tensors as the best epoch's,
  // tagged with the global step, or puts that copy back (restore = true;
  // an error when the copy is of another step); null = none (train-local).
  std::function<Status(bool restore, int64_t step)> server_best;
  TrainProgress* progress = nullptr;   // not owned; live state for the metrics endpoint
  NodeEmbedding* embedding = nullptr;  // not owned; outlives the run
  // Bytes moved so far (DistGraphClient::network_bytes); then each epoch line
  // of metrics.jsonl has "bytes_per_step" over its training steps.
  std::function<uint64_t()> network_bytes;
  // More fields for each epoch line of metrics.jsonl (`"key": value` pairs
  // joined by ", "; empty = none), called once per epoch after its training
  // steps (the feature cache's hits, bytes per message type).
  std::function<std::string()> epoch_fields;

  bool writer() const { return dp.rank == 0 && !out_dir.empty(); }
  std::string OutPath(const std::string& name) const { return out_dir + "/" + name; }
};

}  // namespace dg
