// `distgnn launch` link prediction on one edge type of a typed partition with
// the real roles: bundled IMDB (--undirected) split on movie -> director at
// partition time, 2 partitions, 2 machines of 127.0.0.1 with a server and a
// trainer each, RGCN with a node embedding for the featureless types. Test
// ROC-AUC (at the best validation epoch) must be clearly above chance, above
// the same model untrained (train-local, lr 0), and within a few points of
// train-local's with the same split, model, seed and epochs (each trainer
// takes half of train-local's batch). The job's train.link_etype and the
// partition's --link-etype refuse mistakes with one message each.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <regex>
#include <string>

#include "test/integration/test_launch_support.h"

using namespace dg::test;

namespace {

constexpr int kEpochs = 3;

double FinalField(const std::string& metrics, const std::string& key) {
  std::ifstream in(metrics);
  std::string line, last;
  while (std::getline(in, line))
    if (line.find("\"final\"") != std::string::npos) last = line;
  std::smatch m;
  if (!std::regex_search(last, m, std::regex("\"" + key + "\": ([-0-9.e]+)"))) return std::nan("");
  return std::stod(m[1]);
}

// `train_extra`: more keys of the train: map ("k: v, ..."; negative: {k: 2} unless it names one).
void WriteLinkJob(const TempDir& dir, const std::string& name, int samplers_per_trainer, const std::string& train_extra) {
  const int base = FreePortRange(5);
  std::ofstream y(dir / (name + ".yaml"));
  y << "job: " << name << "\npartition: parts/imdb.json\nmachines:\n  - host: 127.0.0.1\n  - host: 127.0.0.1\n"
    << "ports: {server: " << base << ", trainer: " << base + 2 << ", rendezvous: " << base + 4 << "}\n"
    << "processes: {servers: 1, trainers: 1, samplers_per_trainer: " << samplers_per_trainer << "}\n"
    << "train: {model: rgcn.pt, task: link, eval_negatives: 20, fanouts: [5], batch_size: 256, "
    << "seed: 0, intra_op_threads: 1, embedding: {dim: 16, lr: 0.01}" << (train_extra.empty() ? "" : ", ")
    << train_extra << (train_extra.find("negative:") == std::string::npos ? ", negative: {k: 2}" : "")
    << "}\noutput_dir: runs\n";
}

double LaunchTestAuc(const TempDir& dir, const std::string& name) {
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / (name + ".yaml")}, dir / (name + ".log"));
  const int rc = launch.Wait(300);
  const std::string out = launch.Output();
  INFO(out + ReadFile(dir / ("runs/" + name + "/logs/0-trainer-0.log")));
  REQUIRE(rc == 0);
  CHECK(FindProcesses("--job-id " + JobId(out)).empty());
  return FinalField(dir / ("runs/" + name + "/metrics.jsonl"), "test_auc");
}

void PartitionImdb(const TempDir& dir) {
  auto r = RunDistgnn({"partition", "--dataset", SourceDir() + "/data/imdb-hetero", "--undirected", "--num-parts", "2",
                       "--name", "imdb", "--out", dir / "parts", "--edge-split", "0.85,0.05,0.10", "--link-etype",
                       "movie:directed_by:director", "--seed", "0"},
                      120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
}

}  // namespace

