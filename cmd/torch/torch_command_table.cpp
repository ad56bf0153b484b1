// libdistgnn_torch.so's entry point (cmd/torch_commands.h): the commands of
// this folder by name.
#include <cstring>

#include "cmd/cli.h"
#include "cmd/torch_commands.h"

extern "C" dg::CommandEntry dg_torch_command(const char* name) {
  static const struct {
    const char* name;
    dg::CommandEntry entry;
  } kCommands[] = {{"--role trainer", dg::RunTrainerRole},
                   {"train-local", dg::RunTrainLocal},
                   {"model export", dg::RunModel},
                   {"bench train", dg::RunBenchTrain},
                   {"bench kernels", dg::RunBenchKernels}};
  for (const auto& c : kCommands)
    if (!std::strcmp(c.name, name)) return c.entry;
  return nullptr;
}
