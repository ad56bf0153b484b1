// distgnn-mpi-partition: the partitioner across machines (docs/partitioning.md,
// "Partitioning across machines"). Run under MPI, one rank per machine (or more):
//
//   mpirun -np P --host h1,h2,... distgnn-mpi-partition --dataset DIR --num-parts K
//          --name NAME --out DIR [--method auto|cluster|scotch|stream|random] [--balance train,edges]
//          [--undirected] [--drop-self-loops] [--drop-duplicates] [--normalize-features]
//          [--seed S] [--force] [--batch-edges N] [--imbalance R] [--cluster-max-arcs N] [--tmp-dir DIR]
//          [--progress-timeout S]
//          [--format plain|ogb] [--edge-data NAME=FILE.npy ...] [--edge-split TRAIN,VAL,TEST]
//
// (`distgnn partition --mpi ...` under mpirun runs this binary.) Each rank reads
// its rows of the edge list, the ranks normalize and partition it together
// (mpi_graph.h), and each part is written by the rank that serves it
// (mpi_output.h) into a staging directory renamed into place at the end
// (mpi_stage.h). Progress lines come from rank 0; a failing rank's message
// names its rank and host, and every rank exits non-zero.
#include <mpi.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "common/storage/link_split.h"
#include "common/storage/ogb_dataset.h"
#include "common/storage/typed_dataset.h"
#include "roles/partition/mpi/mpi_edge_data.h"
#include "roles/partition/mpi/mpi_edge_split.h"
#include "roles/partition/mpi/mpi_input.h"
#include "roles/partition/mpi/mpi_ogb_input.h"
#include "roles/partition/mpi/mpi_output.h"
#include "roles/partition/mpi/mpi_memory.h"
#include "roles/partition/mpi/mpi_stage.h"
#include "roles/partition/mpi/mpi_typed_input.h"
#include "roles/partition/mpi/mpi_watchdog.h"
#include "roles/partition/out_of_core.h"
#include "roles/partition/partition_output.h"

