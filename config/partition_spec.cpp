// PartitionSpec's rules, in one place: the spelling of every enum, the sizes,
// the flags that belong to one mode (with or without --mpi) and the
// combinations that are refused. The flag table (cmd/partition_flags.cpp)
// only stores values; ParsePartitionSpec decides whether they make a run.
#include "config/partition_spec.h"

#include <cctype>
#include <cmath>
#include <cstddef>
#include <sstream>
#include <utility>

#include "config/enum_words.h"

namespace dg {

namespace {

// ---- enums ----------------------------------------------------------------

constexpr std::pair<PartitionMethod, const char*> kMethods[] = {
    {PartitionMethod::kMetis, "metis"},  {PartitionMethod::kRandom, "random"},   {PartitionMethod::kStream, "stream"},
    {PartitionMethod::kAuto, "auto"},    {PartitionMethod::kCluster, "cluster"}, {PartitionMethod::kScotch, "scotch"}};
constexpr std::pair<InputFormat, const char*> kFormats[] = {{InputFormat::kPlain, "plain"}, {InputFormat::kOgb, "ogb"}};


// ---- the flags of one mode --------------------------------------------------

// Flags that only the single-machine partitioner reads, and why --mpi does not.
constexpr std::pair<const char*, const char*> kWithoutMpi[] = {
    {"edges", "every rank reads its rows of a dataset directory: give --dataset DIR"},
    {"node-data", "a dataset directory holds the node arrays"},
    {"merge-types", "merge a typed dataset's types on one machine"},
    {"memory-budget", "each rank holds its share of the graph in memory"},
    {"run-size", "nothing is sorted out of core"},
    {"stream-passes", "the stream over MPI makes its own passes"},
    {"metis-niter", "METIS over MPI keeps its default refinement"},
    {"link-etype", "--edge-split over MPI splits a homogeneous dataset; split a typed one on one machine"},
};
// Flags that only the partitioner over MPI reads.
constexpr const char* kWithMpi[] = {"batch-edges", "imbalance", "cluster-max-arcs", "progress-timeout"};

Status CheckModeFlags(const PartitionWords& w, bool mpi) {
  for (const auto& [flag, why] : kWithoutMpi)
    if (mpi && w.given.count(flag)) return Status::InvalidArgument("--" + std::string(flag) + " does not go with --mpi (" + why + ")");
  for (const char* flag : kWithMpi)
    if (!mpi && w.given.count(flag))
      return Status::InvalidArgument("--" + std::string(flag) + " goes with --mpi (the partitioner across machines)");
  return Status::OK();
}

// ---- the rules --------------------------------------------------------------

Status ParseWords(const PartitionWords& w, PartitionSpec* s) {
  if (w.method.empty()) {
    s->method = s->mpi ? PartitionMethod::kAuto : PartitionMethod::kMetis;
  } else if (!Parse(w.method, &s->method) || !MethodRunsWith(s->method, s->mpi)) {
    return Status::InvalidArgument("--method '" + w.method + "': expected " +
                                   (s->mpi ? "auto, cluster, scotch, stream or random (with --mpi)"
                                           : "metis, random or stream (--mpi adds auto, cluster and scotch)"));
  }
  if (!Parse(w.format, &s->format))
    return Status::InvalidArgument("--format '" + w.format + "': expected plain or ogb");
  std::stringstream items(w.balance);
  for (std::string item; std::getline(items, item, ',');) {
    if (item == "train") s->balance.train = true;
    else if (item == "edges") s->balance.edges = true;
    else if (!item.empty()) return Status::InvalidArgument("--balance '" + item + "': expected train or edges");
  }
  return Status::OK();
}

Status CheckCounts(PartitionSpec* s) {
  if (s->num_parts < 1) return Status::InvalidArgument("--num-parts must be >= 1, got " + std::to_string(s->num_parts));
  if (s->balance.any() && !s->mpi && s->method != PartitionMethod::kMetis)
    return Status::InvalidArgument("--balance needs --method metis");
  if (s->stream_passes < 1) return Status::InvalidArgument("--stream-passes must be >= 1");
  if (s->metis_niter < 0) return Status::InvalidArgument("--metis-niter must be >= 0");
  if (s->cluster_max_arcs < 0) return Status::InvalidArgument("--cluster-max-arcs must be >= 0 (0 = automatic)");
  if (s->batch_edges < 1 || s->batch_edges > (int64_t{1} << 24))
    return Status::InvalidArgument("--batch-edges must be in [1, 16777216]");
  return Status::OK();
}

Status CheckInput(const PartitionWords& w, PartitionSpec* s) {
  const bool num_nodes_given = w.given.count("num-nodes") > 0;
  if (s->mpi && s->dataset.empty()) return Status::InvalidArgument("--mpi reads a dataset directory: give --dataset DIR");
  if (s->dataset.empty() == s->edges_file.empty())
    return Status::InvalidArgument("give exactly one of --dataset DIR or --edges FILE");
  if (!s->mpi && !s->dataset.empty() && (!w.node_data.empty() || num_nodes_given))
    return Status::InvalidArgument("--node-data and --num-nodes go with --edges; a dataset directory holds its node arrays");
  if (num_nodes_given && s->num_nodes < 0) return Status::InvalidArgument("--num-nodes must be >= 0");
  if (s->format == InputFormat::kOgb && num_nodes_given)
    return Status::InvalidArgument("--num-nodes: an OGB dataset gives its node count (raw/num-node-list)");
  if (s->format == InputFormat::kOgb && s->dataset.empty())
    return Status::InvalidArgument("--format ogb reads a dataset directory: give --dataset DIR");
  DG_ASSIGN_OR_RETURN(s->node_files, ParseNamedFiles("--node-data", w.node_data));
  DG_ASSIGN_OR_RETURN(s->edge_files, ParseNamedFiles("--edge-data", w.edge_data));
  return Status::OK();
}

Status ParseSizes(const PartitionWords& w, PartitionSpec* s) {
  if (!w.memory_budget.empty()) {
    DG_ASSIGN_OR_RETURN(s->memory_budget, ParseByteSize("--memory-budget", w.memory_budget));
  } else if (!s->mpi && (!s->tmp_dir.empty() || !w.run_size.empty())) {
    return Status::InvalidArgument("--tmp-dir and --run-size go with --memory-budget");
  }
  if (!w.run_size.empty()) {
    DG_ASSIGN_OR_RETURN(s->run_bytes, ParseByteSize("--run-size", w.run_size));
  }
  return Status::OK();
}

Status ParseLink(const PartitionWords& w, PartitionSpec* s) {
  if (w.given.count("edge-split")) {
    DG_ASSIGN_OR_RETURN(s->edge_split, ParseEdgeSplit(w.edge_split, "--edge-split"));
  }
  return Status::OK();
}

bool FileName(const std::string& s) {
  if (s.empty() || s[0] == '.') return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

}  // namespace

const char* Name(PartitionMethod v) { return NameIn(kMethods, v); }
const char* Name(InputFormat v) { return NameIn(kFormats, v); }
bool Parse(const std::string& word, PartitionMethod* out) { return ParseIn(kMethods, word, out); }
bool Parse(const std::string& word, InputFormat* out) { return ParseIn(kFormats, word, out); }

bool MethodRunsWith(PartitionMethod method, bool mpi) {
  switch (method) {
    case PartitionMethod::kMetis: return !mpi;
    case PartitionMethod::kRandom:
    case PartitionMethod::kStream: return true;
    case PartitionMethod::kAuto:
    case PartitionMethod::kCluster:
    case PartitionMethod::kScotch: return mpi;
  }
  return false;
}

Status ParsePartitionSpec(const PartitionWords& words, PartitionSpec* spec) {
  DG_RETURN_IF_ERROR(CheckModeFlags(words, spec->mpi));
  DG_RETURN_IF_ERROR(ParseWords(words, spec));
  DG_RETURN_IF_ERROR(CheckCounts(spec));
  DG_RETURN_IF_ERROR(CheckInput(words, spec));
  DG_RETURN_IF_ERROR(ParseSizes(words, spec));
  return ParseLink(words, spec);
}

Result<uint64_t> ParseByteSize(const std::string& flag, const std::string& text) {
  size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(text, &pos);
  } catch (...) {
    pos = 0;
  }
  std::string unit = text.substr(pos);
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.pop_back();
  if (!unit.empty() && (unit.back() == 'i')) unit.pop_back();
  double mult = 1;
  if (unit == "K" || unit == "k") mult = 1024.0;
  else if (unit == "M" || unit == "m") mult = 1024.0 * 1024;
  else if (unit == "G" || unit == "g") mult = 1024.0 * 1024 * 1024;
  else if (unit == "T" || unit == "t") mult = 1024.0 * 1024 * 1024 * 1024;
  else if (!unit.empty()) pos = 0;
  if (pos == 0 || !(v > 0) || !std::isfinite(v))
    return Status::InvalidArgument(flag + " '" + text + "': expected a size such as 4G, 512M, 64K or bytes");
  return static_cast<uint64_t>(v * mult);
}

Result<std::map<std::string, std::string>> ParseNamedFiles(const std::string& flag,
                                                           const std::vector<std::string>& items) {
  std::map<std::string, std::string> out;
  for (const std::string& item : items) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      return Status::InvalidArgument(flag + " '" + item + "': expected NAME=FILE.npy");
    const std::string name = item.substr(0, eq);
    if (out.count(name)) return Status::InvalidArgument(flag + ": name '" + name + "' given twice");
    if (!FileName(name))
      return Status::InvalidArgument(flag + " '" + item + "': NAME must be letters, digits, '_', '-', '.'");
    out[name] = item.substr(eq + 1);
  }
  return out;
}

}  // namespace dg
