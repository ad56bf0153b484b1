// The job YAML: one file describing a cluster and a training job (docs/design.md).
//
// LoadJobConfig parses and validates every key: an unknown key, a wrong type, a
// missing file, a machine count that differs from the partition's num_parts are
// errors naming the file and the key. Paths in the result are resolved relative
// to the YAML file's folder. Ports are derived, never guessed (see *Port below).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"

namespace dg {

struct MachineConfig {
  std::string host;       // address its servers bind to and peers dial
  std::string ssh;        // optional "user@host" (or host); empty = local process
  int ssh_port = 22;
  std::string ssh_key;    // optional identity file
  std::string workspace;  // optional working directory on that machine
  // Extensions (optional keys): the distgnn binary to run there (default: this
  // binary for local machines, `distgnn` on PATH for ssh machines), and extra
  // `ssh -o` options (e.g. "StrictHostKeyChecking=accept-new").
  std::string binary;
  std::vector<std::string> ssh_options;
};

// train.embedding: a learnable per-node input (DistEmbedding) kept on the
// servers and trained with a sparse optimizer next to the data.
struct EmbeddingConfig {
  int64_t dim = 0;                        // 0 = no embedding
  std::string optimizer = "sparse_adam";  // sparse_adam | sparse_adagrad
  double lr = 0.01;
  bool features = true;                   // false: the embedding is the model's whole input
  std::string name = "embedding";         // the DistTensor's name
  bool persistent = false;                // saved to the partitions at the end, reloaded later
  double init_scale = 0.1;                // rows start uniform in [-init_scale, init_scale)

  // Whether batches carry node features (no embedding, or one beside them).
  bool uses_features() const { return dim == 0 || features; }
};

struct TrainConfig {
  std::string model;                 // path to a TorchScript file
  std::vector<int> fanouts{10, 25};  // per layer, outermost last (as DGL)
  int batch_size = 1000;
  int epochs = 10;
  double lr = 0.003;
  double weight_decay = 0.0;
  std::string optimizer = "adam";    // adam | sgd
  int eval_every = 1;
  bool eval_full_neighbors = true;   // full-neighbor blocks for evaluation
  uint64_t seed = 0;
  int intra_op_threads = 0;          // 0 = cores / trainers on the machine
  int credits = 4;                   // batches a sampler may send ahead
  bool save_predictions = false;
  bool save_embeddings = false;
  // After training: exact full-neighbour outputs of every node, layer by layer
  // (roles/trainer/layerwise_inference.h), with the best-validation model.
  bool layerwise_inference = false;
  EmbeddingConfig embedding;
  // Link prediction: task link trains on the edges of a partition
  // made with --edge-split; negative {k, distribution}; eval_negatives per val/test edge.
  std::string task = "node";                       // node | link
  int negative_k = 5;
  std::string negative_distribution = "uniform";   // uniform | degree (degree^0.75)
  int eval_negatives = 100;
  // Typed partitions: the edge type predicted ("src:relation:dst" or a
  // relation of one type); must be the type the partition's edge split holds
  // out (`partition --edge-split --link-etype`). "" on homogeneous partitions.
  std::string link_etype;
  // sample (neighbour sampling) | control_variate (VR-GCN,
  // roles/trainer/control_variate.h: fanouts has layers - 1 entries and
  // cv_input names the partition's propagated input, `propagate --hops 1 --norm mean`).
  std::string algorithm = "sample";
  std::string cv_input;
  // Fewer bytes on the wire (common/client/block_input.h): input_aggregation
  // auto | on | off -- block 0's mean over the sampled sources computed by the
  // servers for models with forward_agg (auto: whenever the job allows it; on:
  // required, an error naming why not); feature_wire_dtype float32 | float16
  // | bfloat16 -- how input feature rows travel (computed in float32).
  std::string input_aggregation = "auto";
  std::string feature_wire_dtype = "float32";
  // A trainer's cache of remote feature rows (common/client/feature_cache.h),
  // in MiB; 0 = none. Samplers and train-local ignore it.
  int64_t feature_cache_mb = 0;
  // Step checkpoints (docs/recovery.md): every checkpoint_every_steps training
  // steps (0 = only checkpoint.pt after each epoch), the newest checkpoint_keep kept.
  int64_t checkpoint_every_steps = 0;
  int checkpoint_keep = 2;
};

// restart: what `launch` does when a process or host of the job is lost:
// relaunch the whole job from its last complete checkpoint up to `max` times,
// first waiting up to wait_seconds for every machine to answer ssh again.
struct RestartConfig {
  int max = 0;
  double wait_seconds = 60.0;
};

// limits: what one server lets requests use (README "Security").
struct LimitsConfig {
  int64_t mutable_tensor_bytes = -1;       // all mutable tensors of a server; -1 = half its RAM
  int64_t max_fanout = 1000000;            // SAMPLE_NEIGHBORS with replacement
  int64_t max_pending_bytes = int64_t(2) << 30;  // SPARSE_UPDATE payloads waiting for their step
  int max_pending = 4096;                  // open barriers + sparse steps
  int max_threads_per_connection = 0;      // 0 = server threads - 1 (at least 1)
  int64_t max_queued_request_bytes = int64_t(4) << 30;  // request payloads waiting or running
  int max_connections = 1024;              // authenticated connections per server
  int max_handshaking_connections = 64;    // connections still in their handshake; the oldest goes first
  double handshake_timeout_seconds = 5.0;  // from accept to a finished handshake
  int64_t max_aggregate_edges = int64_t(1) << 30;  // in-edges one PULL_AGGREGATE may sum
};

enum class MetricsRole { kServer, kTrainer, kSampler };

struct JobConfig {
  std::string path;           // the YAML file
  std::string base_dir;       // its folder
  std::string job;            // name; outputs go to output_dir/job/
  std::string partition;      // resolved path of the partition json
  std::string token;          // cluster token; env DISTGNN_TOKEN overrides ""
  std::vector<MachineConfig> machines;
  int server_port = 30050;
  int trainer_port = 30200;
  int rendezvous_port = 29500;
  int metrics_port = 0;       // ports.metrics: base of the metrics endpoints; 0 = none
  int servers_per_machine = 1;
  int trainers_per_machine = 1;
  int samplers_per_trainer = 1;
  TrainConfig train;
  std::string output_dir = "runs";  // resolved
  int64_t max_frame_bytes = int64_t(1) << 30;
  double heartbeat_seconds = 1.0;
  double peer_timeout_seconds = 10.0;
  double rendezvous_timeout_seconds = 300.0;  // trainers waiting for each other at start
  // network.connect_wait_seconds: how long a sampler or trainer keeps retrying
  // refused connections to the servers, and a trainer waits for its samplers
  // to connect (servers started by hand or by systemd may come up late).
  double connect_wait_seconds = 120.0;
  LimitsConfig limits;
  RestartConfig restart;
  // verify_checksums: every server also compares its part's files with the
  // checksums NAME.json records before it listens (as --verify-checksums).
  bool verify_checksums = false;
  bool token_from_yaml = false;  // token: set in the file (not from DISTGNN_TOKEN)
  // The --set overrides that were applied (the launcher passes them on to every role).
  std::vector<std::string> overrides;

