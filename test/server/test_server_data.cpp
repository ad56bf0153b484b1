// Pull / push / degrees / metadata / barrier through DistGraphClient against
// real servers of a 3-part partition, checked against the in-memory graph.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstring>
#include <thread>

#include "common/storage/neighbor_sampling.h"
#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;

namespace {

std::vector<int64_t> RandomIds(int64_t n, size_t count, uint64_t seed) {
  Rng rng(seed);
  std::vector<int64_t> ids(count);
  for (auto& id : ids) id = static_cast<int64_t>(rng.Uniform(n));
  return ids;
}

void CheckFeatures(const TestGraph& tg, const std::vector<int64_t>& ids, const Array& rows) {
  const int64_t f = tg.g.features.row_elems();
  REQUIRE(rows.dtype == DType::kFloat32);
  REQUIRE(rows.shape == std::vector<int64_t>{static_cast<int64_t>(ids.size()), f});
  for (size_t i = 0; i < ids.size(); ++i) {
    REQUIRE(std::memcmp(rows.as<float>() + i * f, tg.g.features.as<float>() + ids[i] * f, f * 4) == 0);
  }
}

void CheckAllReads(const TestGraph& tg, DistGraphClient& client) {
  // Spread over all parts, with duplicates (4000 draws from 3000 nodes).
  std::vector<int64_t> ids = RandomIds(tg.g.num_nodes, 4000, 5);
  ids.push_back(ids[0]);
  ids.push_back(0);
  ids.push_back(tg.g.num_nodes - 1);
  auto rows = client.Pull("features", ids);
  REQUIRE(rows.ok());
  CheckFeatures(tg, ids, *rows);
  auto labels = client.Pull("labels", ids);
  REQUIRE(labels.ok());
  REQUIRE(labels->shape == std::vector<int64_t>{static_cast<int64_t>(ids.size())});
  for (size_t i = 0; i < ids.size(); ++i) REQUIRE(labels->as<int64_t>()[i] == tg.g.labels.as<int64_t>()[ids[i]]);

  // Rows grouped by owner, as a batch's input nodes are: each partition's rows
  // are one long run of positions, received straight into place; then short
  // runs and duplicates, copied from the reply.
  std::vector<int64_t> grouped = ids;
  std::stable_sort(grouped.begin(), grouped.end(),
                   [&](int64_t a, int64_t b) { return client.book().Owner(a) < client.book().Owner(b); });
  grouped.insert(grouped.end(), ids.begin(), ids.begin() + 300);
  grouped.insert(grouped.begin() + 500, ids.begin(), ids.begin() + 10);
  const uint64_t in_place_before = client.rows_received_in_place();
  auto grouped_rows = client.Pull("features", grouped);
  REQUIRE(grouped_rows.ok());
  CheckFeatures(tg, grouped, *grouped_rows);
  if (!client.is_local(0) || !client.is_local(2)) CHECK(client.rows_received_in_place() > in_place_before);
  auto grouped_labels = client.Pull("labels", grouped);
  REQUIRE(grouped_labels.ok());
  for (size_t i = 0; i < grouped.size(); ++i)
    REQUIRE(grouped_labels->as<int64_t>()[i] == tg.g.labels.as<int64_t>()[grouped[i]]);

  auto empty = client.Pull("features", std::vector<int64_t>{});
  REQUIRE(empty.ok());
  CHECK(empty->shape == std::vector<int64_t>{0, tg.g.features.row_elems()});

  auto deg = client.InDegrees(ids);
  REQUIRE(deg.ok());
  for (size_t i = 0; i < ids.size(); ++i)
    REQUIRE((*deg)[i] == static_cast<int64_t>(tg.in_edges[ids[i]].size()));
  auto deg0 = client.InDegrees({});
  REQUIRE(deg0.ok());
  CHECK(deg0->empty());

  std::vector<int64_t> eids = RandomIds(static_cast<int64_t>(tg.g.src.size()), 3000, 9);
  auto w = client.PullEdges("weight", eids);
  REQUIRE(w.ok());
  for (size_t i = 0; i < eids.size(); ++i)
    REQUIRE(w->as<float>()[i] == tg.g.edge_weight.as<float>()[tg.orig_eid[eids[i]]]);

  // Errors name the problem.
  auto bad = client.Pull("features", std::vector<int64_t>{1, tg.g.num_nodes});
  CHECK(bad.status().code() == Status::Code::kInvalidArgument);
  CHECK(bad.status().message().find("node id 3000 (at position 1) is outside [0, 3000)") != std::string::npos);
  CHECK(client.Pull("nope", std::vector<int64_t>{1}).status().code() == Status::Code::kNotFound);
}

}  // namespace

