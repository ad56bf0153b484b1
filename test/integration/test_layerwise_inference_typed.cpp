// Layer-wise distributed inference on a typed partition: bundled IMDB
// (--undirected), 2 partitions, 2 machines of 127.0.0.1 with a server and a
// trainer each, RGCN with a persistent node embedding for the featureless
// types. Training with train.layerwise_inference and a later `launch --mode
// infer` (servers reloading the saved embedding) must both give the movies'
// logits and last hidden rows of a full-graph forward of the same model.pt in
// this process (the whole typed graph as every block, the saved embedding as
// the featureless types' input) to 1e-4, its argmax as predictions, and its
// exact val/test accuracy. The same training job's train.save_embeddings
// (node batches of full neighbourhoods, not the layer-wise pass) must give
// every type's last hidden rows of that forward. An embedding table no job
// saved and a model without forward_input get one message each.
#include "test/support/torch_catch.h"

#include <algorithm>
#include <fstream>

#include "common/io/npy.h"
#include "common/storage/typed_dataset.h"
#include "test/integration/cora_launch_job.h"
#include "test/integration/dist_job.h"

using namespace dg;
using namespace dg::test;

namespace {

constexpr int64_t kEmbeddingDim = 16, kHidden = 32;

struct TypedReference {
  torch::Tensor logits, hidden;  // target rows, type-local order
  torch::Tensor labels, split;
  // Every type's last hidden rows (name, rows in type-local order).
  std::vector<std::pair<std::string, torch::Tensor>> type_hidden;
};

// A forward of model_path over the whole typed graph (type-major ids): x is
// each node's padded features and its row of the persistent embedding saved
// in the partitions (global ids through type_nids/<type>.npy).
TypedReference FullGraphReference(const std::string& imdb, const std::string& parts, const std::string& model_path) {
  auto ds = LoadTypedDataset(imdb, /*undirected=*/true);
  REQUIRE(ds.ok());
  const TypeMajorGraph g = ds->ToTypeMajorGraph();
  const int64_t n = g.num_nodes();
  int64_t fmax = 0;
  for (const auto& t : ds->node_types)
    if (const Array* f = t.Find("features")) fmax = std::max(fmax, f->shape[1]);
  std::vector<torch::Tensor> emb_parts;
  for (int p = 0; p < 2; ++p) {
    auto a = NpyLoad(parts + "/part" + std::to_string(p) + "/tensors/embedding.npy");
    REQUIRE(a.ok());
    emb_parts.push_back(torch::from_blob(a->data, {a->shape[0], a->shape[1]}, torch::kFloat32).clone());
  }
  const torch::Tensor emb = torch::cat(emb_parts, 0);  // global id order
  REQUIRE(emb.size(0) == n);
  REQUIRE(emb.size(1) == kEmbeddingDim);
  torch::Tensor x = torch::zeros({n, fmax + kEmbeddingDim});
  torch::Tensor ntype = torch::empty({n}, torch::kInt64);
  for (size_t t = 0; t < ds->node_types.size(); ++t) {
    const NodeTypeData& nt = ds->node_types[t];
    const int64_t off = g.type_offsets[t];
    ntype.slice(0, off, off + nt.count).fill_(static_cast<int64_t>(t));
    if (const Array* f = nt.Find("features"))
      x.slice(0, off, off + nt.count).slice(1, 0, f->shape[1]).copy_(
          torch::from_blob(f->data, {f->shape[0], f->shape[1]}, torch::kFloat32));
    auto gids = NpyLoad(parts + "/type_nids/" + nt.name + ".npy");
    REQUIRE(gids.ok());
    REQUIRE(gids->numel() == nt.count);
    x.slice(0, off, off + nt.count).slice(1, fmax).copy_(
        emb.index_select(0, torch::from_blob(gids->data, {nt.count}, torch::kInt64).clone()));
  }
  std::vector<int64_t> etypes(g.edge_types.begin(), g.edge_types.end());
  auto block = std::make_tuple(torch::tensor(g.indptr, torch::kInt64), torch::tensor(g.indices, torch::kInt64),
                               torch::tensor(etypes, torch::kInt64), ntype, n);
  c10::List<std::tuple<torch::Tensor, torch::Tensor, torch::Tensor, torch::Tensor, int64_t>> blocks;
  blocks.push_back(block);
  blocks.push_back(block);
  auto m = torch::jit::load(model_path);
  m.eval();
  torch::NoGradGuard ng;
  torch::Tensor logits = m.forward({x, blocks}).toTensor();
  torch::Tensor h0 = m.get_method("forward_input")({x, ntype}).toTensor();
  torch::Tensor hidden = m.get_method("forward_layer")({int64_t{0}, h0, c10::ivalue::Tuple::create(
                                                             {std::get<0>(block), std::get<1>(block),
                                                              std::get<2>(block), ntype, n})})
                             .toTensor();
  const int target = ds->target_type;
  const int64_t off = g.type_offsets[target], count = ds->node_types[target].count;
  TypedReference ref;
  for (size_t t = 0; t < ds->node_types.size(); ++t)
    ref.type_hidden.emplace_back(ds->node_types[t].name,
                                 hidden.slice(0, g.type_offsets[t], g.type_offsets[t] + ds->node_types[t].count));
  ref.logits = logits.slice(0, off, off + count);
  ref.hidden = hidden.slice(0, off, off + count);
  const Array* labels = ds->node_types[target].Find("labels");
  const Array* split = ds->node_types[target].Find("split");
  REQUIRE(labels != nullptr);
  REQUIRE(split != nullptr);
  ref.labels = torch::from_blob(labels->data, {count}, torch::kInt64).clone();
  ref.split = torch::from_blob(split->data, {count}, torch::kInt8).clone();
  return ref;
}

double Accuracy(const TypedReference& ref, int split_value) {
  torch::Tensor mask = ref.split.eq(split_value);
  return ref.logits.argmax(1).eq(ref.labels).logical_and(mask).sum().item<double>() / mask.sum().item<double>();
}

torch::Tensor LoadMatrix(const std::string& path) {
  auto a = NpyLoad(path);
  REQUIRE(a.ok());
  REQUIRE(a->shape.size() == 2);
  return torch::from_blob(a->data, {a->shape[0], a->shape[1]}, torch::kFloat32).clone();
}

// The run directory's layer-wise outputs against the reference.
void CheckOutputs(const std::string& run, const TypedReference& ref) {
  const torch::Tensor logits = LoadMatrix(run + "/logits.npy");
  REQUIRE(logits.sizes() == ref.logits.sizes());
  CHECK((logits - ref.logits).abs().max().item<double>() < 1e-4);
  const torch::Tensor hidden = LoadMatrix(run + "/embeddings.npy");
  REQUIRE(hidden.sizes() == ref.hidden.sizes());
  CHECK(hidden.size(1) == kHidden);
  CHECK((hidden - ref.hidden).abs().max().item<double>() < 1e-4);
  auto pred = NpyLoad(run + "/predictions.npy");
  REQUIRE(pred.ok());
  REQUIRE(pred->numel() == ref.logits.size(0));
  CHECK(torch::equal(torch::from_blob(pred->data, {pred->numel()}, torch::kInt64), ref.logits.argmax(1)));
  const std::string info = ReadFile(run + "/inference.json");
  INFO(info);
  REQUIRE(!JsonField(info, "test_acc").empty());
  CHECK(std::stod(JsonField(info, "val_acc")) == Approx(Accuracy(ref, 1)).margin(1e-6));
  CHECK(std::stod(JsonField(info, "test_acc")) == Approx(Accuracy(ref, 2)).margin(1e-6));
  CHECK(info.find("\"node_type\": \"movie\"") != std::string::npos);
}

// train.save_embeddings of a typed job: embeddings/<type>.npy of every type,
// made from node batches of full neighbourhoods (the evaluation fanouts).
void CheckTypeEmbeddings(const std::string& run, const TypedReference& ref) {
  for (const auto& [name, hidden] : ref.type_hidden) {
    INFO("embeddings/" << name << ".npy");
    const torch::Tensor rows = LoadMatrix(run + "/embeddings/" + name + ".npy");
    REQUIRE(rows.sizes() == hidden.sizes());
    CHECK((rows - hidden).abs().max().item<double>() < 1e-4);
  }
}

}  // namespace

