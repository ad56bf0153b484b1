#include "roles/trainer/tasks/cv_task.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <future>

#include "common/io/npy.h"
#include "roles/trainer/model/model_runner.h"
#include "roles/trainer/loop/trainer_setup.h"
#include "roles/trainer/trainer_util.h"

namespace dg {
namespace {

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

template <class Fn>
auto Async(Fn fn) {
  return std::async(std::launch::async, std::move(fn));
}

// A value read already, as a read's future.
std::future<Result<Array>> Ready(const Array& a) {
  std::promise<Result<Array>> p;
  p.set_value(a);
  return p.get_future();
}

}  // namespace

Result<torch::Tensor> CvModel::Forward(const std::vector<int64_t>& seeds, bool training, int64_t epoch, int64_t batch,
                                       torch::Tensor* labels, torch::Tensor* hidden) {
  MiniBatchOptions mo;
  mo.fanouts = training ? spec.fanouts : std::vector<int>(layers - 1, -1);
  mo.feature_name = "";  // gathered by ForwardBatch, in parallel with the rest
  mo.label_name = "";
  DG_ASSIGN_OR_RETURN(MiniBatch mb, store->Sample(seeds, mo, spec.seed, training ? epoch : -1 - epoch, batch));
  return ForwardBatch(mb, training, labels, hidden);
}

// Features and learnt rows as their batch gives them (training: the learnt
// rows' hop below V_0 is blocks[0]), the propagated input and the rows' exact
// mean read here; all reads at once, the stores being thread-safe.
Result<CvModel::Layer0> CvModel::Input(const MiniBatch& mb, bool training, torch::Tensor* emb_leaf) {
  const bool below = training && embedding;
  const int64_t n0 = below ? mb.blocks[0].num_dst : static_cast<int64_t>(mb.input_nodes.size());
  const std::vector<int64_t> v0(mb.input_nodes.begin(), mb.input_nodes.begin() + n0);
  const bool features = spec.embedding.uses_features();
  std::future<Result<Array>> x_f, ax_f, rows_f, sum_f;
  std::vector<int64_t> full_deg;
  if (features) {
    x_f = mb.features.data ? Ready(mb.features) : Async([&] { return store->Gather(spec.features, v0); });
    ax_f = Async([&] { return store->Gather(input, v0); });
  }
  if (embedding) {
    rows_f = Async([&] { return embedding->Rows(below ? mb.input_nodes : v0); });
    sum_f = Async([&] { return store->AggregateEmbedding(embedding, spec.embedding.name, v0, &full_deg); });
  }
  Result<std::vector<int64_t>> deg = store->InDegrees(v0);
  Result<Array> x = features ? x_f.get() : Array(), ax = features ? ax_f.get() : Array();
  Result<Array> rows = embedding ? rows_f.get() : Array(), sum = embedding ? sum_f.get() : Array();
  for (const Status& st : {deg.status(), x.status(), ax.status(), rows.status(), sum.status()})
    DG_RETURN_IF_ERROR(st);
  if (features && ax->row_elems() != x->row_elems())
    return Status::InvalidArgument("cv_input '" + input + "' has rows of " + std::to_string(ax->row_elems()) +
                                   " values but '" + spec.features + "' has " + std::to_string(x->row_elems()));
  Layer0 in;
  in.deg = Int64Tensor(*deg).to(torch::kFloat32);
  std::vector<torch::Tensor> xs, axs;
  if (features) {
    xs.push_back(ArrayTensor(*x).to(torch::kFloat32).slice(0, 0, n0));
    axs.push_back(ArrayTensor(*ax).to(torch::kFloat32));
  }
  if (embedding) {
    torch::Tensor e = ArrayTensor(*rows);
    torch::Tensor mean = ArrayTensor(*sum) / Int64Tensor(full_deg).to(torch::kFloat32).clamp_min(1).unsqueeze(1);
    if (below) {
      if (emb_leaf) {
        e = e.clone().set_requires_grad(true);
        *emb_leaf = e;
      }
      // History = the current rows: the sampled term is 0 in value, its
      // gradient reaches the sampled neighbours.
      const torch::Tensor sampled = BlockMean(mb.blocks[0], e);
      mean = mean + (sampled - sampled.detach());
      e = e.slice(0, 0, n0);
    }
    xs.push_back(e);
    axs.push_back(mean);
  }
  in.x = xs.size() == 1 ? xs[0] : torch::cat(xs, 1);
  in.ax = axs.size() == 1 ? axs[0] : torch::cat(axs, 1);
  return in;
}

Result<torch::Tensor> CvModel::ForwardBatch(const MiniBatch& mb, bool training, torch::Tensor* labels,
                                            torch::Tensor* hidden, torch::Tensor* emb_leaf) {
  const size_t blocks = training ? TrainingBlocks() : layers - 1;
  if (mb.blocks.size() != blocks)
    return Status::InvalidArgument("control variate: a batch has " + std::to_string(mb.blocks.size()) +
                                   " blocks, expected " + std::to_string(blocks));
  const size_t first = blocks - (layers - 1);  // layer 1's block
  const std::vector<int64_t>& nodes = mb.input_nodes;
  // The history reads depend only on the sampled node sets: issue them with
  // the labels before layer 0's reads, then wait.
  auto y_f = mb.labels.data ? Ready(mb.labels) : Async([&] { return store->Gather(spec.labels, mb.seeds); });
  std::vector<std::vector<int64_t>> prev(layers), cur(layers), full_deg(layers);
  std::vector<std::future<Result<Array>>> hist_f(layers), sums_f(layers);
  if (training) {
    for (int l = 1; l < layers; ++l) {
      const Block& b = mb.blocks[first + l - 1];  // dst V_l, src V_{l-1}: prefixes of the input nodes
      prev[l].assign(nodes.begin(), nodes.begin() + b.num_src);
      cur[l].assign(nodes.begin(), nodes.begin() + b.num_dst);
      hist_f[l] = Async([this, &prev, l] { return store->Pull(History(l), prev[l]); });
      sums_f[l] = Async([this, &cur, &full_deg, l] { return store->AggregateSum(History(l), cur[l], &full_deg[l]); });
    }
  }
  Result<Layer0> in = Input(mb, training, emb_leaf);
  Result<Array> y = y_f.get();
  std::vector<Result<Array>> hist, sums;
  for (int l = 1; l < layers && training; ++l) {
    hist.push_back(hist_f[l].get());
    sums.push_back(sums_f[l].get());
  }
  DG_RETURN_IF_ERROR(in.status());
  DG_RETURN_IF_ERROR(y.status());
  for (size_t i = 0; i < hist.size(); ++i) {
    DG_RETURN_IF_ERROR(hist[i].status());
    DG_RETURN_IF_ERROR(sums[i].status());
  }
  *labels = ArrayTensor(*y).to(torch::kInt64);
  const torch::Tensor& deg = in->deg;
  torch::Tensor h = module.get_method("cv_input")({in->x, in->ax, deg}).toTensor();
  for (int l = 1; l < layers; ++l) {
    const Block& b = mb.blocks[first + l - 1];
    torch::Tensor neigh;
    if (training) {
      torch::Tensor hist_t = ArrayTensor(*hist[l - 1]);
      torch::Tensor fd = Int64Tensor(full_deg[l]).to(torch::kFloat32).clamp_min(1).unsqueeze(1);
      neigh = BlockMean(b, h - hist_t) + ArrayTensor(*sums[l - 1]) / fd;
      DG_RETURN_IF_ERROR(store->Push(History(l), prev[l], TensorArray(h)));
    } else {
      neigh = BlockMean(b, h);
    }
    if (hidden && l + 1 == layers) *hidden = h.slice(0, 0, b.num_dst);
    h = module.get_method("cv_layer")({torch::IValue(static_cast<int64_t>(l)), h.slice(0, 0, b.num_dst), neigh,
                                       deg.slice(0, 0, b.num_dst)})
            .toTensor();
  }
  return h;
}

Result<std::unique_ptr<CvTask>> CvTask::Create(const TrainSpec& spec, const TrainHooks& hooks, CvInput input) {
  if (!input.batches) return Status::Internal("control variate: the source gave no training batches");
  if (input.input.empty() && spec.embedding.uses_features())
    return Status::InvalidArgument(
        "algorithm control_variate needs the propagated input (train.cv_input / --cv-input: the node array "
        "written by `distgnn propagate --hops 1 --norm mean`)");
  std::unique_ptr<CvTask> t(new CvTask(spec, hooks, std::move(input)));
  // With learnt rows, fanouts[0] is their hop below layer 0.
  const bool rows = hooks.embedding != nullptr;
  const int want = static_cast<int>(spec.fanouts.size()) + (rows ? 0 : 1);
  DG_RETURN_IF_ERROR(SetUpModel(spec, hooks, -1, [&spec, want, rows](const torch::jit::Module& module) {
    if (!module.find_method("cv_input") || !module.find_method("cv_layer"))
      return Status::InvalidArgument("algorithm control_variate: model " + spec.model +
                                     " has no cv_input/cv_layer methods (README \"Writing your own model\"; "
                                     "`distgnn model export --arch gcn|sage` writes them)");
    const int layers = module.hasattr("num_layers") ? static_cast<int>(module.attr("num_layers").toInt()) : want;
    if (layers != want)
      return Status::InvalidArgument("algorithm control_variate: model " + spec.model + " has " +
                                     std::to_string(layers) + " layers, so fanouts needs " +
                                     (rows ? std::to_string(layers) +
                                                 " entries (one per layer, the first the learnt rows' hop), got "
                                           : std::to_string(layers - 1) +
                                                 " entries (layer 0 reads the propagated input), got ") +
                                     std::to_string(spec.fanouts.size()));
    return Status::OK();
  }, &t->m_));
  t->cv_.module = t->m_.module;
  t->cv_.layers = want;
  t->cv_.embedding = hooks.embedding;
  DG_RETURN_IF_ERROR(t->InitHistory());
  return t;
}

// History widths: the output width of layers 0 .. L-2 (one forward of a
// single node with one neighbour per layer).
Status CvTask::InitHistory() {
  const TrainSpec& spec = cv_.spec;
  torch::NoGradGuard ng;
  cv_.module.train(false);
  std::vector<int64_t> one{seeds_.train.empty() ? 0 : seeds_.train[0]};
  MiniBatchOptions mo;
  mo.fanouts = std::vector<int>(cv_.layers - 1, 1);
  mo.feature_name = "";
  mo.label_name = "";
  DG_ASSIGN_OR_RETURN(MiniBatch mb, SampleMiniBatch(cv_.store->source(), one, mo, spec.seed, 0, 0));
  DG_ASSIGN_OR_RETURN(CvModel::Layer0 in, cv_.Input(mb, false, nullptr));
  torch::Tensor h = cv_.module.get_method("cv_input")({in.x, in.ax, in.deg}).toTensor();
  for (int l = 1; l < cv_.layers; ++l) {
    DG_RETURN_IF_ERROR(cv_.store->InitHistory(cv_.History(l), h.size(1)));
    h = cv_.module.get_method("cv_layer")({torch::IValue(static_cast<int64_t>(l)), h, h, in.deg}).toTensor();
  }
  cv_.module.train(true);
  return Status::OK();
}

Result<int64_t> CvTask::BeginEpoch(int64_t epoch) {
  if (seeds_.train.empty())
    return Status::InvalidArgument("no training nodes for trainer " + std::to_string(hooks_.dp.rank));
  DG_RETURN_IF_ERROR(seeds_.batches->BeginEpoch(TrainRequest(cv_.spec, seeds_.train, epoch)));
  return NumBatches(static_cast<int64_t>(seeds_.train.size()), cv_.spec.batch_size);
}

Result<bool> CvTask::NextBatch(bool skip, StepSplit* split) { return NextTimedBatch(*seeds_.batches, &mb_, skip, split); }

// The batch's history reads are part of its forward (CvModel::ForwardBatch
// reads the store as it goes), so they count as forward time.
Result<BatchLoss> CvTask::Loss() {
  torch::Tensor labels;
  BatchLoss out;
  DG_ASSIGN_OR_RETURN(torch::Tensor logits, cv_.ForwardBatch(mb_, true, &labels, nullptr, &out.rows));
  out.loss = torch::nn::functional::cross_entropy(logits, labels);
  out.correct = logits.argmax(1).eq(labels).sum().item<int64_t>();
  out.count = static_cast<int64_t>(mb_.seeds.size());
  out.items = out.count;
  out.row_ids = &mb_.input_nodes;
  return out;
}

Result<std::pair<double, double>> CvTask::AccuracyAndLoss(const std::vector<int64_t>& seeds, int64_t epoch) {
  torch::NoGradGuard ng;
  cv_.module.train(false);
  const int64_t bs = EvalBatchSize(cv_.spec);
  ClassTally tally;
  for (int64_t b = 0; b < NumBatches(static_cast<int64_t>(seeds.size()), bs); ++b) {
    torch::Tensor labels;
    DG_ASSIGN_OR_RETURN(torch::Tensor logits, cv_.Forward(BatchSeeds(seeds, bs, b), false, epoch, b, &labels));
    tally.Add(logits, labels);
  }
  cv_.module.train(true);
  return tally.AccuracyAndLoss(m_.sync.get());
}

Result<Evaluation> CvTask::Evaluate(int64_t epoch) {
  Evaluation e;
  DG_ASSIGN_OR_RETURN(auto val, AccuracyAndLoss(seeds_.val, epoch - 1));
  e.val = val.first;
  e.val_loss = val.second;
  DG_ASSIGN_OR_RETURN(auto test, AccuracyAndLoss(seeds_.test, epoch - 1));
  e.test = test.first;
  return e;
}

std::string CvTask::EpochJson(const EpochStats& st) const {
  return "\"seeds\": " + std::to_string(st.seeds) + ", \"algorithm\": \"control_variate\"";
}

// predictions.npy and embeddings.npy of CvInput::predict, in that order, from
// the exact forward, appended batch by batch.
Status CvTask::SaveOutputs() {
  const TrainSpec& spec = cv_.spec;
  if (!hooks_.writer() || !(spec.save_predictions || spec.save_embeddings) || seeds_.predict.empty())
    return Status::OK();
  torch::NoGradGuard ng;
  cv_.module.train(false);
  const int64_t bs = EvalBatchSize(spec);
  const std::vector<int64_t>& nodes = seeds_.predict;
  const int64_t n = static_cast<int64_t>(nodes.size());
  NpyWriter pred, emb;
  if (spec.save_predictions) DG_RETURN_IF_ERROR(pred.Open(hooks_.OutPath("predictions.npy"), DType::kInt64, {n}));
  for (int64_t b = 0; b < NumBatches(n, bs); ++b) {
    torch::Tensor labels, hidden;
    DG_ASSIGN_OR_RETURN(torch::Tensor logits, cv_.Forward(BatchSeeds(nodes, bs, b), false, 0, b, &labels, &hidden));
    if (spec.save_predictions) {
      const torch::Tensor p = logits.argmax(1).to(torch::kInt64).contiguous();
      DG_RETURN_IF_ERROR(pred.Append(p.data_ptr(), p.numel() * sizeof(int64_t)));
    }
    if (spec.save_embeddings) {
      const torch::Tensor h = hidden.to(torch::kFloat32).contiguous();
      if (b == 0) DG_RETURN_IF_ERROR(emb.Open(hooks_.OutPath("embeddings.npy"), DType::kFloat32, {n, h.size(1)}));
      DG_RETURN_IF_ERROR(emb.Append(h.data_ptr(), h.numel() * sizeof(float)));
    }
  }
  cv_.module.train(true);
  if (spec.save_predictions) DG_RETURN_IF_ERROR(pred.Finish());
  return spec.save_embeddings ? emb.Finish() : Status::OK();
}

Status CvTask::SaveState(const std::string& dir) { return cv_.store->SaveHistory(dir); }

Status CvTask::LoadState(const std::string& dir) { return dir.empty() ? Status::OK() : cv_.store->LoadHistory(dir); }

}  // namespace dg
