// Distributed link prediction with the real roles on 127.0.0.1:
// Cora partitioned with --edge-split into 2 parts, 2 trainers with 2 sampler
// processes each, reaches test ROC-AUC >= 0.90; with one partition, one trainer
// and no samplers the run equals train-local --task link (same loss curve, same
// metrics, the same embeddings.npy); the same job with 2 sampler processes
// equals the in-process one.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

#include "common/io/npy.h"
#include "test/integration/test_launch_support.h"

using namespace dg::test;

namespace {

std::vector<std::string> Lines(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(ReadFile(path));
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

double Field(const std::string& line, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(line, m, std::regex("\"" + key + "\": ([-0-9.e]+)"))) return std::nan("");
  return std::stod(m[1]);
}

// Cora partitioned into `parts` with the split, a link SAGE model and a
// job with `samplers` sampler processes per trainer.
void PrepareLinkJob(const TempDir& dir, int parts, int samplers, int epochs, int eval_every) {
  auto r = RunDistgnn({"partition", "--dataset", CoraDir(), "--undirected", "--num-parts", std::to_string(parts),
                       "--method", "metis", "--name", "cora", "--out", dir / "parts", "--edge-split",
                       "0.85,0.05,0.10", "--force"},
                      120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  r = RunDistgnn({"model", "export", "--arch", "sage", "--in-dim", "1433", "--hidden", "128", "--layers", "2", "--task",
                  "link", "-o", dir / "sage.pt"},
                 120);
  REQUIRE(r.exit_code == 0);
  const int base = FreePortRange(5);
  std::ofstream y(dir / "job.yaml");
  y << "job: link\npartition: parts/cora.json\nmachines:\n";
  for (int p = 0; p < parts; ++p) y << "  - host: 127.0.0.1\n";
  y << "ports: {server: " << base << ", trainer: " << base + 2 << ", rendezvous: " << base + 4 << "}\n"
    << "processes: {servers: 1, trainers: 1, samplers_per_trainer: " << samplers << "}\n"
    << "train: {model: sage.pt, task: link, negative: {k: 1, distribution: uniform}, eval_negatives: 100, "
    << "fanouts: [10, 25], batch_size: " << 512 / parts << ", epochs: " << epochs << ", eval_every: " << eval_every
    << ", lr: 0.001, seed: 0, intra_op_threads: 1}\noutput_dir: runs\n";
}

void Launch(const TempDir& dir) {
  auto r = RunDistgnn({"launch", dir / "job.yaml"}, 600);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
}

}  // namespace

TEST_CASE("launch: Cora link prediction on 2 partitions with samplers reaches test ROC-AUC >= 0.90",
          "[launch][link][cora]") {
  TempDir dir;
  PrepareLinkJob(dir, 2, 2, 30, 5);
  Launch(dir);
  auto lines = Lines(dir / "runs/link/metrics.jsonl");
  REQUIRE(lines.size() == 31);
  INFO(lines.back());
  REQUIRE(lines.back().find("\"final\": true") != std::string::npos);
  CHECK(Field(lines.back(), "test_auc") >= 0.90);
  CHECK(Field(lines[0], "positive_edges") == 8972);  // every training edge once per epoch (even split)
}

TEST_CASE("launch: one partition, one trainer, 0 or 2 samplers equals train-local --task link",
          "[launch][link][cora]") {
  TempDir dir;
  PrepareLinkJob(dir, 1, 0, 3, 3);
  std::string job = ReadFile(dir / "job.yaml");
  job = std::regex_replace(job, std::regex("intra_op_threads: 1\\}"), "intra_op_threads: 1, save_embeddings: true}");
  std::ofstream(dir / "job.yaml") << job;
  Launch(dir);
  auto dist = Lines(dir / "runs/link/metrics.jsonl");
  auto r = RunDistgnn({"train-local", "--task", "link", "--dataset", CoraDir(), "--undirected", "--model",
                       dir / "sage.pt", "--out", dir / "local", "--threads", "1", "--fanouts", "10,25",
                       "--batch-size", "512", "--lr", "0.001", "--negatives", "1", "--epochs", "3", "--eval-every",
                       "3", "--edge-split", "0.85,0.05,0.10", "--split-seed", "0", "--seed", "0",
                       "--save-embeddings"},
                      600);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto local = Lines(dir / "local/metrics.jsonl");
  REQUIRE(dist.size() == 4);
  REQUIRE(local.size() == 4);
  for (int i = 0; i < 3; ++i) {
    INFO("epoch " << i + 1 << "\n" << dist[i] << "\n" << local[i]);
    CHECK(Field(dist[i], "loss") == Field(local[i], "loss"));
    CHECK(Field(dist[i], "train_acc") == Field(local[i], "train_acc"));
  }
  for (const char* k : {"test_auc", "test_mrr", "val_auc", "val_hits@10"}) CHECK(Field(dist[3], k) == Field(local[3], k));
  // The encoder's embedding of every node, in original node order, from the same weights.
  auto de = dg::NpyRead(dir / "runs/link/embeddings.npy");
  auto le = dg::NpyRead(dir / "local/embeddings.npy");
  REQUIRE(de.ok());
  REQUIRE(le.ok());
  REQUIRE(de->shape == std::vector<int64_t>{2708, 128});
  REQUIRE(le->shape == de->shape);
  double max_diff = 0, scale = 0;
  for (int64_t i = 0; i < de->numel(); ++i) {
    max_diff = std::max(max_diff, std::fabs(double(de->as<float>()[i]) - le->as<float>()[i]));
    scale = std::max(scale, std::fabs(double(le->as<float>()[i])));
  }
  INFO("max |distributed - train-local| " << max_diff << " of " << scale);
  CHECK(max_diff <= 1e-5 * std::max(1.0, scale));
  // The same job with sampler processes: the same batches, so the same curve.
  std::string yaml = ReadFile(dir / "job.yaml");
  yaml = std::regex_replace(yaml, std::regex("samplers_per_trainer: 0"), "samplers_per_trainer: 2");
  std::ofstream(dir / "job.yaml") << yaml;
  std::filesystem::remove_all(dir / "runs");
  Launch(dir);
  auto with_samplers = Lines(dir / "runs/link/metrics.jsonl");
  REQUIRE(with_samplers.size() == 4);
  for (int i = 0; i < 3; ++i) CHECK(Field(with_samplers[i], "loss") == Field(local[i], "loss"));
  CHECK(Field(with_samplers[3], "test_auc") == Field(local[3], "test_auc"));
}

TEST_CASE("launch: a resumed 2-trainer link job equals an uninterrupted one", "[launch][link][cora]") {
  TempDir dir;
  PrepareLinkJob(dir, 2, 0, 3, 3);
  Launch(dir);
  auto full = Lines(dir / "runs/link/metrics.jsonl");
  REQUIRE(full.size() == 4);
  std::filesystem::remove_all(dir / "runs");
  auto r = RunDistgnn({"launch", dir / "job.yaml", "--set", "train.epochs=2"}, 600);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  r = RunDistgnn({"launch", dir / "job.yaml", "--resume"}, 600);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto resumed = Lines(dir / "runs/link/metrics.jsonl");
  REQUIRE(resumed.size() == 4);
  for (int i = 0; i < 3; ++i) CHECK(Field(resumed[i], "loss") == Field(full[i], "loss"));
  CHECK(Field(resumed[3], "test_auc") == Field(full[3], "test_auc"));
  CHECK(Field(resumed[3], "test_mrr") == Field(full[3], "test_mrr"));
}

TEST_CASE("launch: link prediction without features, a DistEmbedding as the input, sampler processes",
          "[launch][link][cora][embedding]") {
  TempDir dir;
  PrepareLinkJob(dir, 2, 1, 4, 4);
  auto r = RunDistgnn({"model", "export", "--arch", "sage", "--in-dim", "32", "--hidden", "64", "--layers", "2",
                       "--task", "link", "-o", dir / "emb.pt"},
                      120);
  REQUIRE(r.exit_code == 0);
  std::string yaml = ReadFile(dir / "job.yaml");
  yaml = std::regex_replace(yaml, std::regex("model: sage.pt"), "model: emb.pt");
  yaml = std::regex_replace(yaml, std::regex("seed: 0,"),
                            "seed: 0, embedding: {dim: 32, optimizer: sparse_adam, lr: 0.05, features: false},");
  std::ofstream(dir / "job.yaml") << yaml;
  Launch(dir);
  auto lines = Lines(dir / "runs/link/metrics.jsonl");
  REQUIRE(lines.size() == 5);
  INFO(lines.back());
  CHECK(Field(lines.back(), "test_auc") > 0.6);
  CHECK(Field(lines[3], "loss") < Field(lines[0], "loss"));
}
