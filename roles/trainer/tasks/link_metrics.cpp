#include "roles/trainer/tasks/link_metrics.h"

#include <algorithm>
#include <cmath>

#include "roles/trainer/trainer_util.h"

namespace dg {

std::string LinkMetrics::Json(const std::string& p) const {
  return "\"" + p + "_mrr\": " + MetricNumber(mrr) + ", \"" + p + "_hits@1\": " + MetricNumber(hits1) + ", \"" + p +
         "_hits@10\": " + MetricNumber(hits10) + ", \"" + p + "_hits@50\": " + MetricNumber(hits50) + ", \"" + p +
         "_auc\": " + MetricNumber(auc);
}

LinkMetrics ComputeLinkMetrics(const std::vector<float>& pos, const std::vector<float>& neg, int64_t k) {
  LinkMetrics m;
  const int64_t P = static_cast<int64_t>(pos.size());
  m.positives = P;
  if (P == 0) {
    m.mrr = m.hits1 = m.hits10 = m.hits50 = m.auc = m.loss = std::nan("");
    return m;
  }
  // log(1 + e^x), stable for large |x|: the loss of a negative scored x, and of a positive scored -x.
  auto softplus = [](double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); };
  double bce = 0;
  for (float s : pos) bce += softplus(-static_cast<double>(s));
  for (float s : neg) bce += softplus(static_cast<double>(s));
  m.loss = bce / static_cast<double>(pos.size() + neg.size());
  double rr = 0, h1 = 0, h10 = 0, h50 = 0;
  for (int64_t i = 0; i < P; ++i) {
    double greater = 0, equal = 0;
    for (int64_t j = 0; j < k; ++j) {
      const float s = neg[i * k + j];
      greater += s > pos[i];
      equal += s == pos[i];
    }
    const double rank = 1 + greater + equal / 2;
    rr += 1 / rank;
    h1 += rank <= 1;
    h10 += rank <= 10;
    h50 += rank <= 50;
  }
  m.mrr = rr / P;
  m.hits1 = h1 / P;
  m.hits10 = h10 / P;
  m.hits50 = h50 / P;
  // AUC: (sum of positive ranks - P (P + 1) / 2) / (P * N), average ranks over ties.
  const int64_t N = static_cast<int64_t>(neg.size());
  if (N == 0) {
    m.auc = std::nan("");
    return m;
  }
  std::vector<std::pair<float, bool>> all;
  all.reserve(P + N);
  for (float s : pos) all.emplace_back(s, true);
  for (float s : neg) all.emplace_back(s, false);
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double pos_rank_sum = 0;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double avg = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (size_t t = i; t < j; ++t)
      if (all[t].second) pos_rank_sum += avg;
    i = j;
  }
  m.auc = (pos_rank_sum - static_cast<double>(P) * (P + 1) / 2) / (static_cast<double>(P) * N);
  return m;
}

}  // namespace dg