namespace dg::mpi {
namespace {

namespace po = boost::program_options;

struct Flags {
  std::string dataset, name, out, tmp_dir;
  MpiPartitionMethod method = MpiPartitionMethod::kAuto;
  InputFormat format = InputFormat::kPlain;
  bool balance_train = false, balance_edges = false;
  int num_parts = 0;
  int64_t num_nodes = -1, batch = 1 << 20, cluster_max_arcs = 0;
  uint64_t seed = 0;
  double imbalance = 0.03, progress_timeout = 900;
  bool force = false, undirected = false, drop_self_loops = false, drop_duplicates = false, normalize = false;
  std::map<std::string, std::string> edge_data;  // --edge-data: name -> file
  std::optional<EdgeSplitFractions> edge_split;
};

Status ParseFlags(int argc, char** argv, Flags* f, bool* help) {
  std::string method, balance, format, edge_split;  // words, parsed into f->method, ... below
  std::vector<std::string> edge_data;
  po::options_description desc("distgnn-mpi-partition (under mpirun)");
  desc.add_options()("help,h", "show this help")
      ("dataset", po::value(&f->dataset)->required(), "dataset directory on storage every rank reads (src.npy + dst.npy, or edges.tsv; node arrays *.npy; or a typed dataset: meta.json, nodes/, edges/)")
      ("format", po::value(&format)->default_value("plain"), "plain | ogb (an OGB node property dataset as downloaded: raw/*.csv.gz, split/; ogbn-mag's typed layout too)")
      ("num-parts", po::value(&f->num_parts)->required(), "number of partitions K")
      ("name", po::value(&f->name)->required(), "graph name (NAME.json)")
      ("out", po::value(&f->out)->required(), "output directory (on each rank's machine)")
      ("method", po::value(&method)->default_value("auto"), "auto (METIS on the whole graph on rank 0, as `distgnn partition --method metis`, "
       "when its arcs fit --cluster-max-arcs; else cluster) | cluster (label propagation, then METIS on the cluster "
       "graph on rank 0) | scotch (PT-Scotch) | stream (restreamed LDG on every rank) | random")
      ("balance", po::value(&balance)->default_value(""), "comma list of: train, edges")
      ("num-nodes", po::value(&f->num_nodes), "number of nodes (default: node arrays' rows, else max id + 1)")
      ("undirected", po::bool_switch(&f->undirected), "add reverse edges, then drop duplicates")
      ("drop-self-loops", po::bool_switch(&f->drop_self_loops), "drop edges u->u")
      ("drop-duplicates", po::bool_switch(&f->drop_duplicates), "keep one copy of each (src, dst)")
      ("normalize-features", po::bool_switch(&f->normalize), "divide each row of node array 'features' by its sum")
      ("seed", po::value(&f->seed)->default_value(0), "random seed (PT-Scotch, the random method, --edge-split)")
      ("edge-data", po::value(&edge_data)->composing(), "NAME=FILE.npy edge array, one row per input edge, on storage every rank reads (repeatable)")
      ("edge-split", po::value(&edge_split), "link prediction: train,val,test fractions of the edges (e.g. 0.85,0.05,0.10); "
       "val/test edges leave the message-passing graph and go to partP/{val,test}_edges.npy")
      ("force", po::bool_switch(&f->force), "replace an existing output directory")
      ("batch-edges", po::value(&f->batch)->default_value(1 << 20), "edges a rank sends per all-to-all round")
      ("imbalance", po::value(&f->imbalance)->default_value(0.03), "PT-Scotch's load imbalance ratio")
      ("cluster-max-arcs", po::value(&f->cluster_max_arcs)->default_value(0),
       "the largest graph (arcs) rank 0 partitions with METIS: the whole graph (--method auto), else the cluster "
       "graph; past it the stream partitions the graph when the cluster graph keeps over half its arcs, else "
       "PT-Scotch. 0 = a rank's share of the graph's arcs, at least 16M")
      ("progress-timeout", po::value(&f->progress_timeout)->default_value(900),
       "seconds a rank waits inside MPI without progress (a stage start, an exchange round or a completed MPI "
       "call, PT-Scotch's too) before it aborts the run, e.g. when another host is cut off; 0 = never")
      ("tmp-dir", po::value(&f->tmp_dir), "scratch for gunzipped .npy.gz node arrays (default: inside the staging directory)");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, desc), vm);
    if (vm.count("help")) {
      std::ostringstream s;
      s << desc;
      std::printf("%s", s.str().c_str());
      *help = true;
      return Status::OK();
    }
    po::notify(vm);
  } catch (const po::error& e) {
    return Status::InvalidArgument(e.what());
  }
  if (!Parse(method, &f->method))
    return Status::InvalidArgument("--method '" + method + "': expected auto, cluster, scotch, stream or random");
  if (!Parse(format, &f->format))
    return Status::InvalidArgument("--format: unknown format '" + format + "' (expected plain or ogb)");
  if (f->format == InputFormat::kOgb && f->num_nodes >= 0)
    return Status::InvalidArgument("--num-nodes: an OGB dataset gives its node count (raw/num-node-list)");
  if (f->num_parts < 1) return Status::InvalidArgument("--num-parts must be >= 1");
  if (f->cluster_max_arcs < 0) return Status::InvalidArgument("--cluster-max-arcs must be >= 0 (0 = automatic)");
  if (f->batch < 1 || f->batch > (int64_t{1} << 24)) return Status::InvalidArgument("--batch-edges must be in [1, 16777216]");
  Result<std::map<std::string, std::string>> named = ParseEdgeDataFlags(edge_data);
  if (!named.ok()) return named.status();
  f->edge_data = std::move(*named);
  if (vm.count("edge-split")) {
    Result<EdgeSplitFractions> fractions = ParseEdgeSplit(edge_split, "--edge-split");
    if (!fractions.ok()) return fractions.status();
    f->edge_split = *fractions;
  }
  std::stringstream ss(balance);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item == "train") f->balance_train = true;
    else if (item == "edges") f->balance_edges = true;
    else if (!item.empty()) return Status::InvalidArgument("--balance '" + item + "': expected train or edges");
  }
  return Status::OK();
}

