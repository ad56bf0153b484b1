#include "roles/trainer/loop/epoch_loop.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "common/base/console.h"
#include "common/base/stop_request.h"
#include "roles/trainer/loop/model_selection.h"
#include "roles/trainer/loop/trainer_summary.h"
#include "roles/trainer/loop/train_progress.h"
#include "roles/trainer/trainer_util.h"

namespace dg {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

EpochLoop::EpochLoop(const TrainSpec& spec, const TrainHooks& hooks, EpochTask* task)
    : spec_(spec), hooks_(hooks), task_(task), step_(spec, hooks, &task->model()),
      metrics_(hooks.OutPath("metrics.jsonl")) {
  tty_ = !spec.quiet && IsTerminal(STDERR_FILENO);
}

Status EpochLoop::Run() {
  InstallStopOnSigterm();
  try {
    int64_t start = 1;
    if (spec_.resume) {
      DG_ASSIGN_OR_RETURN(start, Resume());
    }
    if (hooks_.writer()) DG_RETURN_IF_ERROR(metrics_.Start(start));
    if (hooks_.progress) hooks_.progress->epochs = spec_.epochs;
    for (int64_t epoch = start; epoch <= spec_.epochs; ++epoch) {
      if (epoch > start) DG_RETURN_IF_ERROR(StopBetweenEpochs(epoch - 1));
      DG_ASSIGN_OR_RETURN(EpochStats st, TrainEpoch(epoch));
      DG_RETURN_IF_ERROR(EndEpoch(&st));
    }
    return Finish();
  } catch (const std::exception& e) {  // torch reports a model's shape errors by exception
    return Status::Internal(std::string(task_->name()) + " with model " + spec_.model + ": " + FirstLine(e.what()));
  }
}

EpochLoop::Checkpoint EpochLoop::CheckpointDue(bool epoch_end) const {
  if (epoch_end) return hooks_.writer() || task_->model().sync ? Checkpoint::kEpoch : Checkpoint::kNone;
  const int64_t every = spec_.checkpoint_every_steps;
  return every > 0 && global_step_ % every == 0 ? Checkpoint::kStep : Checkpoint::kNone;
}

Result<EpochStats> EpochLoop::TrainEpoch(int64_t epoch) {
  DG_ASSIGN_OR_RETURN(steps_per_epoch_, task_->BeginEpoch(epoch));
  step_.set_total_steps(spec_.epochs * steps_per_epoch_);
  last_progress_ = Clock::now();
  EpochStats st;
  st.epoch = epoch;
  const auto t0 = Clock::now();
  const uint64_t bytes0 = hooks_.network_bytes ? hooks_.network_bytes() : 0;
  double sums[5] = {0, 0, 0, 0, 0};  // loss, steps, correct, count, items
  // Resuming inside this epoch (a step checkpoint): its done batches are read
  // again and skipped, and the sums start where they were.
  int64_t skip = 0;
  if (epoch == resume_epoch_ && resume_batch_ > 0) {
    skip = resume_batch_;
    std::copy(resume_sums_, resume_sums_ + 5, sums);
    st.steps = static_cast<int64_t>(sums[1]);
    resume_epoch_ = resume_batch_ = 0;
  }
  StepOutcome out;
  const BatchLossFn loss = [this](size_t) { return task_->Loss(); };
  while (true) {
    out.split = StepSplit();
    const auto tc = Clock::now();
    DG_ASSIGN_OR_RETURN(bool more, task_->NextBatch(skip > 0, &out.split));
    st.wait_seconds += out.split.wait;
    if (!more) break;
    if (skip > 0) {
      --skip;
      continue;
    }
    DG_RETURN_IF_ERROR(step_.Run(1, loss, &out));
    st.compute_seconds += Since(tc) - out.split.wait;
    st.split.Add(out.split);
    st.sample_seconds += out.split.sample;
    st.gather_seconds += out.split.gather;
    ++st.steps;
    sums[0] += out.loss;
    sums[1] = static_cast<double>(st.steps);
    sums[2] += static_cast<double>(out.correct);
    sums[3] += static_cast<double>(out.count);
    sums[4] += static_cast<double>(out.items);
    if (TrainProgress* p = hooks_.progress) {
      p->steps_total += 1;
      p->seeds_total += out.count;
    }
    Progress(epoch, st.steps, sums[0] / st.steps, sums[3] > 0 ? sums[2] / sums[3] : 0, Since(t0), st.wait_seconds,
             false);
    ++global_step_;
    const bool stop = StopAgreed();
    if (stop || CheckpointDue(false) == Checkpoint::kStep) {
      const double before = st.checkpoint_seconds;
      DG_RETURN_IF_ERROR(SaveStepCheckpoint(epoch, st.steps, sums, &st));
      if (stop)
        return Stopped("step " + std::to_string(global_step_) + " (epoch " + std::to_string(epoch) + ", batch " +
                           std::to_string(st.steps) + ")",
                       st.checkpoint_seconds - before);
    }
  }
  st.seconds = Since(t0);
  st.split.wait = st.wait_seconds;
  DG_RETURN_IF_ERROR(AllReduceSums(sums, &st));
  if (hooks_.network_bytes && st.steps > 0)
    st.bytes_per_step = double(hooks_.network_bytes() - bytes0) / static_cast<double>(st.steps);
  Progress(epoch, st.steps, st.loss, st.train_acc, st.seconds, st.wait_seconds, true);
  return st;
}

// After a training step: whether any trainer was asked to stop (SIGTERM).
// Every trainer learns it from the step's gradient all-reduce, so all of them
// stop after the same step.
bool EpochLoop::StopAgreed() const {
  if (GradientSync* sync = task_->model().sync.get()) return sync->stop_agreed();
  return StopRequested();
}

Status EpochLoop::StopBetweenEpochs(int64_t done_epoch) {
  bool stop = StopRequested();
  if (GradientSync* sync = task_->model().sync.get()) {
    DG_ASSIGN_OR_RETURN(stop, sync->AgreeToStop());
  }
  if (!stop) return Status::OK();
  // A step checkpoint at the epoch's end (batch 0: resume at the next epoch),
  // for the servers' part: checkpoint.pt holds only the trainers' state.
  double sums[5] = {0, 0, 0, 0, 0};
  EpochStats st;
  double write_seconds = -1;  // already written (a scheduled one of this step)
  if (last_step_checkpoint_ != global_step_) {
    DG_RETURN_IF_ERROR(SaveStepCheckpoint(done_epoch, 0, sums, &st));
    write_seconds = st.checkpoint_seconds;
  }
  return Stopped("epoch " + std::to_string(done_epoch) + " (step " + std::to_string(global_step_) + ")",
                 write_seconds);
}

// Once the step checkpoint of global_step_ is on disk (rank 0 wrote it before
// the others returned from its collectives): "SIGTERM: stopped after AFTER;
// step checkpoint DIR written in S s; --resume continues" (write_seconds < 0:
// it was written before).
Status EpochLoop::Stopped(const std::string& after, double write_seconds) const {
  std::string where;
  if (hooks_.writer()) {
    where = "; step checkpoint " + hooks_.OutPath("checkpoints/step-" + std::to_string(global_step_));
    if (write_seconds >= 0) {
      char took[32];
      std::snprintf(took, sizeof took, "%.3f", write_seconds);
      where += std::string(" written in ") + took + " s";
    }
  }
  return Status::Stopped("SIGTERM: stopped after " + after + where + "; --resume continues");
}

// The epoch's loss and counts over all trainers.
Status EpochLoop::AllReduceSums(double sums[5], EpochStats* st) {
  if (GradientSync* sync = task_->model().sync.get()) {
    torch::Tensor agg = torch::tensor({sums[0], sums[1], sums[2], sums[3], sums[4]}, torch::kFloat64);
    DG_RETURN_IF_ERROR(sync->AllReduce({agg}, false));
    for (int i = 0; i < 5; ++i) sums[i] = agg[i].item<double>();
  }
  st->loss = sums[1] > 0 ? sums[0] / sums[1] : 0;
  st->train_acc = sums[3] > 0 ? sums[2] / sums[3] : 0;
  st->seeds = static_cast<int64_t>(sums[3]);
  st->items = static_cast<int64_t>(sums[4]);
  return Status::OK();
}

Status EpochLoop::KeepBest(int64_t epoch, const Evaluation& e) {
  if (!BetterModel(e, best_epoch_ > 0 ? &best_ : nullptr, spec_.select_by)) return Status::OK();
  best_epoch_ = epoch;
  best_ = e;
  ModelState& m = task_->model();
  m.best_params.clear();
  for (const auto& p : m.params) m.best_params.push_back(p.detach().clone());
  return KeepBestRows();
}

Status EpochLoop::EndEpoch(EpochStats* st) {
  if (EvaluationDue(st->epoch)) {
    DG_ASSIGN_OR_RETURN(st->eval, task_->Evaluate(st->epoch));
    st->eval.done = true;
    DG_RETURN_IF_ERROR(KeepBest(st->epoch, st->eval));
  }
  Summary(*st);
  if (TrainProgress* p = hooks_.progress) {
    p->last_epoch_loss = st->loss;
    p->train_acc = st->train_acc;
    if (st->eval.done) {
      p->val_acc = st->eval.val;
      p->test_acc = st->eval.test;
    }
    p->last_epoch_seconds = st->seconds;
  }
  history_.push_back(*st);
  const std::string extra = hooks_.epoch_fields ? hooks_.epoch_fields() : "";
  if (hooks_.writer()) DG_RETURN_IF_ERROR(metrics_.Append(EpochLine(*st, extra)));
  if (CheckpointDue(true) == Checkpoint::kEpoch) DG_RETURN_IF_ERROR(SaveCheckpoint(st->epoch));
  return Status::OK();
}

std::string EpochLoop::EpochLine(const EpochStats& st, const std::string& extra) const {
  std::ostringstream line;
  line << "{\"epoch\": " << st.epoch << ", \"loss\": " << MetricNumber(st.loss)
       << ", \"train_acc\": " << MetricNumber(st.train_acc) << ", " << task_->EvaluationJson(st.eval)
       << ", \"val_loss\": " << (st.eval.done ? MetricNumber(st.eval.val_loss) : "null")
       << ", \"epoch_seconds\": " << MetricNumber(st.seconds)
       << ", \"wait_fraction\": " << MetricNumber(st.wait_seconds / std::max(1e-9, st.seconds))
       << ", \"steps\": " << st.steps << ", \"step_ms\": " << st.split.PerStepJson(st.steps);
  if (st.bytes_per_step >= 0) line << ", \"bytes_per_step\": " << MetricNumber(st.bytes_per_step);
  if (spec_.lr_schedule.kind != LrScheduleKind::kNone) line << ", \"lr\": " << MetricNumber(step_.last_lr());
  const std::string task = task_->EpochJson(st);
  if (!task.empty()) line << ", " << task;
  if (!extra.empty()) line << ", " << extra;
  if (st.checkpoints > 0)
    line << ", \"checkpoints\": " << st.checkpoints
         << ", \"checkpoint_ms\": " << MetricNumber(1e3 * st.checkpoint_seconds / static_cast<double>(st.checkpoints));
  line << "}";
  return line.str();
}

// The last line of metrics.jsonl: the model kept, how it was chosen, and the
// last evaluation beside it (a report can show both).
std::string EpochLoop::FinalLine() const {
  const bool have_best = best_epoch_ > 0;
  std::ostringstream line;
  line << "{\"final\": true, \"best_epoch\": " << best_epoch_ << ", " << task_->FinalJson(best_, have_best)
       << ", \"best_val_loss\": " << (have_best ? MetricNumber(best_.val_loss) : "null") << ", \"select_by\": \""
       << Name(spec_.select_by) << "\"";
  const EpochStats* last = nullptr;
  for (const EpochStats& st : history_)
    if (st.eval.done) last = &st;
  if (last) {
    const std::string m = task_->metric();
    line << ", \"last_evaluated_epoch\": " << last->epoch << ", \"last_val_" << m
         << "\": " << MetricNumber(last->eval.val) << ", \"last_test_" << m << "\": " << MetricNumber(last->eval.test);
  }
  line << "}";
  return line.str();
}

// One summary line per epoch (launch shows trainer 0's at the terminal).
void EpochLoop::Summary(const EpochStats& st) const {
  if (spec_.quiet || hooks_.dp.rank != 0) return;
  const double wf = 100 * st.wait_seconds / std::max(1e-9, st.seconds);
  if (st.eval.done)
    spdlog::info("epoch {}: loss {:.4f} train_acc {:.4f} {} ({:.2f} s, wait {:.0f}%)", st.epoch, st.loss, st.train_acc,
                 task_->EvaluationText(st.eval), st.seconds, wf);
  else
    spdlog::info("epoch {}: loss {:.4f} train_acc {:.4f} ({:.2f} s, wait {:.0f}%)", st.epoch, st.loss, st.train_acc,
                 st.seconds, wf);
}

Status EpochLoop::Finish() {
  if (hooks_.progress) hooks_.progress->done = true;
  ModelState& m = task_->model();
  if (hooks_.writer()) {
    DG_RETURN_IF_ERROR(WriteModelFile(&m, hooks_.OutPath("model.pt"), /*use_best=*/true));
    DG_RETURN_IF_ERROR(metrics_.Append(FinalLine()));
  }
  // The task's outputs come from the best parameters; the last ones are put back.
  std::vector<torch::Tensor> last;
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < m.best_params.size() && i < m.params.size(); ++i) {
    last.push_back(m.params[i].detach().clone());
    m.params[i].detach().copy_(m.best_params[i]);
  }
  Status st = RestoreBestRows();
  if (st.ok()) st = task_->SaveOutputs();
  for (size_t i = 0; i < last.size(); ++i) m.params[i].detach().copy_(last[i]);
  DG_RETURN_IF_ERROR(st);
  if (hooks_.out_dir.empty()) return Status::OK();
  return WriteTrainerSummary(hooks_.OutPath("trainer-" + std::to_string(hooks_.dp.rank) + ".json"), hooks_.dp.rank,
                             history_, FlattenParameters(m.params));
}

