// The commands that run a model — the trainer role, train-local, model export,
// bench train and bench kernels (cmd/torch/) — live in libdistgnn_torch.so,
// beside the executable, with the trainer module and LibTorch. The executable
// loads it on first use, so that servers, samplers, the launcher and the tools
// start without LibTorch's ~290 shared libraries (about a CPU-second and
// 150 MB of resident memory per process). The library calls back into the
// executable for everything torch-free (it exports its symbols).
#pragma once

#include <string>

namespace dg {

using CommandEntry = int (*)(int argc, char** argv);

// The library's one entry point: the command called `name` (as main.cpp names
// it: "--role trainer", "train-local", "model export", "bench train",
// "bench kernels"), else nullptr.
extern "C" CommandEntry dg_torch_command(const char* name);

// In the executable: loads libdistgnn_torch.so from the executable's folder
// (once) and returns the command `name`; prints one line saying why and
// returns nullptr when the library is missing or does not match.
CommandEntry LoadTorchCommand(const std::string& name);

}  // namespace dg