double Since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void Log(const Rank& r, const char* fmt, double a = 0, double b = 0, double c = 0, double d = 0) {
  if (r.rank != 0) return;
  std::printf(fmt, a, b, c, d);
  std::fflush(stdout);
}

// Whether --dataset (in --format) is a typed graph.
bool IsTypedInput(const Flags& f) {
  return f.format == InputFormat::kOgb ? IsOgbHeterogeneous(f.dataset) : IsTypedDatasetDir(f.dataset);
}

// OGB's files (mpi_ogb_input.h), a typed dataset directory (mpi_typed_input.h)
// or a plain one (mpi_input.h).
Result<ShardInput> ReadInput(const Rank& r, const Flags& f, const std::string& scratch) {
  const bool typed = IsTypedInput(f);
  if (f.format == InputFormat::kOgb) return ReadOgbShard(r, f.dataset, f.undirected, scratch);
  if (!typed) return ReadShard(r, f.dataset, f.num_nodes, scratch);
  if (f.num_nodes >= 0)
    return Status::InvalidArgument("--num-nodes: " + f.dataset + " is a typed dataset; its meta.json gives the "
                                   "node count of each type");
  return ReadTypedShard(r, f.dataset, f.undirected, scratch);
}

// --edge-data and --edge-split take a homogeneous dataset, as on one machine.
Status CheckEdgeFlags(const Flags& f) {
  if (f.edge_data.empty() && !f.edge_split) return Status::OK();
  const bool typed = IsTypedInput(f);
  if (typed && !f.edge_data.empty()) return Status::InvalidArgument("--edge-data is not supported for a typed dataset");
  if (typed)
    return Status::InvalidArgument("--edge-split with --mpi splits a homogeneous dataset; split a typed one "
                                   "(--edge-split --link-etype) on one machine");
  return Status::OK();
}

// The edge arrays of --edge-data with the input row of each edge this rank
// holds, and the held-out edges of --edge-split.
struct EdgeExtras {
  std::map<std::string, Array> arrays;
  std::vector<int64_t> origins;
  LinkSplitOptions link;
  HeldOut held;
};

// Normalizes the shards (with the origins of --edge-data worked out beside)
// and takes out --edge-split's held-out edges; returns the graph's edge count.
Result<int64_t> Normalize(const Rank& r, const Flags& f, const VertexBlocks& blocks, const EdgeListOptions& norm,
                          ShardInput* in, EdgeExtras* x) {
  const int64_t input_edges = SumAll(r, static_cast<int64_t>(in->edges.size()));
  if (!f.edge_data.empty()) {
    Result<std::map<std::string, Array>> mapped = MapEdgeArrays(f.edge_data, input_edges);
    DG_RETURN_IF_ERROR(Agree(r, mapped.status()));
    x->arrays = std::move(*mapped);
    x->origins = NormalizedOrigins(r, blocks, norm, input_edges, f.batch, in->edges);
  }
  // A typed graph's drops are per edge type (mpi_typed_input.h).
  const int64_t num_edges = in->types ? NormalizeTypedShards(r, blocks, norm, f.batch, in)
                                      : NormalizeShards(r, blocks, norm, f.batch, &in->edges);
  if (!f.edge_data.empty()) {  // a check of NormalizedOrigins against NormalizeShards
    Status st;
    if (x->origins.size() != in->edges.size())
      st = Status::Internal("--edge-data: " + std::to_string(x->origins.size()) + " origins for " +
                            std::to_string(in->edges.size()) + " normalized edges");
    DG_RETURN_IF_ERROR(Agree(r, st));
  }
  if (!f.edge_split) return num_edges;
  x->link = LinkSplitOptions{*f.edge_split, f.seed, f.undirected, in->num_nodes};
  x->held = SplitShards(r, x->link, f.batch, &in->edges, f.edge_data.empty() ? nullptr : &x->origins);
  if (r.rank == 0)
    std::printf("  edge split: %lld train / %lld val / %lld test edges\n", static_cast<long long>(x->held.num_train),
                static_cast<long long>(x->held.num_val), static_cast<long long>(x->held.num_test));
  return x->held.num_train;
}