TEST_CASE("layer-wise inference on a 2-partition typed IMDB equals a full-graph forward", "[inference][typed]") {
  TempDir dir;
  const std::string imdb = SourceDir() + "/data/imdb-hetero";
  auto r = RunDistgnn({"partition", "--dataset", imdb, "--undirected", "--num-parts", "2", "--name", "imdb", "--out",
                       dir / "parts"},
                      120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  r = RunDistgnn({"model", "export", "--arch", "rgcn", "--partition-config", dir / "parts/imdb.json", "--embedding-dim",
                  std::to_string(kEmbeddingDim), "--hidden", std::to_string(kHidden), "--seed", "0", "-o",
                  dir / "rgcn.pt"},
                 120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const int base = FreePortRange(5);
  {
    std::ofstream y(dir / "job.yaml");
    y << "job: typed\npartition: parts/imdb.json\nmachines:\n  - host: 127.0.0.1\n  - host: 127.0.0.1\n"
      << "ports: {server: " << base << ", trainer: " << base + 2 << ", rendezvous: " << base + 4 << "}\n"
      << "processes: {servers: 1, trainers: 1, samplers_per_trainer: 0}\n"
      << "train: {model: rgcn.pt, fanouts: [10, 10], batch_size: 64, epochs: 2, lr: 0.005, seed: 0, "
         "intra_op_threads: 1, layerwise_inference: true, save_predictions: true, save_embeddings: true, "
         "embedding: {dim: "
      << kEmbeddingDim << ", lr: 0.01, persistent: true}}\noutput_dir: runs\n";
  }
  const std::string run = dir / "runs/typed";
  r = RunDistgnn({"launch", dir / "job.yaml", "--quiet"}, 180);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const TypedReference ref = FullGraphReference(imdb, dir / "parts", run + "/model.pt");
  WARN("typed IMDB layer-wise inference after 2 epochs: val " << Accuracy(ref, 1) << ", test " << Accuracy(ref, 2)
                                                             << "; training's final test_acc "
                                                             << FinalTestAcc(run + "/metrics.jsonl"));
  {
    INFO("train.layerwise_inference");
    CheckOutputs(run, ref);
  }
  CheckTypeEmbeddings(run, ref);
  // A new job: the servers reload the saved embedding, the trainers run inference only.
  std::filesystem::rename(run + "/model.pt", dir / "trained.pt");
  for (const char* f : {"logits.npy", "embeddings.npy", "predictions.npy", "inference.json"})
    std::filesystem::remove(run + "/" + f);
  r = RunDistgnn({"launch", dir / "job.yaml", "--mode", "infer", "--set", "train.model=" + (dir / "trained.pt"),
                  "--quiet"},
                 180);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  {
    INFO("launch --mode infer");
    CheckOutputs(run, ref);
  }
}

namespace {

// job.yaml of a 2-machine typed IMDB job named `name` with train.model = model.
void WriteJob(const TempDir& dir, const std::string& name, const std::string& model, const std::string& extra) {
  const int base = FreePortRange(5);
  std::ofstream y(dir / (name + ".yaml"));
  y << "job: " << name << "\npartition: parts/imdb.json\nmachines:\n  - host: 127.0.0.1\n  - host: 127.0.0.1\n"
    << "ports: {server: " << base << ", trainer: " << base + 2 << ", rendezvous: " << base + 4 << "}\n"
    << "processes: {servers: 1, trainers: 1, samplers_per_trainer: 0}\n"
    << "train: {model: " << model << extra << "}\noutput_dir: runs\n";
}

// Output of a `launch --mode infer` expected to fail, with trainer 0's log.
std::string FailedInfer(const TempDir& dir, const std::string& name) {
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / (name + ".yaml"), "--mode", "infer"}, dir / (name + ".log"));
  CHECK(launch.Wait(120) != 0);
  CHECK(FindProcesses("--job-id " + JobId(launch.Output())).empty());
  return launch.Output() + ReadFile(dir / ("runs/" + name + "/logs/0-trainer-0.log"));
}

}  // namespace

