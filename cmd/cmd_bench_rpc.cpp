// `distgnn bench rpc`: flags of the data-plane benchmark (bench/bench_rpc.h).
#include "cmd/cli.h"
#include "bench/bench_rpc.h"

namespace dg {

int RunBenchRpc(int argc, char** argv) {
  namespace po = cli::po;
  po::options_description desc("distgnn bench rpc: data-plane throughput (servers are child processes)");
  BenchRpcOptions o;
  desc.add_options()("help,h", "show this help")
      ("nodes", po::value(&o.nodes)->default_value(200000), "feature table rows for PULL")
      ("feat-dim", po::value(&o.feat_dim)->default_value(100), "float32 features per row")
      ("ids", po::value(&o.ids_per_call)->default_value(10000), "random ids per PULL")
      ("sample-nodes", po::value(&o.sample_nodes)->default_value(200000), "power-law graph nodes")
      ("sample-edges", po::value(&o.sample_edges)->default_value(4000000), "power-law graph edges")
      ("batch", po::value(&o.batch)->default_value(1000), "seeds per SAMPLE_NEIGHBORS call")
      ("seconds", po::value(&o.seconds)->default_value(3.0), "seconds per measurement")
      ("server-threads", po::value(&o.server_threads)->default_value(2), "threads of the PULL server")
      ("workdir", po::value(&o.workdir)->default_value(""), "where to write the graphs (default: a temp dir)");
  po::variables_map vm;
  Status st = cli::Parse(desc, argc, argv, &vm);
  if (!st.ok()) return cli::ExitCode(argv[0], st);
  return cli::ExitCode(argv[0], BenchRpc(o));
}

}  // namespace dg
