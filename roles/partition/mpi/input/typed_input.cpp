#include "roles/partition/mpi/input/typed_input.h"

#include <algorithm>
#include <chrono>

#include "common/io/csv_reader.h"
#include "common/io/npy.h"

namespace dg::mpi {

namespace {

struct Rows {
  int64_t lo, hi;
};

Rows ShardRows(const Rank& r, int64_t count) {
  const CsvRowRange share = ShareOfRows(r.rank, r.size, count);
  return {share.first, share.end};
}

// Calls add(i, src, dst) (type-local ids) for rows [rows.lo, rows.hi) of
// file type e: an [E, 2] .npy mapped and sliced, else the file streamed.
template <typename AddFn>
Status ReadTypeRows(const std::string& dir, const TypeLayout& l, int e, Rows rows, AddFn add) {
  const EdgeTypeData et = FileEdgeType(l, e);
  const int64_t ns = l.NumNodesOfType(et.src_type_id), nd = l.NumNodesOfType(et.dst_type_id);
  if (rows.lo >= rows.hi) return Status::OK();
  DG_ASSIGN_OR_RETURN(std::string path, TypedEdgeFile(dir, et));
  if (path.size() > 4 && path.compare(path.size() - 4, 4, ".npy") == 0) {
    DG_ASSIGN_OR_RETURN(Array a, NpyMap(path));
    if (a.shape.size() != 2 || a.shape[1] != 2 || (a.dtype != DType::kInt64 && a.dtype != DType::kInt32))
      return Status::InvalidArgument(path + ": expected an int64 or int32 [E, 2] array of (src, dst) pairs, got " +
                                     std::string(DTypeName(a.dtype)) + " " + a.ShapeString());
    for (int64_t k = rows.lo; k < rows.hi; ++k) {
      const int64_t s = a.dtype == DType::kInt64 ? a.as<int64_t>()[2 * k] : a.as<int32_t>()[2 * k];
      const int64_t d = a.dtype == DType::kInt64 ? a.as<int64_t>()[2 * k + 1] : a.as<int32_t>()[2 * k + 1];
      if (s < 0 || s >= ns || d < 0 || d >= nd)
        return Status::InvalidArgument(path + ": row " + std::to_string(k) + " (" + std::to_string(s) + ", " +
                                       std::to_string(d) + ") is outside the " + std::to_string(ns) + " " +
                                       et.src_type + " / " + std::to_string(nd) + " " + et.dst_type + " nodes");
      add(k, s, d);
    }
    return Status::OK();
  }
  // ForEachTypedEdge checks the ids; the lines before this rank's rows are
  // skipped unparsed and the read ends after them (the count is known).
  int64_t at = rows.lo, skip = rows.lo;
  bool stopped = false;
  const Status st = ForEachTypedEdge(dir, et, ns, nd, [&](const int64_t* s, const int64_t* d, int64_t n) {
    for (int64_t i = 0; i < n && at < rows.hi; ++i, ++at) add(at, s[i], d[i]);
    if (at < rows.hi) return Status::OK();
    stopped = true;
    return Status::Internal("stop");
  }, &skip);
  if (!stopped) DG_RETURN_IF_ERROR(st);
  at -= skip;
  if (at < rows.hi)
    return Status::InvalidArgument(path + ": has " + std::to_string(at) + " edges, counted " +
                                   std::to_string(l.edge_offsets[e + 1] - l.edge_offsets[e]) + " before");
  return Status::OK();
}

}  // namespace

Result<ShardInput> ReadTypedShard(const Rank& r, const std::string& dir, bool undirected, const std::string& scratch) {
  DG_ASSIGN_OR_RETURN(TypeLayout l, OpenTypedLayout(dir, undirected, scratch));
  const int F = l.num_file_edge_types;
  ShardInput in;
  in.num_nodes = l.num_nodes();
  for (int e = 0; e < F; ++e) {
    const PartitionConfig::EdgeType& et = l.edge_types[e];
    const int64_t so = l.type_offsets[et.src_type], dof = l.type_offsets[et.dst_type];
    const int64_t fwd = l.edge_offsets[e], rev = undirected ? l.edge_offsets[F + e] : -1;
    const auto t0 = std::chrono::steady_clock::now();
    const Rows rows = ShardRows(r, l.edge_offsets[e + 1] - fwd);
    const int64_t bytes = (rows.hi - rows.lo) * 2 * static_cast<int64_t>(sizeof(int64_t));
    DG_RETURN_IF_ERROR(ReadTypeRows(dir, l, e, rows, [&](int64_t i, int64_t s, int64_t d) {
      in.edges.push_back({so + s, dof + d, fwd + i});
      if (rev >= 0) in.edges.push_back({dof + d, so + s, rev + i});
    }));
    in.parsed.push_back({et.src + "__" + et.relation + "__" + et.dst, rows.lo, rows.hi, bytes,
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()});
  }
  in.types = std::make_shared<const TypeLayout>(std::move(l));
  return in;
}

int64_t NormalizeTypedShards(const Rank& r, const VertexBlocks& blocks, const EdgeListOptions& opts, int64_t batch,
                             ShardInput* in) {
  if (!opts.drop_self_loops && !opts.drop_duplicates) return SumAll(r, static_cast<int64_t>(in->edges.size()));
  TypeLayout l = *in->types;  // node arrays are shared, not copied
  const int F = l.num_file_edge_types;
  const bool undirected = static_cast<int>(l.edge_types.size()) > F;
  // This rank's edges of each file type in input order (its rows of the type
  // follow the lower ranks', as NormalizeShards' filter renumbering needs).
  std::vector<std::vector<Edge>> by_type(static_cast<size_t>(F));
  for (const Edge& e : in->edges) {
    const int t = l.EdgeType(e.id);
    if (t < F) by_type[t].push_back(e);
  }
  std::vector<Edge>().swap(in->edges);
  EdgeListOptions o;
  o.drop_self_loops = opts.drop_self_loops;
  o.drop_duplicates = opts.drop_duplicates;
  std::vector<int64_t> count(static_cast<size_t>(F));
  for (int t = 0; t < F; ++t) count[t] = NormalizeShards(r, blocks, o, batch, &by_type[t]);
  l.edge_offsets.assign(1, 0);  // the file types, then their rev_ types
  for (int pass = 0; pass < (undirected ? 2 : 1); ++pass)
    for (int t = 0; t < F; ++t) l.edge_offsets.push_back(l.edge_offsets.back() + count[t]);
  for (int t = 0; t < F; ++t) {
    for (const Edge& e : by_type[t]) {
      in->edges.push_back({e.src, e.dst, l.edge_offsets[t] + e.id});
      if (undirected) in->edges.push_back({e.dst, e.src, l.edge_offsets[F + t] + e.id});
    }
    std::vector<Edge>().swap(by_type[t]);
  }
  const int64_t total = l.edge_offsets.back();
  in->types = std::make_shared<const TypeLayout>(std::move(l));
  return total;
}

std::vector<int32_t> BlockNodeTypes(const TypeLayout& l, int64_t first, int64_t count) {
  std::vector<int32_t> type(static_cast<size_t>(count));
  int t = count > 0 ? l.NodeType(first) : 0;
  for (int64_t i = 0; i < count; ++i) {
    while (first + i >= l.type_offsets[t + 1]) ++t;
    type[i] = t;
  }
  return type;
}

std::vector<uint8_t> BlockTypedTrainFlags(const TypeLayout& l, int64_t first, int64_t count) {
  std::vector<uint8_t> flags;
  const int tt = l.target_type;
  if (tt < 0) return flags;
  auto it = l.node_data[tt].find("split");
  if (it == l.node_data[tt].end()) return flags;
  flags.assign(static_cast<size_t>(count), 0);
  const int8_t* split = it->second.as<int8_t>();
  const int64_t lo = std::max(first, l.type_offsets[tt]), hi = std::min(first + count, l.type_offsets[tt + 1]);
  for (int64_t v = lo; v < hi; ++v) flags[v - first] = split[v - l.type_offsets[tt]] == 0;
  return flags;
}

}  // namespace dg::mpi
