// TrainProgress: a trainer's live state, written by the training loop (one
// thread) and read by the metrics endpoint (another). Plain atomics, no locks;
// a reader may see fields from two neighbouring steps, never torn values.
#pragma once

#include <atomic>
#include <cstdint>

namespace dg {

struct TrainProgress {
  std::atomic<int64_t> epoch{0};            // the epoch running (or last finished)
  std::atomic<int64_t> epochs{0};           // configured
  std::atomic<int64_t> step{0};             // steps done in this epoch
  std::atomic<int64_t> steps_per_epoch{0};
  std::atomic<int64_t> steps_total{0};      // this process, all epochs
  std::atomic<int64_t> seeds_total{0};      // training seeds this process stepped on
  std::atomic<double> loss{0};              // running mean loss of this epoch
  std::atomic<double> last_epoch_loss{-1};  // -1 = none yet
  std::atomic<double> train_acc{-1}, val_acc{-1}, test_acc{-1};  // last evaluated; -1 = none
  std::atomic<double> wait_fraction{0};     // of this epoch so far
  std::atomic<double> steps_per_second{0};  // this epoch so far
  std::atomic<double> epoch_seconds{0};     // this epoch so far
  std::atomic<double> last_epoch_seconds{0};
  std::atomic<bool> done{false};
  std::atomic<bool> joined{false};          // joined its peers (gloo), or alone with its model loaded
};

class PromText;
// distgnn_trainer_* gauges and counters of `p` (labels: rank).
void WriteTrainProgressMetrics(const TrainProgress& p, int rank, PromText* out);

}  // namespace dg
