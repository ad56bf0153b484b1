// EpochTask's default metrics.jsonl fields and summary text: the validation
// and test numbers of the task's metric.
#include "roles/trainer/loop/epoch_task.h"

#include <cstdio>

#include "roles/trainer/trainer_util.h"

namespace dg {

std::string EpochTask::EvaluationJson(const Evaluation& e) const {
  const std::string m = metric();
  return "\"val_" + m + "\": " + (e.done ? MetricNumber(e.val) : "null") + ", \"test_" + m +
         "\": " + (e.done ? MetricNumber(e.test) : "null");
}

std::string EpochTask::FinalJson(const Evaluation& best, bool have_best) const {
  const std::string m = metric();
  return "\"best_val_" + m + "\": " + (have_best ? MetricNumber(best.val) : "null") + ", \"test_" + m +
         "\": " + (have_best ? MetricNumber(best.test) : "null");
}

std::string EpochTask::EvaluationText(const Evaluation& e) const {
  const std::string m = metric();
  char buf[96];
  std::snprintf(buf, sizeof(buf), "val_%s %.4f test_%s %.4f", m.c_str(), e.val, m.c_str(), e.test);
  return buf;
}

}  // namespace dg
