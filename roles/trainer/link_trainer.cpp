#include "roles/trainer/link_trainer.h"

#include <ATen/Parallel.h>
#include <spdlog/spdlog.h>
#include <torch/script.h>
#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "common/sampling/minibatch.h"
#include "common/storage/neighbor_sampling.h"
#include "roles/trainer/grad_sync.h"
#include "roles/trainer/model_runner.h"
#include "roles/trainer/trainer_setup.h"
#include "roles/trainer/trainer_util.h"
#include "roles/trainer/training_state.h"

namespace dg {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kEvalNegativeSeed = 0x11dc;

}  // namespace

// The model, optimizer, sync and best parameters are the ModelState
// (training_state.h) both training loops share.
struct LinkTrainer::Impl : ModelState {
  TrainerOptions opt;
  LinkOptions link;
  bool has_score = false;
  bool typed = false;  // the typed contract (blocks with edge and node types)
  std::vector<LinkEpochStats> history;
  int64_t best_epoch = 0;
  LinkMetrics best_val, best_test;
  uint64_t embedding_steps = 0;
  torch::Tensor all_h;  // layer-wise embeddings of every node during an evaluation (undefined otherwise)

  bool Layerwise() const {
    return link.layerwise_source && !typed && opt.eval_fanouts.empty() &&
           module.find_method("forward_layer").has_value();
  }

  // Every node's output, one layer at a time over full-neighbor blocks.
  Result<torch::Tensor> EmbedAll() {
    torch::NoGradGuard no_grad;
    module.train(false);
    NeighborSource* src = link.layerwise_source;
    const int64_t N = link.num_nodes;
    std::vector<int64_t> all(static_cast<size_t>(N));
    for (int64_t i = 0; i < N; ++i) all[i] = i;
    const std::vector<int64_t> mine = NodeSplit(all, opt.dp.world_size, opt.dp.rank, /*even=*/false);
    const int64_t bs = opt.eval_batch_size > 0 ? opt.eval_batch_size : std::max<int64_t>(opt.batch_size, 1024);
    const int L = static_cast<int>(opt.fanouts.size());
    torch::Tensor h_cur;
    for (int l = 0; l < L; ++l) {
      torch::Tensor h_next;
      int64_t width = -1;
      for (size_t c = 0; c < mine.size(); c += static_cast<size_t>(bs)) {
        std::vector<int64_t> dst(mine.begin() + c, mine.begin() + std::min(mine.size(), c + static_cast<size_t>(bs)));
        SampledNeighbors nb;
        DG_RETURN_IF_ERROR(src->SampleNeighbors(dst, SampleSpec(), &nb));  // every in-edge
        std::vector<int64_t> src_nodes;
        Block block = BuildBlock(dst, nb, &src_nodes, N);
        torch::Tensor x;
        if (l == 0) {
          MiniBatch mb;
          mb.input_nodes = src_nodes;
          if (!link.feature_name.empty()) {
            DG_ASSIGN_OR_RETURN(mb.features, src->Gather(link.feature_name, src_nodes));
          }
          DG_ASSIGN_OR_RETURN(x, Input(mb, nullptr));
        } else {
          x = h_cur.index_select(0, VectorTensor(src_nodes));
        }
        torch::Tensor h;
        try {
          h = module.get_method("forward_layer")({int64_t{l}, x, BlockValue(block)}).toTensor();
        } catch (const std::exception& e) {
          return Status::InvalidArgument("model " + opt.model_path + ": forward_layer(" + std::to_string(l) +
                                         ") failed: " + FirstLine(e.what()));
        }
        if (!h_next.defined()) {
          width = h.size(1);
          h_next = torch::zeros({N, width}, torch::kFloat32);
        }
        h_next.index_copy_(0, VectorTensor(dst), h.to(torch::kFloat32));
      }
      // Every rank must agree on the width before the sum (a rank may have no nodes).
      if (sync) {
        torch::Tensor wmax = torch::zeros({opt.dp.world_size}, torch::kFloat64);
        wmax[opt.dp.rank] = static_cast<double>(width);
        DG_RETURN_IF_ERROR(sync->AllReduce({wmax}, false));
        width = static_cast<int64_t>(wmax.max().item<double>());
        if (!h_next.defined()) h_next = torch::zeros({N, width}, torch::kFloat32);
        DG_RETURN_IF_ERROR(sync->AllReduce({h_next}, false));
      }
      if (!h_next.defined()) return Status::InvalidArgument("layer-wise evaluation: no nodes");
      h_cur = h_next;
    }
    return h_cur;
  }

