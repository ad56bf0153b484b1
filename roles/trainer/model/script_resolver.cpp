#include "roles/trainer/model/script_resolver.h"

#include <torch/csrc/jit/frontend/sugared_value.h>

#include <memory>
#include <string>

namespace dg {
namespace {

using torch::jit::BuiltinModule;
using torch::jit::GraphFunction;
using torch::jit::SourceRange;
using torch::jit::SugaredValue;

// `torch.ops`: its attributes are operator namespaces.
struct OpsNamespaces : SugaredValue {
  std::string kind() const override { return "torch.ops"; }
  std::shared_ptr<SugaredValue> attr(const SourceRange&, GraphFunction&,
                                     const std::string& ns) override {
    return std::make_shared<BuiltinModule>(ns);
  }
};

// `torch`: aten operators, plus `ops`.
struct TorchWithOps : BuiltinModule {
  TorchWithOps() : BuiltinModule("aten") {}
  std::shared_ptr<SugaredValue> attr(const SourceRange& loc, GraphFunction& m,
                                     const std::string& field) override {
    if (field == "ops") return std::make_shared<OpsNamespaces>();
    return BuiltinModule::attr(loc, m, field);
  }
};

struct Resolver : torch::jit::Resolver {
  std::shared_ptr<SugaredValue> resolveValue(const std::string& name, GraphFunction&,
                                             const SourceRange&) override {
    if (name == "torch") return std::make_shared<TorchWithOps>();
    return nullptr;
  }
  c10::TypePtr resolveType(const std::string&, const SourceRange&) override { return nullptr; }
};

}  // namespace

torch::jit::ResolverPtr ScriptResolver() { return std::make_shared<Resolver>(); }

}  // namespace dg
