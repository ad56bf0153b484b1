// The sampler <-> trainer stream, each side against a hand-driven peer.
//   A real `distgnn --role sampler` (with a real server) dialing this test as its
//   trainer: it sends exactly as many MINIBATCHes as it holds credits, ignores
//   credits of another epoch, heartbeats while it waits, ends the epoch with
//   END_OF_EPOCH and exits 0 on SHUTDOWN.
//   The trainer side (RemoteBatchProvider) with raw sampler connections: a wrong
//   token or graph, a non-sampler, a (K+1)-th sampler and a duplicate rank are
//   refused with exact messages; it heartbeats to connected samplers.
#include <catch2/catch.hpp>

#include "common/net/codec.h"
#include "common/net/connection.h"
#include "common/net/handshake.h"
#include "common/sampling/minibatch_codec.h"
#include "roles/trainer/source/remote_batch_provider.h"
#include "test/integration/test_launch_support.h"
#include "test/support/raw_client.h"

using namespace dg;
using namespace dg::test;

namespace {

Frame AsFrame(const FrameHeader& h, const std::string& payload) {
  auto holder = std::make_shared<std::string>(payload);
  Frame f;
  f.header = h;
  f.holder = holder;
  f.data = reinterpret_cast<const uint8_t*>(holder->data());
  f.size = holder->size();
  return f;
}

// The trainer's end of one sampler connection.
struct TrainerEnd {
  RawClient& c;
  // Next frame other than a heartbeat (answered with one, so the sampler never
  // declares us lost); fails the test on close or after 30 s.
  Frame Next() {
    while (true) {
      FrameHeader h;
      std::string p;
      REQUIRE(c.ReadFrame(&h, &p, 30, /*return_heartbeats=*/true));
      if (h.type == uint16_t(MsgType::kHeartbeat)) {
        c.SendFrame(uint16_t(MsgType::kHeartbeat), 0, "");
        ++idle_heartbeats;
        continue;
      }
      idle_heartbeats = 0;
      return AsFrame(h, p);
    }
  }
  // Waits for `n` heartbeats in a row: the sampler had nothing to send (it may
  // send nothing else meanwhile).
  void ExpectIdle(int n) {
    idle_heartbeats = 0;
    while (idle_heartbeats < n) {
      FrameHeader h;
      std::string p;
      REQUIRE(c.ReadFrame(&h, &p, 30, /*return_heartbeats=*/true));
      INFO("frame type " << MsgTypeName(h.type) << " while the sampler should wait for credits");
      REQUIRE(h.type == uint16_t(MsgType::kHeartbeat));
      c.SendFrame(uint16_t(MsgType::kHeartbeat), 0, "");
      ++idle_heartbeats;
    }
  }
  int64_t ExpectBatch(uint64_t seq) {
    Frame f = Next();
    INFO("got " << MsgTypeName(f.header.type));
    REQUIRE(f.type() == MsgType::kMinibatch);
    CHECK(f.header.request_id == seq);
    MiniBatch mb;
    Status st = DecodeMiniBatch(f, &mb);
    INFO(st.ToString());
    REQUIRE(st.ok());
    CHECK(mb.features.rows() == static_cast<int64_t>(mb.input_nodes.size()));
    return mb.batch_index;
  }
  int idle_heartbeats = 0;
};

}  // namespace