  bool writer() const { return opt.dp.rank == 0 && !opt.out_dir.empty(); }
  std::string OutPath(const std::string& n) const { return opt.out_dir + "/" + n; }

  Result<torch::Tensor> Input(const MiniBatch& mb, torch::Tensor* emb_leaf) { return ModelInput(opt, mb, emb_leaf); }

  Result<torch::Tensor> Forward(const MiniBatch& mb, torch::Tensor* emb_leaf) {
    if (mb.blocks.size() != opt.fanouts.size())
      return Status::InvalidArgument("batch has " + std::to_string(mb.blocks.size()) + " blocks, expected " +
                                     std::to_string(opt.fanouts.size()));
    DG_ASSIGN_OR_RETURN(torch::Tensor x, Input(mb, emb_leaf));
    torch::Tensor out;
    try {
      out = module.forward({x, BlocksValue(mb)}).toTensor();
    } catch (const std::exception& e) {
      return Status::InvalidArgument("model " + opt.model_path + ": forward failed: " + FirstLine(e.what()));
    }
    if (out.dim() != 2 || out.size(0) != static_cast<int64_t>(mb.seeds.size()))
      return Status::InvalidArgument("model " + opt.model_path + ": forward returned shape " + c10::str(out.sizes()) +
                                     ", expected one embedding row per seed [" + std::to_string(mb.seeds.size()) +
                                     ", D]");
    return out;
  }

  Result<torch::Tensor> Score(const torch::Tensor& hs, const torch::Tensor& hd) {
    if (!has_score) return (hs * hd).sum(1);
    torch::Tensor s;
    try {
      s = module.get_method("score")({hs, hd}).toTensor();
    } catch (const std::exception& e) {
      return Status::InvalidArgument("model " + opt.model_path + ": score(h_src, h_dst) failed: " + FirstLine(e.what()));
    }
    if (s.dim() == 2 && s.size(1) == 1) s = s.reshape({-1});
    if (s.dim() != 1 || s.size(0) != hs.size(0))
      return Status::InvalidArgument("model " + opt.model_path + ": score returned shape " + c10::str(s.sizes()) +
                                     ", expected one score per pair [" + std::to_string(hs.size(0)) + "]");
    return s;
  }

  Status Step(const MiniBatch& mb, double* loss, int64_t* correct, int64_t* count) {
    module.train(true);
    optimizer->zero_grad();
    torch::Tensor leaf;
    DG_ASSIGN_OR_RETURN(torch::Tensor h, Forward(mb, opt.embedding ? &leaf : nullptr));
    if (mb.labels.dtype != DType::kInt64 || mb.labels.shape.size() != 2 || mb.labels.shape[1] != 3)
      return Status::InvalidArgument("a link batch's labels must be int64 [R, 3] (is this a node batch?)");
    torch::Tensor lab = ArrayTensor(mb.labels);
    torch::Tensor src = lab.select(1, 0), dst = lab.select(1, 1);
    torch::Tensor target = lab.select(1, 2).to(torch::kFloat32);
    DG_ASSIGN_OR_RETURN(torch::Tensor logits, Score(h.index_select(0, src), h.index_select(0, dst)));
    torch::Tensor l = torch::binary_cross_entropy_with_logits(logits, target);
    *loss = l.item<double>();
    *correct = logits.gt(0).eq(target.gt(0.5)).sum().item<int64_t>();
    *count = target.numel();
    try {
      l.backward();
    } catch (const std::exception& e) {
      return Status::Internal("backward failed: " + FirstLine(e.what()));
    }
    if (opt.embedding) {
      torch::Tensor g = (leaf.grad().defined() ? leaf.grad() : torch::zeros_like(leaf)).to(torch::kFloat32).contiguous();
      Array a = Array::Zeros(DType::kFloat32, {g.size(0), g.size(1)});
      std::memcpy(a.data, g.data_ptr(), a.nbytes());
      DG_RETURN_IF_ERROR(opt.embedding->Update(mb.input_nodes, a, embedding_steps++));
    }
    if (sync) DG_RETURN_IF_ERROR(sync->AllReduceGradients(params));
    optimizer->step();
    return Status::OK();
  }

