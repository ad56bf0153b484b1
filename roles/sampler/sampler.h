// Sampler: serves one trainer with mini-batches (the sampler role).
//
// It dials its trainer (connections are always opened by the client side),
// then follows the trainer's lead: an EPOCH frame says which seeds, how to cut
// and sample them and which batches are this sampler's share (batch_offset,
// batch_stride); the sampler builds those batches with `workers` threads
// (sampling, block building and feature/label gathering of several batches
// overlap) and streams each as a MINIBATCH frame while it holds credits, then
// END_OF_EPOCH. CREDIT frames return credits. SHUTDOWN from the trainer ends
// Run() with OK. Losing the trainer (closed socket, or silence beyond the peer
// timeout) ends Run() with PeerLost/Timeout naming it; a batch that cannot be
// built (a server lost) is reported to the trainer as an ERROR frame and ends
// Run() with that error.
//
// The input rows of node batches come the way the EPOCH says (BatchInput,
// common/sampling/minibatch_codec.h): by PULL, or by the trainer threads'
// BlockInputProvider (common/client/block_input.h: block 0 aggregated where
// the features live, rows in a 16-bit wire dtype), whose rows then travel to
// the trainer in that wire dtype too.
//
// Batch content depends only on (job seed, epoch, batch index, seeds, graph),
// so any number of samplers produce the same batches.
#pragma once

#include <atomic>

#include <string>

#include "common/net/connection.h"
#include "common/sampling/batch_provider.h"
#include "common/sampling/minibatch.h"
#include "common/base/status.h"

namespace dg {

class DistGraphClient;

// Live counters for the metrics endpoint (written by Run, read by any thread).
struct SamplerCounters {
  std::atomic<bool> connected{false};  // to the trainer (the servers are connected before Run)
  std::atomic<int64_t> epoch{0}, batches{0}, seeds{0}, bytes_sent{0}, credits{0};
  std::atomic<double> sample_seconds{0}, gather_seconds{0};
};

struct SamplerOptions {
  std::string trainer_host;
  int trainer_port = 0;
  std::string trainer_name;       // for messages: "trainer 0 (127.0.0.1:30200)"
  Hello hello;                    // role "sampler", rank, graph name, token
  ConnectionOptions connection;
  double connect_wait_seconds = 60;  // keep dialing while the trainer is not listening
  int workers = 2;                // threads building batches
  int prefetch = 2;               // finished batches waiting beyond the credits
  std::string feature_name = "features";  // "" = batches carry no features (embedding-only models)
  SamplerCounters* counters = nullptr;    // not owned; may be null
  // The servers' client for input rows by PULL_BLOCK (not owned; null = an
  // EPOCH asking for them is an error). `source` reads through it.
  DistGraphClient* client = nullptr;
  // Link prediction: makes the batches of EPOCHs with link = 1
  // (not owned; null = such an EPOCH is an error).
  BatchProvider* link_provider = nullptr;
};

class Sampler {
 public:
  // `source` (the graph) must outlive the sampler.
  Sampler(NeighborSource* source, SamplerOptions options);
  Status Run();

 private:
  NeighborSource* source_;
  SamplerOptions options_;
};

}  // namespace dg