TEST_CASE("typed layer-wise inference refuses an unsaved embedding and a model without forward_input, with "
          "messages",
          "[inference][typed]") {
  TempDir dir;
  const std::string imdb = SourceDir() + "/data/imdb-hetero";
  auto r = RunDistgnn({"partition", "--dataset", imdb, "--undirected", "--num-parts", "2", "--method", "random",
                       "--name", "imdb", "--out", dir / "parts"},
                      120);
  REQUIRE(r.exit_code == 0);
  r = RunDistgnn({"model", "export", "--arch", "hetero-sage", "--partition-config", dir / "parts/imdb.json",
                  "--embedding-dim", "16", "-o", dir / "hsage.pt"});
  REQUIRE(r.exit_code == 0);
  // A node embedding that no training job saved (persistent) is not on the servers.
  WriteJob(dir, "noembedding", "hsage.pt", ", embedding: {dim: 16}");
  std::string out = FailedInfer(dir, "noembedding");
  INFO(out);
  CHECK(out.find("the node embedding 'embedding' is not on the servers") != std::string::npos);
  CHECK(out.find("train.embedding.persistent: true") != std::string::npos);
  // A width other than the one the model was exported with.
  WriteJob(dir, "otherwidth", "hsage.pt", ", embedding: {dim: 32, persistent: true}");
  out = FailedInfer(dir, "otherwidth");
  INFO(out);
  CHECK(out.find("train.embedding.dim is 32 but ") != std::string::npos);
  CHECK(out.find("hsage.pt reads 16 embedding columns (its embedding_dim; model export --embedding-dim)") !=
        std::string::npos);
  // A typed model with forward and forward_layer but no forward_input.
  {
    torch::jit::Module m("NoInput");
    m.register_attribute("num_layers", c10::IntType::get(), int64_t{1});
    m.define(R"(
def forward(self, x: Tensor, blocks: List[Tuple[Tensor, Tensor, Tensor, Tensor, int]]) -> Tensor:
    return x[:blocks[0][4]]

def forward_layer(self, layer: int, x: Tensor, block: Tuple[Tensor, Tensor, Tensor, Tensor, int]) -> Tensor:
    return x[:block[4]]
)");
    m.save(dir / "noinput.pt");
  }
  WriteJob(dir, "noinput", "noinput.pt", "");
  out = FailedInfer(dir, "noinput");
  INFO(out);
  CHECK(out.find("layer-wise inference on a typed partition needs a typed model with forward_input(x, ntype)") !=
        std::string::npos);
}