  // Sum all-reduce of values placed at this rank's offset: every rank gets all ranks' values.
  Result<std::vector<float>> Gather(const std::vector<float>& mine) {
    if (!sync) return mine;
    torch::Tensor counts = torch::zeros({opt.dp.world_size}, torch::kFloat64);
    counts[opt.dp.rank] = static_cast<double>(mine.size());
    DG_RETURN_IF_ERROR(sync->AllReduce({counts}, false));
    int64_t total = 0, offset = 0;
    for (int r = 0; r < opt.dp.world_size; ++r) {
      const int64_t c = static_cast<int64_t>(counts[r].item<double>());
      if (r < opt.dp.rank) offset += c;
      total += c;
    }
    torch::Tensor all = torch::zeros({std::max<int64_t>(total, 1)}, torch::kFloat32);
    if (!mine.empty())
      std::memcpy(all.data_ptr<float>() + offset, mine.data(), mine.size() * sizeof(float));
    DG_RETURN_IF_ERROR(sync->AllReduce({all}, false));
    return std::vector<float>(all.data_ptr<float>(), all.data_ptr<float>() + total);
  }

  // Every trainer's torch RNG state [world, bytes] (each rank's dropout draws differ).
  Result<torch::Tensor> AllRngStates() { return dg::AllRngStates(sync.get(), opt.dp); }

  Status SaveCheckpoint(int64_t epoch, const torch::Tensor& rng_all) {
    auto pack = [](const LinkMetrics& m) {
      return torch::tensor({m.mrr, m.hits1, m.hits10, m.hits50, m.auc}, torch::kFloat64);
    };
    return SaveCheckpointFile(OutPath("checkpoint.pt"), *this, epoch, best_epoch, rng_all,
                              [&](torch::serialize::OutputArchive* ar) {
                                ar->write("best_val", pack(best_val));
                                ar->write("best_test", pack(best_test));
                                ar->write("task", torch::tensor(int64_t{1}));  // 1 = link
                              });
  }

  Result<int64_t> LoadCheckpoint() {
    const std::string path = OutPath("checkpoint.pt");
    if (!std::filesystem::exists(path)) return int64_t{0};
    auto unpack = [](const torch::Tensor& t, LinkMetrics* m) {
      m->mrr = t[0].item<double>();
      m->hits1 = t[1].item<double>();
      m->hits10 = t[2].item<double>();
      m->hits50 = t[3].item<double>();
      m->auc = t[4].item<double>();
    };
    return LoadCheckpointFile(
        path, this, opt.dp, &best_epoch,
        [&](torch::serialize::InputArchive* ar) {
          torch::Tensor task, v, t;
          if (!ar->try_read("task", task) || task.item<int64_t>() != 1)
            return Status::InvalidArgument("checkpoint " + path +
                                           " is not from a link prediction run (train.task link)");
          ar->read("best_val", v);
          ar->read("best_test", t);
          unpack(v, &best_val);
          unpack(t, &best_test);
          return Status::OK();
        },
        "");
  }

  Status WriteModel(const std::string& path) { return WriteModelFile(this, path, /*use_best=*/true); }
};

LinkTrainer::LinkTrainer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LinkTrainer::~LinkTrainer() = default;
const std::vector<LinkEpochStats>& LinkTrainer::history() const { return impl_->history; }

