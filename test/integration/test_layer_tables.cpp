// Layer tables (roles/trainer/source/layer_tables.h) on real servers: two
// trainers write their halves of a layer, meet at its end and read every row
// back as train-local's tables give them; the tables are scratch tensors,
// left out of the servers' step checkpoints while a DistEmbedding is in them.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "roles/trainer/loop/step_checkpoint.h"
#include "roles/trainer/source/layer_tables.h"
#include "test/server/server_fixture.h"

namespace dg::test {
namespace {

// Rows [n, D] whose values name the node and the column.
Array NodeRows(const std::vector<int64_t>& ids, int64_t D) {
  Array a = Array::Zeros(DType::kFloat32, {static_cast<int64_t>(ids.size()), D});
  for (size_t i = 0; i < ids.size(); ++i)
    for (int64_t j = 0; j < D; ++j) a.as<float>()[i * D + j] = static_cast<float>(ids[i] * 10 + j) * 0.5f;
  return a;
}

std::vector<float> Values(const Array& a) { return std::vector<float>(a.as<float>(), a.as<float>() + a.numel()); }

std::string ReadText(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("layer tables: 2 trainers write halves over 2 partitions, read as train-local's, not checkpointed",
          "[trainer][layerwise]") {
  auto tg = MakeTestGraph(500, 2000, 4, 2, 17);
  const int64_t N = tg->g.num_nodes, D = 6;
  ServerCluster cluster;
  cluster.Start(tg->json, 2, 1);
  auto c0 = ConnectClient(*tg, cluster), c1 = ConnectClient(*tg, cluster);
  auto t0 = MakeDistLayerTables(c0.get(), 2), t1 = MakeDistLayerTables(c1.get(), 2);
  auto local = MakeLocalLayerTables(N);
  // A learnt table that step checkpoints must keep.
  InitTensorSpec emb;
  emb.name = "emb";
  emb.shape = {N, 3};
  REQUIRE(c0->InitTensor(emb).ok());

  std::vector<int64_t> lo, hi, all;
  for (int64_t v = 0; v < N; ++v) (v < N / 2 ? lo : hi).push_back(v);
  for (int64_t v = N - 1; v >= 0; v -= 7) all.push_back(v);  // across both partitions, out of order
  all.push_back(0);
  all.push_back(0);  // duplicates
  Status s1;
  std::thread other([&] {
    s1 = t1->Write("t:h1", hi, NodeRows(hi, D));
    if (s1.ok()) s1 = t1->EndLayer("t:h1");
  });
  REQUIRE(t0->Write("t:h1", lo, NodeRows(lo, D)).ok());
  REQUIRE(t0->EndLayer("t:h1").ok());
  other.join();
  REQUIRE(s1.ok());
  REQUIRE(local->Write("t:h1", lo, NodeRows(lo, D)).ok());
  REQUIRE(local->Write("t:h1", hi, NodeRows(hi, D)).ok());
  REQUIRE(local->EndLayer("t:h1").ok());

  auto want = local->Read("t:h1", all);
  auto got0 = t0->Read("t:h1", all), got1 = t1->Read("t:h1", all);
  REQUIRE(want.ok());
  REQUIRE(got0.ok());
  REQUIRE(got1.ok());
  CHECK(got0->shape == std::vector<int64_t>{static_cast<int64_t>(all.size()), D});
  CHECK(Values(*got0) == Values(NodeRows(all, D)));
  CHECK(Values(*got0) == Values(*want));
  CHECK(Values(*got1) == Values(*want));

  // The next evaluation rewrites the same table (same name, same shape).
  REQUIRE(t0->Write("t:h1", {3}, NodeRows({4}, D)).ok());
  auto row3 = t1->Read("t:h1", {3});
  REQUIRE(row3.ok());
  CHECK(Values(*row3) == Values(NodeRows({4}, D)));

  REQUIRE(ServerCheckpoint(c0.get(), /*load=*/false, 5, 2).ok());
  for (int p = 0; p < 2; ++p) {
    const std::string index = ReadText(tg->config.PartDir(p) + "/checkpoints/step-5/tensors");
    INFO(index);
    CHECK(index.find(" emb\n") != std::string::npos);
    CHECK(index.find("t:h1") == std::string::npos);
  }
  // Loading the checkpoint leaves the scratch table as it is.
  REQUIRE(ServerCheckpoint(c0.get(), /*load=*/true, 5, 2).ok());
  auto after = t0->Read("t:h1", {3, 400});
  REQUIRE(after.ok());
  CHECK(Values(*after) == Values(NodeRows({4, 400}, D)));
}

}  // namespace dg::test