  int num_machines() const { return static_cast<int>(machines.size()); }
  int num_trainers() const { return num_machines() * trainers_per_machine; }
  // Server i of machine m: ports.server + m * servers + i.
  int ServerPort(int machine, int index) const {
    return server_port + machine * servers_per_machine + index;
  }
  // Trainer t of machine m (samplers dial it): ports.trainer + m * trainers + t.
  int TrainerPort(int machine, int index) const {
    return trainer_port + machine * trainers_per_machine + index;
  }
  // The metrics endpoint (HTTP /metrics) of a process, with P = servers +
  // trainers + samplers_per_trainer * trainers per machine:
  //   server i: ports.metrics + m*P + i;  trainer t: ports.metrics + m*P + servers + t;
  //   sampler s: ports.metrics + m*P + servers + trainers + s.  0 when ports.metrics is 0.
  int MetricsPort(MetricsRole role, int machine, int index) const {
    if (metrics_port <= 0) return 0;
    const int per = servers_per_machine + trainers_per_machine + num_samplers_per_machine();
    const int offset = role == MetricsRole::kServer    ? index
                       : role == MetricsRole::kTrainer ? servers_per_machine + index
                                                       : servers_per_machine + trainers_per_machine + index;
    return metrics_port + machine * per + offset;
  }
  int TrainerRank(int machine, int index) const { return machine * trainers_per_machine + index; }
  std::string RunDir() const { return output_dir + "/" + job; }
  // Samplers: `samplers_per_trainer` per trainer; sampler index I of machine m
  // serves trainer I / samplers_per_trainer of that machine.
  int num_samplers_per_machine() const { return trainers_per_machine * samplers_per_trainer; }
  // The cores one machine entry may use: this host's cores shared equally by
  // the entries naming the same host (a local cluster on 127.0.0.1 splits
  // one machine). Roles derive their default thread counts from it.
  int CoresPerMachine(int machine) const;
  // gloo rendezvous: trainer 0 (machine 0's host) at ports.rendezvous.
  const std::string& RendezvousHost() const { return machines.at(0).host; }
};

// The cluster token from the environment: DISTGNN_TOKEN, else the first line
// of the file DISTGNN_TOKEN_FILE (which must not be readable by group or
// others), else "". A token file that cannot be read, or is too open, is an error.
Result<std::string> TokenFromEnvironment();

// True for loopback addresses and names ("127.x.y.z", "::1", "localhost").
bool IsLoopbackAddress(const std::string& host);

// Parse and validate; `overrides` are "key.path=value" strings from --set flags.
Result<JobConfig> LoadJobConfig(const std::string& yaml_path,
                                const std::vector<std::string>& overrides = {});

}  // namespace dg
