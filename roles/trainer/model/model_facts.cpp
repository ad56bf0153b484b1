#include "roles/trainer/model/model_facts.h"

#include <torch/script.h>

#include "roles/trainer/model/model_runner.h"

namespace dg {

Result<bool> ModelHasForwardAgg(const std::string& path) {
  DG_ASSIGN_OR_RETURN(torch::jit::Module module, LoadModel(path));
  return HasForwardAgg(module, path);
}

Result<std::vector<int64_t>> ModelAggRelations(const std::string& path) {
  DG_ASSIGN_OR_RETURN(torch::jit::Module module, LoadModel(path));
  return AggRelations(module, path);
}

Result<bool> ModelIsTyped(const std::string& path) {
  DG_ASSIGN_OR_RETURN(torch::jit::Module module, LoadModel(path));
  return IsTypedModel(module);
}

Result<std::vector<float>> ModelParameterVector(const std::string& path) {
  DG_ASSIGN_OR_RETURN(torch::jit::Module m, LoadModel(path));
  std::vector<float> out;
  for (const auto& p : m.named_parameters(true)) {
    torch::Tensor c = p.value.detach().to(torch::kFloat32).contiguous().reshape({-1});
    out.insert(out.end(), c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  }
  return out;
}

}  // namespace dg