// What the balance measures count of each vertex of this rank's block.
BlockVertices Vertices(const Rank& r, const ShardInput& in, const VertexBlocks& blocks) {
  const int64_t first = blocks.First(r.rank), count = blocks.Count(r.rank);
  BlockVertices v;
  if (!in.types) {
    v.train = BlockTrainFlags(in.node_data, first, count);
    return v;
  }
  const TypeLayout& l = *in.types;
  v.train = BlockTypedTrainFlags(l, first, count);
  v.node_type = BlockNodeTypes(l, first, count);
  v.type_names = l.node_types;
  for (int t = 0; t < l.num_types(); ++t) v.type_counts.push_back(l.NumNodesOfType(t));
  return v;
}

// --method auto: which plan runs and why.
void LogPlan(const Rank& r, const ClusterReport& cr, int64_t num_edges) {
  const double arcs = static_cast<double>(cr.graph_arcs), limit = static_cast<double>(cr.max_arcs);
  if (cr.plan == ClusterPlan::kWholeGraph)
    Log(r, "  plan: the graph's %.0f arcs fit rank 0 (limit %.0f, --cluster-max-arcs): METIS on the whole graph on "
        "rank 0 in %.1f s, the single-machine METIS assignment\n", arcs, limit, cr.metis_seconds);
  else if (cr.over_metis_counts)
    Log(r, "  plan: the graph's %.0f arcs fit rank 0 (limit %.0f) but its %.0f edges pass METIS's 32-bit counts: "
        "clusters\n", arcs, limit, static_cast<double>(num_edges));
  else
    Log(r, "  plan: the graph's %.0f arcs are more than rank 0 partitions (limit %.0f, --cluster-max-arcs): "
        "clusters\n", arcs, limit);
}

// The cluster graph's size and who partitions it (--method auto past the
// limit, --method cluster).
void LogClusters(const Rank& r, const ClusterReport& cr) {
  if (cr.clusters == 0) return;
  const double clusters = static_cast<double>(cr.clusters), arcs = static_cast<double>(cr.cluster_arcs);
  if (cr.plan == ClusterPlan::kMetis)
    Log(r, "  clusters: %.0f clusters, %.0f arcs between them, partitioned by METIS on rank 0 in %.1f s\n", clusters,
        arcs, cr.metis_seconds);
  else if (cr.plan == ClusterPlan::kStream)
    Log(r, "  clusters: %.0f clusters, %.0f arcs between them (%.0f%% of the graph's): more than rank 0 partitions "
        "(%.0f, --cluster-max-arcs), and the graph hardly clusters: each rank streams its vertices into "
        "parts\n", clusters, arcs, 100.0 * arcs / static_cast<double>(std::max<int64_t>(1, cr.graph_arcs)),
        static_cast<double>(cr.max_arcs));
  else
    Log(r, "  clusters: %.0f clusters, %.0f arcs between them: more than rank 0 partitions (%.0f, "
        "--cluster-max-arcs); PT-Scotch partitions the graph instead\n", clusters, arcs,
        static_cast<double>(cr.max_arcs));
}

// What gave the first parts, which the repair and the refinement start from.
const char* FirstParts(MpiPartitionMethod method, const ClusterReport& cr) {
  if (method == MpiPartitionMethod::kScotch || cr.plan == ClusterPlan::kScotch) return "PT-Scotch";
  if (method == MpiPartitionMethod::kStream || cr.plan == ClusterPlan::kStream) return "the stream";
  return "METIS on the clusters";
}

