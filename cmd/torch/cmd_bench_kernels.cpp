// `distgnn bench kernels`: flags of the dense-kernel benchmark
// (bench/bench_kernels.h).
#include "cmd/cli.h"
#include "bench/bench_kernels.h"

namespace dg {
namespace {

Status Run(int argc, char** argv) {
  int64_t rows = 0, in = 0, out = 0;
  int reps = 0;
  cli::po::options_description desc("distgnn bench kernels");
  desc.add_options()("help,h", "show this help")
      ("rows", cli::po::value(&rows)->default_value(86000), "rows of x (input nodes of a batch)")
      ("in", cli::po::value(&in)->default_value(100), "columns of x (feature width)")
      ("out", cli::po::value(&out)->default_value(16), "output columns (hidden width)")
      ("reps", cli::po::value(&reps)->default_value(20), "timed repetitions (the median is reported)");
  cli::po::variables_map vm;
  DG_RETURN_IF_ERROR(cli::Parse(desc, argc, argv, &vm));
  return BenchKernels(rows, in, out, reps);
}

}  // namespace

int RunBenchKernels(int argc, char** argv) { return cli::ExitCode(argv[0], Run(argc, argv)); }

}  // namespace dg
