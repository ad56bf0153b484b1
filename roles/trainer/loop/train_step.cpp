#include "roles/trainer/loop/train_step.h"

#include <torch/nn/utils/clip_grad.h>

#include <chrono>

#include "roles/trainer/loop/lr_schedule.h"
#include "roles/trainer/trainer_util.h"

namespace dg {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

// The L2 penalty (l2 / 2) |row|^2 of every row a batch read, scaled as its
// loss is (1 / batches): l2 x row / batches joins each leaf's gradient.
void TrainingStep::AddRowsL2(size_t batches) {
  const double l2 = spec_.embedding.l2_or_default(spec_.weight_decay);
  if (l2 <= 0) return;
  torch::NoGradGuard no_grad;
  const double scale = l2 / static_cast<double>(batches);
  for (torch::Tensor& leaf : rows_)
    if (leaf.defined() && leaf.grad().defined()) leaf.mutable_grad().add_(leaf.detach(), scale);
}

double TrainingStep::NextLr() const {
  return ScheduledLr(spec_.lr_schedule, spec_.lr_or_default(), m_->optimizer_steps, total_steps_);
}

Status TrainingStep::Run(size_t batches, const BatchLossFn& loss_of, StepOutcome* out) {
  ModelState& m = *m_;
  StepSplit& t = out->split;
  m.module.train(true);
  auto t0 = Clock::now();
  if (spec_.lr_schedule.kind != LrScheduleKind::kNone) {
    last_lr_ = NextLr();
    for (auto& group : m.optimizer->param_groups()) group.options().set_lr(last_lr_);
  }
  m.optimizer->zero_grad();
  t.optimizer += Since(t0);
  double loss_sum = 0;
  out->correct = out->count = out->items = 0;
  rows_.clear();
  row_ids_.clear();
  const std::vector<int64_t>* ids = nullptr;
  for (size_t b = 0; b < batches; ++b) {
    t0 = Clock::now();
    DG_ASSIGN_OR_RETURN(BatchLoss l, loss_of(b));
    loss_sum += l.loss.item<double>();
    out->correct += l.correct;
    out->count += l.count;
    out->items += l.items;
    t.forward += Since(t0);
    if (hooks_.embedding) {
      rows_.push_back(l.rows);
      if (batches == 1) {
        ids = l.row_ids;
      } else if (l.row_ids) {
        row_ids_.insert(row_ids_.end(), l.row_ids->begin(), l.row_ids->end());
        ids = &row_ids_;
      }
    }
    t0 = Clock::now();
    try {
      (batches == 1 ? l.loss : l.loss / static_cast<double>(batches)).backward();
    } catch (const std::exception& e) {
      return Status::Internal("backward failed: " + FirstLine(e.what()));
    }
    t.backward += Since(t0);
  }
  t0 = Clock::now();
  if (hooks_.embedding && ids) {
    AddRowsL2(batches);
    DG_RETURN_IF_ERROR(UpdateEmbedding(hooks_.embedding, &m, *ids, rows_));
  }
  rows_.clear();  // the leaves and their gradients go now, not at the next step
  t.optimizer += Since(t0);
  t0 = Clock::now();
  if (m.sync) DG_RETURN_IF_ERROR(m.sync->AllReduceGradients(m.params));
  t.allreduce += Since(t0);
  t0 = Clock::now();
  if (spec_.grad_clip > 0) torch::nn::utils::clip_grad_norm_(m.params, spec_.grad_clip);
  m.optimizer->step();
  ++m.optimizer_steps;
  t.optimizer += Since(t0);
  out->loss = loss_sum / static_cast<double>(std::max<size_t>(1, batches));
  return Status::OK();
}

}  // namespace dg