TEST_CASE("launch: link prediction on IMDB movie -> director on 2 typed partitions near train-local",
          "[launch][typed][link]") {
  TempDir dir;
  const std::string imdb = SourceDir() + "/data/imdb-hetero";
  PartitionImdb(dir);
  CHECK(ReadFile(dir / "parts/link_split.json").find("\"etype\": \"movie:directed_by:director\"") !=
        std::string::npos);
  // The types, widths and relations from the partition; a link model (an embedding per seed).
  auto r = RunDistgnn({"model", "export", "--arch", "rgcn", "--partition-config", dir / "parts/imdb.json", "--task",
                       "link", "--out-dim", "32", "--hidden", "32", "--embedding-dim", "16", "--bases", "2",
                       "--layers", "1", "--seed", "0", "-o", dir / "rgcn.pt"},
                      120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto train_local = [&](const std::string& out, const std::vector<std::string>& extra) {
    std::vector<std::string> args{"train-local", "--task", "link", "--dataset", imdb, "--undirected", "--link-etype",
                                  "movie:directed_by:director", "--edge-split", "0.85,0.05,0.10", "--split-seed", "0",
                                  "--model", dir / "rgcn.pt", "--embedding-dim", "16", "--fanouts", "5", "--negatives",
                                  "2", "--eval-negatives", "20", "--seed", "0", "--threads", "1", "--out", dir / out};
    args.insert(args.end(), extra.begin(), extra.end());
    auto run = RunDistgnn(args, 300);
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    return FinalField(dir / (out + "/metrics.jsonl"), "test_auc");
  };
  const double local = train_local("local", {"--batch-size", "512", "--epochs", std::to_string(kEpochs), "--lr", "0.01"});
  // The same model and evaluation untrained (learning rates must be > 0: both negligible).
  const double untrained = train_local("untrained", {"--batch-size", "2048", "--epochs", "1", "--lr", "1e-9",
                                                     "--embedding-lr", "1e-9"});
  WriteLinkJob(dir, "threads", 0,
               "link_etype: movie:directed_by:director, epochs: " + std::to_string(kEpochs) + ", lr: 0.01");
  const double threads = LaunchTestAuc(dir, "threads");
  WARN("IMDB movie -> director test ROC-AUC: train-local " << local << ", launch " << threads
                                                           << ", train-local untrained " << untrained);
  CHECK(threads > 0.62);                // clearly above chance (0.5)
  CHECK(threads > untrained + 0.08);    // learnt, not the features alone
  CHECK(std::fabs(threads - local) <= 0.05);
}

TEST_CASE("launch: typed link prediction with sampler processes", "[launch][typed][link]") {
  TempDir dir;
  PartitionImdb(dir);
  auto r = RunDistgnn({"model", "export", "--arch", "rgcn", "--partition-config", dir / "parts/imdb.json", "--task",
                       "link", "--out-dim", "32", "--hidden", "32", "--embedding-dim", "16", "--bases", "2",
                       "--layers", "1", "--seed", "0", "-o", dir / "rgcn.pt"},
                      120);
  REQUIRE(r.exit_code == 0);
  WriteLinkJob(dir, "samplers", 1,
               "link_etype: directed_by, epochs: 2, lr: 0.01, negative: {k: 2, distribution: degree}");
  const double auc = LaunchTestAuc(dir, "samplers");
  WARN("IMDB movie -> director test ROC-AUC with sampler processes (degree negatives): " << auc);
  CHECK(auc > 0.6);
}

TEST_CASE("typed link prediction: train.link_etype and partition --link-etype errors", "[launch][typed][link]") {
  TempDir dir;
  const std::string imdb = SourceDir() + "/data/imdb-hetero";
  // partition: --edge-split on a typed dataset needs the edge type, and the edge type needs the split.
  auto r = RunDistgnn({"partition", "--dataset", imdb, "--undirected", "--num-parts", "2", "--name", "imdb", "--out",
                       dir / "x", "--edge-split", "0.85,0.05,0.10"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("--edge-split needs --link-etype src:relation:dst") != std::string::npos);
  CHECK(r.output.find("movie:has_keyword:keyword") != std::string::npos);
  r = RunDistgnn({"partition", "--dataset", imdb, "--num-parts", "2", "--name", "imdb", "--out", dir / "x",
                  "--link-etype", "directed_by"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("--link-etype goes with --edge-split") != std::string::npos);
  r = RunDistgnn({"partition", "--dataset", imdb, "--undirected", "--merge-types", "--num-parts", "2", "--name",
                  "imdb", "--out", dir / "x", "--edge-split", "0.85,0.05,0.10", "--link-etype", "directed_by"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("--edge-split and --merge-types: a merged partition has no edge types") != std::string::npos);
  r = RunDistgnn({"partition", "--dataset", imdb, "--undirected", "--num-parts", "2", "--name", "imdb", "--out",
                  dir / "x", "--edge-split", "0.85,0.05,0.10", "--link-etype", "movie:directed_by:actor"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("--link-etype 'movie:directed_by:actor': no such edge type") != std::string::npos);
  r = RunDistgnn({"partition", "--dataset", CoraDir(), "--num-parts", "1", "--name", "cora", "--out", dir / "x",
                  "--edge-split", "0.85,0.05,0.10", "--link-etype", "cites"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("is not a typed dataset") != std::string::npos);
  CHECK(!std::filesystem::exists(dir / "x"));

  // The job: `config check` names the key and lists the partition's edge types.
  PartitionImdb(dir);
  r = RunDistgnn({"model", "export", "--arch", "rgcn", "--partition-config", dir / "parts/imdb.json", "--task", "link",
                  "--hidden", "8", "--out-dim", "8", "--layers", "1", "-o", dir / "rgcn.pt"},
                 120);
  REQUIRE(r.exit_code == 0);
  auto check = [&](const std::string& train_extra) {
    WriteLinkJob(dir, "job", 0, train_extra);
    return RunDistgnn({"config", "check", dir / "job.yaml"});
  };
  r = check("");
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("key 'train.link_etype': missing") != std::string::npos);
  CHECK(r.output.find("director:rev_directed_by:movie") != std::string::npos);
  r = check("link_etype: movie:acted_in:actor");
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("key 'train.link_etype': 'movie:acted_in:actor': no such edge type") != std::string::npos);
  CHECK(r.output.find("movie:starring:actor") != std::string::npos);
  r = check("link_etype: starring");
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("the edge split of") != std::string::npos);
  CHECK(r.output.find("holds out movie:directed_by:director") != std::string::npos);
  r = check("link_etype: movie__directed_by__director");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  // On a node classification job the key is a mistake.
  {
    const int base = FreePortRange(5);
    std::ofstream y(dir / "node.yaml");
    y << "job: node\npartition: parts/imdb.json\nmachines:\n  - host: 127.0.0.1\n  - host: 127.0.0.1\n"
      << "ports: {server: " << base << ", trainer: " << base + 2 << ", rendezvous: " << base + 4 << "}\n"
      << "train: {model: rgcn.pt, link_etype: directed_by}\n";
  }
  r = RunDistgnn({"config", "check", dir / "node.yaml"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("key 'train.link_etype': goes with train.task link") != std::string::npos);
  // A homogeneous partition has no edge types to name.
  r = RunDistgnn({"partition", "--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--name", "imdb", "--out",
                  dir / "parts", "--edge-split", "0.85,0.05,0.10", "--force"},
                 120);
  REQUIRE(r.exit_code == 0);
  r = check("link_etype: cites");
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("is not a typed partition (one edge type); drop the key") != std::string::npos);
}
