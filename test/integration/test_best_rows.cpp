// CHECKPOINT keep best / restore best (roles/server/server_checkpoint.cpp) on
// real servers: the mutable tensors of a step are kept in
// <partition dir>/checkpoints/best/, come back over later writes when the
// same step is asked for, and a copy of another step (another run's) or none
// is refused naming it, while step checkpoints stay as they are.
#include <catch2/catch.hpp>

#include <filesystem>

#include "roles/trainer/loop/step_checkpoint.h"
#include "test/server/server_fixture.h"

namespace dg::test {
namespace {

Array Rows(int64_t n, int64_t D, float value) {
  Array a = Array::Zeros(DType::kFloat32, {n, D});
  for (int64_t i = 0; i < n * D; ++i) a.as<float>()[i] = value + static_cast<float>(i);
  return a;
}

std::vector<float> Values(const Array& a) { return std::vector<float>(a.as<float>(), a.as<float>() + a.numel()); }

}  // namespace

TEST_CASE("CHECKPOINT keeps the best step's mutable tensors and restores only that step", "[checkpoint][server]") {
  auto tg = MakeTestGraph(300, 1200, 4, 2, 5);
  const int64_t N = tg->g.num_nodes, D = 3;
  ServerCluster cluster;
  cluster.Start(tg->json, 2, 1);
  auto c = ConnectClient(*tg, cluster);
  InitTensorSpec emb;
  emb.name = "emb";
  emb.shape = {N, D};
  REQUIRE(c->InitTensor(emb).ok());
  std::vector<int64_t> ids;
  for (int64_t v = 0; v < N; v += 13) ids.push_back(v);  // both partitions
  const int64_t n = static_cast<int64_t>(ids.size());

  // No copy yet: NotFound naming the directory.
  Status none = ServerBest(c.get(), /*restore=*/true, 7);
  CHECK(none.code() == Status::Code::kNotFound);
  CHECK(none.message().find("checkpoints/best") != std::string::npos);

  REQUIRE(c->Push("emb", ids, Rows(n, D, 1)).ok());
  REQUIRE(ServerBest(c.get(), /*restore=*/false, 7).ok());
  REQUIRE(ServerCheckpoint(c.get(), /*load=*/false, 8, 2).ok());
  for (int p = 0; p < 2; ++p) {
    const std::string root = tg->config.PartDir(p) + "/checkpoints";
    CHECK(std::filesystem::exists(root + "/best/step.txt"));
    CHECK_FALSE(std::filesystem::exists(root + "/best.tmp"));
    CHECK(std::filesystem::is_directory(root + "/step-8"));
  }
  REQUIRE(c->Push("emb", ids, Rows(n, D, 100)).ok());

  // Another step's copy is refused and changes nothing.
  Status other = ServerBest(c.get(), /*restore=*/true, 9);
  CHECK(other.code() == Status::Code::kInvalidArgument);
  CHECK(other.message().find("is of step 7, not 9") != std::string::npos);
  auto still = c->Pull("emb", ids);
  REQUIRE(still.ok());
  CHECK(Values(*still) == Values(Rows(n, D, 100)));

  REQUIRE(ServerBest(c.get(), /*restore=*/true, 7).ok());
  auto back = c->Pull("emb", ids);
  REQUIRE(back.ok());
  CHECK(Values(*back) == Values(Rows(n, D, 1)));
  // The step checkpoint is untouched by the best copy: step 8 holds the rows of then.
  REQUIRE(c->Push("emb", ids, Rows(n, D, 50)).ok());
  REQUIRE(ServerCheckpoint(c.get(), /*load=*/true, 8, 2).ok());
  auto step8 = c->Pull("emb", ids);
  REQUIRE(step8.ok());
  CHECK(Values(*step8) == Values(Rows(n, D, 1)));
}

}  // namespace dg::test