// The plan (--method auto), the clusters, the cuts and the balance of an assignment.
void LogAssignment(const Rank& r, const Flags& f, const Assignment& a, int64_t num_edges) {
  const bool by_graph = PartitionsByGraph(f.method, f.num_parts);
  if (f.method == MpiPartitionMethod::kAuto && by_graph) LogPlan(r, a.clusters, num_edges);
  LogClusters(r, a.clusters);
  if (by_graph && a.clusters.plan == ClusterPlan::kWholeGraph)
    Log(r, "  cut: %.0f edges from METIS on the whole graph, its parts kept (no repair, no refinement)\n",
        static_cast<double>(a.initial_cut));
  else if (by_graph)
    Log(r, (std::string("  cut: %.0f edges from ") + FirstParts(f.method, a.clusters) +
            ", %.0f after the repair, %.0f after the refinement (%.0f moves)\n").c_str(),
        static_cast<double>(a.initial_cut), static_cast<double>(a.refine.cut_before),
        static_cast<double>(a.refine.cut_after), static_cast<double>(a.refine.moved));
  for (size_t m = 0; m < a.balance.measure.size(); ++m)
    if (r.rank == 0)
      std::printf("  balance %s: largest part %.3f x the mean\n", a.balance.measure[m].c_str(),
                  a.balance.max_over_mean[m]);
}

// NAME.json's part_method: the method asked for; under --method auto the
// plan that ran, "metis" (the whole graph) or "cluster".
std::string PartMethodName(MpiPartitionMethod method, bool whole_graph) {
  if (method != MpiPartitionMethod::kAuto) return Name(method);
  return whole_graph ? Name(PartitionMethod::kMetis) : Name(MpiPartitionMethod::kCluster);
}

// The largest rank's peak RSS in the stage that ends, in MB (collective).
double StagePeakMb(const Rank& r, StagePeaks* peaks) {
  return static_cast<double>(MaxAll(r, peaks->EndStage())) / 1048576.0;
}

