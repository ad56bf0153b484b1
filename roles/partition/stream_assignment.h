// Streaming node assignment for graphs METIS cannot hold (`--method stream`):
// Fennel (Tsourakakis et al., WSDM 2014), restreamed (Nishimura & Ugander, KDD 2013).
//
// Nodes are visited in id order; node v goes to the part p maximising
//   |N(v) ∩ P_p| - alpha * gamma * |P_p|^(gamma - 1),  gamma = 1.5, alpha = 2 sqrt(K) m / n^1.5
// (m = undirected edges) among the parts where v keeps nodes, train nodes and
// in-edges all below their cap; if none has room on every count, the part
// whose worst count would be lowest. Caps follow the stream: (1 + slack) / K of
// what the pass has seen so far plus 0.025 / K of the total, so every count
// grows in step in every part and ends within (1 + slack + 0.025) x the mean. N(v) is both directions
// of v's edges (loops dropped, duplicates kept). Passes after the first count
// neighbors with the latest assignment (restreaming improves the cut).
//
// The neighbor rows come from an ExternalSorter of packed (v << 32 | u) keys:
// sorted runs under tmp_dir holding at most sort_records keys each, merged once
// per pass. Memory: 9 B per node (part, in-degree, train flag) + the sort
// buffer + one merge buffer; nodes must be < 2^32. Deterministic.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "roles/partition/edge_source.h"

namespace dg {

struct StreamOptions {
  int num_parts = 1;
  int passes = 3;
  double slack = 0.02;
  const std::vector<uint8_t>* is_train = nullptr;  // may be empty/null: no train balance
  std::string tmp_dir;
  size_t sort_records = size_t{1} << 24;
  size_t merge_bytes = size_t{64} << 20;
  std::FILE* log = nullptr;
};

struct StreamResult {
  std::vector<int32_t> part;
  size_t runs = 0;              // sorted runs spilled
  uint64_t spilled_bytes = 0;
};

Result<StreamResult> StreamAssignment(int64_t num_nodes, const EdgeSource& edges, const StreamOptions& opts);

}  // namespace dg
