#include "roles/trainer/loop/model_selection.h"

#include <cmath>

namespace dg {

bool BetterModel(const Evaluation& e, const Evaluation* best, ModelSelection by) {
  const bool loss_known = std::isfinite(e.val_loss);
  const bool lower_loss = loss_known && (!best || !std::isfinite(best->val_loss) || e.val_loss < best->val_loss);
  if (by == ModelSelection::kValLoss) return lower_loss;
  if (!std::isfinite(e.val)) return false;
  if (!best || e.score() > best->score()) return true;
  return e.score() == best->score() && lower_loss;
}

}  // namespace dg
