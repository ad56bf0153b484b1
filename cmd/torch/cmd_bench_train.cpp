// `distgnn bench train --local-only`: flags of the train-local benchmark
// (bench/bench_train.h).
#include "cmd/cli.h"
#include "bench/bench_train.h"

namespace dg {
namespace {

Status Run(int argc, char** argv) {
  BenchTrainOptions o;
  bool local_only = false;
  std::string fanouts_text;
  o.synthetic.num_nodes = 100000;
  o.synthetic.num_edges = 2000000;
  o.synthetic.feat_dim = 128;
  o.synthetic.num_classes = 10;
  cli::po::options_description desc("distgnn bench train --local-only");
  desc.add_options()("help,h", "show this help")
      ("local-only", cli::po::bool_switch(&local_only), "measure train-local only (required; the distributed "
                                                        "comparison is scripts/bench_train.sh)")
      ("dataset", cli::po::value(&o.dataset), "dataset directory (default: a synthetic graph)")
      ("nodes", cli::po::value(&o.synthetic.num_nodes)->default_value(100000), "synthetic: nodes")
      ("edges", cli::po::value(&o.synthetic.num_edges)->default_value(2000000), "synthetic: edges")
      ("feat-dim", cli::po::value(&o.synthetic.feat_dim)->default_value(128), "synthetic: feature width")
      ("classes", cli::po::value(&o.synthetic.num_classes)->default_value(10), "synthetic: classes")
      ("hidden", cli::po::value(&o.hidden)->default_value(256), "SAGE hidden width")
      ("fanouts", cli::po::value(&fanouts_text)->default_value("10,25"), "per-layer fanouts, input layer first; -1 = every neighbour")
      ("batch-size", cli::po::value(&o.batch_size)->default_value(1000), "seeds per step")
      ("steps", cli::po::value(&o.steps)->default_value(40), "steps per measured phase")
      ("threads", cli::po::value(&o.threads)->default_value(0), "torch intra-op threads (0 = cores - sampler threads, at least 1)")
      ("sampler-threads", cli::po::value(&o.sampler_threads)->default_value(1), "pipelined sampling threads");
  cli::po::variables_map vm;
  DG_RETURN_IF_ERROR(cli::Parse(desc, argc, argv, &vm));
  if (!local_only)
    return Status::InvalidArgument(
        "distgnn bench train needs --local-only (in-process steps/s); the distributed benchmark, which launches "
        "servers, samplers and trainers, is scripts/bench_train.sh");
  DG_ASSIGN_OR_RETURN(o.fanouts, cli::ParseIntList("--fanouts", fanouts_text));
  return BenchTrain(o);
}

}  // namespace

int RunBenchTrain(int argc, char** argv) { return cli::ExitCode(argv[0], Run(argc, argv)); }

}  // namespace dg