TEST_CASE("pull, degrees and edge data match the reference, over the socket and via mmap", "[server][client]") {
  auto tg = MakeTestGraph(3000, 20000, 16, 3, 21);
  ServerCluster cluster;
  cluster.Start(tg->json, 3, 2);
  {  // all partitions over the socket
    auto client = ConnectClient(*tg, cluster);
    CheckAllReads(*tg, *client);
  }
  {  // partition 1 read from the mmap
    ClientOptions o = FastClientOptions();
    o.local_partitions = {1};
    auto client = ConnectClient(*tg, cluster, o);
    CHECK(client->is_local(1));
    CheckAllReads(*tg, *client);
  }
  {  // requests of 7 ids (fewer than a run needs to be received in place)
    ClientOptions o = FastClientOptions();
    o.max_ids_per_request = 7;
    auto client = ConnectClient(*tg, cluster, o);
    CheckAllReads(*tg, *client);
  }
  {  // local shortcut disabled
    ClientOptions o = FastClientOptions();
    o.local_partitions = {0, 1, 2};
    o.disable_local_shortcut = true;
    auto client = ConnectClient(*tg, cluster, o);
    CHECK(!client->is_local(1));
    CheckAllReads(*tg, *client);
  }
  // Reads were spread over both servers of each partition.
  auto stats_client = ConnectClient(*tg, cluster);
  for (int i = 0; i < 2; ++i) {
    auto st = stats_client->Stats(2, i);
    REQUIRE(st.ok());
    CHECK(st->server_index == i);
    bool pulled = false;
    for (auto& t : st->types) pulled |= t.type == "PULL" && t.requests > 0;
    CHECK(pulled);
  }
}

TEST_CASE("mutable tensors: init, push overwrite/add, pull, metadata, stats, barrier", "[server][client]") {
  auto tg = MakeTestGraph(3000, 20000, 8, 3, 31);
  ServerCluster cluster;
  cluster.Start(tg->json, 3, 2);
  ClientOptions o = FastClientOptions();
  o.local_partitions = {0};  // mutable tensors still go to server index 0
  auto client = ConnectClient(*tg, cluster, o);
  const int64_t N = tg->g.num_nodes;

  InitTensorSpec spec;
  spec.name = "acc";
  spec.dtype = DType::kFloat64;
  spec.shape = {N, 3};
  REQUIRE(client->InitTensor(spec).ok());
  REQUIRE(client->InitTensor(spec).ok());  // idempotent
  spec.shape = {N, 4};
  CHECK(client->InitTensor(spec).code() == Status::Code::kAlreadyExists);

  std::vector<double> ref(N * 3, 0.0);
  Rng rng(77);
  for (int round = 0; round < 5; ++round) {
    std::vector<int64_t> ids = RandomIds(N, 2000, 100 + round);  // duplicates included
    Array rows = Array::Zeros(DType::kFloat64, {2000, 3});
    for (int64_t i = 0; i < 2000 * 3; ++i) rows.as<double>()[i] = static_cast<double>(rng.Uniform(100));
    PushMode mode = round == 2 ? PushMode::kOverwrite : PushMode::kAdd;
    REQUIRE(client->Push("acc", ids, rows, mode).ok());
    for (size_t i = 0; i < ids.size(); ++i)
      for (int j = 0; j < 3; ++j) {
        double v = rows.as<double>()[i * 3 + j];
        if (mode == PushMode::kAdd) ref[ids[i] * 3 + j] += v;
        else ref[ids[i] * 3 + j] = v;  // last duplicate wins, as on the server
      }
  }
  std::vector<int64_t> all(N);
  for (int64_t i = 0; i < N; ++i) all[i] = i;
  auto got = client->Pull("acc", all);
  REQUIRE(got.ok());
  for (int64_t i = 0; i < N * 3; ++i) REQUIRE(got->as<double>()[i] == ref[i]);

  // A second client (who did not create it) finds the tensor via METADATA.
  auto other = ConnectClient(*tg, cluster);
  auto got2 = other->Pull("acc", std::vector<int64_t>{5, 2999});
  REQUIRE(got2.ok());
  CHECK(got2->as<double>()[0] == ref[15]);

  // Initializers depend on (seed, gid) only.
  InitTensorSpec u{"u1", DType::kFloat32, {N, 2}, Initializer::kUniform, 9, -0.5, 0.5};
  InitTensorSpec u2 = u;
  u2.name = "u2";
  REQUIRE(client->InitTensor(u).ok());
  REQUIRE(client->InitTensor(u2).ok());
  auto a = client->Pull("u1", all), b = client->Pull("u2", all);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(std::memcmp(a->data, b->data, a->nbytes()) == 0);
  for (int64_t i = 0; i < N * 2; ++i) REQUIRE((a->as<float>()[i] >= -0.5f && a->as<float>()[i] < 0.5f));

  auto meta = client->Metadata();
  REQUIRE(meta.ok());
  REQUIRE(meta->size() == 3);
  CHECK((*meta)[1].node_map == tg->config.node_map);
  CHECK((*meta)[2].part_id == 2);
  bool has_acc = false;
  for (auto& t : (*meta)[0].tensors) has_acc |= t.name == "acc" && t.kind == TensorKind::kMutableNode;
  CHECK(has_acc);

  auto stats = client->Stats(0, 0);
  REQUIRE(stats.ok());
  bool has_push = false;
  for (auto& t : stats->types)
    if (t.type == "PUSH") has_push = t.requests >= 5 && t.p99_ms >= t.p50_ms && t.bytes_in > 0;
  CHECK(has_push);

  // Barrier: three participants release together; a lone one times out.
  std::vector<Status> results(3);
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([&, i] {
      auto c = ConnectClient(*tg, cluster);
      results[i] = c->Barrier("start", 3, 20);
    });
  }
  for (auto& t : threads) t.join();
  for (auto& r : results) CHECK(r.ok());
  Status lone = client->Barrier("lonely", 2, 0.5);
  CHECK(lone.code() == Status::Code::kTimeout);
}
