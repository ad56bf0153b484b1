// distgnn partition: a user's graph -> partitions on disk (DESIGN.md, "Data on disk").
//
//   distgnn partition --dataset DIR [--undirected] [--drop-self-loops] [--drop-duplicates] [--normalize-features]
//                     --num-parts K --method metis|random [--balance train,edges]
//                     --name NAME --out DIR [--force] [--seed S]
//   distgnn partition --edges FILE [--num-nodes N] [--node-data NAME=FILE.npy ...]
//                     [--edge-data NAME=FILE.npy ...] ...same partition flags...
//
// Every user mistake is one line and a non-zero exit, and nothing is written:
// flags are checked before reading, input before partitioning, and the output
// appears only by a final rename.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "cmd/cli.h"
#include "common/dataset.h"
#include "common/logging.h"
#include "common/npy.h"
#include "roles/partition/partitioner.h"

namespace dg {

namespace {

Status ParseNamedFiles(const std::string& flag, const std::vector<std::string>& items,
                       std::map<std::string, std::string>* out) {
  for (const std::string& item : items) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      return Status::InvalidArgument(flag + " '" + item + "': expected NAME=FILE.npy");
    std::string name = item.substr(0, eq);
    if (out->count(name)) return Status::InvalidArgument(flag + ": name '" + name + "' given twice");
    (*out)[name] = item.substr(eq + 1);
  }
  return Status::OK();
}

Status Run(int argc, char** argv) {
  namespace po = cli::po;
  po::options_description desc("distgnn partition");
  std::string dataset, edges_file, method, balance, name, out;
  int64_t num_nodes = -1;
  int num_parts = 0;
  uint64_t seed = 0;
  std::vector<std::string> node_items, edge_items;
  desc.add_options()
      ("help,h", "show this help")
      ("dataset", po::value(&dataset), "dataset directory (edges.tsv[.gz] or src.npy+dst.npy, node arrays *.npy)")
      ("edges", po::value(&edges_file), "edge list file (src dst per line; TSV/CSV/space; '#' comments; .gz ok)")
      ("num-nodes", po::value(&num_nodes), "number of nodes (with --edges; default: from node data or max id + 1)")
      ("node-data", po::value(&node_items)->composing(), "NAME=FILE.npy node array (with --edges; repeatable)")
      ("edge-data", po::value(&edge_items)->composing(), "NAME=FILE.npy edge array, one row per input edge (repeatable)")
      ("undirected", po::bool_switch(), "add reverse edges, then drop duplicates")
      ("drop-self-loops", po::bool_switch(), "drop edges u->u")
      ("normalize-features", po::bool_switch(), "divide each row of node array 'features' by its sum (as DGL/PyG do for citation graphs)")
      ("drop-duplicates", po::bool_switch(), "keep one copy of each (src, dst)")
      ("num-parts", po::value(&num_parts)->required(), "number of partitions K (1 = no partitioning)")
      ("method", po::value(&method)->default_value("metis"), "metis | random")
      ("balance", po::value(&balance)->default_value(""), "comma list of: train, edges (METIS balance constraints)")
      ("name", po::value(&name)->required(), "graph name (NAME.json)")
      ("out", po::value(&out)->required(), "output directory")
      ("force", po::bool_switch(), "replace an existing output directory")
      ("seed", po::value(&seed)->default_value(0), "random seed (METIS and random method)");
  po::variables_map vm;
  DG_RETURN_IF_ERROR(cli::Parse(desc, argc, argv, &vm));

  // Flags first: nothing is read before they are known to be sane.
  if (dataset.empty() == edges_file.empty())
    return Status::InvalidArgument("give exactly one of --dataset DIR or --edges FILE");
  if (!dataset.empty() && (!node_items.empty() || vm.count("num-nodes")))
    return Status::InvalidArgument("--node-data and --num-nodes go with --edges; a dataset directory holds its node arrays");
  if (vm.count("num-nodes") && num_nodes < 0)
    return Status::InvalidArgument("--num-nodes must be >= 0");
  PartitionOptions po_;
  po_.graph_name = name;
  po_.out_dir = out;
  po_.method = method;
  po_.num_parts = num_parts;
  po_.force = vm["force"].as<bool>();
  po_.seed = seed;
  po_.log = stdout;
  {
    std::stringstream ss(balance);
    std::string item;
    while (std::getline(ss, item, ',')) {
      if (item == "train") po_.balance_train = true;
      else if (item == "edges") po_.balance_edges = true;
      else if (!item.empty())
        return Status::InvalidArgument("--balance: unknown '" + item + "' (expected train, edges)");
    }
  }
  if (method != "metis" && method != "random")
    return Status::InvalidArgument("--method: unknown method '" + method + "' (expected metis or random)");
  if (num_parts < 1) return Status::InvalidArgument("--num-parts must be >= 1, got " + std::to_string(num_parts));
  if ((po_.balance_train || po_.balance_edges) && method != "metis")
    return Status::InvalidArgument("--balance needs --method metis");
  std::error_code ec;
  if (std::filesystem::exists(out, ec) && !po_.force)
    return Status::AlreadyExists("output " + out + " exists (use --force to replace it)");
  std::map<std::string, std::string> node_files, edge_files;
  DG_RETURN_IF_ERROR(ParseNamedFiles("--node-data", node_items, &node_files));
  DG_RETURN_IF_ERROR(ParseNamedFiles("--edge-data", edge_items, &edge_files));

  EdgeListOptions eo;
  eo.undirected = vm["undirected"].as<bool>();
  eo.drop_self_loops = vm["drop-self-loops"].as<bool>();
  eo.drop_duplicates = vm["drop-duplicates"].as<bool>();
  EdgeListOptions raw = eo;  // read without normalizing; we normalize below (with origins if needed)
  raw.undirected = raw.drop_self_loops = raw.drop_duplicates = false;

  auto t0 = std::chrono::steady_clock::now();
  GraphInput in;
  if (!dataset.empty()) {
    DG_ASSIGN_OR_RETURN(Dataset ds, LoadDataset(dataset, raw));
    in.num_nodes = ds.num_nodes;
    in.edges = std::move(ds.edges);
    in.node_data = std::move(ds.node_data);
  } else {
    for (const auto& [nm, path] : node_files) {
      DG_ASSIGN_OR_RETURN(Array a, NpyLoad(path));
      if (a.shape.empty())
        return Status::InvalidArgument(path + ": node array '" + nm + "' is 0-d; need one row per node");
      if (num_nodes < 0) num_nodes = a.shape[0];
      if (a.shape[0] != num_nodes)
        return Status::InvalidArgument(path + ": node array '" + nm + "' has " + std::to_string(a.shape[0]) +
                                       " rows, expected " + std::to_string(num_nodes) + " (one per node)");
      in.node_data[nm] = std::move(a);
    }
    DG_ASSIGN_OR_RETURN(in.edges, ReadEdgeListText(edges_file, num_nodes));
    in.num_nodes = num_nodes >= 0 ? num_nodes : in.edges.max_id + 1;
  }
  const int64_t input_edges = static_cast<int64_t>(in.edges.src.size());
  for (const auto& [nm, path] : edge_files) {
    DG_ASSIGN_OR_RETURN(Array a, NpyLoad(path));
    if (a.shape.empty() || a.shape[0] != input_edges)
      return Status::InvalidArgument(path + ": edge array '" + nm + "' has " +
                                     (a.shape.empty() ? std::string("no") : std::to_string(a.shape[0])) +
                                     " rows, expected " + std::to_string(input_edges) + " (one per input edge)");
    in.edge_data[nm] = std::move(a);
  }
  NormalizeEdges(&in.edges, eo, in.edge_data.empty() ? nullptr : &in.edge_origin);
  if (vm["normalize-features"].as<bool>()) {
    auto it = in.node_data.find("features");
    if (it == in.node_data.end())
      return Status::InvalidArgument("--normalize-features: the input has no node array 'features'");
    DG_RETURN_IF_ERROR(RowNormalize(&it->second, "--normalize-features: node array 'features'"));
  }
  double read_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  read input:        %.2f s (%lld nodes, %lld input edges -> %lld after normalization)\n",
              read_s, (long long)in.num_nodes, (long long)input_edges, (long long)in.edges.src.size());
  std::fflush(stdout);

  DG_RETURN_IF_ERROR(ValidatePartitionRequest(in, po_));
  auto t1 = std::chrono::steady_clock::now();
  DG_ASSIGN_OR_RETURN(PartitionConfig cfg, PartitionGraph(&in, po_));
  double part_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  std::printf("done: %s (%d parts, edge cut %lld) in %.2f s total, peak RSS %.1f MB\n", cfg.path.c_str(),
              cfg.num_parts, (long long)cfg.edge_cut, read_s + part_s, PeakRssBytes() / 1048576.0);
  return Status::OK();
}

}  // namespace

int RunPartition(int argc, char** argv) { return cli::ExitCode(argv[0], Run(argc, argv)); }

}  // namespace dg
