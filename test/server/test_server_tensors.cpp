// DistTensors against real server processes: pull/push on mutable tensors,
// persistence across restarts (SAVE_TENSOR, clean shutdown, loading at start),
// and server-side sparse optimizers (SPARSE_UPDATE) checked against a dense
// reference written here (independent of common/storage/sparse_optimizer.cpp).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <thread>

#include "common/net/codec.h"
#include "common/storage/neighbor_sampling.h"
#include "common/io/npy.h"
#include "common/storage/sparse_optimizer.h"
#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;

namespace {

std::vector<int64_t> AllIds(int64_t n) {
  std::vector<int64_t> ids(n);
  for (int64_t i = 0; i < n; ++i) ids[i] = i;
  return ids;
}

std::vector<float> PullAll(DistGraphClient& c, const std::string& name, int64_t n) {
  auto r = c.Pull(name, AllIds(n));
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  REQUIRE(r->dtype == DType::kFloat32);
  return std::vector<float>(r->as<float>(), r->as<float>() + r->numel());
}

Array RandomRows(size_t n, int64_t dim, uint64_t seed, float lo = -1, float hi = 1) {
  Array a = Array::Zeros(DType::kFloat32, {static_cast<int64_t>(n), dim});
  Rng rng(seed);
  for (int64_t i = 0; i < a.numel(); ++i) a.as<float>()[i] = lo + (hi - lo) * static_cast<float>(rng.UniformDouble());
  return a;
}

std::vector<int64_t> RandomIds(int64_t lo, int64_t hi, size_t count, uint64_t seed) {
  Rng rng(seed);
  std::vector<int64_t> ids(count);
  for (auto& id : ids) id = lo + static_cast<int64_t>(rng.Uniform(hi - lo));
  return ids;
}

InitTensorSpec Spec(const std::string& name, int64_t n, int64_t dim, bool persistent = false) {
  InitTensorSpec s;
  s.name = name;
  s.dtype = DType::kFloat32;
  s.shape = {n, dim};
  s.init = Initializer::kUniform;
  s.seed = 17;
  s.a = -1;
  s.b = 1;
  s.persistent = persistent;
  return s;
}

bool Contains(const Status& st, const std::string& what) {
  return st.message().find(what) != std::string::npos;
}

// SPARSE_UPDATE requests partition `part`'s server 0 has taken in, by its STATS
// (a contribution that waits for the rest of its step counts once it is parked).
uint64_t SparseUpdatesSeen(DistGraphClient& c, int part) {
  auto s = c.Stats(part, 0);
  INFO(s.status().ToString());
  REQUIRE(s.ok());
  for (const auto& t : s->types)
    if (t.type == "SPARSE_UPDATE") return t.requests;
  return 0;
}

// Waits (up to 20 s) until partition `part`'s server 0 has taken in more than `before`.
void AwaitSparseUpdate(DistGraphClient& c, int part, uint64_t before) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (SparseUpdatesSeen(c, part) <= before) {
    REQUIRE(std::chrono::steady_clock::now() < end);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace

TEST_CASE("DistTensor over 3 partitions: init, pull, push overwrite and add with duplicates", "[server][tensor]") {
  auto tg = MakeTestGraph(900, 4000, 4, 3, 51);
  ServerCluster cluster;
  cluster.Start(tg->json, 3, 2);  // two servers per partition: mutable tensors live on index 0
  auto client = ConnectClient(*tg, cluster);
  const int64_t N = tg->g.num_nodes, D = 6;

  InitTensorSpec zero = Spec("dt", N, D);
  zero.init = Initializer::kZeros;
  REQUIRE(client->InitTensor(zero).ok());
  std::vector<float> ref(N * D, 0.0f);
  CHECK(PullAll(*client, "dt", N) == ref);

  for (int round = 0; round < 6; ++round) {
    std::vector<int64_t> ids = RandomIds(0, N, 1500, 200 + round);  // duplicates and every partition
    ids.push_back(ids.front());
    ids.push_back(N - 1);
    Array rows = RandomRows(ids.size(), D, 300 + round, -4, 4);
    const PushMode mode = round % 3 == 1 ? PushMode::kOverwrite : PushMode::kAdd;
    REQUIRE(client->Push("dt", ids, rows, mode).ok());
    for (size_t i = 0; i < ids.size(); ++i)
      for (int64_t j = 0; j < D; ++j) {
        float v = rows.as<float>()[i * D + j];
        float& r = ref[ids[i] * D + j];
        r = mode == PushMode::kAdd ? r + v : v;  // overwrite: the last duplicate wins
      }
    std::vector<float> got = PullAll(*client, "dt", N);
    REQUIRE(got == ref);
  }
  // Pulls in caller order with duplicates, from a client that did not create the tensor.
  auto other = ConnectClient(*tg, cluster);
  std::vector<int64_t> ids = {N - 1, 0, 450, 0};
  auto rows = other->Pull("dt", ids);
  REQUIRE(rows.ok());
  for (size_t i = 0; i < ids.size(); ++i)
    for (int64_t j = 0; j < D; ++j) REQUIRE(rows->as<float>()[i * D + j] == ref[ids[i] * D + j]);

  // Uniform init: values in [a, b).
  REQUIRE(client->InitTensor(Spec("u", N, 3)).ok());
  for (float v : PullAll(*client, "u", N)) REQUIRE((v >= -1.0f && v < 1.0f));
}

TEST_CASE("persistent DistTensor survives restarts, non-persistent ones do not", "[server][tensor]") {
  auto tg = MakeTestGraph(600, 3000, 4, 3, 61);
  const int64_t N = tg->g.num_nodes, D = 5;
  auto cluster = std::make_unique<ServerCluster>();
  cluster->Start(tg->json, 3, 2);
  std::vector<float> saved;
  {
    auto client = ConnectClient(*tg, *cluster);
    REQUIRE(client->InitTensor(Spec("emb", N, D, /*persistent=*/true)).ok());
    REQUIRE(client->InitTensor(Spec("scratch", N, 2)).ok());
    std::vector<int64_t> ids = RandomIds(0, N, 400, 7);
    REQUIRE(client->Push("emb", ids, RandomRows(ids.size(), D, 8), PushMode::kOverwrite).ok());
    saved = PullAll(*client, "emb", N);
    REQUIRE(client->SaveTensor("emb").ok());
    for (int p = 0; p < 3; ++p) {
      auto f = NpyRead(tg->config.PartDir(p) + "/tensors/emb.npy");
      REQUIRE(f.ok());
      CHECK(f->shape == std::vector<int64_t>{tg->config.node_map[p + 1] - tg->config.node_map[p], D});
    }
    Status st = client->SaveTensor("scratch");
    CHECK(st.code() == Status::Code::kInvalidArgument);
    CHECK(Contains(st, "SAVE_TENSOR 'scratch': tensor is not persistent"));
    CHECK(client->SaveTensor("nope").code() == Status::Code::kNotFound);
    InitTensorSpec bad_name = Spec("../evil", N, 2, true);
    st = client->InitTensor(bad_name);
    CHECK(st.code() == Status::Code::kInvalidArgument);
    CHECK(Contains(st, "a persistent tensor's name must be a file name"));
    // Written after the save and then killed: lost.
    REQUIRE(client->Push("emb", {1, 2, 3}, RandomRows(3, D, 9), PushMode::kAdd).ok());
  }
  cluster.reset();  // SIGKILL: no shutdown save

  cluster = std::make_unique<ServerCluster>();
  cluster->Start(tg->json, 3, 2);
  CHECK(cluster->logs().find("loaded persistent tensor 'emb'") != std::string::npos);
  std::vector<float> second;
  {
    auto client = ConnectClient(*tg, *cluster, FastClientOptions(), "", "trainer");
    auto meta = client->Metadata();
    REQUIRE(meta.ok());
    bool listed = false;
    for (const auto& t : (*meta)[2].tensors)
      listed |= t.name == "emb" && t.kind == TensorKind::kMutableNode && t.shape == std::vector<int64_t>{N, D};
    CHECK(listed);
    CHECK(PullAll(*client, "emb", N) == saved);
    CHECK(client->Pull("scratch", std::vector<int64_t>{0}).status().code() == Status::Code::kNotFound);
    // Resume: INIT_TENSOR of the loaded tensor keeps its rows; a different shape is refused.
    REQUIRE(client->InitTensor(Spec("emb", N, D, true)).ok());
    CHECK(PullAll(*client, "emb", N) == saved);
    CHECK(client->InitTensor(Spec("emb", N, D + 1, true)).code() == Status::Code::kAlreadyExists);
    std::vector<int64_t> ids = RandomIds(0, N, 300, 10);
    REQUIRE(client->Push("emb", ids, RandomRows(ids.size(), D, 11), PushMode::kAdd).ok());
    second = PullAll(*client, "emb", N);
    CHECK(second != saved);
    REQUIRE(client->ShutdownAll().ok());  // a clean shutdown saves persistent tensors
  }
  for (int p = 0; p < 3; ++p)
    for (int i = 0; i < 2; ++i) {
      INFO(cluster->proc(p, i).Output());
      CHECK(cluster->proc(p, i).Wait(20) == 0);
    }
  CHECK(cluster->logs().find("saved persistent tensor 'emb'") != std::string::npos);
  cluster = std::make_unique<ServerCluster>();
  cluster->Start(tg->json, 3, 1);
  {
    auto client = ConnectClient(*tg, *cluster);
    CHECK(PullAll(*client, "emb", N) == second);
  }
  cluster.reset();

  // A persisted file whose row count does not fit the partition: the server exits non-zero naming it.
  const std::string bad = tg->config.PartDir(1) + "/tensors/broken.npy";
  REQUIRE(NpyWrite(bad, Array::Zeros(DType::kFloat32, {3, 2})).ok());
  RunResult r = RunDistgnn({"--role", "server", "--partition-config", tg->json, "--part", "1", "--host", "127.0.0.1",
                            "--port", std::to_string(FreePort())},
                           60);
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK(r.output.find(bad + ": has shape [3, 2] but partition 1 owns 200 nodes") != std::string::npos);
}

namespace {

// The dense reference: DGL's SparseAdagrad / SparseAdam, element-wise in double.
struct DenseReference {
  bool adam = false;
  double lr = 0.05, eps = 1e-10, b1 = 0.9, b2 = 0.999;
  int64_t dim = 0;
  std::vector<double> w, s, m, v;
  std::vector<int64_t> t;

  void Init(const std::vector<float>& init, int64_t d) {
    dim = d;
    w.assign(init.begin(), init.end());
    s.assign(w.size(), 0.0);
    m.assign(w.size(), 0.0);
    v.assign(w.size(), 0.0);
    t.assign(w.size() / d, 0);
  }
  // One step from the contributions of all ranks (ids may repeat).
  void Step(const std::vector<std::vector<int64_t>>& ids, const std::vector<Array>& grads) {
    std::vector<double> g(w.size(), 0.0);
    std::vector<bool> touched(t.size(), false);
    for (size_t r = 0; r < ids.size(); ++r)
      for (size_t i = 0; i < ids[r].size(); ++i) {
        touched[ids[r][i]] = true;
        for (int64_t j = 0; j < dim; ++j) g[ids[r][i] * dim + j] += grads[r].as<float>()[i * dim + j];
      }
    for (size_t row = 0; row < t.size(); ++row) {
      if (!touched[row]) continue;
      ++t[row];
      for (int64_t j = 0; j < dim; ++j) {
        const size_t k = row * dim + j;
        if (!adam) {
          s[k] += g[k] * g[k];
          w[k] -= lr * g[k] / (std::sqrt(s[k]) + eps);
        } else {
          m[k] = b1 * m[k] + (1 - b1) * g[k];
          v[k] = b2 * v[k] + (1 - b2) * g[k] * g[k];
          const double mh = m[k] / (1 - std::pow(b1, double(t[row])));
          const double vh = v[k] / (1 - std::pow(b2, double(t[row])));
          w[k] -= lr * mh / (std::sqrt(vh) + eps);
        }
      }
    }
  }
};

// Rank r's ids for step k on N = 600 nodes in 3 partitions of 200: overlapping
// between ranks, duplicates within a rank, some steps leave partitions empty.
std::vector<int64_t> StepIds(int rank, int step, int64_t N) {
  if (rank == 0 && step == 3) return {};                         // an empty contribution
  if (rank == 1 && step == 2) return RandomIds(0, 200, 50, 11);  // partition 0 only
  std::vector<int64_t> ids = RandomIds(0, N, 80, 1000 + 10 * step + rank);
  for (int64_t common : {int64_t(5), int64_t(250), N - 1}) ids.push_back(common);  // both ranks touch these
  ids.push_back(ids[0]);
  ids.push_back(5);
  return ids;
}

void RunSparseSteps(const TestGraph& tg, const ServerCluster& cluster, const std::string& name,
                    const SparseOptimizerSpec& opt) {
  const int64_t N = tg.g.num_nodes, D = 8;
  const int kSteps = 5, W = 2;
  auto client = ConnectClient(tg, cluster);
  REQUIRE(client->InitTensor(Spec(name, N, D)).ok());
  DenseReference ref;
  ref.adam = opt.kind == SparseOptimizerKind::kAdam;
  ref.lr = opt.lr;
  ref.eps = opt.eps;
  ref.Init(PullAll(*client, name, N), D);

  std::vector<std::vector<std::vector<int64_t>>> ids(kSteps, std::vector<std::vector<int64_t>>(W));
  std::vector<std::vector<Array>> grads(kSteps, std::vector<Array>(W));
  for (int k = 0; k < kSteps; ++k)
    for (int r = 0; r < W; ++r) {
      ids[k][r] = StepIds(r, k, N);
      grads[k][r] = RandomRows(ids[k][r].size(), D, 5000 + 10 * k + r, -2, 2);
    }
  // Rank 1 pulls after each of its steps returns and before it sends the next:
  // step k+1 cannot be applied before rank 1 contributes, so the pull sees step k exactly.
  std::vector<std::vector<Status>> status(W, std::vector<Status>(kSteps));
  std::vector<std::vector<float>> after(kSteps);
  std::vector<std::thread> threads;
  for (int r = 0; r < W; ++r) {
    threads.emplace_back([&, r] {
      auto c = DistGraphClient::Connect(tg.config, cluster.endpoints(), "", "trainer", r, FastClientOptions());
      if (!c.ok()) {
        status[r][0] = c.status();
        return;
      }
      for (int k = 0; k < kSteps; ++k) {
        status[r][k] = (*c)->SparseUpdate(name, opt, 100 + k, W, r, ids[k][r], grads[k][r]);
        if (!status[r][k].ok()) return;
        if (r == 1) {
          auto p = (*c)->Pull(name, AllIds(N));
          if (!p.ok()) {
            status[r][k] = p.status();
            return;
          }
          after[k].assign(p->as<float>(), p->as<float>() + p->numel());
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int k = 0; k < kSteps; ++k) {
    for (int r = 0; r < W; ++r) {
      INFO("rank " << r << " step " << k << ": " << status[r][k].ToString());
      REQUIRE(status[r][k].ok());
    }
    ref.Step(ids[k], grads[k]);
    REQUIRE(after[k].size() == ref.w.size());
    double worst = 0;
    for (size_t i = 0; i < ref.w.size(); ++i) worst = std::max(worst, std::abs(double(after[k][i]) - ref.w[i]));
    INFO(name << " step " << k << ": max |server - reference| = " << worst);
    CHECK(worst <= 1e-5);
  }
  // Nothing changes without a step.
  std::vector<float> now = PullAll(*client, name, N);
  CHECK(now == after[kSteps - 1]);
}

}  // namespace

TEST_CASE("sparse Adagrad and Adam on the servers equal a dense reference, W = 2", "[server][tensor][sparse]") {
  auto tg = MakeTestGraph(600, 3000, 4, 3, 71);
  ServerCluster cluster;
  cluster.Start(tg->json, 3, 2);
  const SparseOptimizerSpec ada = SparseOptimizerSpec::Defaults(SparseOptimizerKind::kAdagrad, 0.05);
  CHECK(ada.eps == 1e-10);
  const SparseOptimizerSpec adam = SparseOptimizerSpec::Defaults(SparseOptimizerKind::kAdam, 0.05);
  CHECK(adam.eps == 1e-8);
  CHECK(adam.beta1 == 0.9);
  CHECK(adam.beta2 == 0.999);
  SECTION("sparse_adagrad") { RunSparseSteps(*tg, cluster, "emb_adagrad", ada); }
  SECTION("sparse_adam") { RunSparseSteps(*tg, cluster, "emb_adam", adam); }
}

namespace {

// Steps 100.. of StepIds with weight decay, W = 2: after each step every row
// pulled (touched or not) equals the in-process SparseOptimizerState fed the
// same summed gradients and step numbers, read with its owed decay, bit for
// bit; SAVE_TENSOR writes those values too.
void RunDecaySteps(const TestGraph& tg, const ServerCluster& cluster, const std::string& name,
                   const SparseOptimizerSpec& opt) {
  const int64_t N = tg.g.num_nodes, D = 8;
  const int kSteps = 6, W = 2;
  auto client = ConnectClient(tg, cluster);
  REQUIRE(client->InitTensor(Spec(name, N, D, /*persistent=*/true)).ok());
  std::vector<float> table = PullAll(*client, name, N);
  SparseOptimizerState local(opt, N, D);
  std::vector<std::unique_ptr<DistGraphClient>> ranks;
  for (int r = 0; r < W; ++r) {
    auto c = DistGraphClient::Connect(tg.config, cluster.endpoints(), "", "trainer", r, FastClientOptions());
    REQUIRE(c.ok());
    ranks.push_back(std::move(*c));
  }
  auto expected = [&] {
    std::vector<float> out = table;
    for (int64_t i = 0; i < N; ++i)
      for (int64_t j = 0; j < D; ++j) out[i * D + j] *= local.ReadFactor(i);
    return out;
  };
  for (int k = 0; k < kSteps; ++k) {
    const uint64_t step = 100 + k;
    std::vector<std::vector<int64_t>> ids(W);
    std::vector<Array> grads(W);
    std::vector<Status> status(W);
    SparseGradSum sum(D);
    for (int r = 0; r < W; ++r) {
      ids[r] = StepIds(r, k, N);
      grads[r] = RandomRows(ids[r].size(), D, 7000 + 10 * k + r, -2, 2);
      sum.Add(ids[r].data(), ids[r].size(), grads[r].as<float>());
    }
    std::vector<std::thread> threads;
    for (int r = 0; r < W; ++r)
      threads.emplace_back([&, r] { status[r] = ranks[r]->SparseUpdate(name, opt, step, W, r, ids[r], grads[r]); });
    for (auto& t : threads) t.join();
    for (int r = 0; r < W; ++r) REQUIRE(status[r].ok());
    local.Apply(sum.rows().data(), sum.rows().size(), sum.sums(), table.data(), step);
    INFO(name << " step " << step);
    CHECK(PullAll(*client, name, N) == expected());
  }
  REQUIRE(local.owes_decay());
  REQUIRE(client->SaveTensor(name).ok());
  std::vector<float> saved;
  for (int p = 0; p < 3; ++p) {
    auto f = NpyRead(tg.config.PartDir(p) + "/tensors/" + name + ".npy");
    REQUIRE(f.ok());
    saved.insert(saved.end(), f->as<float>(), f->as<float>() + f->numel());
  }
  CHECK(saved == expected());
  CHECK(PullAll(*client, name, N) == expected());  // saving changed nothing
}

}  // namespace

TEST_CASE("sparse optimizers with weight decay on the servers equal the in-process state, W = 2",
          "[server][tensor][sparse]") {
  auto tg = MakeTestGraph(600, 3000, 4, 3, 73);
  ServerCluster cluster;
  cluster.Start(tg->json, 3, 1);
  SparseOptimizerSpec ada = SparseOptimizerSpec::Defaults(SparseOptimizerKind::kAdagrad, 0.05);
  ada.weight_decay = 0.5;
  SparseOptimizerSpec adam = SparseOptimizerSpec::Defaults(SparseOptimizerKind::kAdam, 0.05);
  adam.weight_decay = 0.5;
  SECTION("sparse_adagrad") { RunDecaySteps(*tg, cluster, "wd_adagrad", ada); }
  SECTION("sparse_adam") { RunDecaySteps(*tg, cluster, "wd_adam", adam); }
  SECTION("a tensor keeps the weight decay of its first update") {
    auto client = ConnectClient(*tg, cluster, FastClientOptions(), "", "trainer");
    REQUIRE(client->InitTensor(Spec("wd_bound", tg->g.num_nodes, 8)).ok());
    REQUIRE(client->SparseUpdate("wd_bound", ada, 1, 1, 0, {1}, RandomRows(1, 8, 1)).ok());
    SparseOptimizerSpec other = ada;
    other.weight_decay = 0.25;
    Status st = client->SparseUpdate("wd_bound", other, 2, 1, 0, {1}, RandomRows(1, 8, 2));
    CHECK(Contains(st, "SPARSE_UPDATE 'wd_bound': optimizer sparse_adagrad(lr=0.05, eps=1e-10, weight_decay=0.25) "
                       "differs from sparse_adagrad(lr=0.05, eps=1e-10, weight_decay=0.5) of this tensor's first "
                       "update"));
    other.weight_decay = -1;
    st = client->SparseUpdate("wd_bound", other, 2, 1, 0, {1}, RandomRows(1, 8, 2));
    CHECK(Contains(st, "sparse_adagrad: weight_decay = -1 must be >= 0 and finite"));
    // The last u64 is no step number with weight decay (a saved state could not
    // be loaded); the one before it is, and the server serves on.
    st = client->SparseUpdate("wd_bound", ada, kLastDecayStep + 1, 1, 0, {1}, RandomRows(1, 8, 3));
    CHECK(st.code() == Status::Code::kInvalidArgument);
    CHECK(Contains(st, "SPARSE_UPDATE 'wd_bound': step 18446744073709551615 with weight_decay > 0: weight decay "
                       "numbers steps up to 18446744073709551614"));
    REQUIRE(client->SparseUpdate("wd_bound", ada, kLastDecayStep, 1, 0, {1}, RandomRows(1, 8, 4)).ok());
  }
}

TEST_CASE("bad SPARSE_UPDATE requests get exact errors and the servers keep serving", "[server][tensor][sparse]") {
  auto tg = MakeTestGraph(600, 3000, 4, 3, 81);
  ServerCluster cluster;
  // Incomplete steps fail after --peer-timeout: 600 s here, so step 7 still
  // waits during the refusals below however loaded the machine is; the expiry
  // has a cluster of its own below.
  cluster.Start(tg->json, 3, 2, "", {"--peer-timeout", "600"});
  auto client = ConnectClient(*tg, cluster, FastClientOptions(), "", "trainer");
  const int64_t N = tg->g.num_nodes;
  const SparseOptimizerSpec ada = SparseOptimizerSpec::Defaults(SparseOptimizerKind::kAdagrad, 0.1);
  const SparseOptimizerSpec adam = SparseOptimizerSpec::Defaults(SparseOptimizerKind::kAdam, 0.1);
  REQUIRE(client->InitTensor(Spec("emb", N, 8)).ok());
  InitTensorSpec f64 = Spec("acc", N, 8);
  f64.dtype = DType::kFloat64;
  REQUIRE(client->InitTensor(f64).ok());
  const std::vector<float> before = PullAll(*client, "emb", N);

  Status st = client->SparseUpdate("emb", ada, 1, 1, 0, {1, 2}, RandomRows(2, 4, 1));
  CHECK(st.code() == Status::Code::kInvalidArgument);
  CHECK(Contains(st, "SPARSE_UPDATE 'emb': grads are float32 [2, 4] but the tensor needs float32 [2, 8] for 2 ids"));
  st = client->SparseUpdate("emb", ada, 1, 2, 2, {1}, RandomRows(1, 8, 1));
  CHECK(st.code() == Status::Code::kInvalidArgument);
  CHECK(Contains(st, "SPARSE_UPDATE 'emb' step 1: rank 2 is not below the 2 contributors"));
  st = client->SparseUpdate("emb", ada, 1, 0, 0, {1}, RandomRows(1, 8, 1));
  CHECK(Contains(st, "SPARSE_UPDATE 'emb' step 1: 0 contributors (must be 1..65536)"));
  st = client->SparseUpdate("acc", ada, 1, 1, 0, {1}, RandomRows(1, 8, 1));
  CHECK(st.code() == Status::Code::kInvalidArgument);
  CHECK(Contains(st, "SPARSE_UPDATE 'acc': sparse optimizers need a float32 tensor, this one is float64"));
  st = client->SparseUpdate("features", ada, 1, 1, 0, {1}, RandomRows(1, 4, 1));
  CHECK(Contains(st, "SPARSE_UPDATE 'features': tensor is read-only partition data"));
  st = client->SparseUpdate("nope", ada, 1, 1, 0, {1}, RandomRows(1, 8, 1));
  CHECK(st.code() == Status::Code::kNotFound);
  CHECK(Contains(st, "SPARSE_UPDATE: unknown tensor 'nope'"));
  SparseOptimizerSpec bad_lr = ada;
  bad_lr.lr = -1;
  st = client->SparseUpdate("emb", bad_lr, 1, 1, 0, {1}, RandomRows(1, 8, 1));
  CHECK(Contains(st, "sparse_adagrad: lr = -1 must be > 0 and finite"));
  CHECK(PullAll(*client, "emb", N) == before);  // nothing written by any of them

  // The first update binds the optimizer; a different one is refused.
  REQUIRE(client->SparseUpdate("emb", ada, 2, 1, 0, {1, 1, 300}, RandomRows(3, 8, 2)).ok());
  st = client->SparseUpdate("emb", adam, 3, 1, 0, {1}, RandomRows(1, 8, 3));
  CHECK(Contains(st, "SPARSE_UPDATE 'emb': optimizer sparse_adam(lr=0.1, eps=1e-08, betas=(0.9, 0.999)) differs "
                     "from sparse_adagrad(lr=0.1, eps=1e-10) of this tensor's first update"));

  // A step with W = 2: rank 0 waits; a second rank 0, a W = 3 contribution and
  // another optimizer are refused; rank 1's contribution completes the step.
  Status waiting;
  uint64_t seen = SparseUpdatesSeen(*client, 0);
  std::thread lone([&] {
    auto c = ConnectClient(*tg, cluster);
    waiting = c->SparseUpdate("emb", ada, 7, 2, 0, {4, 450}, RandomRows(2, 8, 4));
  });
  AwaitSparseUpdate(*client, 0, seen);  // rank 0's contribution waits on partition 0
  st = client->SparseUpdate("emb", ada, 7, 2, 0, {5}, RandomRows(1, 8, 5));
  INFO(st.ToString());
  CHECK(Contains(st, "SPARSE_UPDATE 'emb' step 7: rank 0 already contributed to this step"));
  st = client->SparseUpdate("emb", ada, 7, 3, 1, {5}, RandomRows(1, 8, 5));
  INFO(st.ToString());
  CHECK(Contains(st, "SPARSE_UPDATE 'emb' step 7: 3 contributors, but this step's first contribution said 2"));
  st = client->SparseUpdate("emb", adam, 7, 2, 1, {5}, RandomRows(1, 8, 5));
  INFO(st.ToString());
  CHECK(Contains(st, "differs from sparse_adagrad(lr=0.1, eps=1e-10)"));
  st = client->SparseUpdate("emb", ada, 7, 2, 1, {5}, RandomRows(1, 8, 5));
  INFO(st.ToString());
  CHECK(st.ok());
  lone.join();
  INFO(waiting.ToString());
  CHECK(waiting.ok());

  // A step whose rank 1 never comes: rank 0 gets Timeout after the peer timeout
  // (2 s; a loaded machine may answer later, never sooner).
  {
    ServerCluster short_wait;
    short_wait.Start(tg->json, 3, 2, "", {"--peer-timeout", "2"});
    auto c = ConnectClient(*tg, short_wait, FastClientOptions(), "", "trainer");
    REQUIRE(c->InitTensor(Spec("emb", N, 8)).ok());
    auto t0 = std::chrono::steady_clock::now();
    const Status lone_rank = c->SparseUpdate("emb", ada, 7, 2, 0, {4, 450}, RandomRows(2, 8, 4));
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(lone_rank.code() == Status::Code::kTimeout);
    CHECK(Contains(lone_rank,
                   "SPARSE_UPDATE 'emb' step 7: only 1 of 2 contributors arrived within 2 s (missing ranks 1)"));
    CHECK(waited >= 1.9);
    CHECK(short_wait.logs().find("only 1 of 2 contributors arrived") != std::string::npos);
  }

  // A malformed payload (unknown optimizer kind) over a raw socket; and index 1 holds no tensors.
  {
    RawClient raw(cluster.port(0, 0));
    raw.Hello();
    SparseUpdateRequest r;
    r.name = "emb";
    r.optimizer = ada;
    r.step = 9;
    r.contributors = 1;
    r.ids = IdsArray({1});
    r.grads = RandomRows(1, 8, 6);
    Encoder e;
    EncodeSparseUpdate(&e, r);
    std::string payload = e.Finish().Flatten();
    std::string bad_kind = payload;
    bad_kind[4 + r.name.size()] = 7;
    raw.SendFrame(uint16_t(MsgType::kSparseUpdate), 31, bad_kind);
    FrameHeader h;
    std::string p;
    REQUIRE(raw.ReadFrame(&h, &p));
    CHECK(h.type == uint16_t(MsgType::kError));
    CHECK(h.request_id == 31);
    CHECK(ErrorMessage(p).find("optimizer kind 7 is not 0 (sparse_adagrad) or 1 (sparse_adam)") != std::string::npos);
    RawClient raw1(cluster.port(0, 1));
    raw1.Hello();
    raw1.SendFrame(uint16_t(MsgType::kSparseUpdate), 32, payload);
    REQUIRE(raw1.ReadFrame(&h, &p));
    CHECK(h.type == uint16_t(MsgType::kError));
    CHECK(ErrorMessage(p).find("mutable tensors live on server index 0 of partition 0") != std::string::npos);
  }

  // Still serving: a valid step applies and pulls work.
  const std::vector<float> mid = PullAll(*client, "emb", N);
  REQUIRE(client->SparseUpdate("emb", ada, 8, 1, 0, {10, 590}, RandomRows(2, 8, 7)).ok());
  const std::vector<float> last = PullAll(*client, "emb", N);
  CHECK(last != mid);
  CHECK(std::equal(last.begin() + 11 * 8, last.begin() + 590 * 8, mid.begin() + 11 * 8));
  for (int p = 0; p < 3; ++p) CHECK(cluster.proc(p, 0).running());

  // Shutdown fails a waiting step with PeerLost (and the servers exit 0).
  Status parked;
  seen = SparseUpdatesSeen(*client, 0);
  std::thread waiter([&] {
    auto c = ConnectClient(*tg, cluster);
    parked = c->SparseUpdate("emb", ada, 20, 2, 1, {7}, RandomRows(1, 8, 8));
  });
  AwaitSparseUpdate(*client, 0, seen);  // node 7 lives on partition 0
  REQUIRE(client->ShutdownAll().ok());
  waiter.join();
  CHECK(parked.code() == Status::Code::kPeerLost);
  CHECK(Contains(parked, "server shut down before SPARSE_UPDATE 'emb' step 20 completed (1 of 2 contributors arrived)"));
  for (int p = 0; p < 3; ++p) CHECK(cluster.proc(p, 0).Wait(20) == 0);
}

TEST_CASE("a partition's step checkpoint keeps the weight decay rows owe: resumed equals never stopped",
          "[server][tensor][sparse]") {
  auto tg = MakeTestGraph(300, 1500, 4, 1, 91);
  const int64_t N = tg->g.num_nodes, D = 4;
  auto open = [&] {
    auto part = OpenLocalPartition(tg->config, 0);
    REQUIRE(part.ok());
    return std::make_unique<PartitionStore>(tg->config, std::move(*part), /*holds_mutable=*/true);
  };
  SparseOptimizerSpec adam = SparseOptimizerSpec::Defaults(SparseOptimizerKind::kAdam, 0.05);
  adam.weight_decay = 0.5;
  auto whole = open(), first = open();
  bool created = false;
  REQUIRE(whole->InitTensor(Spec("emb", N, D), &created).ok());
  REQUIRE(first->InitTensor(Spec("emb", N, D), &created).ok());
  auto step = [&](PartitionStore& s, int k) {
    const std::vector<int64_t> ids = RandomIds(0, N, 20, 300 + k);  // most rows untouched in a step
    SparseGrad g{Array::Zeros(DType::kInt64, {int64_t(ids.size())}), RandomRows(ids.size(), D, 400 + k)};
    std::memcpy(g.ids.data, ids.data(), g.ids.nbytes());
    REQUIRE(s.SparseUpdate("emb", adam, 50 + k, {g}).ok());
  };
  auto all = [&](PartitionStore& s) {
    auto r = s.Pull(TensorKind::kNode, "emb", AllIds(N).data(), N);
    REQUIRE(r.ok());
    return std::vector<float>(r->as<float>(), r->as<float>() + r->numel());
  };
  TempDir dir;
  // first: steps numbered 50..54; top: the last five numbers weight decay takes,
  // whose checkpoint loads as well.
  for (int k = 0; k < 5; ++k) {
    step(*whole, k);
    step(*first, k);
  }
  {
    auto top = open();
    REQUIRE(top->InitTensor(Spec("emb", N, D), &created).ok());
    for (int k = 0; k < 5; ++k) {
      const std::vector<int64_t> ids = RandomIds(0, N, 20, 300 + k);
      SparseGrad g{Array::Zeros(DType::kInt64, {int64_t(ids.size())}), RandomRows(ids.size(), D, 400 + k)};
      std::memcpy(g.ids.data, ids.data(), g.ids.nbytes());
      REQUIRE(top->SparseUpdate("emb", adam, kLastDecayStep - 4 + k, {g}).ok());
    }
    TempDir top_dir;
    REQUIRE(top->SaveCheckpoint(top_dir.path(), nullptr).ok());
    auto loaded = open();
    REQUIRE(loaded->LoadCheckpoint(top_dir.path(), nullptr).ok());
    CHECK(all(*loaded) == all(*top));
  }
  REQUIRE(first->SaveCheckpoint(dir.path(), nullptr).ok());
  auto stored = NpyRead(dir / "tensor-0.npy");
  REQUIRE(stored.ok());
  const std::vector<float> raw(stored->as<float>(), stored->as<float>() + stored->numel());
  CHECK(raw != all(*first));  // rows are checkpointed without the decay they owe
  auto resumed = open();
  REQUIRE(resumed->LoadCheckpoint(dir.path(), nullptr).ok());
  CHECK(all(*resumed) == all(*first));
  for (int k = 5; k < 10; ++k) {
    step(*whole, k);
    step(*resumed, k);
  }
  CHECK(all(*resumed) == all(*whole));
}