void EpochLoop::Progress(int64_t epoch, int64_t step, double loss, double acc, double elapsed, double wait,
                         bool done) {
  const double sps = elapsed > 0 ? step / elapsed : 0;
  const double wf = elapsed > 0 ? wait / elapsed : 0;
  const double eta = sps > 0 ? (steps_per_epoch_ - step) / sps : -1;
  if (TrainProgress* p = hooks_.progress) {
    p->epoch = epoch;
    p->step = step;
    p->steps_per_epoch = steps_per_epoch_;
    p->loss = loss;
    p->wait_fraction = wf;
    p->steps_per_second = sps;
    p->epoch_seconds = elapsed;
  }
  if (spec_.quiet || hooks_.dp.rank != 0) return;
  if (tty_) {  // redrawn in place; cleared at the end of the epoch (the summary line follows)
    const std::string bar =
        done ? std::string(kClearLine)
             : kClearLine + ProgressBar(epoch, spec_.epochs, step, steps_per_epoch_, loss, sps, eta);
    std::fputs(bar.c_str(), stderr);
    std::fflush(stderr);
    return;
  }
  // Plain lines (a launcher parses them): every log_every steps, every 2 s, and the last.
  if (done || (spec_.log_every > 0 && step % spec_.log_every == 0) || Since(last_progress_) >= 2) {
    last_progress_ = Clock::now();
    spdlog::info("epoch {} step {}/{} loss {:.4f} acc {:.4f} {:.1f} steps/s wait {:.0f}% ETA {:.0f}s", epoch, step,
                 steps_per_epoch_, loss, acc, sps, 100 * wf, std::max(0.0, eta));
  }
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

}  // namespace dg
