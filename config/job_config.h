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
#include "config/tls_config.h"
#include "config/train_spec.h"

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
  // The Slurm node it is (srun --nodelist): the node's name for machines
  // from a Slurm allocation, else its host.
  std::string slurm_node;
  // tls_dir: this machine's role certificates, when not in tls.dir (config/tls_config.h).
  std::string tls_dir;
};

// Where the machine list comes from: the YAML's list, or the Slurm
// allocation the process runs in (`machines: {from: slurm}`, slurm_allocation.h).
enum class MachineSource { kList, kSlurm };

// How `launch` starts each process on its machine (the top-level key
// `scheduler`, or `launch --scheduler`): kDirect runs it here or over ssh as
// the machine's entry says; kSlurm runs it as a step of the Slurm allocation
// (srun on the machine's node). Default: kSlurm for machines from Slurm.
enum class Scheduler { kDirect, kSlurm };
const char* Name(Scheduler v);
bool Parse(const std::string& word, Scheduler* out);

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

// The role of a process of the job (its metrics port, its count per machine).
enum class MetricsRole { kServer, kTrainer, kSampler };
// "server", "trainer", "sampler", and back; false (out untouched) for another word.
const char* Name(MetricsRole role);
bool Parse(const std::string& word, MetricsRole* out);

struct JobConfig {
  std::string path;           // the YAML file
  std::string base_dir;       // its folder
  std::string job;            // name; outputs go to output_dir/job/
  std::string partition;      // resolved path of the partition json
  std::string token;          // cluster token; env DISTGNN_TOKEN overrides ""
  std::vector<MachineConfig> machines;
  MachineSource machine_source = MachineSource::kList;
  Scheduler scheduler = Scheduler::kDirect;
  int server_port = 30050;
  int trainer_port = 30200;
  int rendezvous_port = 29500;
  int metrics_port = 0;       // ports.metrics: base of the metrics endpoints; 0 = none
  int servers_per_machine = 1;
  int trainers_per_machine = 1;
  int samplers_per_trainer = 1;
  TrainSpec train;  // the train: section, validated (config/train_spec.h)
  std::string output_dir = "runs";  // resolved
  int64_t max_frame_bytes = int64_t(1) << 30;
  double heartbeat_seconds = 1.0;
  double peer_timeout_seconds = 10.0;
  double rendezvous_timeout_seconds = 300.0;  // trainers waiting for each other at start
  // network.connect_wait_seconds: how long a sampler or trainer keeps retrying
  // refused connections to the servers, and a trainer waits for its samplers
  // to connect (servers started by hand or by systemd may come up late).
  double connect_wait_seconds = 120.0;
  // network.stop_seconds: after SIGTERM, how long servers and samplers keep
  // serving the trainers still connected to them (those finish their step and
  // write a checkpoint meanwhile), and how long `launch` waits for its
  // trainers to do so (docs/clusters.md).
  double stop_seconds = 60.0;
  LimitsConfig limits;
  RestartConfig restart;
  TlsConfig tls;
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
  // The CA, certificate and key a process of `role` on `machine` presents
  // (machine < 0: the launcher or a tool, which only dials; config/tls_config.h).
  TlsFiles TlsFilesFor(const std::string& role, int machine) const;
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
