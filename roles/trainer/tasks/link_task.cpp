#include "roles/trainer/tasks/link_task.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <cstring>
#include <unordered_map>

#include "common/storage/neighbor_sampling.h"
#include "common/io/npy.h"
#include "roles/trainer/source/layer_tables.h"
#include "roles/trainer/inference/source_form.h"
#include "roles/trainer/inference/node_outputs.h"
#include "roles/trainer/model/model_runner.h"
#include "roles/trainer/loop/trainer_setup.h"
#include "roles/trainer/trainer_util.h"

namespace dg {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kEvalNegativeSeed = 0x11dc;

// The metrics of val and test, in Evaluation::values order.
LinkMetrics Unpack(const Evaluation& e, int half) {
  LinkMetrics m;
  m.mrr = m.hits1 = m.hits10 = m.hits50 = m.auc = std::nan("");
  if (e.values.size() < 10) return m;
  const double* v = e.values.data() + 5 * half;
  m.mrr = v[0];
  m.hits1 = v[1];
  m.hits10 = v[2];
  m.hits50 = v[3];
  m.auc = v[4];
  return m;
}

}  // namespace

Result<std::unique_ptr<LinkTask>> LinkTask::Create(const TrainSpec& spec, const TrainHooks& hooks, LinkInput input) {
  if (spec.fanouts.empty()) return Status::InvalidArgument("--fanouts: empty (need one per layer)");
  DG_RETURN_IF_ERROR(input.link.Check());
  std::unique_ptr<LinkTask> t(new LinkTask(spec, hooks, std::move(input)));
  DG_RETURN_IF_ERROR(SetUpModel(spec, hooks, static_cast<int64_t>(spec.fanouts.size()), nullptr, &t->m_));
  t->has_score_ = t->m_.module.find_method("score").has_value();
  t->typed_ = IsTypedModel(t->m_.module);
  spdlog::info("link prediction: model {} scores pairs with {}", spec.model,
               t->has_score_ ? "its score(h_src, h_dst)" : "the dot product");
  return t;
}

bool LinkTask::Layerwise() const {
  return link_.layerwise_source && link_.layer_tables && !typed_ && FullNeighborEval(spec_) &&
         m_.module.find_method("forward_layer").has_value();
}

// Every node's output, one layer at a time over full-neighbor blocks, into
// the layer tables (inference/source_form.h); the name of the last one.
Result<std::string> LinkTask::EmbedAll() {
  const SourceFormOptions o =
      TrainingFormOptions(spec_, hooks_.embedding, link_.layerwise_source, link_.num_nodes, link_.feature_name);
  return ComputeEveryNode(o, &m_.module, link_.layer_tables, m_.sync.get(), hooks_.dp.rank, hooks_.dp.world_size,
                          EvalBatchSize(spec_), "link-eval");
}

Result<torch::Tensor> LinkTask::Forward(const MiniBatch& mb, torch::Tensor* emb_leaf) {
  DG_ASSIGN_OR_RETURN(torch::Tensor out, ModelForward(m_.module, spec_, hooks_.embedding, mb, emb_leaf));
  if (out.dim() != 2 || out.size(0) != static_cast<int64_t>(mb.seeds.size()))
    return Status::InvalidArgument("model " + spec_.model + ": forward returned shape " + c10::str(out.sizes()) +
                                   ", expected one embedding row per seed [" + std::to_string(mb.seeds.size()) +
                                   ", D]");
  return out;
}

Result<torch::Tensor> LinkTask::Score(const torch::Tensor& hs, const torch::Tensor& hd) {
  if (!has_score_) return (hs * hd).sum(1);
  torch::Tensor s;
  try {
    s = m_.module.get_method("score")({hs, hd}).toTensor();
  } catch (const std::exception& e) {
    return Status::InvalidArgument("model " + spec_.model + ": score(h_src, h_dst) failed: " + FirstLine(e.what()));
  }
  if (s.dim() == 2 && s.size(1) == 1) s = s.reshape({-1});
  if (s.dim() != 1 || s.size(0) != hs.size(0))
    return Status::InvalidArgument("model " + spec_.model + ": score returned shape " + c10::str(s.sizes()) +
                                   ", expected one score per pair [" + std::to_string(hs.size(0)) + "]");
  return s;
}