Result<std::unique_ptr<LinkTrainer>> LinkTrainer::Create(const TrainerOptions& o, const LinkOptions& link) {
  if (o.batch_size <= 0) return Status::InvalidArgument("--batch-size must be > 0, got " + std::to_string(o.batch_size));
  if (o.fanouts.empty()) return Status::InvalidArgument("--fanouts: empty (need one per layer)");
  if (o.eval_every <= 0) return Status::InvalidArgument("--eval-every must be > 0");
  if (o.optimizer != "adam" && o.optimizer != "sgd")
    return Status::InvalidArgument("--optimizer: expected adam or sgd, got '" + o.optimizer + "'");
  if (link.eval_negatives < 1) return Status::InvalidArgument("eval negatives must be >= 1");
  if (link.num_nodes <= 0) return Status::InvalidArgument("link prediction needs a graph with nodes");
  if (link.negative_first < 0 || link.negative_count < 0 ||
      link.negative_first + link.negative_count > link.num_nodes)
    return Status::InvalidArgument("link prediction: evaluation negatives [" + std::to_string(link.negative_first) +
                                   ", +" + std::to_string(link.negative_count) + ") out of the graph's " +
                                   std::to_string(link.num_nodes) + " nodes");
  int64_t range_total = 0;
  for (const auto& [first, count] : link.negative_ranges) {
    if (first < 0 || count < 0 || first + count > link.num_nodes)
      return Status::InvalidArgument("link prediction: evaluation negatives [" + std::to_string(first) + ", +" +
                                     std::to_string(count) + ") out of the graph's " + std::to_string(link.num_nodes) +
                                     " nodes");
    range_total += count;
  }
  if (!link.negative_ranges.empty() && range_total == 0)
    return Status::InvalidArgument("link prediction: no destination nodes to draw evaluation negatives from");
  auto impl = std::make_unique<Impl>();
  impl->opt = o;
  impl->link = link;
  int threads = o.threads > 0 ? o.threads : static_cast<int>(std::thread::hardware_concurrency());
  at::set_num_threads(std::max(1, threads));
  torch::manual_seed(o.seed);
  DG_ASSIGN_OR_RETURN(TrainableModel model, LoadTrainableModel(o));
  impl->module = std::move(model.module);
  impl->names = std::move(model.names);
  impl->params = std::move(model.params);
  impl->has_score = impl->module.find_method("score").has_value();
  impl->typed = IsTypedModel(impl->module);
  impl->optimizer = MakeOptimizer(o, impl->params);
  DG_ASSIGN_OR_RETURN(impl->sync, ConnectGradientSync(o.dp, impl->params));
  DG_RETURN_IF_ERROR(CreateRunDir(o.out_dir));
  spdlog::info("link prediction: model {} scores pairs with {}", o.model_path,
               impl->has_score ? "its score(h_src, h_dst)" : "the dot product");
  return std::unique_ptr<LinkTrainer>(new LinkTrainer(std::move(impl)));
}

