// Ranking metrics of link prediction, torch-free.
//
// Input: the score of each of P positive edges and of its K negatives
// (neg[i * K + j]). The rank of positive i is 1 + #{j: neg_ij > pos_i} +
// #{j: neg_ij == pos_i} / 2 (ties count half, so a constant scorer gets the
// middle rank, not the best). MRR = mean 1 / rank; Hits@n = fraction of
// positives with rank <= n. ROC-AUC pools every positive against every
// negative score (Mann-Whitney U with average ranks for ties). With P = 0
// every metric is NaN.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dg {

struct LinkMetrics {
  double mrr = 0, hits1 = 0, hits10 = 0, hits50 = 0, auc = 0;
  // Binary cross-entropy with logits over every positive (target 1) and
  // negative (target 0) score, their mean.
  double loss = 0;
  int64_t positives = 0;
  // {"PREFIX_mrr": .., "PREFIX_hits@1": .., ..., "PREFIX_auc": ..} without braces.
  std::string Json(const std::string& prefix) const;
};

LinkMetrics ComputeLinkMetrics(const std::vector<float>& pos, const std::vector<float>& neg, int64_t k);

}  // namespace dg