TEST_CASE("a real sampler honours credits, heartbeats while it waits, ends the epoch and exits on SHUTDOWN",
          "[sampler][protocol]") {
  TempDir dir;
  auto r = RunDistgnn({"partition", "--dataset", CoraDir(), "--undirected", "--num-parts", "1", "--method", "random",
                       "--name", "cora", "--out", dir / "parts"},
                      120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const int base = FreePortRange(3);
  std::ofstream(dir / "model.pt") << "not read by samplers";
  {
    std::ofstream y(dir / "job.yaml");
    y << "job: s\npartition: parts/cora.json\ntoken: tok\nmachines:\n  - host: 127.0.0.1\n"
      << "ports: {server: " << base << ", trainer: " << base + 1 << ", rendezvous: " << base + 2 << "}\n"
      << "processes: {servers: 1, trainers: 1, samplers_per_trainer: 1}\ntrain: {model: model.pt}\n"
      << "network: {heartbeat_seconds: 0.2, peer_timeout_seconds: 10}\noutput_dir: runs\n";
  }
  RawListener trainer_port(base + 1);
  Subprocess server, sampler;
  server.Start({DistgnnBin(), "--role", "server", "--config", dir / "job.yaml", "--machine", "0"}, dir / "server.log");
  sampler.Start({DistgnnBin(), "--role", "sampler", "--config", dir / "job.yaml", "--machine", "0", "--index", "0"},
                dir / "sampler.log");
  RawClient c = trainer_port.Accept(120);
  INFO(sampler.Output());
  REQUIRE(c.fd() >= 0);
  TrainerEnd t{c};

  // The v2 handshake as the trainer: the sampler proves it holds "tok".
  HandshakeAcceptor acceptor("cora", "tok");
  Frame hello_frame = t.Next();
  REQUIRE(hello_frame.type() == MsgType::kHello);
  BufferList challenge;
  auto step = acceptor.OnFrame(hello_frame.header.type, hello_frame.data, hello_frame.size, &challenge);
  INFO(step.status().ToString());
  REQUIRE(step.ok());
  c.SendFrame(uint16_t(MsgType::kChallenge), 0, challenge.Flatten());
  Frame auth = t.Next();
  BufferList none;
  step = acceptor.OnFrame(auth.header.type, auth.data, auth.size, &none);
  INFO(step.status().ToString());
  REQUIRE(step.ok());
  REQUIRE(*step == HandshakeAcceptor::Step::kAuthenticated);
  CHECK(acceptor.hello().role == "sampler");
  CHECK(acceptor.hello().rank == 0);
  CHECK(acceptor.hello().graph_name == "cora");
  Welcome w;
  w.role = kRoleTrainer;
  w.rank = 0;
  w.graph_name = "cora";
  c.SendFrame(uint16_t(MsgType::kWelcome), 0, acceptor.EncodeWelcome(w).Flatten());

  EpochRequest req;
  req.epoch = 1;
  for (int64_t v = 0; v < 100; ++v) req.seeds.push_back(v * 20);
  req.batch_size = 10;  // 10 batches
  req.fanouts = {3, 3};
  req.job_seed = 1;
  const uint64_t seq = 1;
  c.SendFrame(uint16_t(MsgType::kEpoch), seq, EncodeEpoch(req, 2).Flatten());
  CHECK(t.ExpectBatch(seq) == 0);
  CHECK(t.ExpectBatch(seq) == 1);
  t.ExpectIdle(4);  // 2 credits spent: nothing more
  c.SendFrame(uint16_t(MsgType::kCredit), seq + 7, EncodeCredit(5).Flatten());  // another epoch's credit
  t.ExpectIdle(4);
  c.SendFrame(uint16_t(MsgType::kCredit), seq, EncodeCredit(1).Flatten());
  CHECK(t.ExpectBatch(seq) == 2);
  t.ExpectIdle(4);
  c.SendFrame(uint16_t(MsgType::kCredit), seq, EncodeCredit(100).Flatten());
  for (int64_t b = 3; b < 10; ++b) CHECK(t.ExpectBatch(seq) == b);
  Frame end = t.Next();
  REQUIRE(end.type() == MsgType::kEndOfEpoch);
  Decoder d = end.decoder("END_OF_EPOCH");
  CHECK(d.I64() == 1);
  CHECK(d.I64() == 10);
  CHECK(d.Finish().ok());

  c.SendFrame(uint16_t(MsgType::kShutdown), seq, "");
  CHECK(sampler.Wait(20) == 0);
  CHECK(sampler.Output().find("is done; exiting") != std::string::npos);
  server.Signal(SIGTERM);
  CHECK(server.Wait(20) == 0);
}

TEST_CASE("the trainer port refuses wrong tokens, graphs, roles, a (K+1)-th sampler and a duplicate rank",
          "[sampler][protocol]") {
  RemoteProviderOptions o;
  o.host = "127.0.0.1";
  o.port = 0;
  o.trainer_rank = 3;
  o.graph_name = "g";
  o.token = "tok";
  o.first_sampler_rank = 6;
  o.num_samplers = 2;  // samplers 6 and 7
  o.connection.heartbeat_seconds = 0.1;
  o.connect_wait_seconds = 30;
  auto p = RemoteBatchProvider::Listen(o);
  REQUIRE(p.ok());
  const int port = (*p)->port();
  auto refused = [&](const std::string& role, int rank, const std::string& token, const std::string& graph,
                     const std::string& text) {
    RawClient c(port);
    std::string reply;
    const uint16_t type = c.HelloAs(role, rank, token, graph, &reply);
    INFO(role << " " << rank << " token '" << token << "' graph '" << graph << "': " << ErrorMessage(reply));
    CHECK(type == uint16_t(MsgType::kError));
    CHECK(ErrorMessage(reply).find(text) != std::string::npos);
    CHECK(c.WaitClosed(10));
  };
  refused("sampler", 6, "nope", "g", "wrong cluster token");
  refused("sampler", 6, "", "g", "token");
  refused("sampler", 6, "tok", "other", "graph 'other' requested but this serves 'g'");
  refused("trainer", 6, "tok", "g", "trainer 3 accepts only samplers, not a trainer");
  refused("sampler", 8, "tok", "g", "trainer 3 serves samplers 6..7, not sampler 8");
  refused("sampler", 5, "tok", "g", "serves samplers 6..7, not sampler 5");

  RawClient s6(port);
  std::string reply;
  REQUIRE(s6.HelloAs("sampler", 6, "tok", "g", &reply) == uint16_t(MsgType::kWelcome));
  refused("sampler", 6, "tok", "g", "sampler 6 is already connected to trainer 3");
  RawClient s7(port);
  REQUIRE(s7.HelloAs("sampler", 7, "", "", &reply) == uint16_t(MsgType::kError));  // token still required
  RawClient s7b(port);
  REQUIRE(s7b.HelloAs("sampler", 7, "tok", "", &reply) == uint16_t(MsgType::kWelcome));  // "" = any graph
  REQUIRE((*p)->WaitForSamplers().ok());
  // The trainer heartbeats to its samplers while it has nothing to say.
  FrameHeader h;
  std::string payload;
  while (s6.heartbeats() < 3) REQUIRE(s6.ReadFrame(&h, &payload, 10, /*return_heartbeats=*/true));
  CHECK(h.type == uint16_t(MsgType::kHeartbeat));
  (*p)->Shutdown();
  REQUIRE(s6.ReadFrame(&h, &payload, 10));
  CHECK(h.type == uint16_t(MsgType::kShutdown));
}