Result<LinkMetrics> LinkTrainer::Evaluate(BatchProvider* nodes, const EdgeList& held) {
  Impl& s = *impl_;
  const int64_t P = static_cast<int64_t>(held.src.size()), K = s.link.eval_negatives;
  // Negatives and the nodes to embed.
  std::vector<int64_t> neg(static_cast<size_t>(P * K));
  const int64_t neg_first = s.link.negative_first;
  const IdRanges& ranges = s.link.negative_ranges;
  int64_t range_total = 0;
  for (const auto& r : ranges) range_total += r.second;
  const uint64_t neg_count = static_cast<uint64_t>(!ranges.empty()          ? range_total
                                                   : s.link.negative_count > 0 ? s.link.negative_count
                                                                               : s.link.num_nodes);
  for (int64_t i = 0; i < P; ++i) {
    Rng rng(MixSeed(MixSeed(kEvalNegativeSeed, static_cast<uint64_t>(held.src[i])), static_cast<uint64_t>(held.dst[i])));
    for (int64_t j = 0; j < K; ++j) {
      const int64_t draw = static_cast<int64_t>(rng.Uniform(neg_count));
      neg[i * K + j] = ranges.empty() ? neg_first + draw : NthInRanges(ranges, draw);
    }
  }
  std::vector<float> pos_scores, neg_scores;
  if (P > 0 && s.all_h.defined()) {  // layer-wise: rows by global id
    torch::NoGradGuard no_grad;
    std::vector<int64_t> ns(P * K);
    for (int64_t i = 0; i < P; ++i)
      for (int64_t j = 0; j < K; ++j) ns[i * K + j] = held.src[i];
    const torch::Tensor& H = s.all_h;
    DG_ASSIGN_OR_RETURN(torch::Tensor sp, s.Score(H.index_select(0, VectorTensor(held.src)),
                                                  H.index_select(0, VectorTensor(held.dst))));
    DG_ASSIGN_OR_RETURN(torch::Tensor sn, s.Score(H.index_select(0, VectorTensor(ns)), H.index_select(0, VectorTensor(neg))));
    sp = sp.to(torch::kFloat32).contiguous();
    sn = sn.to(torch::kFloat32).contiguous();
    pos_scores.assign(sp.data_ptr<float>(), sp.data_ptr<float>() + sp.numel());
    neg_scores.assign(sn.data_ptr<float>(), sn.data_ptr<float>() + sn.numel());
  } else if (P > 0) {  // node batches of the nodes involved (no collectives in here)
    std::unordered_map<int64_t, int64_t> row;
    std::vector<int64_t> ids;
    auto add = [&](int64_t g) {
      if (row.emplace(g, static_cast<int64_t>(ids.size())).second) ids.push_back(g);
    };
    for (int64_t i = 0; i < P; ++i) {
      add(held.src[i]);
      add(held.dst[i]);
    }
    for (int64_t v : neg) add(v);
    EpochRequest req;
    req.seeds = ids;
    req.batch_size = s.opt.eval_batch_size > 0 ? s.opt.eval_batch_size : std::max<int64_t>(s.opt.batch_size, 1024);
    req.shuffle = false;
    req.labels = false;
    req.fanouts = s.opt.eval_fanouts.empty() ? std::vector<int>(s.opt.fanouts.size(), -1) : s.opt.eval_fanouts;
    req.job_seed = MixSeed(s.opt.seed, 0xe7a1);
    DG_RETURN_IF_ERROR(nodes->BeginEpoch(req));
    torch::NoGradGuard no_grad;
    s.module.train(false);
    std::vector<torch::Tensor> parts;
    MiniBatch mb;
    while (true) {
      DG_ASSIGN_OR_RETURN(bool more, nodes->Next(&mb));
      if (!more) break;
      DG_ASSIGN_OR_RETURN(torch::Tensor h, s.Forward(mb, nullptr));
      parts.push_back(h);
    }
    torch::Tensor H = torch::cat(parts);
    if (H.size(0) != static_cast<int64_t>(ids.size()))
      return Status::Internal("evaluation embedded " + std::to_string(H.size(0)) + " of " + std::to_string(ids.size()) +
                              " nodes");
    std::vector<int64_t> ps(P), pd(P), ns(P * K), nd(P * K);
    for (int64_t i = 0; i < P; ++i) {
      ps[i] = row[held.src[i]];
      pd[i] = row[held.dst[i]];
      for (int64_t j = 0; j < K; ++j) {
        ns[i * K + j] = ps[i];
        nd[i * K + j] = row[neg[i * K + j]];
      }
    }
    DG_ASSIGN_OR_RETURN(torch::Tensor sp, s.Score(H.index_select(0, VectorTensor(ps)), H.index_select(0, VectorTensor(pd))));
    DG_ASSIGN_OR_RETURN(torch::Tensor sn, s.Score(H.index_select(0, VectorTensor(ns)), H.index_select(0, VectorTensor(nd))));
    sp = sp.to(torch::kFloat32).contiguous();
    sn = sn.to(torch::kFloat32).contiguous();
    pos_scores.assign(sp.data_ptr<float>(), sp.data_ptr<float>() + sp.numel());
    neg_scores.assign(sn.data_ptr<float>(), sn.data_ptr<float>() + sn.numel());
  }
  // Every rank takes part in the gathers, even with nothing to evaluate.
  DG_ASSIGN_OR_RETURN(pos_scores, s.Gather(pos_scores));
  DG_ASSIGN_OR_RETURN(neg_scores, s.Gather(neg_scores));
  return ComputeLinkMetrics(pos_scores, neg_scores, K);
}

