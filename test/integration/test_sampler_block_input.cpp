// A real sampler process takes the trainer's input path (EPOCH's BatchInput):
// bundled Cora on 2 METIS partitions, a real `distgnn --role server` per
// partition and one real `distgnn --role sampler` for trainer 0, whose side of
// the protocol (RemoteBatchProvider) runs in this process and asks for block 0
// aggregated where the features live with float16 rows. Every batch must be,
// bit for bit, the one BlockInputProvider makes in this process over the same
// servers (machine 0's partition from the mmap, as the sampler reads it), with
// the features and neighbour means rounded to float16 as the MINIBATCH carries
// them; then a plain EPOCH (PULL, float32) gives the batches LocalBatchProvider
// makes, rows as they are. The sampler holds the job's feature cache
// (train.feature_cache_mb), which changes no bit of a batch.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>

#include "common/client/block_input.h"
#include "common/client/dist_neighbor_source.h"
#include "common/net/wire_dtype.h"
#include "common/storage/partition.h"
#include "roles/trainer/source/remote_batch_provider.h"
#include "test/integration/test_launch_support.h"

using namespace dg;
using namespace dg::test;

namespace {

bool SameArray(const Array& a, const Array& b) {
  return a.dtype == b.dtype && a.shape == b.shape && std::memcmp(a.data, b.data, a.nbytes()) == 0;
}

Array Rounded(const Array& a, WireDType t) {
  Array r = Array::Zeros(a.dtype, a.shape);
  std::memcpy(r.data, a.data, a.nbytes());
  RoundLikeWire(t, r.as<float>(), r.numel());
  return r;
}

}  // namespace

TEST_CASE("a sampler process makes the trainer's aggregated float16 batches, bit for bit as trainer threads round them",
          "[sampler][wire]") {
  TempDir dir;
  auto r = RunDistgnn({"partition", "--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--method", "metis",
                       "--name", "cora", "--out", dir / "parts"},
                      120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto cfg = LoadPartitionConfig(dir / "parts/cora.json");
  REQUIRE(cfg.ok());
  const int base = FreePortRange(5);
  std::ofstream(dir / "model.pt") << "not read by samplers";
  {
    std::ofstream y(dir / "job.yaml");
    y << "job: agg\npartition: parts/cora.json\ntoken: tok\nmachines:\n  - host: 127.0.0.1\n  - host: 127.0.0.1\n"
      << "ports: {server: " << base << ", trainer: " << base + 2 << ", rendezvous: " << base + 4 << "}\n"
      << "processes: {servers: 1, trainers: 1, samplers_per_trainer: 1}\n"
      << "train: {model: model.pt, feature_cache_mb: 1}\nnetwork: {heartbeat_seconds: 0.5, peer_timeout_seconds: 10}\noutput_dir: runs\n";
  }
  RemoteProviderOptions o;
  o.host = "127.0.0.1";
  o.port = base + 2;
  o.graph_name = "cora";
  o.token = "tok";
  o.credits = 2;
  o.connection.heartbeat_seconds = 0.5;
  o.connect_wait_seconds = 120;
  o.batch_timeout_seconds = 120;
  auto trainer = RemoteBatchProvider::Listen(o);
  REQUIRE(trainer.ok());
  auto start = [&](const std::string& role, int m) {
    auto p = std::make_unique<Subprocess>();
    p->Start({DistgnnBin(), "--role", role, "--config", dir / "job.yaml", "--machine", std::to_string(m), "--index",
              "0", "--threads", "2"},
             dir / (role + "-" + std::to_string(m) + ".log"));
    return p;
  };
  auto server0 = start("server", 0), server1 = start("server", 1);
  auto sampler = start("sampler", 0);
  auto logs = [&] { return sampler->Output() + server0->Output() + server1->Output(); };
  Status st = (*trainer)->WaitForSamplers();
  if (!st.ok()) FAIL(st.ToString() << "\n" << logs());

  // This process's batch makers: the servers, machine 0's partition from the mmap.
  ClientOptions co;
  co.local_partitions = {0};
  auto client = DistGraphClient::Connect(*cfg, {{"127.0.0.1", {base}}, {"127.0.0.1", {base + 1}}}, "tok", "client",
                                         0, co);
  REQUIRE(client.ok());
  DistNeighborSource source(client->get());
  EpochRequest req;
  for (int64_t v = 0; v < cfg->num_nodes; v += 9) req.seeds.push_back(v);
  req.batch_size = 40;
  req.fanouts = {5, 10};
  req.job_seed = 3;
  int64_t compared = 0;
  for (const BatchInput input : {BatchInput{true, WireDType::kFloat16}, BatchInput{false, WireDType::kFloat32}}) {
    INFO("aggregate " << input.aggregate << ", " << WireDTypeName(input.wire));
    req.epoch = input.aggregate ? 1 : 2;
    BlockInputOptions bo;
    bo.aggregate = input.aggregate;
    bo.wire = input.wire;
    std::unique_ptr<BatchProvider> here;
    if (input.pulls_blocks()) here = std::make_unique<BlockInputProvider>(client->get(), &source, bo, 2);
    else here = std::make_unique<LocalBatchProvider>(&source, 2);
    (*trainer)->SetInput(input);
    REQUIRE((*trainer)->BeginEpoch(req).ok());
    REQUIRE(here->BeginEpoch(req).ok());
    for (int64_t b = 0;; ++b) {
      INFO("batch " << b);
      MiniBatch got, want;
      auto more = (*trainer)->Next(&got);
      if (!more.ok()) FAIL(more.status().ToString() << "\n" << logs());
      auto more_here = here->Next(&want);
      REQUIRE(more_here.ok());
      REQUIRE(*more == *more_here);
      if (!*more) break;
      CHECK(got.seeds == want.seeds);
      REQUIRE(got.blocks.size() == 2);
      for (size_t l = 0; l < 2; ++l) {
        CHECK(got.blocks[l].num_src == want.blocks[l].num_src);
        CHECK(got.blocks[l].indptr == want.blocks[l].indptr);
        CHECK(got.blocks[l].indices == want.blocks[l].indices);
      }
      CHECK(got.input_nodes == want.input_nodes);
      CHECK(SameArray(got.labels, want.labels));
      CHECK(SameArray(got.features, Rounded(want.features, input.wire)));
      if (input.aggregate) {
        CHECK(got.blocks[0].num_src == got.blocks[0].num_dst);  // block 0 as sampled degrees
        CHECK(SameArray(got.input_neigh_mean, Rounded(want.input_neigh_mean, input.wire)));
      } else {
        CHECK(got.input_neigh_mean.shape.empty());
      }
      ++compared;
    }
  }
  CHECK(compared == 2 * NumBatches(static_cast<int64_t>(req.seeds.size()), req.batch_size));
  (*trainer)->Shutdown();
  CHECK(sampler->Wait(30) == 0);
  // The sampler held the job's cache of remote rows, and its batches are those without one.
  const std::string log = sampler->Output();
  INFO(log);
  CHECK(log.find("feature cache: ") != std::string::npos);
  CHECK(log.find(" hits, ") != std::string::npos);
  server0->Signal(SIGTERM);
  server1->Signal(SIGTERM);
  CHECK(server0->Wait(30) == 0);
  CHECK(server1->Wait(30) == 0);
}
