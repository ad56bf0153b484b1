#include "roles/partition/node_assignment.h"

#include <metis.h>

#include <chrono>
#include <limits>

#include "common/storage/neighbor_sampling.h"
#include "roles/partition/permutation.h"

namespace dg {

namespace {
double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

std::vector<int32_t> RandomAssignment(int64_t num_nodes, int num_parts, uint64_t seed) {
  std::vector<int32_t> part(static_cast<size_t>(num_nodes), 0);
  if (num_parts <= 1) return part;
  const std::vector<int64_t> perm = Permutation(num_nodes, MixSeed(seed, 0x5EED));
  for (int64_t i = 0; i < num_nodes; ++i)
    part[perm[i]] = static_cast<int32_t>((static_cast<__int128>(i) * num_parts) / num_nodes);
  return part;
}

std::vector<int32_t> TypedRandomAssignment(const std::vector<int64_t>& off, int num_parts, uint64_t seed) {
  std::vector<int32_t> part(static_cast<size_t>(off.back()), 0);
  for (size_t t = 0; t + 1 < off.size(); ++t) {
    std::vector<int32_t> p = RandomAssignment(off[t + 1] - off[t], num_parts, seed + 0x9E3779B97F4A7C15ull * t);
    std::copy(p.begin(), p.end(), part.begin() + off[t]);
  }
  return part;
}

uint64_t MetisMemoryEstimate(int64_t num_nodes, int64_t num_edges) {
  // Measured (Debian libmetis 5.1, k-way, 2 graphs): ~48 B per adjacency entry
  // + ~18 B per node for the adjacency we build plus METIS's own copies; 2E is
  // the entry count before duplicates are dropped (an upper bound).
  return static_cast<uint64_t>(52.0 * 2.0 * static_cast<double>(num_edges) + 64.0 * static_cast<double>(num_nodes));
}

namespace {

constexpr int64_t kChunk = 1 << 20;  // edges per pass step (mmap'd inputs stay at one chunk of RSS)

// METIS's symmetric CSR: every non-loop edge (u, v) contributes u->v and v->u,
// duplicates dropped per row.
Status BuildMetisAdjacency(size_t n, const EdgeSource& edges, std::vector<idx_t>* xadj, std::vector<idx_t>* adjncy) {
  std::vector<int64_t> start(n + 1, 0);
  DG_RETURN_IF_ERROR(edges.ForEachChunk(kChunk, [&](const int64_t* src, const int64_t* dst, int64_t cnt, int64_t) {
    for (int64_t e = 0; e < cnt; ++e) {
      int64_t u = src[e], v = dst[e];
      if (u == v) continue;
      ++start[u + 1];
      ++start[v + 1];
    }
    return Status::OK();
  }));
  for (size_t i = 0; i < n; ++i) start[i + 1] += start[i];
  if (start[n] > std::numeric_limits<idx_t>::max())
    return Status::Unsupported("METIS (32-bit idx_t) cannot take " + std::to_string(start[n]) +
                               " adjacency entries");
  adjncy->assign(static_cast<size_t>(start[n]), 0);
  {
    std::vector<int64_t> cursor(start.begin(), start.end() - 1);
    DG_RETURN_IF_ERROR(edges.ForEachChunk(kChunk, [&](const int64_t* src, const int64_t* dst, int64_t cnt, int64_t) {
      for (int64_t e = 0; e < cnt; ++e) {
        int64_t u = src[e], v = dst[e];
        if (u == v) continue;
        (*adjncy)[cursor[u]++] = static_cast<idx_t>(v);
        (*adjncy)[cursor[v]++] = static_cast<idx_t>(u);
      }
      return Status::OK();
    }));
  }
  // Drop duplicate entries per row in place: mark[v] == u means v already in row u.
  xadj->assign(n + 1, 0);
  std::vector<idx_t> mark(n, -1);
  int64_t out = 0;
  for (size_t u = 0; u < n; ++u) {
    for (int64_t k = start[u]; k < start[u + 1]; ++k) {
      idx_t v = (*adjncy)[k];
      if (mark[v] == static_cast<idx_t>(u)) continue;
      mark[v] = static_cast<idx_t>(u);
      (*adjncy)[out++] = v;
    }
    (*xadj)[u + 1] = static_cast<idx_t>(out);
  }
  adjncy->resize(out);
  adjncy->shrink_to_fit();
  return Status::OK();
}

// The balance constraints: the node count (one column, or one per non-empty
// node type), train nodes, in-edges. *ncon columns; vwgt empty when ncon == 1.
Status MetisWeights(size_t n, const EdgeSource& edges, const MetisOptions& opts, idx_t* ncon, std::vector<idx_t>* vwgt) {
  bool use_train = false;
  if (opts.is_train) {
    int64_t total = 0;
    for (uint8_t t : *opts.is_train) total += t != 0;
    use_train = total > 0;  // METIS rejects an all-zero constraint
  }
  std::vector<int64_t> type_begin;  // first id of each non-empty type (a column each)
  if (opts.type_offsets)
    for (size_t t = 0; t + 1 < opts.type_offsets->size(); ++t)
      if ((*opts.type_offsets)[t + 1] > (*opts.type_offsets)[t]) type_begin.push_back((*opts.type_offsets)[t]);
  const idx_t node_cols = type_begin.empty() ? 1 : static_cast<idx_t>(type_begin.size());
  *ncon = node_cols + (use_train ? 1 : 0) + (opts.balance_edges ? 1 : 0);
  if (*ncon == 1) return Status::OK();
  const idx_t nc = *ncon;
  vwgt->assign(n * nc, 0);
  size_t col = 0;
  for (size_t v = 0; v < n; ++v) {
    while (col + 1 < type_begin.size() && static_cast<int64_t>(v) >= type_begin[col + 1]) ++col;
    (*vwgt)[v * nc + col] = 1;
    if (use_train) (*vwgt)[v * nc + node_cols] = (*opts.is_train)[v] ? 1 : 0;
  }
  if (!opts.balance_edges) return Status::OK();
  const idx_t c = nc - 1;
  return edges.ForEachChunk(kChunk, [&](const int64_t*, const int64_t* dst, int64_t cnt, int64_t) {
    for (int64_t e = 0; e < cnt; ++e) ++(*vwgt)[dst[e] * nc + c];
    return Status::OK();
  });
}

}  // namespace

Result<MetisResult> MetisAssignment(int64_t num_nodes, const EdgeSource& edges, const MetisOptions& opts) {
  MetisResult res;
  res.part.assign(static_cast<size_t>(num_nodes), 0);
  if (opts.num_parts <= 1 || num_nodes == 0) return res;
  if (num_nodes > std::numeric_limits<idx_t>::max())
    return Status::Unsupported("METIS (32-bit idx_t) cannot partition " + std::to_string(num_nodes) +
                               " nodes");
  auto t0 = std::chrono::steady_clock::now();
  const size_t n = static_cast<size_t>(num_nodes);
  std::vector<idx_t> xadj, adjncy, vwgt;
  DG_RETURN_IF_ERROR(BuildMetisAdjacency(n, edges, &xadj, &adjncy));
  res.adjacency_entries = static_cast<int64_t>(adjncy.size());
  idx_t ncon = 1;
  DG_RETURN_IF_ERROR(MetisWeights(n, edges, opts, &ncon, &vwgt));
  res.build_seconds = Seconds(t0);

  if (adjncy.empty()) {  // no edges: any balanced assignment is optimal
    res.part = RandomAssignment(num_nodes, opts.num_parts, opts.seed);
    return res;
  }
  auto t1 = std::chrono::steady_clock::now();
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = static_cast<idx_t>(opts.seed & 0x7fffffff);
  options[METIS_OPTION_NUMBERING] = 0;
  if (opts.niter > 0) options[METIS_OPTION_NITER] = opts.niter;
  idx_t nvtxs = static_cast<idx_t>(n);
  idx_t nparts = opts.num_parts;
  idx_t objval = 0;
  std::vector<idx_t> part(n, 0);
  int rc = METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(),
                               vwgt.empty() ? nullptr : vwgt.data(), nullptr, nullptr, &nparts,
                               nullptr, nullptr, options, &objval, part.data());
  res.metis_seconds = Seconds(t1);
  if (rc != METIS_OK) return MetisStatus("METIS_PartGraphKway", rc);
  for (size_t v = 0; v < n; ++v) res.part[v] = static_cast<int32_t>(part[v]);
  res.objval = objval;
  return res;
}

Status MetisStatus(const std::string& call, int rc) {
  const char* why = rc == METIS_ERROR_MEMORY ? "out of memory" : rc == METIS_ERROR_INPUT ? "bad input" : "error";
  return Status::Internal(call + " failed (" + why + ", code " + std::to_string(rc) + ")");
}

Renumbering RenumberByPart(const std::vector<int32_t>& part, int num_parts) {
  Renumbering r;
  const int64_t n = static_cast<int64_t>(part.size());
  r.node_map.assign(num_parts + 1, 0);
  for (int32_t p : part) ++r.node_map[p + 1];
  for (int p = 0; p < num_parts; ++p) r.node_map[p + 1] += r.node_map[p];
  r.new_id.resize(static_cast<size_t>(n));
  r.orig_nids.resize(static_cast<size_t>(n));
  std::vector<int64_t> cursor(r.node_map.begin(), r.node_map.end() - 1);
  for (int64_t v = 0; v < n; ++v) {
    const int64_t g = cursor[part[v]]++;
    r.new_id[v] = g;
    r.orig_nids[g] = v;
  }
  return r;
}

}  // namespace dg
