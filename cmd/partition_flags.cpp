#include "cmd/partition_flags.h"

#include <iostream>

namespace dg {
namespace {

namespace po = cli::po;

// Every flag, once; "(--mpi)" marks those only the partitioner across
// machines reads, "(not --mpi)" those only the single-machine one reads.
void AddFlags(po::options_description* desc, PartitionSpec* s, PartitionWords* w) {
  desc->add_options()
      ("help,h", "show this help")
      ("mpi", "under mpirun: partition across machines, one rank per machine (each writes the parts it serves)")
      ("dataset", po::value(&s->dataset), "dataset directory (edges.tsv[.gz] or src.npy+dst.npy, node arrays *.npy; "
       "or a typed one: meta.json, nodes/<type>/, edges/<src>__<rel>__<dst>.tsv -> a typed partition); "
       "with --mpi on storage every rank reads")
      ("format", po::value(&w->format)->default_value("plain"), "plain | ogb (an OGB node property dataset as downloaded: "
       "raw/*.csv.gz, split/; ogbn-mag's typed layout too)")
      ("edges", po::value(&s->edges_file), "(not --mpi) edge list file (src dst per line; TSV/CSV/space; '#' comments; .gz ok)")
      ("num-nodes", po::value(&s->num_nodes), "number of nodes (default: node arrays' rows, else max id + 1); "
       "without --mpi only with --edges")
      ("node-data", po::value(&w->node_data)->composing(), "(not --mpi) NAME=FILE.npy node array (with --edges; repeatable)")
      ("edge-data", po::value(&w->edge_data)->composing(), "NAME=FILE.npy edge array, one row per input edge (repeatable)")
      ("undirected", po::bool_switch(&s->undirected), "add reverse edges, then drop duplicates (typed: add rev_<relation> per edge type)")
      ("merge-types", po::bool_switch(&s->merge_types), "(not --mpi) typed dataset: merge all node and edge types into one "
       "(a homogeneous partition for sage, gcn, gat, mlp; as train-local --merge-types)")
      ("drop-self-loops", po::bool_switch(&s->drop_self_loops), "drop edges u->u")
      ("drop-duplicates", po::bool_switch(&s->drop_duplicates), "keep one copy of each (src, dst)")
      ("normalize-features", po::bool_switch(&s->normalize_features), "divide each row of node array 'features' by its sum "
       "(as DGL/PyG do for citation graphs)")
      ("num-parts", po::value(&s->num_parts)->required(), "number of partitions K (1 = no partitioning)")
      ("method", po::value(&w->method), "metis (default) | random | stream (Fennel, O(N) memory); with --mpi: auto "
       "(default: METIS on the whole graph on rank 0, as --method metis, when its arcs fit --cluster-max-arcs; else "
       "cluster) | cluster (label propagation, then METIS on the cluster graph on rank 0) | scotch (PT-Scotch) | "
       "stream (restreamed LDG on every rank) | random")
      ("balance", po::value(&w->balance)->default_value(""), "comma list of: train, edges (balance constraints)")
      ("seed", po::value(&s->seed)->default_value(0), "random seed (METIS, PT-Scotch, the random method, --edge-split)")
      ("stream-passes", po::value(&s->stream_passes)->default_value(3), "(not --mpi) passes of --method stream (restreaming lowers the cut)")
      ("metis-niter", po::value(&s->metis_niter)->default_value(0), "(not --mpi) METIS refinement iterations per level "
       "(0 = METIS's default, 10; DGL uses 1: faster, slightly larger cut)")
      ("memory-budget", po::value(&w->memory_budget), "(not --mpi) partition out of core within SIZE (e.g. 4G) of data "
       "memory; default: in memory unless that needs more than half the RAM")
      ("tmp-dir", po::value(&s->tmp_dir), "scratch directory: spilled sorted runs (with --memory-budget; default: the "
       "output's parent directory); with --mpi gunzipped .npy.gz node arrays (default: inside the staging directory)")
      ("run-size", po::value(&w->run_size), "(not --mpi) bytes per sorted run (default: what the budget leaves; small values force many spills)")
      ("name", po::value(&s->name)->required(), "graph name (NAME.json)")
      ("out", po::value(&s->out)->required(), "output directory (with --mpi on each rank's machine)")
      ("force", po::bool_switch(&s->force), "replace an existing output directory")
      ("edge-split", po::value(&w->edge_split), "link prediction: train,val,test fractions of the edges (e.g. 0.85,0.05,0.10); "
       "val/test edges leave the message-passing graph and go to partP/{val,test}_edges.npy")
      ("link-etype", po::value(&s->link_etype)->default_value(""), "(not --mpi) typed dataset: the edge type --edge-split "
       "splits (src:relation:dst or a relation); its held-out edges' rev_ copies leave the graph too")
      ("batch-edges", po::value(&s->batch_edges)->default_value(1 << 20), "(--mpi) edges a rank sends per all-to-all round")
      ("imbalance", po::value(&s->imbalance)->default_value(0.03), "(--mpi) PT-Scotch's load imbalance ratio")
      ("cluster-max-arcs", po::value(&s->cluster_max_arcs)->default_value(0),
       "(--mpi) the largest graph (arcs) rank 0 partitions with METIS: the whole graph (--method auto), else the cluster "
       "graph; past it the stream partitions the graph when the cluster graph keeps over half its arcs, else "
       "PT-Scotch. 0 = a rank's share of the graph's arcs, at least 16M")
      ("progress-timeout", po::value(&s->progress_timeout)->default_value(900),
       "(--mpi) seconds a rank waits inside MPI without progress (a stage start, an exchange round or a completed MPI "
       "call, PT-Scotch's too) before it aborts the run, e.g. when another host is cut off; 0 = never");
}

}  // namespace

Status ParsePartitionFlags(int argc, char** argv, bool mpi, bool print_help, PartitionSpec* spec) {
  po::options_description desc(mpi ? "distgnn partition --mpi (under mpirun)" : "distgnn partition");
  PartitionWords words;
  AddFlags(&desc, spec, &words);
  po::variables_map vm;
  if (print_help) {
    DG_RETURN_IF_ERROR(cli::Parse(desc, argc, argv, &vm));
  } else {
    try {  // another rank prints the help and the parse errors
      po::store(po::parse_command_line(argc, argv, desc), vm);
      if (vm.count("help")) return Status::NotFound("help");
      po::notify(vm);
    } catch (const po::error& e) {
      return Status::InvalidArgument(e.what());
    }
  }
  for (const auto& [flag, value] : vm)
    if (!value.defaulted()) words.given.insert(flag);
  spec->mpi = mpi || vm.count("mpi") > 0;
  return ParsePartitionSpec(words, spec);
}

}  // namespace dg
