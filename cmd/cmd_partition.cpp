// `distgnn partition`: flags of the partitioner (roles/partition/partition_dataset.h).
//
//   distgnn partition --dataset DIR [--format plain|ogb] [--merge-types] [--undirected] [--drop-self-loops] [--drop-duplicates] [--normalize-features]
//                     --num-parts K --method metis|random|stream [--balance train,edges]
//                     --name NAME --out DIR [--force] [--seed S]
//                     [--memory-budget SIZE [--tmp-dir DIR] [--run-size SIZE]] [--stream-passes P]
//   distgnn partition --edges FILE [--num-nodes N] [--node-data NAME=FILE.npy ...]
//                     [--edge-data NAME=FILE.npy ...] ...same partition flags...
//   distgnn partition verify NAME.json [--part P]
//   mpirun ... distgnn partition --mpi ...   runs distgnn-mpi-partition (beside this binary) with the other flags
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "cmd/cli.h"
#include "common/storage/partition_check.h"
#include "roles/partition/partition_dataset.h"
#include "roles/partition/partition_method.h"

namespace dg {
namespace {

Status Run(int argc, char** argv) {
  namespace po = cli::po;
  po::options_description desc("distgnn partition");
  PartitionDatasetOptions o;
  std::string format, method;  // words, parsed into o.format and o.method below
  desc.add_options()
      ("help,h", "show this help")
      ("mpi", "under mpirun: partition across machines (runs distgnn-mpi-partition with the other flags; its --help lists them)")
      ("dataset", po::value(&o.dataset), "dataset directory (edges.tsv[.gz] or src.npy+dst.npy, node arrays *.npy; "
       "or a typed one: meta.json, nodes/<type>/, edges/<src>__<rel>__<dst>.tsv -> a typed partition)")
      ("format", po::value(&format)->default_value("plain"), "plain | ogb (an OGB node property dataset as downloaded: raw/*.csv.gz, split/; ogbn-mag's typed layout too)")
      ("edges", po::value(&o.edges_file), "edge list file (src dst per line; TSV/CSV/space; '#' comments; .gz ok)")
      ("num-nodes", po::value(&o.num_nodes), "number of nodes (with --edges; default: from node data or max id + 1)")
      ("node-data", po::value(&o.node_data)->composing(), "NAME=FILE.npy node array (with --edges; repeatable)")
      ("edge-data", po::value(&o.edge_data)->composing(), "NAME=FILE.npy edge array, one row per input edge (repeatable)")
      ("undirected", po::bool_switch(&o.undirected), "add reverse edges, then drop duplicates (typed: add rev_<relation> per edge type)")
      ("merge-types", po::bool_switch(&o.merge_types), "typed dataset: merge all node and edge types into one "
       "(a homogeneous partition for sage, gcn, gat, mlp; as train-local --merge-types)")
      ("drop-self-loops", po::bool_switch(&o.drop_self_loops), "drop edges u->u")
      ("normalize-features", po::bool_switch(&o.normalize_features), "divide each row of node array 'features' by its sum (as DGL/PyG do for citation graphs)")
      ("drop-duplicates", po::bool_switch(&o.drop_duplicates), "keep one copy of each (src, dst)")
      ("num-parts", po::value(&o.num_parts)->required(), "number of partitions K (1 = no partitioning)")
      ("method", po::value(&method)->default_value("metis"), "metis | random | stream (Fennel, O(N) memory)")
      ("memory-budget", po::value(&o.memory_budget), "partition out of core within SIZE (e.g. 4G) of data memory; default: in memory unless that needs more than half the RAM")
      ("tmp-dir", po::value(&o.tmp_dir), "directory for spilled sorted runs (default: the output's parent directory)")
      ("run-size", po::value(&o.run_size), "bytes per sorted run (default: what the budget leaves; small values force many spills)")
      ("stream-passes", po::value(&o.stream_passes)->default_value(3), "passes of --method stream (restreaming lowers the cut)")
      ("metis-niter", po::value(&o.metis_niter)->default_value(0), "METIS refinement iterations per level (0 = METIS's default, 10; DGL uses 1: faster, slightly larger cut)")
      ("balance", po::value(&o.balance)->default_value(""), "comma list of: train, edges (METIS balance constraints)")
      ("name", po::value(&o.name)->required(), "graph name (NAME.json)")
      ("out", po::value(&o.out)->required(), "output directory")
      ("force", po::bool_switch(&o.force), "replace an existing output directory")
      ("seed", po::value(&o.seed)->default_value(0), "random seed (METIS and random method; --edge-split)")
      ("edge-split", po::value(&o.edge_split), "link prediction: train,val,test fractions of the edges (e.g. 0.85,0.05,0.10); "
       "val/test edges leave the message-passing graph and go to partP/{val,test}_edges.npy")
      ("link-etype", po::value(&o.link_etype)->default_value(""), "typed dataset: the edge type --edge-split splits "
       "(src:relation:dst or a relation); its held-out edges' rev_ copies leave the graph too");
  po::variables_map vm;
  DG_RETURN_IF_ERROR(cli::Parse(desc, argc, argv, &vm));
  if (!Parse(method, &o.method))
    return Status::InvalidArgument("--method: unknown method '" + method + "' (expected metis, random or stream)");
  if (!Parse(format, &o.format))
    return Status::InvalidArgument("--format: unknown format '" + format + "' (expected plain or ogb)");
  o.num_nodes_given = vm.count("num-nodes") > 0;
  o.edge_split_given = vm.count("edge-split") > 0;
  return PartitionDataset(o);
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