Status LinkTrainer::Fit(BatchProvider* edges, BatchProvider* nodes, const LinkSeeds& seeds) {
  Impl& s = *impl_;
  const std::string metrics = s.OutPath("metrics.jsonl");
  int64_t start = 1;
  if (s.opt.resume) {
    DG_ASSIGN_OR_RETURN(int64_t done, s.LoadCheckpoint());
    if (done == 0) spdlog::warn("--resume: no checkpoint in {}, starting at epoch 1", s.opt.out_dir);
    else spdlog::info("resuming after epoch {}", done);
    start = done + 1;
  }
  if (s.writer()) {
    std::vector<std::string> keep;
    std::ifstream in(metrics);
    for (std::string line; std::getline(in, line);) {
      auto pos = line.find("\"epoch\":");
      if (pos != std::string::npos && std::stoll(line.substr(pos + 8)) < start) keep.push_back(line);
    }
    std::ofstream out(metrics, std::ios::trunc);
    for (const auto& l : keep) out << l << "\n";
    if (!out) return Status::IOError("write " + metrics + " failed");
  }
  if (seeds.train.empty())
    return Status::InvalidArgument("no training edges for trainer " + std::to_string(s.opt.dp.rank));
  for (int64_t epoch = start; epoch <= s.opt.epochs; ++epoch) {
    LinkEpochStats st;
    st.epoch = epoch;
    EpochRequest req;
    req.epoch = epoch;
    req.seeds = seeds.train;
    req.batch_size = s.opt.batch_size;
    req.shuffle = true;
    req.fanouts = s.opt.fanouts;
    req.job_seed = s.opt.seed;
    req.labels = false;
    req.link = true;
    DG_RETURN_IF_ERROR(edges->BeginEpoch(req));
    auto t_epoch = Clock::now();
    double loss_sum = 0;
    int64_t correct = 0, count = 0;
    MiniBatch mb;
    while (true) {
      auto tw = Clock::now();
      DG_ASSIGN_OR_RETURN(bool more, edges->Next(&mb));
      st.wait_seconds += Since(tw);
      if (!more) break;
      double l = 0;
      int64_t c = 0, n = 0;
      DG_RETURN_IF_ERROR(s.Step(mb, &l, &c, &n));
      loss_sum += l;
      correct += c;
      count += n;
      ++st.steps;
      for (int64_t r = 0; r < mb.labels.rows(); ++r) st.positives += mb.labels.as<int64_t>()[3 * r + 2] == 1;
      if (!s.opt.quiet && s.opt.dp.rank == 0 && s.opt.log_every > 0 && st.steps % s.opt.log_every == 0)
        spdlog::info("epoch {} step {} loss {:.4f}", epoch, st.steps, l);
    }
    st.seconds = Since(t_epoch);
    st.loss = st.steps ? loss_sum / st.steps : std::nan("");
    st.train_acc = count ? double(correct) / count : std::nan("");
    if (s.sync) {  // loss and counts over all trainers
      torch::Tensor agg = torch::tensor({st.loss, double(correct), double(count), double(st.positives)}, torch::kFloat64);
      DG_RETURN_IF_ERROR(s.sync->AllReduce({agg}, false));
      st.loss = agg[0].item<double>() / s.opt.dp.world_size;
      st.train_acc = agg[2].item<double>() > 0 ? agg[1].item<double>() / agg[2].item<double>() : std::nan("");
      st.positives = static_cast<int64_t>(agg[3].item<double>());
    }
    if (epoch % s.opt.eval_every == 0 || epoch == s.opt.epochs) {
      st.evaluated = true;
      if (s.Layerwise()) {
        auto t_inf = Clock::now();
        DG_ASSIGN_OR_RETURN(s.all_h, s.EmbedAll());
        if (!s.opt.quiet && s.opt.dp.rank == 0)
          spdlog::info("evaluation: layer-wise full-neighbor embeddings of all {} nodes in {:.2f} s", s.all_h.size(0),
                       Since(t_inf));
      }
      auto val = Evaluate(nodes, seeds.val);
      auto test = val.ok() ? Evaluate(nodes, seeds.test) : Result<LinkMetrics>(val.status());
      s.all_h = torch::Tensor();
      DG_ASSIGN_OR_RETURN(st.val, std::move(val));
      DG_ASSIGN_OR_RETURN(st.test, std::move(test));
      const double v = std::isfinite(st.val.auc) ? st.val.auc : -1;
      if (s.best_epoch == 0 || v > (std::isfinite(s.best_val.auc) ? s.best_val.auc : -1)) {
        s.best_epoch = epoch;
        s.best_val = st.val;
        s.best_test = st.test;
        s.best_params.clear();
        for (const auto& p : s.params) s.best_params.push_back(p.detach().clone());
      }
    }
    if (!s.opt.quiet && s.opt.dp.rank == 0) {
      if (st.evaluated)
        spdlog::info("epoch {}: loss {:.4f} train_acc {:.4f} val_auc {:.4f} val_mrr {:.4f} test_auc {:.4f} test_mrr {:.4f} "
                     "({:.2f} s, {:.0f} positive edges/s)",
                     epoch, st.loss, st.train_acc, st.val.auc, st.val.mrr, st.test.auc, st.test.mrr, st.seconds,
                     st.positives / std::max(1e-9, st.seconds));
      else
        spdlog::info("epoch {}: loss {:.4f} train_acc {:.4f} ({:.2f} s)", epoch, st.loss, st.train_acc, st.seconds);
    }
    s.history.push_back(st);
    torch::Tensor rng_all;
    if (s.sync || s.writer()) {  // every rank takes part
      DG_ASSIGN_OR_RETURN(rng_all, s.AllRngStates());
    }
    if (s.writer()) {
      std::ostringstream line;
      line << "{\"epoch\": " << epoch << ", \"loss\": " << MetricNumber(st.loss)
           << ", \"train_acc\": " << MetricNumber(st.train_acc) << ", ";
      if (st.evaluated) {
        line << st.val.Json("val") << ", " << st.test.Json("test");
      } else {
        LinkMetrics none;
        none.mrr = none.hits1 = none.hits10 = none.hits50 = none.auc = std::nan("");
        line << none.Json("val") << ", " << none.Json("test");
      }
      line << ", \"epoch_seconds\": " << MetricNumber(st.seconds)
           << ", \"wait_fraction\": " << MetricNumber(st.wait_seconds / std::max(1e-9, st.seconds))
           << ", \"steps\": " << st.steps
           << ", \"positive_edges\": " << st.positives
           << ", \"edges_per_second\": " << MetricNumber(st.positives / std::max(1e-9, st.seconds)) << "}";
      DG_RETURN_IF_ERROR(AppendLine(metrics, line.str()));
      DG_RETURN_IF_ERROR(s.SaveCheckpoint(epoch, rng_all));
    }
  }
  if (s.writer()) {
    DG_RETURN_IF_ERROR(s.WriteModel(s.OutPath("model.pt")));
    std::ostringstream line;
    line << "{\"final\": true, \"best_epoch\": " << s.best_epoch
         << ", \"best_val_auc\": " << (s.best_epoch > 0 ? MetricNumber(s.best_val.auc) : "null") << ", "
         << s.best_val.Json("val") << ", " << s.best_test.Json("test") << "}";
    DG_RETURN_IF_ERROR(AppendLine(metrics, line.str()));
  }
  return Status::OK();
}

std::vector<float> LinkTrainer::ParameterVector() const { return FlattenParameters(impl_->params); }

}  // namespace dg