Result<BatchLoss> LinkTask::Loss() {
  BatchLoss out;
  DG_ASSIGN_OR_RETURN(torch::Tensor h, Forward(mb_, hooks_.embedding ? &out.rows : nullptr));
  if (mb_.labels.dtype != DType::kInt64 || mb_.labels.shape.size() != 2 || mb_.labels.shape[1] != 3)
    return Status::InvalidArgument("a link batch's labels must be int64 [R, 3] (is this a node batch?)");
  torch::Tensor lab = ArrayTensor(mb_.labels);
  torch::Tensor target = lab.select(1, 2).to(torch::kFloat32);
  DG_ASSIGN_OR_RETURN(torch::Tensor logits,
                      Score(h.index_select(0, lab.select(1, 0)), h.index_select(0, lab.select(1, 1))));
  out.loss = torch::binary_cross_entropy_with_logits(logits, target);
  out.correct = logits.gt(0).eq(target.gt(0.5)).sum().item<int64_t>();
  out.count = target.numel();
  out.items = target.gt(0.5).sum().item<int64_t>();
  out.row_ids = &mb_.input_nodes;
  return out;
}

Result<int64_t> LinkTask::BeginEpoch(int64_t epoch) {
  if (in_.train.empty())
    return Status::InvalidArgument("no training edges for trainer " + std::to_string(hooks_.dp.rank));
  EpochRequest req = TrainRequest(spec_, in_.train, epoch);
  req.labels = false;
  req.link = true;
  DG_RETURN_IF_ERROR(in_.edges->BeginEpoch(req));
  return NumBatches(static_cast<int64_t>(in_.train.size()), spec_.batch_size);
}

Result<bool> LinkTask::NextBatch(bool skip, StepSplit* split) { return NextTimedBatch(*in_.edges, &mb_, skip, split); }

// Sum all-reduce of values placed at this rank's offset: every rank gets all ranks' values.
Result<std::vector<float>> LinkTask::Gather(const std::vector<float>& mine) {
  if (!m_.sync) return mine;
  const DataParallelOptions& dp = hooks_.dp;
  torch::Tensor counts = torch::zeros({dp.world_size}, torch::kFloat64);
  counts[dp.rank] = static_cast<double>(mine.size());
  DG_RETURN_IF_ERROR(m_.sync->AllReduce({counts}, false));
  int64_t total = 0, offset = 0;
  for (int r = 0; r < dp.world_size; ++r) {
    const int64_t c = static_cast<int64_t>(counts[r].item<double>());
    if (r < dp.rank) offset += c;
    total += c;
  }
  torch::Tensor all = torch::zeros({std::max<int64_t>(total, 1)}, torch::kFloat32);
  if (!mine.empty()) std::memcpy(all.data_ptr<float>() + offset, mine.data(), mine.size() * sizeof(float));
  DG_RETURN_IF_ERROR(m_.sync->AllReduce({all}, false));
  return std::vector<float>(all.data_ptr<float>(), all.data_ptr<float>() + total);
}

// eval_negatives per held-out edge, [P * K], from the edge's own generator.
std::vector<int64_t> LinkTask::Negatives(const EdgeList& held) const {
  const int64_t P = static_cast<int64_t>(held.src.size()), K = spec_.link.eval_negatives;
  const IdRanges& ranges = link_.negative_ranges;
  int64_t range_total = 0;
  for (const auto& r : ranges) range_total += r.second;
  const uint64_t count = static_cast<uint64_t>(!ranges.empty()            ? range_total
                                               : link_.negative_count > 0 ? link_.negative_count
                                                                          : link_.num_nodes);
  std::vector<int64_t> neg(static_cast<size_t>(P * K));
  for (int64_t i = 0; i < P; ++i) {
    Rng rng(MixSeed(MixSeed(kEvalNegativeSeed, static_cast<uint64_t>(held.src[i])), static_cast<uint64_t>(held.dst[i])));
    for (int64_t j = 0; j < K; ++j) {
      const int64_t draw = static_cast<int64_t>(rng.Uniform(count));
      neg[i * K + j] = ranges.empty() ? link_.negative_first + draw : NthInRanges(ranges, draw);
    }
  }
  return neg;
}