Status Run(const Rank& r, const Flags& f) {
  const auto t0 = std::chrono::steady_clock::now();
  StagePeaks peaks;
  DG_RETURN_IF_ERROR(Agree(r, CheckEdgeFlags(f)));
  SharedStage stage;
  Progress("create the staging directory");
  DG_RETURN_IF_ERROR(stage.Create(r, f.out, f.force));
  // Scratch (gunzipped node arrays) inside the staging directory unless
  // --tmp-dir says otherwise: whoever removes the stage removes it too, even
  // for a rank that was killed. Removed before the commit.
  auto scratch = std::make_unique<ScratchDir>();
  DG_RETURN_IF_ERROR(Agree(r, scratch->Create(f.tmp_dir.empty() ? stage.path() : f.tmp_dir)));
  RemoveOnSignal(scratch->path());
  Progress("read input");
  Result<ShardInput> read = ReadInput(r, f, scratch->path());
  DG_RETURN_IF_ERROR(Agree(r, read.status()));
  ShardInput in = std::move(*read);
  in.num_nodes = MaxAll(r, in.num_nodes);
  if (f.num_parts > in.num_nodes)
    return Agree(r, Status::InvalidArgument("--num-parts " + std::to_string(f.num_parts) + " exceeds the " +
                                            std::to_string(in.num_nodes) + " nodes of the graph"));
  const VertexBlocks blocks(in.num_nodes, r.size);
  EdgeListOptions norm;  // a typed graph's --undirected is its rev_ types, already read
  norm.undirected = f.undirected && !in.types;
  norm.drop_self_loops = f.drop_self_loops;
  norm.drop_duplicates = f.drop_duplicates;
  Progress("normalize");
  EdgeExtras extras;
  DG_ASSIGN_OR_RETURN(const int64_t num_edges, Normalize(r, f, blocks, norm, &in, &extras));
  Log(r, "partition (MPI, %.0f ranks): %.0f nodes, %.0f edges\n", r.size, static_cast<double>(in.num_nodes),
      static_cast<double>(num_edges));
  if (in.types)
    Log(r, "  typed: %.0f node types, %.0f edge types\n", in.types->num_types(),
        static_cast<double>(in.types->edge_types.size()));
  Log(r, "  read and normalize: %.2f s, largest rank's peak %.0f MB\n", Since(t0), StagePeakMb(r, &peaks));

  auto t = std::chrono::steady_clock::now();
  AssignOptions ao;
  ao.method = f.method;
  ao.num_parts = f.num_parts;
  ao.seed = f.seed;
  ao.balance_train = f.balance_train;
  ao.balance_edges = f.balance_edges;
  ao.imbalance = f.imbalance;
  ao.cluster_max_arcs = f.cluster_max_arcs;
  ao.batch = f.batch;
  ao.spill_dir = scratch->path();
  Progress("assign");
  Result<Assignment> assigned = AssignBlock(r, blocks, &in.edges, Vertices(r, in, blocks), ao);
  DG_RETURN_IF_ERROR(Agree(r, assigned.status()));
  Log(r, "  assign: %.2f s, largest rank's peak %.0f MB\n", Since(t), StagePeakMb(r, &peaks));
  const bool whole = f.method == MpiPartitionMethod::kAuto && assigned->clusters.plan == ClusterPlan::kWholeGraph;
  LogAssignment(r, f, *assigned, num_edges);

  t = std::chrono::steady_clock::now();
  GraphShards g;
  g.num_nodes = in.num_nodes;
  g.num_edges = num_edges;
  g.blocks = &blocks;
  g.edges = &in.edges;
  g.part = &assigned->part;
  g.node_data = &in.node_data;
  g.types = in.types.get();
  if (!f.edge_data.empty()) g.edge_data = &extras.arrays, g.origins = &extras.origins;
  if (f.edge_split) g.held = &extras.held;
  OutputOptions oo;
  oo.graph_name = f.name;
  oo.part_method = PartMethodName(f.method, whole);
  oo.num_parts = f.num_parts;
  oo.normalize_features = f.normalize;
  oo.batch = f.batch;
  oo.link = extras.link;
  Progress("route and write");
  DG_ASSIGN_OR_RETURN(PartitionConfig cfg, WritePartition(r, &g, stage, oo));
  scratch.reset();
  Progress("commit");
  DG_RETURN_IF_ERROR(stage.Commit(r));
  Log(r, "  route and write: %.2f s, largest rank's peak %.0f MB\n", Since(t), StagePeakMb(r, &peaks));
  Progress("report");
  if (r.rank == 0) LogPartStats(stdout, cfg);
  const double rss = static_cast<double>(MaxAll(r, peaks.Peak())) / 1048576.0;
  Log(r, "  peak RSS (largest rank): %.1f MB\n", rss);
  Log(r, "  sent to other ranks: largest rank %.1f MB, all ranks %.1f MB\n",
      static_cast<double>(MaxAll(r, BytesSent())) / 1048576.0, static_cast<double>(SumAll(r, BytesSent())) / 1048576.0);
  const ProgressStats ps = GetProgressStats();
  auto max_s = [&](double s) { return static_cast<double>(MaxAll(r, static_cast<int64_t>(s * 1000))) / 1000.0; };
  Log(r, "  longest wait in MPI without progress: %.1f s, longest gap between progress marks: %.1f s (largest rank), "
         "%.0f completed MPI calls\n",
      max_s(ps.longest_wait_s), max_s(ps.longest_gap_s), static_cast<double>(SumAll(r, ps.mpi_marks)));
  Log(r, "done: %.0f parts in %.2f s\n", f.num_parts, Since(t0));
  return Status::OK();
}

}  // namespace
}  // namespace dg::mpi

int main(int argc, char** argv) {
  // PT-Scotch may run threads that call MPI (Debian builds it with pthreads).
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  const dg::mpi::Rank r = dg::mpi::WorldRank();
  dg::mpi::Flags f;
  bool help = false;
  dg::Status st = dg::mpi::ParseFlags(argc, argv, &f, &help);
  if (!st.ok() && r.rank == 0) std::fprintf(stderr, "distgnn-mpi-partition: %s\n", st.ToString().c_str());
  if (st.ok() && !help) {
    dg::mpi::StartWatchdog(r, f.progress_timeout);
    st = dg::mpi::Run(r, f);
  }
  MPI_Finalize();
  return st.ok() ? 0 : 1;
}
