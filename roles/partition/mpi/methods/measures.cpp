#include "roles/partition/mpi/methods/measures.h"

#include <algorithm>
#include <numeric>

namespace dg::mpi {

bool Typed(const RepairInput& in) { return in.node_type && !in.node_type->empty(); }

int NumTypes(const RepairInput& in) {
  return Typed(in) && in.type_names ? static_cast<int>(in.type_names->size()) : 0;
}

int64_t MeasureValue(const RepairInput& in, Measure m, int64_t v) {
  switch (m.kind) {
    case MeasureKind::kNodes: return 1;
    case MeasureKind::kTrain: return in.train->empty() ? 0 : (*in.train)[v];
    case MeasureKind::kEdges: return (*in.in_degree)[v];
    case MeasureKind::kType: return (*in.node_type)[v] == m.type ? 1 : 0;
  }
  return 0;
}

std::string MeasureName(const RepairInput& in, Measure m) {
  switch (m.kind) {
    case MeasureKind::kNodes: return "nodes";
    case MeasureKind::kTrain: return "train";
    case MeasureKind::kEdges: return "edges";
    case MeasureKind::kType: return "type " + (*in.type_names)[m.type];
  }
  return "";
}

std::vector<Measure> CheckedMeasures(const RepairInput& in, const BalanceOptions& o) {
  std::vector<Measure> measures{{MeasureKind::kNodes}};
  if (o.balance.train) measures.push_back({MeasureKind::kTrain});
  if (o.balance.edges) measures.push_back({MeasureKind::kEdges});
  for (int t = 0; t < NumTypes(in); ++t) measures.push_back({MeasureKind::kType, t});
  return measures;
}

double Tolerance(const BalanceOptions& o, Measure m) {
  return m.kind == MeasureKind::kType ? o.type_tolerance : o.tolerance;
}

BlockLoads BalancedLoads(const Rank& r, const RepairInput& in, const BalanceOptions& o) {
  BlockLoads x;
  const int64_t n = static_cast<int64_t>(in.degree->size());
  for (Measure m : CheckedMeasures(in, o)) {
    if (m.kind == MeasureKind::kNodes && Typed(in)) continue;
    int64_t local = 0;
    for (int64_t v = 0; v < n; ++v) local += MeasureValue(in, m, v);
    const int64_t total = SumAll(r, local);
    if (total == 0) continue;
    x.measures.push_back(m);
    x.total.push_back(total);
  }
  x.value.resize(static_cast<size_t>(n) * x.measures.size());
  for (int64_t v = 0; v < n; ++v)
    for (int i = 0; i < x.M(); ++i) x.value[v * x.M() + i] = MeasureValue(in, x.measures[i], v);
  return x;
}

std::vector<int64_t> GatherLoads(const Rank& r, const RepairInput& in, Measure m, int K,
                                 const std::vector<int32_t>& part) {
  std::vector<int64_t> mine(K, 0), all(static_cast<size_t>(K) * r.size);
  for (size_t v = 0; v < part.size(); ++v) mine[part[v]] += MeasureValue(in, m, static_cast<int64_t>(v));
  MPI_Allgather(mine.data(), K, MPI_INT64_T, all.data(), K, MPI_INT64_T, r.comm);
  return all;
}

std::vector<int64_t> PartTotals(const std::vector<int64_t>& loads, int K, int P) {
  std::vector<int64_t> g(K, 0);
  for (int q = 0; q < P; ++q)
    for (int p = 0; p < K; ++p) g[p] += loads[static_cast<size_t>(q) * K + p];
  return g;
}

double MaxOverMean(const std::vector<int64_t>& totals) {
  const double sum = std::accumulate(totals.begin(), totals.end(), 0.0);
  if (sum <= 0) return 1.0;
  return *std::max_element(totals.begin(), totals.end()) / (sum / totals.size());
}

}  // namespace dg::mpi
