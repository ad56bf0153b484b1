#include "roles/trainer/control_variate.h"

#include <spdlog/spdlog.h>
#include <torch/script.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>

#include "common/io/json_writer.h"
#include "roles/trainer/grad_sync.h"
#include "roles/trainer/model_runner.h"
#include "roles/trainer/trainer_setup.h"
#include "roles/trainer/trainer_util.h"

namespace dg {

namespace {

using Clock = std::chrono::steady_clock;

torch::Tensor Int64Tensor(const int64_t* data, size_t n) {
  return torch::from_blob(const_cast<int64_t*>(data), {static_cast<int64_t>(n)}, torch::kInt64).clone();
}
torch::Tensor Int64Tensor(const std::vector<int64_t>& v) { return Int64Tensor(v.data(), v.size()); }
torch::Tensor Int64Tensor(const IdBuffer& v) { return Int64Tensor(v.data(), v.size()); }

// Mean of src rows over each destination's block edges (0 without edges).
torch::Tensor BlockMean(const Block& b, const torch::Tensor& src) {
  torch::Tensor indptr = Int64Tensor(b.indptr);
  torch::Tensor indices = Int64Tensor(b.indices);
  torch::Tensor counts = indptr.slice(0, 1) - indptr.slice(0, 0, b.num_dst);
  torch::Tensor dst = torch::repeat_interleave(counts);
  torch::Tensor sum = torch::zeros({b.num_dst, src.size(1)}, src.options());
  sum = sum.index_add(0, dst, src.index_select(0, indices));
  return sum / counts.clamp_min(1).to(src.dtype()).unsqueeze(1);
}

struct Run {
  const ControlVariateOptions& o;
  CvStore* store;
  torch::jit::Module module;
  std::vector<torch::Tensor> params;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::unique_ptr<GradientSync> sync;
  int layers = 0;

  std::string History(int l) const { return o.history_prefix + std::to_string(l); }

  // Logits of `seeds`; training: the CV estimator with the history (and the
  // history updated), else exact over all in-neighbours.
  Result<torch::Tensor> Forward(const std::vector<int64_t>& seeds, bool training, int64_t epoch, int64_t batch,
                                torch::Tensor* labels) {
    MiniBatchOptions mo;
    mo.fanouts = training ? o.fanouts : std::vector<int>(layers - 1, -1);
    mo.feature_name = "";  // gathered below, in parallel with the rest
    mo.label_name = "";
    DG_ASSIGN_OR_RETURN(MiniBatch mb, store->Sample(seeds, mo, o.seed, training ? epoch : -1 - epoch, batch));
    const std::vector<int64_t>& v0 = mb.input_nodes;
    // Every read of the batch depends only on the sampled node sets: issue
    // them at once (the stores are thread-safe), then wait.
    auto async = [](auto fn) { return std::async(std::launch::async, std::move(fn)); };
    auto x_f = async([&] { return store->Gather(o.features, v0); });
    auto ax_f = async([&] { return store->Gather(o.cv_input, v0); });
    auto y_f = async([&] { return store->Gather(o.labels, seeds); });
    auto deg_f = async([&] { return store->InDegrees(v0); });
    std::vector<std::vector<int64_t>> prev(layers), cur(layers), full_deg(layers);
    std::vector<std::future<Result<Array>>> hist_f(layers), sums_f(layers);
    if (training) {
      for (int l = 1; l < layers; ++l) {
        const Block& b = mb.blocks[l - 1];  // dst V_l, src V_{l-1}: prefixes of v0
        prev[l].assign(v0.begin(), v0.begin() + b.num_src);
        cur[l].assign(v0.begin(), v0.begin() + b.num_dst);
        hist_f[l] = async([this, &prev, l] { return store->Pull(History(l), prev[l]); });
        sums_f[l] = async([this, &cur, &full_deg, l] { return store->AggregateSum(History(l), cur[l], &full_deg[l]); });
      }
    }
    Result<Array> x = x_f.get(), ax = ax_f.get(), y = y_f.get();
    Result<std::vector<int64_t>> deg0 = deg_f.get();
    std::vector<Result<Array>> hist, sums;
    for (int l = 1; l < layers && training; ++l) {
      hist.push_back(hist_f[l].get());
      sums.push_back(sums_f[l].get());
    }
    for (const Status& st : {x.status(), ax.status(), y.status(), deg0.status()}) DG_RETURN_IF_ERROR(st);
    for (size_t i = 0; i < hist.size(); ++i) {
      DG_RETURN_IF_ERROR(hist[i].status());
      DG_RETURN_IF_ERROR(sums[i].status());
    }
    torch::Tensor deg = Int64Tensor(*deg0).to(torch::kFloat32);
    *labels = ArrayTensor(*y).to(torch::kInt64);
    torch::Tensor h = module.get_method("cv_input")({ArrayTensor(*x).to(torch::kFloat32),
                                                     ArrayTensor(*ax).to(torch::kFloat32), deg})
                          .toTensor();
    for (int l = 1; l < layers; ++l) {
      const Block& b = mb.blocks[l - 1];
      torch::Tensor neigh;
      if (training) {
        torch::Tensor hist_t = ArrayTensor(*hist[l - 1]);
        torch::Tensor fd = Int64Tensor(full_deg[l]).to(torch::kFloat32).clamp_min(1).unsqueeze(1);
        neigh = BlockMean(b, h - hist_t) + ArrayTensor(*sums[l - 1]) / fd;
        DG_RETURN_IF_ERROR(store->Push(History(l), prev[l], TensorArray(h)));
      } else {
        neigh = BlockMean(b, h);
      }
      h = module.get_method("cv_layer")({torch::IValue(static_cast<int64_t>(l)), h.slice(0, 0, b.num_dst), neigh,
                                         deg.slice(0, 0, b.num_dst)})
              .toTensor();
    }
    return h;
  }

