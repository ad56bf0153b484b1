#include "roles/trainer/trainer.h"

#include <ATen/Parallel.h>
#include <spdlog/spdlog.h>
#include <torch/script.h>
#include <torch/torch.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "common/base/console.h"
#include "common/storage/neighbor_sampling.h"
#include "common/io/npy.h"
#include "roles/trainer/grad_sync.h"
#include "roles/trainer/model_runner.h"
#include "roles/trainer/trainer_setup.h"
#include "roles/trainer/trainer_util.h"
#include "roles/trainer/trainer_impl.h"
#include "roles/trainer/training_state.h"

namespace dg {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

Trainer::Trainer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Trainer::~Trainer() = default;
const std::vector<EpochStats>& Trainer::history() const { return impl_->history; }

Result<std::unique_ptr<Trainer>> Trainer::Create(const TrainerOptions& o) {
  if (o.batch_size <= 0)
    return Status::InvalidArgument("--batch-size must be > 0, got " + std::to_string(o.batch_size));
  if (o.fanouts.empty()) return Status::InvalidArgument("--fanouts: empty (need one per layer)");
  if (o.epochs < 0) return Status::InvalidArgument("--epochs must be >= 0");
  if (o.eval_every <= 0) return Status::InvalidArgument("--eval-every must be > 0");
  if (o.checkpoint_every_steps < 0) return Status::InvalidArgument("--checkpoint-every-steps must be >= 0");
  if (o.checkpoint_keep < 1) return Status::InvalidArgument("--checkpoint-keep must be >= 1");
  if (o.optimizer != "adam" && o.optimizer != "sgd")
    return Status::InvalidArgument("--optimizer: expected adam or sgd, got '" + o.optimizer + "'");
  if (!o.eval_fanouts.empty() && o.eval_fanouts.size() != o.fanouts.size())
    return Status::InvalidArgument("--eval-fanouts has " + std::to_string(o.eval_fanouts.size()) +
                                   " layers but --fanouts has " + std::to_string(o.fanouts.size()));
  auto impl = std::make_unique<Impl>();
  impl->opt = o;
  impl->tty = !o.quiet && IsTerminal(STDERR_FILENO);
  int threads = o.threads > 0 ? o.threads : static_cast<int>(std::thread::hardware_concurrency());
  at::set_num_threads(std::max(1, threads));
  torch::manual_seed(o.seed);
  DG_ASSIGN_OR_RETURN(TrainableModel model, LoadTrainableModel(o));
  impl->module = std::move(model.module);
  impl->names = std::move(model.names);
  impl->params = std::move(model.params);
  if (o.save_embeddings && !HasForwardLayer(impl->module))
    return Status::InvalidArgument("--save-embeddings needs a model with forward_layer(layer, x, block); " +
                                   o.model_path + " has none");
  impl->optimizer = MakeOptimizer(o, impl->params);
  DG_ASSIGN_OR_RETURN(impl->sync, ConnectGradientSync(o.dp, impl->params));
  DG_RETURN_IF_ERROR(CreateRunDir(o.out_dir));
  return std::unique_ptr<Trainer>(new Trainer(std::move(impl)));
}

Result<torch::Tensor> Trainer::Impl::Input(const MiniBatch& mb, torch::Tensor* emb_leaf) {
  return ModelInput(opt, mb, emb_leaf);
}

Status Trainer::Impl::UpdateEmbedding(const std::vector<const MiniBatch*>& batches,
                                      const std::vector<torch::Tensor>& leaves) {
  std::vector<int64_t> ids;
  std::vector<torch::Tensor> grads;
  for (size_t i = 0; i < batches.size(); ++i) {
    ids.insert(ids.end(), batches[i]->input_nodes.begin(), batches[i]->input_nodes.end());
    grads.push_back(leaves[i].grad().defined() ? leaves[i].grad() : torch::zeros_like(leaves[i]));
  }
  torch::Tensor g = torch::cat(grads).to(torch::kFloat32).contiguous();
  Array a = Array::Zeros(DType::kFloat32, {g.size(0), g.size(1)});
  std::memcpy(a.data, g.data_ptr(), a.nbytes());
  return opt.embedding->Update(ids, a, embedding_steps++);
}

Result<torch::Tensor> Trainer::Impl::Forward(const MiniBatch& mb, torch::Tensor* emb_leaf) {
  if (mb.blocks.size() != opt.fanouts.size())
    return Status::InvalidArgument("batch has " + std::to_string(mb.blocks.size()) +
                                   " blocks, expected " + std::to_string(opt.fanouts.size()));
  DG_ASSIGN_OR_RETURN(torch::Tensor x, Input(mb, emb_leaf));
  torch::Tensor out;
  try {
    if (!mb.input_neigh_mean.shape.empty())  // block 0 aggregated where the features live
      out = module.get_method("forward_agg")({x, ArrayTensor(mb.input_neigh_mean), BlocksValue(mb)}).toTensor();
    else
      out = module.forward({x, BlocksValue(mb)}).toTensor();
  } catch (const std::exception& e) {
    return Status::InvalidArgument("model " + opt.model_path + ": forward failed on a batch with " +
                                   std::to_string(x.size(1)) + "-dim input rows: " + FirstLine(e.what()));
  }
  const int64_t rows = static_cast<int64_t>(mb.seeds.size());
  if (out.dim() != 2 || out.size(0) != rows)
    return Status::InvalidArgument("model " + opt.model_path + ": forward returned shape " +
                                   c10::str(out.sizes()) + ", expected one row per seed [" +
                                   std::to_string(rows) + ", " + std::to_string(opt.num_classes) +
                                   "]");
  if (opt.num_classes > 0 && out.size(1) != opt.num_classes)
    return Status::InvalidArgument("model " + opt.model_path + ": output width " +
                                   std::to_string(out.size(1)) + " != number of classes " +
                                   std::to_string(opt.num_classes));
  return out;
}

Status Trainer::Impl::Step(const std::vector<const MiniBatch*>& batches, double* loss,
                           int64_t* correct, int64_t* count, StepSplit* split) {
  StepSplit t;
  module.train(true);
  auto t0 = Clock::now();
  optimizer->zero_grad();
  t.optimizer += Since(t0);
  double total_loss = 0;
  int64_t ok = 0, n = 0;
  std::vector<torch::Tensor> leaves(batches.size());
  for (size_t b = 0; b < batches.size(); ++b) {
    const MiniBatch* mb = batches[b];
    t0 = Clock::now();
    DG_ASSIGN_OR_RETURN(torch::Tensor logits, Forward(*mb, opt.embedding ? &leaves[b] : nullptr));
    if (mb->labels.dtype != DType::kInt64 || mb->labels.rows() != logits.size(0))
      return Status::InvalidArgument("labels must be int64 with one row per seed");
    torch::Tensor labels = ArrayTensor(mb->labels).reshape({-1});
    if (labels.numel() > 0) {
      int64_t lo = labels.min().item<int64_t>(), hi = labels.max().item<int64_t>();
      if (lo < 0 || hi >= logits.size(1))
        return Status::InvalidArgument("label " + std::to_string(lo < 0 ? lo : hi) +
                                       " of a training node is out of range [0, " +
                                       std::to_string(logits.size(1)) + ")");
    }
    torch::Tensor l = torch::nn::functional::cross_entropy(logits, labels);
    total_loss += l.item<double>();
    ok += logits.argmax(1).eq(labels).sum().item<int64_t>();
    n += labels.numel();
    t.forward += Since(t0);
    t0 = Clock::now();
    try {
      (l / static_cast<double>(batches.size())).backward();
    } catch (const std::exception& e) {
      return Status::Internal("backward failed: " + FirstLine(e.what()));
    }
    t.backward += Since(t0);
  }
  t0 = Clock::now();
  if (opt.embedding) DG_RETURN_IF_ERROR(UpdateEmbedding(batches, leaves));
  t.optimizer += Since(t0);
  t0 = Clock::now();
  if (sync) DG_RETURN_IF_ERROR(sync->AllReduceGradients(params));
  t.allreduce += Since(t0);
  t0 = Clock::now();
  optimizer->step();
  t.optimizer += Since(t0);
  *loss = total_loss / std::max<size_t>(1, batches.size());
  *correct = ok;
  *count = n;
  if (split) split->Add(t);
  return Status::OK();
}

Status Trainer::TrainStep(const std::vector<const MiniBatch*>& batches, double* loss,
                          int64_t* correct, int64_t* count, StepSplit* split) {
  return impl_->Step(batches, loss, correct, count, split);
}

void StepSplit::Add(const StepSplit& o) {
  sample += o.sample;
  gather += o.gather;
  transfer += o.transfer;
  forward += o.forward;
  backward += o.backward;
  optimizer += o.optimizer;
  allreduce += o.allreduce;
  wait += o.wait;
}

std::string StepSplit::PerStepJson(int64_t steps) const {
  const double k = steps > 0 ? 1e3 / static_cast<double>(steps) : 0;
  std::ostringstream s;
  s << "{\"sample\": " << MetricNumber(sample * k) << ", \"gather\": " << MetricNumber(gather * k)
    << ", \"transfer\": " << MetricNumber(transfer * k) << ", \"forward\": " << MetricNumber(forward * k)
    << ", \"backward\": " << MetricNumber(backward * k) << ", \"optimizer\": " << MetricNumber(optimizer * k)
    << ", \"allreduce\": " << MetricNumber(allreduce * k) << ", \"wait\": " << MetricNumber(wait * k) << "}";
  return s.str();
}

void Trainer::Impl::Progress(int64_t epoch, int64_t step, double loss, double acc, double elapsed,
                             double wait, bool done) {
  const double sps = elapsed > 0 ? step / elapsed : 0;
  const double wf = elapsed > 0 ? wait / elapsed : 0;
  const double eta = sps > 0 ? (steps_per_epoch - step) / sps : -1;
  if (TrainProgress* p = opt.progress) {
    p->epoch = epoch;
    p->step = step;
    p->steps_per_epoch = steps_per_epoch;
    p->loss = loss;
    p->wait_fraction = wf;
    p->steps_per_second = sps;
    p->epoch_seconds = elapsed;
  }
  if (opt.quiet || opt.dp.rank != 0) return;
  if (tty) {  // redrawn in place; cleared at the end of the epoch (the summary line follows)
    std::string bar = done ? std::string(kClearLine)
                           : kClearLine + ProgressBar(epoch, opt.epochs, step, steps_per_epoch, loss, sps, eta);
    std::fputs(bar.c_str(), stderr);
    std::fflush(stderr);
    return;
  }
  // Plain lines (a launcher parses them): every log_every steps, every 2 s, and the last.
  if (done || (opt.log_every > 0 && step % opt.log_every == 0) || Since(last_progress) >= 2) {
    last_progress = Clock::now();
    spdlog::info("epoch {} step {}/{} loss {:.4f} acc {:.4f} {:.1f} steps/s wait {:.0f}% ETA {:.0f}s", epoch, step,
                 steps_per_epoch, loss, acc, sps, 100 * wf, std::max(0.0, eta));
  }
}

Result<EpochStats> Trainer::TrainEpoch(BatchProvider* provider, const std::vector<int64_t>& seeds,
                                       int64_t epoch) {
  Impl& s = *impl_;
  EpochRequest req;
  req.epoch = epoch;
  req.seeds = seeds;
  req.batch_size = s.opt.batch_size;
  req.shuffle = true;
  req.fanouts = s.opt.fanouts;
  req.job_seed = s.opt.seed;
  DG_RETURN_IF_ERROR(provider->BeginEpoch(req));
  s.steps_per_epoch = (static_cast<int64_t>(seeds.size()) + s.opt.batch_size - 1) / std::max<int64_t>(1, s.opt.batch_size);
  s.last_progress = Clock::now();
  EpochStats st;
  st.epoch = epoch;
  auto t0 = Clock::now();
  const uint64_t bytes0 = s.opt.network_bytes ? s.opt.network_bytes() : 0;
  double loss_sum = 0;
  int64_t correct = 0, count = 0;
  // Resuming inside this epoch (a step checkpoint): its batches done are read
  // again and skipped (a batch depends only on the job seed, the epoch and its
  // index), and the sums start where they were.
  int64_t skip = 0;
  if (epoch == s.resume_epoch && s.resume_batch > 0) {
    skip = s.resume_batch;
    loss_sum = s.resume_sums[0];
    st.steps = static_cast<int64_t>(s.resume_sums[1]);
    correct = static_cast<int64_t>(s.resume_sums[2]);
    count = static_cast<int64_t>(s.resume_sums[3]);
    s.resume_epoch = s.resume_batch = 0;
  }
  MiniBatch mb;
  while (true) {
    auto tw = Clock::now();
    DG_ASSIGN_OR_RETURN(bool more, provider->Next(&mb));
    st.wait_seconds += Since(tw);
    if (!more) break;
    if (skip > 0) {
      --skip;
      continue;
    }
    auto tc = Clock::now();
    double loss;
    int64_t c, n;
    DG_RETURN_IF_ERROR(s.Step({&mb}, &loss, &c, &n, &st.split));
    st.compute_seconds += Since(tc);
    st.sample_seconds += mb.sample_seconds;
    st.gather_seconds += mb.gather_seconds;
    st.split.sample += mb.sample_seconds;
    st.split.gather += mb.gather_seconds;
    st.split.transfer += mb.transfer_seconds;
    ++st.steps;
    loss_sum += loss;
    correct += c;
    count += n;
    if (s.opt.progress) {
      s.opt.progress->steps_total += 1;
      s.opt.progress->seeds_total += n;
    }
    s.Progress(epoch, st.steps, loss_sum / st.steps, count ? double(correct) / count : 0,
               Since(t0), st.wait_seconds, false);
    ++s.global_step;
    if (s.opt.checkpoint_every_steps > 0 && s.global_step % s.opt.checkpoint_every_steps == 0) {
      const double sums[4] = {loss_sum, double(st.steps), double(correct), double(count)};
      DG_RETURN_IF_ERROR(s.SaveStepCheckpoint(epoch, st.steps, sums, &st));
    }
  }
  st.seconds = Since(t0);
  st.split.wait = st.wait_seconds;
  // Epoch loss and accuracy over all trainers.
  if (s.sync) {
    torch::Tensor agg = torch::tensor({loss_sum, double(st.steps), double(correct), double(count)},
                                      torch::kFloat64);
    DG_RETURN_IF_ERROR(s.sync->AllReduce({agg}, false));
    loss_sum = agg[0].item<double>();
    st.loss = agg[1].item<double>() > 0 ? loss_sum / agg[1].item<double>() : 0;
    correct = static_cast<int64_t>(agg[2].item<double>());
    count = static_cast<int64_t>(agg[3].item<double>());
  } else {
    st.loss = st.steps ? loss_sum / st.steps : 0;
  }
  st.train_acc = count ? double(correct) / count : 0;
  st.seeds = count;
  if (s.opt.network_bytes && st.steps > 0) st.bytes_per_step = double(s.opt.network_bytes() - bytes0) / st.steps;
  s.Progress(epoch, st.steps, st.loss, st.train_acc, st.seconds, st.wait_seconds, true);
  return st;
}

Result<double> Trainer::Evaluate(BatchProvider* provider, const std::vector<int64_t>& seeds) {
  Impl& s = *impl_;
  EpochRequest req;
  req.seeds = seeds;
  req.batch_size = s.EvalBatchSize();
  req.shuffle = false;
  req.fanouts = s.opt.eval_fanouts.empty() ? std::vector<int>(s.opt.fanouts.size(), -1)
                                           : s.opt.eval_fanouts;
  req.job_seed = MixSeed(s.opt.seed, 0xe7a1);
  DG_RETURN_IF_ERROR(provider->BeginEpoch(req));
  torch::NoGradGuard no_grad;
  s.module.train(false);
  int64_t correct = 0, count = 0;
  MiniBatch mb;
  while (true) {
    DG_ASSIGN_OR_RETURN(bool more, provider->Next(&mb));
    if (!more) break;
    DG_ASSIGN_OR_RETURN(torch::Tensor logits, s.Forward(mb));
    torch::Tensor labels = ArrayTensor(mb.labels).reshape({-1});
    correct += logits.argmax(1).eq(labels).sum().item<int64_t>();
    count += labels.numel();
  }
  if (s.sync) {
    torch::Tensor agg = torch::tensor({double(correct), double(count)}, torch::kFloat64);
    DG_RETURN_IF_ERROR(s.sync->AllReduce({agg}, false));
    correct = static_cast<int64_t>(agg[0].item<double>());
    count = static_cast<int64_t>(agg[1].item<double>());
  }
  // No seeds to evaluate (e.g. every node is a training node): no accuracy.
  return count ? double(correct) / count : std::nan("");
}

std::vector<float> Trainer::ParameterVector() const { return FlattenParameters(impl_->params); }

Status Trainer::Impl::WriteModel(const std::string& path, bool best) { return WriteModelFile(this, path, best); }


Status Trainer::Fit(BatchProvider* provider, const TrainerSeeds& seeds) {
  Impl& s = *impl_;
  const std::string metrics = s.OutPath("metrics.jsonl");
  int64_t start = 1;
  if (s.opt.resume) {
    DG_ASSIGN_OR_RETURN(start, s.Resume());
  }
  if (s.writer()) {
    // Keep the metrics of the epochs the checkpoint covers; drop the rest.
    std::vector<std::string> keep;
    std::ifstream in(metrics);
    for (std::string line; std::getline(in, line);) {
      auto pos = line.find("\"epoch\":");
      if (pos == std::string::npos) continue;
      if (std::stoll(line.substr(pos + 8)) < start) keep.push_back(line);
    }
    std::ofstream out(metrics, std::ios::trunc);
    for (const auto& l : keep) out << l << "\n";
    if (!out) return Status::IOError("write " + metrics + " failed");
  }
  if (seeds.train.empty())
    return Status::InvalidArgument("no training nodes for trainer " + std::to_string(s.opt.dp.rank) +
                                   " (split has no nodes with value 0, or fewer train nodes than trainers)");
  if (s.opt.progress) s.opt.progress->epochs = s.opt.epochs;
  for (int64_t epoch = start; epoch <= s.opt.epochs; ++epoch) {
    DG_ASSIGN_OR_RETURN(EpochStats st, TrainEpoch(provider, seeds.train, epoch));
    if (epoch % s.opt.eval_every == 0 || epoch == s.opt.epochs) {
      DG_ASSIGN_OR_RETURN(st.val_acc, Evaluate(provider, seeds.val));
      DG_ASSIGN_OR_RETURN(st.test_acc, Evaluate(provider, seeds.test));
      if (st.val_acc > s.best_val) {
        s.best_val = st.val_acc;
        s.best_test = st.test_acc;
        s.best_epoch = epoch;
        s.best_params.clear();
        for (const auto& p : s.params) s.best_params.push_back(p.detach().clone());
      }
    }
    // One summary line per epoch (launch shows trainer 0's at the terminal).
    if (!s.opt.quiet && s.opt.dp.rank == 0) {
      const double wf = 100 * st.wait_seconds / std::max(1e-9, st.seconds);
      if (st.val_acc >= 0)
        spdlog::info("epoch {}: loss {:.4f} train_acc {:.4f} val_acc {:.4f} test_acc {:.4f} ({:.2f} s, wait {:.0f}%)",
                     epoch, st.loss, st.train_acc, st.val_acc, st.test_acc, st.seconds, wf);
      else
        spdlog::info("epoch {}: loss {:.4f} train_acc {:.4f} ({:.2f} s, wait {:.0f}%)", epoch, st.loss,
                     st.train_acc, st.seconds, wf);
    }
    if (TrainProgress* p = s.opt.progress) {
      p->last_epoch_loss = st.loss;
      p->train_acc = st.train_acc;
      if (st.val_acc >= 0) p->val_acc = st.val_acc;
      if (st.test_acc >= 0) p->test_acc = st.test_acc;
      p->last_epoch_seconds = st.seconds;
    }
    s.history.push_back(st);
    const std::string extra = s.opt.epoch_fields ? s.opt.epoch_fields() : "";
    torch::Tensor rng_states;
    if (s.sync || s.writer()) {  // every rank takes part
      DG_ASSIGN_OR_RETURN(rng_states, s.AllRngStates());
    }
    if (s.writer()) {
      std::ostringstream line;
      line << "{\"epoch\": " << epoch << ", \"loss\": " << MetricNumber(st.loss)
           << ", \"train_acc\": " << MetricNumber(st.train_acc)
           << ", \"val_acc\": " << (st.val_acc < 0 ? "null" : MetricNumber(st.val_acc))
           << ", \"test_acc\": " << (st.test_acc < 0 ? "null" : MetricNumber(st.test_acc))
           << ", \"epoch_seconds\": " << MetricNumber(st.seconds)
           << ", \"wait_fraction\": " << MetricNumber(st.wait_seconds / std::max(1e-9, st.seconds))
           << ", \"steps\": " << st.steps << ", \"seeds\": " << st.seeds << ", \"step_ms\": " << st.split.PerStepJson(st.steps);
      if (st.bytes_per_step >= 0) line << ", \"bytes_per_step\": " << MetricNumber(st.bytes_per_step);
      if (!extra.empty()) line << ", " << extra;
      if (st.checkpoints > 0)
        line << ", \"checkpoints\": " << st.checkpoints
             << ", \"checkpoint_ms\": " << MetricNumber(1e3 * st.checkpoint_seconds / st.checkpoints);
      line << "}";
      DG_RETURN_IF_ERROR(AppendLine(metrics, line.str()));
      DG_RETURN_IF_ERROR(s.SaveCheckpoint(epoch, rng_states));
    }
  }
  if (s.opt.progress) s.opt.progress->done = true;
  if (s.writer()) {
    DG_RETURN_IF_ERROR(s.WriteModel(s.OutPath("model.pt"), true));
    std::ostringstream line;
    line << "{\"final\": true, \"best_epoch\": " << s.best_epoch
         << ", \"best_val_acc\": " << (s.best_epoch > 0 ? MetricNumber(s.best_val) : "null")
         << ", \"test_acc\": " << (s.best_epoch > 0 ? MetricNumber(s.best_test) : "null")
         << "}";
    DG_RETURN_IF_ERROR(AppendLine(metrics, line.str()));
    if ((s.opt.save_predictions || s.opt.save_embeddings) && !seeds.predict.empty()) {
      // Predict with the best-validation parameters.
      std::vector<torch::Tensor> current;
      {
        torch::NoGradGuard ng;
        for (size_t i = 0; i < s.params.size() && !s.best_params.empty(); ++i) {
          current.push_back(s.params[i].detach().clone());
          s.params[i].detach().copy_(s.best_params[i]);
        }
      }
      DG_RETURN_IF_ERROR(s.Predict(provider, seeds.predict));
    }
  }
  return Status::OK();
}

Result<bool> ModelHasForwardAgg(const std::string& path) {
  DG_ASSIGN_OR_RETURN(torch::jit::Module module, LoadModel(path));
  return HasForwardAgg(module, path);
}

Result<bool> ModelIsTyped(const std::string& path) {
  DG_ASSIGN_OR_RETURN(torch::jit::Module module, LoadModel(path));
  return IsTypedModel(module);
}

Result<std::vector<float>> ModelParameterVector(const std::string& path) {
  DG_ASSIGN_OR_RETURN(torch::jit::Module m, LoadModel(path));
  std::vector<float> out;
  for (const auto& p : m.named_parameters(true)) {
    torch::Tensor c = p.value.detach().to(torch::kFloat32).contiguous().reshape({-1});
    out.insert(out.end(), c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  }
  return out;
}

}  // namespace dg
