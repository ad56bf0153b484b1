#include "roles/partition/partitioner.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/base/logging.h"
#include "common/io/npy.h"
#include "roles/partition/assign_nodes.h"
#include "roles/partition/node_assignment.h"
#include "roles/partition/partition_output.h"
#include "roles/partition/progress_log.h"

namespace dg {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}


// An Array view of a vector (no copy); valid while the vector lives.
Array View(std::vector<int64_t>& v) {
  Array a;
  a.dtype = DType::kInt64;
  a.shape = {static_cast<int64_t>(v.size())};
  a.data = v.data();
  return a;
}

// Streams rows `rows[i]` of `src` (i in [0, count)) into a new .npy at path.
// row_of(i) gives the source row of output row i.
template <typename RowOf>
Status WriteGatheredRows(const std::string& path, const Array& src, int64_t count, RowOf row_of) {
  std::vector<int64_t> shape = src.shape;
  shape[0] = count;
  NpyWriter w;
  DG_RETURN_IF_ERROR(w.Open(path, src.dtype, shape));
  const size_t rb = src.row_bytes();
  const char* base = static_cast<const char*>(src.data);
  std::vector<char> buf;
  const size_t kChunk = 4 << 20;
  buf.reserve(kChunk + rb);
  for (int64_t i = 0; i < count; ++i) {
    const char* row = base + static_cast<size_t>(row_of(i)) * rb;
    buf.insert(buf.end(), row, row + rb);
    if (buf.size() >= kChunk) {
      DG_RETURN_IF_ERROR(w.Append(buf.data(), buf.size()));
      buf.clear();
    }
  }
  DG_RETURN_IF_ERROR(w.Append(buf.data(), buf.size()));
  return w.Finish();
}

bool ValidName(const std::string& s) {
  if (s.empty() || s[0] == '.') return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

}  // namespace

std::vector<uint8_t> TrainFlags(const std::map<std::string, Array>& node_data) {
  std::vector<uint8_t> flags;
  auto it = node_data.find("split");
  bool is_split = it != node_data.end();
  if (!is_split) it = node_data.find("train_mask");
  if (it == node_data.end() || it->second.shape.size() != 1) return flags;
  const Array& a = it->second;
  flags.resize(static_cast<size_t>(a.shape[0]));
  for (int64_t i = 0; i < a.shape[0]; ++i) {
    int64_t v = IntAt(a, i);
    flags[i] = is_split ? (v == 0) : (v != 0);
  }
  return flags;
}

Status ValidatePartitionRequest(const GraphInput& in, const PartitionOptions& o) {
  if (o.spec.num_parts < 1)
    return Status::InvalidArgument("--num-parts must be >= 1, got " + std::to_string(o.spec.num_parts));
  if (o.spec.num_parts > in.num_nodes)
    return Status::InvalidArgument("--num-parts " + std::to_string(o.spec.num_parts) + " exceeds the " +
                                   std::to_string(in.num_nodes) + " nodes of the graph");
  if (!ValidName(o.spec.name))
    return Status::InvalidArgument("--name '" + o.spec.name +
                                   "' must be non-empty letters, digits, '_', '-', '.'");
  if (o.spec.out.empty()) return Status::InvalidArgument("--out is required");
  std::error_code ec;
  if (fs::exists(o.spec.out, ec) && !o.spec.force)
    return Status::AlreadyExists("output " + o.spec.out + " exists (use --force to replace it)");
  if (in.edges.src.size() != in.edges.dst.size())
    return Status::Internal("edge list src/dst sizes differ");
  if (in.types) {
    if (!in.node_data.empty() || !in.edge_data.empty())
      return Status::Internal("a typed input keeps its node arrays per type");
    if (in.types->num_nodes() != in.num_nodes) return Status::Internal("typed input: node counts differ");
  }
  for (const auto& [name, a] : in.node_data) {
    if (!ValidName(name)) return Status::InvalidArgument("bad node array name '" + name + "'");
    if (a.shape.empty() || a.shape[0] != in.num_nodes)
      return Status::InvalidArgument("node array '" + name + "' has shape " + a.ShapeString() +
                                     ", expected " + std::to_string(in.num_nodes) + " rows");
  }
  int64_t edge_rows = in.edge_origin.empty() ? static_cast<int64_t>(in.edges.src.size()) : -1;
  for (const auto& [name, a] : in.edge_data) {
    if (!ValidName(name)) return Status::InvalidArgument("bad edge array name '" + name + "'");
    if (a.shape.empty()) return Status::InvalidArgument("edge array '" + name + "' is 0-d");
    if (edge_rows >= 0 && a.shape[0] != edge_rows)
      return Status::InvalidArgument("edge array '" + name + "' has " + std::to_string(a.shape[0]) +
                                     " rows, expected " + std::to_string(edge_rows) + " (one per edge)");
    for (int64_t r : in.edge_origin)
      if (r < 0 || r >= a.shape[0])
        return Status::InvalidArgument("edge array '" + name + "' has " + std::to_string(a.shape[0]) +
                                       " rows, fewer than the input edges");
  }
  return Status::OK();
}

