#include "roles/partition/mpi/input/input.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>

#include "common/io/csv_reader.h"
#include "common/io/npy.h"
#include "common/storage/dataset.h"
#include "roles/partition/out_of_core_input.h"
#include "roles/partition/partition_output.h"

namespace dg::mpi {

namespace {

// Rows [r * E / P, (r+1) * E / P) of a text edge list of E edges: E counted
// in a first pass (lines counted, not parsed) unless known (known >= 0); then
// one pass parses the rows, skipping the lines before them unparsed, which
// every rank but the last ends after its own (the last reads to the end and
// checks E). Every line is parsed by the one rank that keeps it.
Result<std::vector<Edge>> ReadTextShard(const Rank& r, const std::string& path, int64_t num_nodes, int64_t known,
                                        std::vector<ShareParse>* parsed) {
  const auto t0 = std::chrono::steady_clock::now();
  int64_t total = known, max_id = -1;
  if (total < 0) {
    DG_ASSIGN_OR_RETURN(total, CountEdgeTextRows(path));
  }
  const CsvRowRange share = ShareOfRows(r.rank, r.size, total);
  const int64_t lo = share.first, hi = share.end;
  const bool last = r.rank == r.size - 1;
  std::vector<Edge> out;
  int64_t at = lo, skip = lo;
  bool stopped = false;  // past this rank's rows: the pass ends early
  const Status st = ForEachEdgeText(path, num_nodes, [&](const int64_t* s, const int64_t* d, int64_t c) {
    for (int64_t i = 0; i < c; ++i, ++at)
      if (at < hi) out.push_back({s[i], d[i], at});
    if (last || at < hi) return Status::OK();
    stopped = true;
    return Status::Internal("stop");
  }, &max_id, &skip);
  if (!stopped) DG_RETURN_IF_ERROR(st);
  at -= skip;  // the file ended among the rows before this rank's
  if (last ? at != total : at < hi)  // a short file, read to its end: `at` is its count
    return Status::InvalidArgument(path + ": has " + std::to_string(at) + " edges, expected " +
                                   std::to_string(total) + " (the dataset's edge count)");
  parsed->push_back({path, lo, hi, static_cast<int64_t>(out.size() * 2 * sizeof(int64_t)),
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()});
  return out;
}

}  // namespace

Result<ShardInput> ReadShard(const Rank& r, const std::string& dir, int64_t num_nodes, const std::string& scratch) {
  DG_ASSIGN_OR_RETURN(DatasetFiles df, ListDataset(dir));
  return ReadShardFiles(r, df, num_nodes, scratch);
}

Result<ShardInput> ReadShardFiles(const Rank& r, const DatasetFiles& df, int64_t num_nodes,
                                  const std::string& scratch, int64_t text_edges) {
  ShardInput in;
  std::string from = num_nodes >= 0 ? "--num-nodes" : "";
  for (const auto& [name, given] : df.node_files) {
    DG_ASSIGN_OR_RETURN(std::string path, PlainNpyPath(given, scratch, "input-node-" + name + ".npy"));
    DG_ASSIGN_OR_RETURN(Array a, NpyMap(path));
    if (a.shape.empty()) return Status::InvalidArgument(given + ": a node array needs one row per node; got a 0-d array");
    if (num_nodes < 0) {
      num_nodes = a.shape[0];
      from = given;
    } else if (a.shape[0] != num_nodes) {
      return Status::InvalidArgument(given + ": has " + std::to_string(a.shape[0]) + " rows, expected " +
                                     std::to_string(num_nodes) + " (from " + from + ")");
    }
    in.node_data[name] = std::move(a);
  }
  const int64_t bound = num_nodes >= 0 ? num_nodes : std::numeric_limits<int64_t>::max();
  if (!df.edges_text.empty()) {
    DG_ASSIGN_OR_RETURN(in.edges, ReadTextShard(r, df.edges_text, num_nodes, text_edges, &in.parsed));
  } else {
    DG_ASSIGN_OR_RETURN(Array src, NpyMap(df.src_npy));
    DG_ASSIGN_OR_RETURN(Array dst, NpyMap(df.dst_npy));
    DG_ASSIGN_OR_RETURN(in.edges, ReadEdgeShard(r, src, dst, bound, df.src_npy + " / " + df.dst_npy));
  }
  if (num_nodes < 0) {
    int64_t max_id = -1;
    for (const Edge& e : in.edges) max_id = std::max({max_id, e.src, e.dst});
    num_nodes = max_id + 1;
  }
  in.num_nodes = num_nodes;
  return in;
}

void LogShareParses(const Rank& r, const std::vector<ShareParse>& parsed) {
  for (const ShareParse& p : parsed) {
    const double mine[4] = {static_cast<double>(p.first), static_cast<double>(p.end), p.bytes / 1e6, p.seconds};
    std::vector<double> all(4 * static_cast<size_t>(r.size));
    MPI_Gather(mine, 4, MPI_DOUBLE, all.data(), 4, MPI_DOUBLE, 0, r.comm);
    for (int q = 0; r.rank == 0 && q < r.size; ++q)
      std::printf("  input: rank %d parsed rows [%.0f, %.0f) of %s (%.1f MB of values) in %.2f s\n", q,
                  all[4 * q], all[4 * q + 1], p.what.c_str(), all[4 * q + 2], all[4 * q + 3]);
  }
  std::fflush(stdout);
}

std::vector<uint8_t> BlockTrainFlags(const std::map<std::string, Array>& node_data, int64_t first, int64_t count) {
  auto it = node_data.find("split");
  const bool is_split = it != node_data.end();
  if (!is_split) it = node_data.find("train_mask");
  std::vector<uint8_t> flags;
  if (it == node_data.end() || it->second.shape.size() != 1) return flags;
  flags.resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const int64_t v = IntAt(it->second, first + i);
    flags[i] = is_split ? (v == 0) : (v != 0);
  }
  return flags;
}

}  // namespace dg::mpi
