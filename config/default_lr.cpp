#include "config/default_lr.h"

#include <cstdio>

namespace dg {

namespace {

bool TakesSparseRowsLr(TrainTask task, const std::string& arch) {
  return task == TrainTask::kNode && (arch == "sage" || arch == "rgcn");
}

}  // namespace

double DefaultLearningRate(TrainTask task, const std::string& arch, std::optional<double> mean_row_l1) {
  if (TakesSparseRowsLr(task, arch) && mean_row_l1 && *mean_row_l1 <= kSparseRowsMaxL1) return kSparseRowsLr;
  return kDefaultLr;
}

std::string DescribeDefaultLearningRate(TrainTask task, const std::string& arch, std::optional<double> mean_row_l1) {
  char why[160];
  if (!TakesSparseRowsLr(task, arch))
    std::snprintf(why, sizeof(why), "the default for %s %s models", arch.c_str(),
                  task == TrainTask::kNode ? "node" : "link");
  else if (!mean_row_l1)
    std::snprintf(why, sizeof(why), "the default for %s without feature rows", arch.c_str());
  else
    std::snprintf(why, sizeof(why), "the default for %s on feature rows of mean L1 size %.1f %s %g", arch.c_str(),
                  *mean_row_l1, *mean_row_l1 <= kSparseRowsMaxL1 ? "<=" : ">", kSparseRowsMaxL1);
  char out[200];
  std::snprintf(out, sizeof(out), "lr %g (%s; docs/models.md)", DefaultLearningRate(task, arch, mean_row_l1), why);
  return out;
}

}  // namespace dg
