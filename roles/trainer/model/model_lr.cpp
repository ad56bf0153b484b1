#include "roles/trainer/model/model_lr.h"

#include <spdlog/spdlog.h>

#include "config/default_lr.h"
#include "roles/trainer/model/model_runner.h"

namespace dg {

Status TakeDefaultLr(TrainSpec* spec, const RowL1Measure& row_l1) {
  if (spec->lr) return Status::OK();
  DG_ASSIGN_OR_RETURN(const torch::jit::Module module, LoadModel(spec->model));
  std::string arch;
  if (module.hasattr("arch") && module.attr("arch").isString()) arch = module.attr("arch").toStringRef();
  std::optional<double> l1;
  // The rows matter only where the rule can take the larger rate; learnt rows
  // alone (no features read) count as none.
  if (DefaultLearningRate(spec->task, arch, 0.0) != kDefaultLr && spec->embedding.uses_features()) {
    DG_ASSIGN_OR_RETURN(l1, row_l1());
  }
  spec->lr = DefaultLearningRate(spec->task, arch, l1);
  spdlog::info("{}", DescribeDefaultLearningRate(spec->task, arch.empty() ? "(no arch)" : arch, l1));
  return Status::OK();
}

}  // namespace dg
