// Test fixture: a synthetic graph written as a partition, real `distgnn --role
// server` processes serving it on 127.0.0.1, a raw-socket client for malformed
// frames, and an in-memory reference of the graph.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/client/dist_graph_client.h"
#include "common/net/protocol.h"
#include "roles/server/synthetic_partition.h"
#include "test/support/raw_client.h"
#include "test/support/test_support.h"

namespace dg::test {

class ServerCluster {
 public:
  ~ServerCluster();
  // Starts servers_per_part servers for every partition of json; waits until each serves.
  void Start(const std::string& json, int num_parts, int servers_per_part, const std::string& token = "",
             const std::vector<std::string>& extra = {});
  const std::vector<ServerEndpoints>& endpoints() const { return endpoints_; }
  Subprocess& proc(int part, int index) { return *procs_[part * per_part_ + index]; }
  int port(int part, int index) const { return endpoints_[part].ports[index]; }
  std::string logs() const;

 private:
  int per_part_ = 1;
  std::vector<ServerEndpoints> endpoints_;
  std::vector<std::unique_ptr<Subprocess>> procs_;
  std::unique_ptr<TempDir> logdir_;
};

// A written partition plus its reference graph.
struct TestGraph {
  std::unique_ptr<TempDir> dir;
  std::string json;
  SyntheticGraph g;
  PartitionConfig config;
  std::vector<std::vector<int64_t>> in_edges;  // per node: input edge indices e with dst[e]==v
  std::vector<int64_t> orig_eid;               // new edge id -> input edge index
};
std::unique_ptr<TestGraph> MakeTestGraph(int64_t nodes, int64_t edges, int64_t feat_dim, int parts, uint64_t seed,
                                         bool power_law = false);

// One untyped hop; edge_ids as the tests ask (most check the edge ids).
inline SampleSpec Hop(int64_t fanout, bool replace, uint64_t seed, const std::string& weight_name = "",
                       bool edge_ids = true) {
  SampleSpec s;
  s.fanout = fanout;
  s.replace = replace;
  s.seed = seed;
  s.weight_name = weight_name;
  s.edge_ids = edge_ids;
  return s;
}

ClientOptions FastClientOptions();  // short heartbeats/timeouts for tests
std::unique_ptr<DistGraphClient> ConnectClient(const TestGraph& tg, const ServerCluster& c,
                                               ClientOptions options = FastClientOptions(),
                                               const std::string& token = "", const std::string& role = "client");


}  // namespace dg::test
