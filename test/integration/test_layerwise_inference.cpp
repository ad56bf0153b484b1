// Layer-wise distributed inference (`distgnn launch --mode infer`) on 2 and 3
// partitions of Cora equals full-graph inference of the same model in this
// process (model.forward over blocks that are the whole graph), to 1e-4, and
// the reported accuracies are those of the reference predictions.
#include "test/support/torch_catch.h"

#include <fstream>
#include <regex>

#include "common/storage/dataset.h"
#include "common/io/npy.h"
#include "test/integration/test_launch_support.h"

using namespace dg;
using namespace dg::test;

namespace {

// Logits of every node (original order) from one forward over the full graph.
torch::Tensor FullGraphLogits(const std::string& model_path) {
  EdgeListOptions eo;
  eo.undirected = true;
  auto ds = LoadDataset(CoraDir(), eo);
  REQUIRE(ds.ok());
  const int64_t n = ds->num_nodes;
  std::vector<int64_t> indptr(n + 1, 0), indices(ds->edges.src.size()), fill;
  for (int64_t d : ds->edges.dst) ++indptr[d + 1];
  for (int64_t i = 0; i < n; ++i) indptr[i + 1] += indptr[i];
  fill.assign(indptr.begin(), indptr.end() - 1);
  for (size_t e = 0; e < ds->edges.src.size(); ++e) indices[fill[ds->edges.dst[e]]++] = ds->edges.src[e];
  const Array& f = ds->node_data.at("features");
  torch::Tensor x = torch::from_blob(f.data, {f.shape[0], f.shape[1]}, torch::kFloat32).clone();
  auto ip = torch::tensor(indptr, torch::kInt64), ix = torch::tensor(indices, torch::kInt64);
  c10::List<std::tuple<torch::Tensor, torch::Tensor, int64_t>> blocks;
  for (int l = 0; l < 2; ++l) blocks.push_back(std::make_tuple(ip, ix, n));
  auto m = torch::jit::load(model_path);
  m.eval();
  torch::NoGradGuard ng;
  return m.forward({x, blocks}).toTensor();
}

double Accuracy(const torch::Tensor& logits, int split_value) {
  auto labels = NpyLoad(CoraDir() + "/labels.npy");
  auto split = NpyLoad(CoraDir() + "/split.npy");
  auto pred = logits.argmax(1);
  int64_t ok = 0, n = 0;
  for (int64_t i = 0; i < labels->rows(); ++i) {
    if (split->as<int8_t>()[i] != split_value) continue;
    ++n;
    ok += pred[i].item<int64_t>() == labels->as<int64_t>()[i];
  }
  return double(ok) / n;
}

}  // namespace

TEST_CASE("layer-wise inference on 2 and 3 partitions equals full-graph inference", "[inference][cora]") {
  TempDir dir;
  auto r = RunDistgnn({"model", "export", "--arch", "sage", "--in-dim", "1433", "--hidden", "32", "--classes", "7",
                       "--layers", "2", "-o", dir / "sage.pt"});
  REQUIRE(r.exit_code == 0);
  torch::Tensor ref = FullGraphLogits(dir / "sage.pt");
  for (int parts : {2, 3}) {
    INFO(parts << " partitions");
    const std::string pdir = dir / ("parts" + std::to_string(parts));
    r = RunDistgnn({"partition", "--dataset", CoraDir(), "--undirected", "--num-parts", std::to_string(parts),
                    "--method", "metis", "--name", "cora", "--out", pdir});
    REQUIRE(r.exit_code == 0);
    const int base = FreePortRange(3 * parts + 2);
    const std::string yaml = dir / ("job" + std::to_string(parts) + ".yaml");
    {
      std::ofstream y(yaml);
      y << "job: infer" << parts << "\npartition: " << pdir << "/cora.json\nmachines:\n";
      for (int m = 0; m < parts; ++m) y << "  - host: 127.0.0.1\n";
      y << "ports: {server: " << base << ", trainer: " << base + parts << ", rendezvous: " << base + 2 * parts
        << "}\nprocesses: {servers: 1, trainers: 1, samplers_per_trainer: 1}\n"
        << "train: {model: sage.pt}\noutput_dir: runs\n";
    }
    r = RunDistgnn({"launch", yaml, "--mode", "infer", "--quiet"}, 180);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const std::string run = dir / ("runs/infer" + std::to_string(parts));
    auto logits = NpyLoad(run + "/logits.npy");
    REQUIRE(logits.ok());
    REQUIRE(logits->shape == std::vector<int64_t>{2708, 7});
    torch::Tensor got = torch::from_blob(logits->data, {2708, 7}, torch::kFloat32);
    CHECK((got - ref).abs().max().item<double>() < 1e-4);
    auto pred = NpyLoad(run + "/predictions.npy");
    REQUIRE(pred.ok());
    CHECK(torch::equal(torch::from_blob(pred->data, {2708}, torch::kInt64), ref.argmax(1)));
    std::string info = ReadFile(run + "/inference.json");
    std::smatch m;
    REQUIRE(std::regex_search(info, m, std::regex("\"val_acc\": ([0-9.]+), \"test_acc\": ([0-9.]+)")));
    CHECK(std::stod(m[1]) == Approx(Accuracy(ref, 1)).margin(1e-9));
    CHECK(std::stod(m[2]) == Approx(Accuracy(ref, 2)).margin(1e-9));
  }
}
