#include "roles/job/job_client.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <filesystem>
#include <thread>

namespace dg {

std::vector<ServerEndpoints> JobServerEndpoints(const JobConfig& job) {
  std::vector<ServerEndpoints> endpoints;
  for (int m = 0; m < job.num_machines(); ++m) {
    ServerEndpoints e{job.machines[m].host, {}};
    for (int i = 0; i < job.servers_per_machine; ++i) e.ports.push_back(job.ServerPort(m, i));
    endpoints.push_back(std::move(e));
  }
  return endpoints;
}

ConnectionOptions JobConnectionOptions(const JobConfig& job) {
  ConnectionOptions o;
  o.max_frame_bytes = job.max_frame_bytes;
  o.heartbeat_seconds = job.heartbeat_seconds;
  o.peer_timeout_seconds = job.peer_timeout_seconds;
  o.tls = job.tls.context;
  return o;
}

RingOptions JobTrainerRing(const JobConfig& job, int rank) {
  RingOptions o;
  o.rank = rank;
  o.world_size = job.num_trainers();
  for (int r = 0; r < o.world_size; ++r) o.hosts.push_back(job.machines[r / job.trainers_per_machine].host);
  o.port_base = job.rendezvous_port;
  o.token = job.token;
  o.connection = JobConnectionOptions(job);
  o.connect_timeout_seconds = job.rendezvous_timeout_seconds;
  o.timeout_seconds = job.peer_timeout_seconds;
  return o;
}

ClientOptions JobClientOptions(const JobConfig& job) {
  ClientOptions o;
  o.connection = JobConnectionOptions(job);
  return o;
}

Result<std::unique_ptr<DistGraphClient>> ConnectJobClient(const JobConfig& job,
                                                          const PartitionConfig& partition,
                                                          const std::string& role, int rank,
                                                          int machine) {
  ClientOptions o = JobClientOptions(job);
  if (machine >= 0 && machine < partition.num_parts &&
      std::filesystem::exists(partition.PartDir(machine)))
    o.local_partitions = {machine};
  const auto endpoints = JobServerEndpoints(job);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(job.connect_wait_seconds * 1000));
  bool said = false;
  while (true) {
    auto client = DistGraphClient::Connect(partition, endpoints, job.token, role, rank, o);
    if (client.ok()) return client;
    // A refused connection means "not up yet"; everything else is final.
    const bool retry = client.status().code() == Status::Code::kIOError &&
                       std::chrono::steady_clock::now() < deadline;
    if (!retry) return client.status();
    if (!said) spdlog::info("waiting for servers: {}", client.status().message());
    said = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

}  // namespace dg
