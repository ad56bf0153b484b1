// `distgnn partition`: the partitioner (roles/partition/partition_dataset.h)
// with the flags of cmd/partition_flags.h; `partition verify`; and --mpi,
// which makes this process (an MPI rank under mpirun) the partitioner across
// machines, distgnn-mpi-partition beside this binary, with the same flags.
//
//   distgnn partition --dataset DIR | --edges FILE ... --num-parts K --name NAME --out DIR
//   distgnn partition verify NAME.json [--part P]
//   mpirun ... distgnn partition --mpi --dataset DIR ... --num-parts K --name NAME --out DIR
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "cmd/cli.h"
#include "cmd/partition_flags.h"
#include "common/storage/partition_check.h"
#include "roles/partition/partition_dataset.h"

namespace dg {
namespace {

Status Run(int argc, char** argv) {
  PartitionSpec spec;
  DG_RETURN_IF_ERROR(ParsePartitionFlags(argc, argv, /*mpi=*/false, /*print_help=*/true, &spec));
  return PartitionDataset(spec);
}

// `partition verify`: checksums, dtypes, shapes and structure (common/storage/partition_check.h).
Status Verify(int argc, char** argv) {
  namespace po = cli::po;
  std::string json;
  int part = -1;
  po::options_description desc("distgnn partition verify NAME.json [--part P]");
  desc.add_options()("help,h", "show this help")
      ("config", po::value(&json)->required(), "the partition json (NAME.json)")
      ("part", po::value(&part), "check only part P and its files' checksums (what `distgnn copy` put on machine P)");
  po::positional_options_description pos;
  pos.add("config", 1);
  po::variables_map vm;
  DG_RETURN_IF_ERROR(cli::Parse(desc, argc, argv, &vm, &pos));
  if (vm.count("part") && part < 0) return Status::InvalidArgument("--part: " + std::to_string(part) + " is negative");
  DG_ASSIGN_OR_RETURN(std::string summary, VerifyPartition(json, part));
  std::printf("%s\n", summary.c_str());
  return Status::OK();
}

// --mpi: this process (an MPI rank under mpirun) becomes distgnn-mpi-partition.
Status ExecMpiPartitioner(int argc, char** argv) {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::string bin = (self.parent_path() / "distgnn-mpi-partition").string();
  if (ec || ::access(bin.c_str(), X_OK) != 0)
    return Status::Unsupported("--mpi: " + bin + " is missing: this build has no MPI partitioner (install "
                               "openmpi-bin libopenmpi-dev libptscotch-dev, e.g. scripts/setup.sh, and rebuild)");
  std::vector<char*> args{const_cast<char*>(bin.c_str())};
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--mpi") != 0) args.push_back(argv[i]);
  args.push_back(nullptr);
  ::execv(bin.c_str(), args.data());
  return Status::FromErrno("exec " + bin, errno);
}

}  // namespace

int RunPartition(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "verify") == 0) return cli::ExitCode("distgnn partition verify", Verify(argc - 1, argv + 1));
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--mpi") == 0) return cli::ExitCode(argv[0], ExecMpiPartitioner(argc, argv));
  return cli::ExitCode(argv[0], Run(argc, argv));
}

}  // namespace dg