// Scores of held-out edges [lo, hi) and of their negatives, appended to *pos
// and *negs. The rows of the pairs (s, d) and (s, n), each node involved once,
// come from the last layer table (layer-wise) or from node batches (no
// collectives in here).
Status LinkTask::ScoreEdges(const EdgeList& held, const std::vector<int64_t>& neg, int64_t lo, int64_t hi,
                            std::vector<float>* pos, std::vector<float>* negs) {
  const int64_t n = hi - lo, K = spec_.link.eval_negatives;
  std::unordered_map<int64_t, int64_t> row;
  std::vector<int64_t> ids, ps(n), pd(n), ns(n * K), nd(n * K);
  auto add = [&](int64_t g) {
    auto it = row.emplace(g, static_cast<int64_t>(ids.size()));
    if (it.second) ids.push_back(g);
    return it.first->second;
  };
  for (int64_t i = 0; i < n; ++i) {
    ps[i] = add(held.src[lo + i]);
    pd[i] = add(held.dst[lo + i]);
  }
  for (int64_t i = 0; i < n * K; ++i) {
    nd[i] = add(neg[lo * K + i]);
    ns[i] = ps[i / K];
  }
  torch::Tensor H;
  if (!eval_table_.empty()) {
    DG_ASSIGN_OR_RETURN(Array rows, link_.layer_tables->Read(eval_table_, ids));
    H = ArrayTensor(rows);
  } else {
    DG_ASSIGN_OR_RETURN(H, EmbedNodes(ids, kEvalSeed));
  }
  torch::NoGradGuard no_grad;
  DG_ASSIGN_OR_RETURN(torch::Tensor sp, Score(H.index_select(0, VectorTensor(ps)), H.index_select(0, VectorTensor(pd))));
  DG_ASSIGN_OR_RETURN(torch::Tensor sn, Score(H.index_select(0, VectorTensor(ns)), H.index_select(0, VectorTensor(nd))));
  sp = sp.to(torch::kFloat32).contiguous();
  sn = sn.to(torch::kFloat32).contiguous();
  pos->insert(pos->end(), sp.data_ptr<float>(), sp.data_ptr<float>() + sp.numel());
  negs->insert(negs->end(), sn.data_ptr<float>(), sn.data_ptr<float>() + sn.numel());
  return Status::OK();
}

// Metrics of `held` (this trainer's share; gathered over all trainers).
// Layer-wise, the edges go in chunks, so a trainer holds the rows of one
// chunk's nodes at a time; node batches take them all at once.
Result<LinkMetrics> LinkTask::EvaluateEdges(const EdgeList& held) {
  constexpr int64_t kEdgeChunk = 4096;
  const int64_t P = static_cast<int64_t>(held.src.size());
  const std::vector<int64_t> neg = Negatives(held);
  const int64_t chunk = eval_table_.empty() ? std::max<int64_t>(P, 1) : kEdgeChunk;
  std::vector<float> pos_scores, neg_scores;
  for (int64_t c = 0; c < P; c += chunk)
    DG_RETURN_IF_ERROR(ScoreEdges(held, neg, c, std::min(P, c + chunk), &pos_scores, &neg_scores));
  // Every rank takes part in the gathers, even with nothing to evaluate.
  DG_ASSIGN_OR_RETURN(pos_scores, Gather(pos_scores));
  DG_ASSIGN_OR_RETURN(neg_scores, Gather(neg_scores));
  return ComputeLinkMetrics(pos_scores, neg_scores, spec_.link.eval_negatives);
}

Result<torch::Tensor> LinkTask::EmbedNodes(const std::vector<int64_t>& ids, uint64_t seed_tag) {
  DG_RETURN_IF_ERROR(in_.nodes->BeginEpoch(EvalRequest(spec_, ids, seed_tag, /*labels=*/false)));
  torch::NoGradGuard no_grad;
  m_.module.train(false);
  std::vector<torch::Tensor> parts;
  MiniBatch mb;
  while (true) {
    DG_ASSIGN_OR_RETURN(bool more, in_.nodes->Next(&mb));
    if (!more) break;
    DG_ASSIGN_OR_RETURN(torch::Tensor h, Forward(mb, nullptr));
    parts.push_back(h);
  }
  torch::Tensor H = parts.empty() ? torch::zeros({0, 0}) : torch::cat(parts);
  if (H.size(0) != static_cast<int64_t>(ids.size()))
    return Status::Internal("embedded " + std::to_string(H.size(0)) + " of " + std::to_string(ids.size()) + " nodes");
  return H;
}

