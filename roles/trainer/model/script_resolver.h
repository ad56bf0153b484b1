// A resolver for compiling TorchScript source in C++ (Module::define) that
// understands `torch.ops.<namespace>.<op>`, as Python's torch.jit.script
// does; the default C++ resolver knows only `torch.<aten op>`. Models saved
// from such source load anywhere the operators are registered.
#pragma once

#include <torch/csrc/jit/frontend/resolver.h>

namespace dg {

torch::jit::ResolverPtr ScriptResolver();

}  // namespace dg
