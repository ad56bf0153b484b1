// `distgnn status JOB.yaml [--once]` (placeholder until the metrics endpoint lands).
#include "cmd/cli.h"
namespace dg {
int RunStatus(int argc, char** argv) { return cli::ExitCode(argv[0], Status::Unsupported("not implemented yet")); }
}  // namespace dg
