#include "roles/trainer/tasks/historical_task.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include <spdlog/spdlog.h>

#include "common/net/pull_block.h"
#include "roles/trainer/model/model_runner.h"
#include "roles/trainer/source/cv_store.h"
#include "roles/trainer/trainer_util.h"

namespace dg {
namespace {

constexpr int kPrefetch = 4;  // upper batches made ahead of the step

// A stored row's last two float32 slots hold the int64 step + 1 that wrote it
// (StoredRowStep, common/net/pull_block.h).
constexpr int64_t kStepSlots = 2;

torch::Tensor Positions(const std::vector<int64_t>& v) {
  return torch::from_blob(const_cast<int64_t*>(v.data()), {static_cast<int64_t>(v.size())}, torch::kInt64).clone();
}

torch::Tensor ForwardLayers(torch::jit::Module& module, torch::Tensor h, const MiniBatch& mb, int from, int to) {
  for (int l = from; l < to; ++l)
    h = module.get_method("forward_layer")({torch::IValue(static_cast<int64_t>(l)), h, BlockValue(mb.blocks[l])})
            .toTensor();
  return h;
}

}  // namespace

HistoricalTask::HistoricalTask(const TrainSpec& spec, const TrainHooks& hooks, HistoricalInput input)
    : NodeTask(spec, hooks, std::move(input.nodes)),
      store_(input.store),
      upper_(input.sampler_threads, kPrefetch) {}

Result<std::unique_ptr<HistoricalTask>> HistoricalTask::Create(const TrainSpec& spec, const TrainHooks& hooks,
                                                               HistoricalInput input) {
  if (!input.store) return Status::Internal("historical rows: the source gave no store");
  std::unique_ptr<HistoricalTask> t(new HistoricalTask(spec, hooks, std::move(input)));
  DG_RETURN_IF_ERROR(t->SetUp([&spec](const torch::jit::Module& module) {
    if (!HasForwardLayer(module) || IsTypedModel(module))
      return Status::InvalidArgument("train.historical: model " + spec.model +
                                     " has no forward_layer(layer, x, block) of the homogeneous contract "
                                     "(docs/models.md; `distgnn model export --arch sage|gcn|gat` writes it)");
    return Status::OK();
  }));
  DG_RETURN_IF_ERROR(t->InitHistory());
  t->aggregate_ = t->store_->aggregates() && HasForwardLayerAgg(t->m_.module);
  if (t->store_->aggregates() && !t->aggregate_ && hooks.dp.rank == 0)
    spdlog::info("historical rows: model {} has no forward_layer_agg, so the rows below layer {} are pulled, not "
                 "aggregated (docs/models.md)", spec.model, spec.historical.layers.front());
  return t;
}

// Fanouts of layers 0 .. layers-1 (the sampling seeds are per layer, so a
// shorter list samples the same neighbours for the same nodes); no gathers.
MiniBatchOptions HistoricalTask::Options(int layers) const {
  MiniBatchOptions mo;
  mo.fanouts.assign(spec_.fanouts.begin(), spec_.fanouts.begin() + layers);
  mo.feature_name = "";
  mo.label_name = "";
  mo.owner_offsets = store_->source()->owner_offsets();
  return mo;
}

// Widths of the historical layers' input rows: one forward of a training
// node with one neighbour per layer.
Status HistoricalTask::InitHistory() {
  torch::NoGradGuard ng;
  m_.module.train(false);
  const std::vector<int>& hl = spec_.historical.layers;
  std::vector<int64_t> one{in_.train.empty() ? 0 : in_.train[0]};
  MiniBatchOptions mo = Options(hl.back());
  std::fill(mo.fanouts.begin(), mo.fanouts.end(), 1);
  DG_ASSIGN_OR_RETURN(MiniBatch mb, store_->SampleLayers(one, mo, spec_.seed, 0, 0, 0));
  DG_ASSIGN_OR_RETURN(Array x, store_->Gather(spec_.features, mb.input_nodes));
  torch::Tensor h = ArrayTensor(x).to(torch::kFloat32);
  int done = 0;
  for (int k : hl) {
    h = ForwardLayers(m_.module, h, mb, done, k);
    done = k;
    widths_.push_back(h.size(1));
    DG_RETURN_IF_ERROR(store_->InitHistory(History(k), h.size(1) + kStepSlots));
  }
  m_.module.train(true);
  return Status::OK();
}

Result<int64_t> HistoricalTask::BeginEpoch(int64_t epoch) {
  if (in_.train.empty())
    return Status::InvalidArgument("no training nodes for trainer " + std::to_string(hooks_.dp.rank));
  const EpochRequest req = TrainRequest(spec_, in_.train, epoch);
  epoch_ = epoch;
  batches_ = NumBatches(static_cast<int64_t>(in_.train.size()), spec_.batch_size);
  lookups_ = hits_ = 0;
  const MiniBatchOptions mo = Options(static_cast<int>(spec_.fanouts.size()));
  const int top = spec_.historical.layers.back();
  DG_RETURN_IF_ERROR(upper_.Begin(req, [this, mo, top, epoch](int64_t b, const std::vector<int64_t>& seeds)
                                           -> Result<MiniBatch> {
    DG_ASSIGN_OR_RETURN(MiniBatch mb, store_->SampleLayers(seeds, mo, spec_.seed, epoch, b, top));
    const auto t0 = std::chrono::steady_clock::now();
    DG_ASSIGN_OR_RETURN(mb.labels, store_->Gather(spec_.labels, mb.seeds));
    mb.gather_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return mb;
  }));
  return batches_;
}

Result<bool> HistoricalTask::NextBatch(bool skip, StepSplit* split) {
  DG_ASSIGN_OR_RETURN(bool more, NextTimedBatch(upper_, &mb_, skip, split));
  if (more) {
    sorted_seeds_ = mb_.seeds;
    std::sort(sorted_seeds_.begin(), sorted_seeds_.end());
  }
  return more;
}

std::vector<char> HistoricalTask::Candidates(const std::vector<int64_t>& nodes) const {
  std::vector<char> cand(nodes.size(), 0);
  const bool all = spec_.historical.nodes == HistoricalNodes::kAll;
  for (size_t i = 0; i < nodes.size() && spec_.historical.max_age_steps > 0; ++i)
    cand[i] = (all || store_->Remote(nodes[i])) &&
              !std::binary_search(sorted_seeds_.begin(), sorted_seeds_.end(), nodes[i]);
  return cand;
}

Status HistoricalTask::LookupWithBlock0(const std::vector<int64_t>& nodes, int64_t step, Level* level) {
  BlockHistoryRead read;
  read.ask = SampleBlockHistory{History(1), step, spec_.historical.max_age_steps};
  read.width = widths_.front();
  read.candidate = Candidates(nodes);
  BlockHistoryHits hits;
  DG_ASSIGN_OR_RETURN(level->below, store_->SampleBlock0WithHistory(nodes, Options(1), spec_.seed, epoch_,
                                                                    mb_.batch_index, read, &hits));
  level->hit_pos = std::move(hits.hit_pos);
  level->miss_pos = std::move(hits.miss_pos);
  level->miss_ids = level->below.input_nodes;
  if (!level->hit_pos.empty()) level->hit_rows = std::move(hits.rows);
  level->aggregated = !level->miss_ids.empty();
  lookups_ += std::count(read.candidate.begin(), read.candidate.end(), 1);
  hits_ += static_cast<int64_t>(level->hit_pos.size());
  return Status::OK();
}

Status HistoricalTask::Lookup(int k, const std::vector<int64_t>& nodes, int64_t step, Level* level) {
  std::vector<int64_t> cand_pos, cand_ids;
  const int64_t max_age = spec_.historical.max_age_steps;
  const std::vector<char> cand = Candidates(nodes);
  for (size_t i = 0; i < nodes.size(); ++i)
    if (cand[i]) {
      cand_pos.push_back(static_cast<int64_t>(i));
      cand_ids.push_back(nodes[i]);
    }
  Array rows;
  if (!cand_ids.empty()) {
    DG_ASSIGN_OR_RETURN(rows, store_->Pull(History(k), cand_ids));
  }
  std::vector<char> hit(nodes.size(), 0);
  std::vector<int64_t> hit_rows;  // rows of `rows`
  for (size_t c = 0; c < cand_ids.size(); ++c) {
    const int64_t written = StoredRowStep(static_cast<const uint8_t*>(rows.data) + c * rows.row_bytes(), rows.row_bytes());
    if (!StoredRowFresh(written, step, max_age)) continue;
    hit[cand_pos[c]] = 1;
    level->hit_pos.push_back(cand_pos[c]);
    hit_rows.push_back(static_cast<int64_t>(c));
  }
  for (size_t i = 0; i < nodes.size(); ++i)
    if (!hit[i]) {
      level->miss_pos.push_back(static_cast<int64_t>(i));
      level->miss_ids.push_back(nodes[i]);
    }
  lookups_ += static_cast<int64_t>(cand_ids.size());
  hits_ += static_cast<int64_t>(hit_rows.size());
  if (!hit_rows.empty()) {
    const torch::Tensor all = ArrayTensor(rows).slice(1, 0, rows.row_elems() - kStepSlots);
    level->hit_rows = TensorArray(all.index_select(0, Positions(hit_rows)));
  }
  return Status::OK();
}

Status HistoricalTask::PushRows(int k, const std::vector<int64_t>& ids, const torch::Tensor& rows, int64_t step) {
  if (spec_.historical.max_age_steps == 0 || ids.empty()) return Status::OK();  // never read
  const torch::Tensor h = rows.detach().to(torch::kFloat32).contiguous();
  const int64_t width = h.size(1);
  Array out = Array::Zeros(DType::kFloat32, {h.size(0), width + kStepSlots});
  const int64_t written = step + 1;
  for (int64_t i = 0; i < h.size(0); ++i) {
    uint8_t* row = static_cast<uint8_t*>(out.data) + i * out.row_bytes();
    std::memcpy(row, h.data_ptr<float>() + i * width, width * sizeof(float));
    std::memcpy(row + width * sizeof(float), &written, sizeof(int64_t));
  }
  return store_->Push(History(k), ids, out);
}

// Levels top-down (history read, misses sampled below), then the forward
// bottom-up through them.
Result<BatchLoss> HistoricalTask::Loss() {
  const std::vector<int>& hl = spec_.historical.layers;
  const int64_t step = (epoch_ - 1) * batches_ + mb_.batch_index;
  std::vector<Level>& levels = levels_;  // their blocks back the autograd graph until the step ends
  levels.assign(hl.size(), Level());
  const std::vector<int64_t>* nodes = &mb_.input_nodes;
  for (int j = static_cast<int>(hl.size()) - 1; j >= 0; --j) {
    Level& lv = levels[j];
    if (j == 0 && aggregate_ && hl[0] == 1 && spec_.historical.max_age_steps > 0) {
      DG_RETURN_IF_ERROR(LookupWithBlock0(*nodes, step, &lv));
      nodes = &lv.below.input_nodes;
      continue;
    }
    DG_RETURN_IF_ERROR(Lookup(hl[j], *nodes, step, &lv));
    lv.aggregated = j == 0 && aggregate_ && !lv.miss_ids.empty();
    if (lv.aggregated) {
      DG_ASSIGN_OR_RETURN(lv.below, store_->SampleWithBlockInput(lv.miss_ids, Options(hl[0]), spec_.seed, epoch_,
                                                                 mb_.batch_index));
    } else {
      DG_ASSIGN_OR_RETURN(lv.below, store_->SampleLayers(lv.miss_ids, Options(hl[j]), spec_.seed, epoch_,
                                                         mb_.batch_index, j > 0 ? hl[j - 1] : 0));
    }
    nodes = &lv.below.input_nodes;
  }
  DG_ASSIGN_OR_RETURN(torch::Tensor h, LowestRows(levels[0], *nodes));
  for (size_t j = 0; j < hl.size(); ++j) {
    Level& lv = levels[j];
    h = ForwardLayers(m_.module, h, lv.below, j > 0 ? hl[j - 1] : (lv.aggregated ? 1 : 0), hl[j]);
    DG_RETURN_IF_ERROR(PushRows(hl[j], lv.miss_ids, h, step));
    if (lv.hit_pos.empty()) continue;  // every row computed, in V_k's order
    const int64_t n = static_cast<int64_t>(lv.hit_pos.size() + lv.miss_pos.size());
    h = torch::zeros({n, h.size(1)}, h.options())
            .index_copy(0, Positions(lv.miss_pos), h)
            .index_copy(0, Positions(lv.hit_pos), ArrayTensor(lv.hit_rows));
  }
  h = ForwardLayers(m_.module, h, mb_, hl.back(), static_cast<int>(spec_.fanouts.size()));
  DG_RETURN_IF_ERROR(CheckLogits(h, static_cast<int64_t>(mb_.seeds.size())));
  return ClassLoss(h, mb_.labels);
}

// The input of the lowest segment's forward: the features of `nodes`, or,
// with block 0 aggregated at the servers, layer 0's output already.
Result<torch::Tensor> HistoricalTask::LowestRows(const Level& lowest, const std::vector<int64_t>& nodes) {
  if (lowest.aggregated)
    return m_.module
        .get_method("forward_layer_agg")({ArrayTensor(lowest.below.features),
                                          ArrayTensor(lowest.below.input_neigh_mean),
                                          BlockValue(lowest.below.blocks[0])})
        .toTensor();
  DG_ASSIGN_OR_RETURN(Array x, store_->Gather(spec_.features, nodes));
  return ArrayTensor(x).to(torch::kFloat32);
}

std::string HistoricalTask::EpochJson(const EpochStats& st) const {
  const double rate = lookups_ > 0 ? static_cast<double>(hits_) / static_cast<double>(lookups_) : 0.0;
  char buf[160];
  std::snprintf(buf, sizeof(buf), "\"historical\": {\"lookups\": %lld, \"hits\": %lld, \"hit_rate\": %.4f}",
                static_cast<long long>(lookups_), static_cast<long long>(hits_), rate);
  return NodeTask::EpochJson(st) + ", " + buf;
}

Status HistoricalTask::SaveState(const std::string& dir) { return store_->SaveHistory(dir); }

Status HistoricalTask::LoadState(const std::string& dir) { return dir.empty() ? Status::OK() : store_->LoadHistory(dir); }

}  // namespace dg