  // Correct predictions and count over `seeds` (summed over trainers).
  Result<double> Evaluate(const std::vector<int64_t>& seeds, int64_t epoch) {
    torch::NoGradGuard ng;
    module.train(false);
    const int64_t bs = o.eval_batch_size > 0 ? o.eval_batch_size : std::max<int64_t>(o.batch_size, 1024);
    double correct = 0, count = 0;
    for (int64_t b = 0; b < NumBatches(static_cast<int64_t>(seeds.size()), bs); ++b) {
      std::vector<int64_t> s = BatchSeeds(seeds, bs, b);
      torch::Tensor labels;
      DG_ASSIGN_OR_RETURN(torch::Tensor logits, Forward(s, false, epoch, b, &labels));
      correct += logits.argmax(1).eq(labels).sum().item<double>();
      count += static_cast<double>(s.size());
    }
    module.train(true);
    if (sync) {
      torch::Tensor t = torch::tensor({correct, count}, torch::kFloat64);
      DG_RETURN_IF_ERROR(sync->AllReduce({t}, false));
      correct = t[0].item<double>();
      count = t[1].item<double>();
    }
    return count > 0 ? correct / count : 0.0;
  }
};

}  // namespace

Status CheckControlVariate(const ControlVariateOptions& o) {
  if (o.cv_input.empty())
    return Status::InvalidArgument(
        "algorithm control_variate needs the propagated input (train.cv_input / --cv-input: the node array "
        "written by `distgnn propagate --hops 1 --norm mean`)");
  if (o.fanouts.empty()) return Status::InvalidArgument("fanouts: control_variate needs one per sampled layer");
  for (int f : o.fanouts)
    if (f <= 0) return Status::InvalidArgument("fanouts: control_variate samples > 0 neighbours per layer");
  if (o.batch_size <= 0) return Status::InvalidArgument("batch_size must be > 0");
  if (o.optimizer != "adam" && o.optimizer != "sgd")
    return Status::InvalidArgument("optimizer: expected adam or sgd, got '" + o.optimizer + "'");
  return Status::OK();
}

ControlVariateOptions ControlVariateFrom(const TrainerOptions& t, const std::string& cv_input) {
  ControlVariateOptions o;
  o.model_path = t.model_path;
  o.out_dir = t.out_dir;
  o.epochs = t.epochs;
  o.lr = t.lr;
  o.optimizer = t.optimizer;
  o.weight_decay = t.weight_decay;
  o.momentum = t.momentum;
  o.batch_size = t.batch_size;
  o.fanouts = t.fanouts;
  o.eval_batch_size = t.eval_batch_size;
  o.eval_every = t.eval_every;
  o.seed = t.seed;
  o.threads = t.threads;
  o.num_classes = t.num_classes;
  o.cv_input = cv_input;
  o.dp = t.dp;
  return o;
}

Status RunControlVariateLocal(InMemoryGraph* graph, const TrainerOptions& t, const std::string& cv_input,
                              const TrainerSeeds& seeds) {
  LocalCvStore store(graph);
  ControlVariateOptions o = ControlVariateFrom(t, cv_input.empty() ? "cv_input" : cv_input);
  if (cv_input.empty()) {
    DG_ASSIGN_OR_RETURN(Array x, graph->NodeData(o.features));
    DG_ASSIGN_OR_RETURN(Array ax, MeanOverInNeighbours(*graph, x));
    store.AddArray(o.cv_input, std::move(ax));
  }
  return RunControlVariate(&store, o, seeds);
}

Result<Array> ControlVariateLogits(CvStore* store, const ControlVariateOptions& o, const std::vector<int64_t>& seeds,
                                   bool estimator) {
  Run r{o, store};
  DG_ASSIGN_OR_RETURN(r.module, LoadModel(o.model_path));
  r.layers = static_cast<int>(o.fanouts.size()) + 1;
  torch::NoGradGuard ng;
  r.module.train(false);
  torch::Tensor labels;
  DG_ASSIGN_OR_RETURN(torch::Tensor logits, r.Forward(seeds, estimator, 0, 0, &labels));
  return TensorArray(logits);
}

Status RunControlVariateDistributed(DistGraphClient* client, NeighborSource* source, const TrainerOptions& t,
                                    const std::string& cv_input, const TrainerSeeds& seeds) {
  if (t.resume)
    return Status::InvalidArgument("--resume: train.algorithm control_variate writes no checkpoint to resume from");
  const PartitionConfig& pc = client->config();
  if (!pc.node_data.count(cv_input))
    return Status::InvalidArgument("train.cv_input: '" + cv_input + "' is not a node array of " + pc.path +
                                   " (run `distgnn propagate --config JOB.yaml --input features --hops 1 --norm mean "
                                   "--output NAME` first and name NAME_1)");
  DistCvStore store(client, source);
  ControlVariateOptions o = ControlVariateFrom(t, cv_input);
  return RunControlVariate(&store, o, seeds);
}

namespace {
Status RunControlVariateImpl(CvStore* store, const ControlVariateOptions& o, const TrainerSeeds& seeds);
}  // namespace

Status RunControlVariate(CvStore* store, const ControlVariateOptions& o, const TrainerSeeds& seeds) {
  try {
    return RunControlVariateImpl(store, o, seeds);
  } catch (const std::exception& e) {  // torch reports model/shape errors by exception
    std::string what = e.what();
    return Status::Internal("control_variate with model " + o.model_path + ": " + what.substr(0, what.find('\n', 400)));
  }
}

namespace {
Status RunControlVariateImpl(CvStore* store, const ControlVariateOptions& o, const TrainerSeeds& seeds) {
  DG_RETURN_IF_ERROR(CheckControlVariate(o));
  at::set_num_threads(std::max(1, o.threads > 0 ? o.threads : static_cast<int>(std::thread::hardware_concurrency())));
  torch::manual_seed(o.seed);
  Run r{o, store};
  DG_ASSIGN_OR_RETURN(r.module, LoadModel(o.model_path));
  if (!r.module.find_method("cv_input") || !r.module.find_method("cv_layer"))
    return Status::InvalidArgument("algorithm control_variate: model " + o.model_path +
                                   " has no cv_input/cv_layer methods (README \"Writing your own model\"; "
                                   "`distgnn model export --arch gcn|sage` writes them)");
  r.layers = r.module.hasattr("num_layers") ? static_cast<int>(r.module.attr("num_layers").toInt())
                                            : static_cast<int>(o.fanouts.size()) + 1;
  if (r.layers != static_cast<int>(o.fanouts.size()) + 1)
    return Status::InvalidArgument("algorithm control_variate: model " + o.model_path + " has " +
                                   std::to_string(r.layers) + " layers, so fanouts needs " +
                                   std::to_string(r.layers - 1) + " entries (layer 0 reads the propagated input), got " +
                                   std::to_string(o.fanouts.size()));
  for (const auto& p : r.module.named_parameters(true)) {
    p.value.set_requires_grad(true);
    r.params.push_back(p.value);
  }
  r.optimizer = MakeOptimizer(o.optimizer, o.lr, o.weight_decay, o.momentum, r.params);
  DG_ASSIGN_OR_RETURN(r.sync, ConnectGradientSync(o.dp, r.params));
  // History widths: the output width of layers 0 .. L-2 (one cv_input on a single row).
  {
    torch::NoGradGuard ng;
    r.module.train(false);
    std::vector<int64_t> one{seeds.train.empty() ? 0 : seeds.train[0]};
    MiniBatchOptions mo;
    mo.fanouts = std::vector<int>(r.layers - 1, 1);
    mo.feature_name = o.features;
    mo.label_name = "";
    DG_ASSIGN_OR_RETURN(MiniBatch mb, SampleMiniBatch(store->source(), one, mo, o.seed, 0, 0));
    DG_ASSIGN_OR_RETURN(Array ax, store->Gather(o.cv_input, {mb.input_nodes[0]}));
    torch::Tensor x = ArrayTensor(mb.features).to(torch::kFloat32).slice(0, 0, 1);
    if (ax.row_elems() != x.size(1))
      return Status::InvalidArgument("cv_input '" + o.cv_input + "' has rows of " + std::to_string(ax.row_elems()) +
                                     " values but '" + o.features + "' has " + std::to_string(x.size(1)));
    torch::Tensor h = r.module.get_method("cv_input")({x, ArrayTensor(ax), torch::ones({1})}).toTensor();
    for (int l = 1; l < r.layers; ++l) {
      DG_RETURN_IF_ERROR(store->InitHistory(r.History(l), h.size(1)));
      h = r.module.get_method("cv_layer")({torch::IValue(static_cast<int64_t>(l)), h, h, torch::ones({1})}).toTensor();
    }
    r.module.train(true);
  }
  const bool writer = o.dp.rank == 0 && !o.out_dir.empty();
  std::string metrics;
  if (writer) {
    std::error_code ec;
    std::filesystem::create_directories(o.out_dir, ec);
    metrics = o.out_dir + "/metrics.jsonl";
    std::ofstream(metrics, std::ios::trunc);
  }
  auto append = [&](const std::string& line) {
    if (!writer) return;
    std::ofstream f(metrics, std::ios::app);
    f << line << "\n";
  };
  double best_val = -1, best_test = -1;
  int64_t best_epoch = -1;
  std::vector<torch::Tensor> best;
  const int64_t steps = NumBatches(static_cast<int64_t>(seeds.train.size()), o.batch_size);
  for (int64_t epoch = 0; epoch < o.epochs; ++epoch) {
    auto t0 = Clock::now();
    const int64_t bytes0 = store->bytes();
    std::vector<int64_t> order = EpochOrder(seeds.train, true, o.seed, epoch);
    double loss_sum = 0, correct = 0, count = 0;
    for (int64_t b = 0; b < steps; ++b) {
      std::vector<int64_t> s = BatchSeeds(order, o.batch_size, b);
      torch::Tensor labels;
      DG_ASSIGN_OR_RETURN(torch::Tensor logits, r.Forward(s, true, epoch, b, &labels));
      torch::Tensor loss = torch::nn::functional::cross_entropy(logits, labels);
      r.optimizer->zero_grad();
      loss.backward();
      if (r.sync) DG_RETURN_IF_ERROR(r.sync->AllReduceGradients(r.params));
      r.optimizer->step();
      loss_sum += loss.item<double>();
      correct += logits.argmax(1).eq(labels).sum().item<double>();
      count += static_cast<double>(s.size());
    }
    const double train_seconds = Since(t0);
    const double bytes_per_step = steps ? double(store->bytes() - bytes0) / steps : 0;
    double val = -1, test = -1;
    if ((epoch + 1) % o.eval_every == 0 || epoch + 1 == o.epochs) {
      DG_ASSIGN_OR_RETURN(val, r.Evaluate(seeds.val, epoch));
      DG_ASSIGN_OR_RETURN(test, r.Evaluate(seeds.test, epoch));
      if (val > best_val) {
        best_val = val;
        best_test = test;
        best_epoch = epoch + 1;
        best.clear();
        for (const auto& p : r.params) best.push_back(p.detach().clone());
      }
    }
    const double loss = steps ? loss_sum / steps : 0;
    const double train_acc = count > 0 ? correct / count : 0;
    // The summary format the launcher's console echoes (roles/launcher/console_view.cpp).
    spdlog::info("epoch {}: loss {:.4f} train_acc {:.4f} val_acc {:.4f} test_acc {:.4f} "
                 "({:.2f} s, {} steps, {:.0f} bytes/step, control variate)",
                 epoch + 1, loss, train_acc, val, test, train_seconds, steps, bytes_per_step);
    append("{\"epoch\": " + std::to_string(epoch + 1) + ", \"loss\": " + JsonNumber(loss) +
           ", \"train_acc\": " + JsonNumber(train_acc) + ", \"val_acc\": " + JsonNumber(val) +
           ", \"test_acc\": " + JsonNumber(test) + ", \"epoch_seconds\": " + JsonNumber(train_seconds) +
           ", \"steps\": " + std::to_string(steps) + ", \"bytes_per_step\": " + JsonNumber(bytes_per_step) +
           ", \"algorithm\": \"control_variate\"}");
  }
  append("{\"final\": true, \"best_epoch\": " + std::to_string(best_epoch) + ", \"best_val_acc\": " +
         JsonNumber(best_val) + ", \"test_acc\": " + JsonNumber(best_test) + "}");
  if (writer) {
    torch::NoGradGuard ng;
    for (size_t i = 0; i < best.size() && i < r.params.size(); ++i) r.params[i].copy_(best[i]);
    try {
      r.module.save(o.out_dir + "/model.pt");
    } catch (const std::exception& e) {
      return Status::IOError("write " + o.out_dir + "/model.pt: " + e.what());
    }
  }
  spdlog::info("control_variate: best val_acc {:.4f} at epoch {}, test_acc {:.4f}", best_val, best_epoch, best_test);
  return Status::OK();
}
}  // namespace

}  // namespace dg