namespace {

// The global in-edge CSR over the new ids and where each part's rows and edges start.
struct CsrView {
  const std::vector<int64_t>& indptr;
  const std::vector<int64_t>& indices;
  const std::vector<int64_t>& orig_eids;
  const std::vector<int64_t>& node_map;
  const std::vector<int64_t>& edge_map;
};

// Edge cut and halo nodes (distinct remote sources) per part.
void CountCutAndHalo(const std::vector<int64_t>& indices, const std::vector<int64_t>& node_map,
                     const std::vector<int64_t>& edge_map, PartitionConfig* cfg) {
  std::vector<int32_t> mark(static_cast<size_t>(node_map.back()), -1);
  for (int p = 0; p + 1 < static_cast<int>(node_map.size()); ++p) {
    for (int64_t k = edge_map[p]; k < edge_map[p + 1]; ++k) {
      int64_t s = indices[k];
      if (s >= node_map[p] && s < node_map[p + 1]) continue;
      ++cfg->edge_cut;
      if (mark[s] != p) {
        mark[s] = p;
        ++cfg->parts[p].num_halo;
      }
    }
  }
}

// Part p's directory: its CSR rows, edge types (typed), node data and edge data.
Status WriteInMemoryPart(int p, const std::string& dir, const CsrView& csr, const GraphInput& in,
                         const std::vector<int64_t>& orig_nids, const PartitionOptions& o, PartitionConfig* cfg,
                         LabelStats* labels) {
  DG_RETURN_IF_ERROR(MakeDir(dir));
  const int64_t nb = csr.node_map[p], ne = csr.node_map[p + 1];
  const int64_t eb = csr.edge_map[p], ee = csr.edge_map[p + 1];
  {  // local indptr = global indptr slice - its first value
    NpyWriter w;
    DG_RETURN_IF_ERROR(w.Open(dir + "/indptr.npy", DType::kInt64, {ne - nb + 1}));
    std::vector<int64_t> chunk;
    chunk.reserve(1 << 16);
    for (int64_t g = nb; g <= ne; ++g) {
      chunk.push_back(csr.indptr[g] - eb);
      if (chunk.size() == chunk.capacity() || g == ne) {
        DG_RETURN_IF_ERROR(w.Append(chunk.data(), chunk.size() * sizeof(int64_t)));
        chunk.clear();
      }
    }
    DG_RETURN_IF_ERROR(w.Finish());
  }
  {
    NpyWriter w;
    DG_RETURN_IF_ERROR(w.Open(dir + "/indices.npy", DType::kInt64, {ee - eb}));
    DG_RETURN_IF_ERROR(w.Append(csr.indices.data() + eb, static_cast<size_t>(ee - eb) * sizeof(int64_t)));
    DG_RETURN_IF_ERROR(w.Finish());
  }
  NodeDataOptions nd;
  nd.normalize_features = o.normalize_rows;
  if (in.types) {
    EdgeTypeWriter et;
    DG_RETURN_IF_ERROR(et.Open(dir + "/edge_types.npy", static_cast<int>(in.types->edge_types.size()), ee - eb));
    for (int64_t k = eb; k < ee; ++k) DG_RETURN_IF_ERROR(et.Add(in.types->EdgeType(csr.orig_eids[k])));
    DG_RETURN_IF_ERROR(et.Finish());
    DG_RETURN_IF_ERROR(WriteTypedPartNodeData(dir, *in.types, orig_nids.data() + nb, cfg->node_type_offsets[p], nd,
                                              &cfg->parts[p], labels));
  } else {
    DG_RETURN_IF_ERROR(WritePartNodeData(dir, in.node_data, orig_nids.data() + nb, ne - nb, nb, nd, &cfg->parts[p], labels));
  }
  if (!in.edge_data.empty()) DG_RETURN_IF_ERROR(MakeDir(dir + "/edge_data"));
  for (const auto& [name, a] : in.edge_data) {
    const std::vector<int64_t>& origin = in.edge_origin;
    DG_RETURN_IF_ERROR(WriteGatheredRows(dir + "/edge_data/" + name + ".npy", a, ee - eb, [&](int64_t i) {
      int64_t e = csr.orig_eids[eb + i];
      return origin.empty() ? e : origin[e];
    }));
  }
  return Status::OK();
}

}  // namespace