// embeddings.npy: layer-wise (every rank computes its share of every node's
// rows, so every rank takes part; rank 0 then copies them from the last table
// into the file in chunks) or by node batches on rank 0.
Status LinkTask::SaveOutputs() {
  if (!spec_.save_embeddings) return Status::OK();
  const NodeOutputRows& rows = in_.outputs;
  const std::vector<int64_t>& nodes = rows.typed() ? rows.embed : rows.predict;
  if (!Layerwise()) {
    if (!hooks_.writer()) return Status::OK();
    DG_ASSIGN_OR_RETURN(torch::Tensor H, EmbedNodes(nodes, kPredictSeed));
    if (rows.typed()) return WriteTypedEmbeddings(hooks_, rows, H);
    return NpyWrite(hooks_.OutPath("embeddings.npy"), TensorArray(H.to(torch::kFloat32).contiguous()));
  }
  DG_ASSIGN_OR_RETURN(const std::string last, EmbedAll());
  if (!hooks_.writer() || nodes.empty()) return Status::OK();
  constexpr size_t kChunk = 65536;
  NpyWriter out;
  for (size_t c = 0; c < nodes.size(); c += kChunk) {
    const std::vector<int64_t> ids(nodes.begin() + c, nodes.begin() + std::min(nodes.size(), c + kChunk));
    DG_ASSIGN_OR_RETURN(Array h, link_.layer_tables->Read(last, ids));
    if (c == 0)
      DG_RETURN_IF_ERROR(out.Open(hooks_.OutPath("embeddings.npy"), DType::kFloat32,
                                  {static_cast<int64_t>(nodes.size()), h.shape[1]}));
    DG_RETURN_IF_ERROR(out.Append(h.data, h.nbytes()));
  }
  return out.Finish();
}

Result<Evaluation> LinkTask::Evaluate(int64_t /*epoch*/) {
  if (Layerwise()) {
    const auto t0 = Clock::now();
    DG_ASSIGN_OR_RETURN(eval_table_, EmbedAll());
    if (!spec_.quiet && hooks_.dp.rank == 0)
      spdlog::info("evaluation: layer-wise full-neighbor embeddings of all {} nodes in {:.2f} s", link_.num_nodes,
                   Since(t0));
  }
  auto val = EvaluateEdges(in_.val);
  auto test = val.ok() ? EvaluateEdges(in_.test) : Result<LinkMetrics>(val.status());
  eval_table_.clear();
  DG_RETURN_IF_ERROR(test.status());
  Evaluation e;
  e.val = val->auc;
  e.val_loss = val->loss;
  e.test = test->auc;
  for (const LinkMetrics* m : {&*val, &*test}) e.values.insert(e.values.end(), {m->mrr, m->hits1, m->hits10, m->hits50, m->auc});
  return e;
}

std::string LinkTask::EvaluationJson(const Evaluation& e) const {
  return Unpack(e, 0).Json("val") + ", " + Unpack(e, 1).Json("test");
}

std::string LinkTask::EpochJson(const EpochStats& st) const {
  return "\"positive_edges\": " + std::to_string(st.items) +
         ", \"edges_per_second\": " + MetricNumber(static_cast<double>(st.items) / std::max(1e-9, st.seconds));
}

std::string LinkTask::FinalJson(const Evaluation& best, bool have_best) const {
  return "\"best_val_auc\": " + (have_best ? MetricNumber(best.val) : "null") + ", " + EvaluationJson(best);
}

std::string LinkTask::EvaluationText(const Evaluation& e) const {
  const LinkMetrics v = Unpack(e, 0), t = Unpack(e, 1);
  char buf[160];
  std::snprintf(buf, sizeof(buf), "val_auc %.4f val_mrr %.4f test_auc %.4f test_mrr %.4f", v.auc, v.mrr, t.auc,
                t.mrr);
  return buf;
}

}  // namespace dg
