#include "roles/trainer/loop/train_progress.h"

#include "common/net/prometheus.h"

namespace dg {

void WriteTrainProgressMetrics(const TrainProgress& p, int rank, PromText* out) {
  const PromText::Labels r{{"rank", std::to_string(rank)}};
  out->Gauge("distgnn_trainer_epoch", "Epoch running (or last finished).", double(p.epoch.load()), r);
  out->Gauge("distgnn_trainer_epochs", "Epochs configured.", double(p.epochs.load()), r);
  out->Gauge("distgnn_trainer_step", "Steps done in the running epoch.", double(p.step.load()), r);
  out->Gauge("distgnn_trainer_steps_per_epoch", "Steps per epoch.", double(p.steps_per_epoch.load()), r);
  out->Counter("distgnn_trainer_steps_total", "Training steps done by this trainer.", double(p.steps_total.load()), r);
  out->Counter("distgnn_trainer_seeds_total", "Training seeds this trainer stepped on.", double(p.seeds_total.load()),
               r);
  out->Gauge("distgnn_trainer_loss", "Mean training loss of the running epoch so far.", p.loss.load(), r);
  out->Gauge("distgnn_trainer_last_epoch_loss", "Training loss of the last finished epoch (-1: none).",
             p.last_epoch_loss.load(), r);
  out->Gauge("distgnn_trainer_train_accuracy", "Training accuracy of the last finished epoch (-1: none).",
             p.train_acc.load(), r);
  out->Gauge("distgnn_trainer_val_accuracy", "Validation accuracy of the last evaluation (-1: none).",
             p.val_acc.load(), r);
  out->Gauge("distgnn_trainer_test_accuracy", "Test accuracy of the last evaluation (-1: none).", p.test_acc.load(),
             r);
  out->Gauge("distgnn_trainer_wait_fraction", "Fraction of the running epoch spent waiting for batches.",
             p.wait_fraction.load(), r);
  out->Gauge("distgnn_trainer_steps_per_second", "Step rate of the running epoch.", p.steps_per_second.load(), r);
  out->Gauge("distgnn_trainer_epoch_seconds", "Seconds into the running epoch.", p.epoch_seconds.load(), r);
  out->Gauge("distgnn_trainer_last_epoch_seconds", "Duration of the last finished epoch.",
             p.last_epoch_seconds.load(), r);
  out->Gauge("distgnn_trainer_done", "1 when training has finished.", p.done.load() ? 1 : 0, r);
  out->Gauge("distgnn_trainer_joined", "1 once this trainer has joined its peers (or, alone, loaded its model).",
             p.joined.load() ? 1 : 0, r);
}

}  // namespace dg
