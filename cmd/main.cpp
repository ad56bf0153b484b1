// distgnn: one executable, dispatching to a subcommand or a role.
//
//   distgnn generate|partition|train-local|launch|propagate|copy ...
//   distgnn model export ...      distgnn config check FILE
//   distgnn bench rpc|train|kernels ...   distgnn report RUN_DIR   distgnn status JOB.yaml
//   distgnn --role server|sampler|trainer --config JOB.yaml --machine M [--index I]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cmd/cli.h"
#include "cmd/torch_commands.h"
#include "common/base/heap_tuning.h"
#include "common/base/version.h"
#include "config/job_config.h"

namespace {

const char kUsage[] =
    "distgnn: distributed GNN training on partitioned graphs\n"
    "\n"
    "usage:\n"
    "  distgnn generate    --nodes N --edges E --feat-dim F --classes C --seed S --out DIR\n"
    "  distgnn partition   --dataset DIR --num-parts K --method metis|random --name NAME --out DIR\n"
    "  distgnn model export --arch sage|gcn|gat|mlp --in-dim D --hidden H --classes C --layers L -o model.pt\n"
    "  distgnn model export --arch rgcn|hetero-sage --dataset TYPED_DIR [--undirected] [--embedding-dim D] -o model.pt\n"
    "  distgnn train-local --dataset DIR --model model.pt --fanouts 10,25 --batch-size 1000 ...\n"
    "  distgnn --role server|sampler|trainer --config JOB.yaml --machine M [--index I]\n"
    "  distgnn launch JOB.yaml        distgnn config check JOB.yaml      distgnn copy JOB.yaml\n"
    "  distgnn propagate --config JOB.yaml --input X --hops K --norm mean|sum|sym --output NAME\n"
    "  distgnn report RUN_DIR [-o FILE.html]    distgnn status JOB.yaml [--once]\n"
    "  distgnn certs init --dir DIR    distgnn certs issue --dir DIR --role R --host H | --config JOB.yaml\n"
    "  distgnn bench rpc|train|kernels ...   distgnn --version\n"
    "\n"
    "Run `distgnn <command> --help` for a command's flags.\n";

using Entry = dg::CommandEntry;

// Runs `entry` with argv[0] replaced by "distgnn <words>" and `skip` leading args dropped.
int Dispatch(Entry entry, const std::string& name, int argc, char** argv, int skip) {
  std::string prog = "distgnn " + name;
  std::vector<char*> args{prog.data()};
  for (int i = 1 + skip; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  return entry(static_cast<int>(args.size()) - 1, args.data());
}

// The same for a command of libdistgnn_torch.so (cmd/torch_commands.h).
int DispatchTorch(const std::string& name, int argc, char** argv, int skip) {
  dg::CommandEntry entry = dg::LoadTorchCommand(name);
  return entry ? Dispatch(entry, name, argc, argv, skip) : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::printf("distgnn %s\n", dg::kDistgnnVersion);
    return 0;
  }
  std::string cmd = argv[1];
  // Training steps reuse batch-sized buffers; batch tools (partition, generate)
  // must not keep what they free: a budgeted partition's sorters and arrays come
  // and go in phases, and kept free blocks pushed its RSS 40% past the budget.
  if (std::getenv("DISTGNN_KEEP_FREED") ? std::string(std::getenv("DISTGNN_KEEP_FREED")) == "1"
                                        : cmd != "partition" && cmd != "generate")
    dg::KeepFreedMemory();
  std::string sub = argc > 2 ? argv[2] : "";

  // `certs issue --role R` names a certificate's role, not the role to run.
  if (cmd == "certs") return Dispatch(dg::RunCerts, cmd, argc, argv, 1);
  // Roles: `--role X` (or --role=X) may appear anywhere; the role parses all flags.
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string role;
    if (a == "--role" && i + 1 < argc) role = argv[i + 1];
    else if (a.rfind("--role=", 0) == 0) role = a.substr(7);
    else continue;
    dg::MetricsRole which;
    if (!dg::Parse(role, &which)) {
      std::fprintf(stderr, "distgnn: error: unknown role '%s' (expected server, sampler or trainer)\n",
                   role.c_str());
      return 2;
    }
    switch (which) {
      case dg::MetricsRole::kServer: return Dispatch(dg::RunServerRole, "--role server", argc, argv, 0);
      case dg::MetricsRole::kSampler: return Dispatch(dg::RunSamplerRole, "--role sampler", argc, argv, 0);
      case dg::MetricsRole::kTrainer: return DispatchTorch("--role trainer", argc, argv, 0);
    }
    return 2;
  }

  if (cmd == "generate") return Dispatch(dg::RunGenerate, cmd, argc, argv, 1);
  if (cmd == "partition") return Dispatch(dg::RunPartition, cmd, argc, argv, 1);
  if (cmd == "train-local") return DispatchTorch(cmd, argc, argv, 1);
  if (cmd == "launch") return Dispatch(dg::RunLaunch, cmd, argc, argv, 1);
  if (cmd == "propagate") return Dispatch(dg::RunPropagate, cmd, argc, argv, 1);
  if (cmd == "report") return Dispatch(dg::RunReport, cmd, argc, argv, 1);
  if (cmd == "status") return Dispatch(dg::RunStatus, cmd, argc, argv, 1);
  if (cmd == "copy") return Dispatch(dg::RunCopy, cmd, argc, argv, 1);
  if (cmd == "model" && sub == "export") return DispatchTorch("model export", argc, argv, 2);
  if (cmd == "config" && sub == "check") return Dispatch(dg::RunConfig, "config check", argc, argv, 2);
  if (cmd == "bench" && sub == "rpc") return Dispatch(dg::RunBenchRpc, "bench rpc", argc, argv, 2);
  if (cmd == "bench" && sub == "train") return DispatchTorch("bench train", argc, argv, 2);
  if (cmd == "bench" && sub == "kernels") return DispatchTorch("bench kernels", argc, argv, 2);

  std::fprintf(stderr, "distgnn: error: unknown command '%s%s%s'\n\n%s", cmd.c_str(),
               sub.empty() ? "" : " ", sub.c_str(), kUsage);
  return 2;
}