Result<PartitionConfig> PartitionGraph(GraphInput* in, const PartitionOptions& o) {
  DG_RETURN_IF_ERROR(ValidatePartitionRequest(*in, o));
  const int K = o.spec.num_parts;
  const int64_t N = in->num_nodes;
  const int64_t E = static_cast<int64_t>(in->edges.src.size());
  std::FILE* log = o.log;
  PartitionLog(log, "partition: %lld nodes, %lld edges, %d parts, method %s%s%s\n", (long long)N,
      (long long)E, K, Name(o.spec.method), o.spec.balance.train ? ", balance train" : "",
      o.spec.balance.edges ? ", balance edges" : "");

  // 1. Assignment.
  const TypeLayout* types = in->types.get();
  std::vector<uint8_t> is_train = types ? types->TrainFlags() : TrainFlags(in->node_data);
  StreamSpill spill;  // in memory: one run, nothing spilled
  spill.sort_records = 2 * static_cast<size_t>(E) + 1;
  DG_ASSIGN_OR_RETURN(std::vector<int32_t> part,
                      AssignNodes(N, EdgeSource::FromVectors(in->edges.src, in->edges.dst), types, is_train, o, spill));

  // 2. Renumber: part p owns [node_map[p], node_map[p+1]); original order within a part.
  auto t = Clock::now();
  Renumbering renumbering = RenumberByPart(part, K);
  std::vector<int64_t>& node_map = renumbering.node_map;
  std::vector<int64_t>& new_id = renumbering.new_id;
  std::vector<int64_t>& orig_nids = renumbering.orig_nids;
  std::vector<int32_t>().swap(part);

  // 3. Global in-edge CSR over new ids (counting sort by destination, stable).
  std::vector<int64_t> indptr(static_cast<size_t>(N) + 1, 0);
  for (int64_t e = 0; e < E; ++e) ++indptr[new_id[in->edges.dst[e]] + 1];
  for (int64_t v = 0; v < N; ++v) indptr[v + 1] += indptr[v];
  std::vector<int64_t> indices(static_cast<size_t>(E));
  std::vector<int64_t> orig_eids(static_cast<size_t>(E));
  {
    std::vector<int64_t> cursor(indptr.begin(), indptr.end() - 1);
    for (int64_t e = 0; e < E; ++e) {
      int64_t pos = cursor[new_id[in->edges.dst[e]]]++;
      indices[pos] = new_id[in->edges.src[e]];
      orig_eids[pos] = e;
    }
  }
  std::vector<int64_t>().swap(in->edges.src);
  std::vector<int64_t>().swap(in->edges.dst);
  std::vector<int64_t>().swap(new_id);
  std::vector<int64_t> edge_map(K + 1);
  for (int p = 0; p <= K; ++p) edge_map[p] = indptr[node_map[p]];
  PartitionLog(log, "  build CSR:         %.2f s\n", Seconds(t));

  // 4. Edge cut and halo nodes (distinct remote sources) per part.
  PartitionConfig cfg = BaseConfig(o.spec.name, o.spec.num_parts, Name(o.spec.method), N, E, node_map, edge_map,
                                   in->node_data, in->edge_data);
  if (types) TypedConfig(*types, &cfg);
  CountCutAndHalo(indices, node_map, edge_map, &cfg);

  // 5. Write into a temporary sibling directory, then rename into place.
  t = Clock::now();
  StagingDir stage;
  DG_RETURN_IF_ERROR(stage.Create(o));
  const std::string tmp_dir = stage.path();
  if (types) DG_RETURN_IF_ERROR(WriteTypedNodeIds(tmp_dir, *types, orig_nids, &cfg));
  else DG_RETURN_IF_ERROR(NpyWrite(tmp_dir + "/orig_nids.npy", View(orig_nids)));
  DG_RETURN_IF_ERROR(NpyWrite(tmp_dir + "/orig_eids.npy", View(orig_eids)));
  LabelStats labels;
  const CsrView csr{indptr, indices, orig_eids, node_map, edge_map};
  for (int p = 0; p < K; ++p)
    DG_RETURN_IF_ERROR(WriteInMemoryPart(p, tmp_dir + "/" + cfg.parts[p].dir, csr, *in, orig_nids, o, &cfg, &labels));
  cfg.num_classes = types && types->num_classes > 0 ? types->num_classes
                    : o.num_classes > 0            ? o.num_classes
                                                   : labels.NumClasses();
  LogPartStats(log, cfg);
  DG_RETURN_IF_ERROR(stage.Commit(&cfg));
  PartitionLog(log, "  write:             %.2f s -> %s\n", Seconds(t), cfg.path.c_str());
  PartitionLog(log, "  peak RSS: %.1f MB\n", PeakRssBytes() / 1048576.0);
  return cfg;
}

}  // namespace dg
