// Placeholder until this command is implemented.
#include <cstdio>

#include "cmd/cli.h"

namespace dg {
int RunModel(int argc, char** argv) {
  std::fprintf(stderr, "%s: error: not implemented yet\n", argv[0]);
  return 3;
}
}  // namespace dg
