// The learning rate of a run that gives no train.lr / --lr.
//
// No single rate holds on the benchmark panel (docs/panel.md): 0.01 gains up
// to 2 points over 0.003 for GraphSAGE and R-GCN node classification on
// sparse feature rows (bag-of-words rows of a few dozen ones, or rows
// normalized to sum 1), and loses 2 to 23 points on dense ones (Amazon Photo,
// 259 ones per row), for GCN and GAT, and on link prediction. Adam moves
// every first-layer weight by about lr per step, so the first layer's output
// moves by about lr x the row's L1 size: dense rows take the smaller rate.
// docs/models.md "The learning rate" has the figures and the graphs where the
// rule loses.
#pragma once

#include <optional>
#include <string>

#include "config/train_spec.h"

namespace dg {

constexpr double kSparseRowsLr = 0.01;
// The largest mean L1 size of the input rows that takes kSparseRowsLr:
// CiteSeer's rows (32) take it, Amazon Photo's (259) do not.
constexpr double kSparseRowsMaxL1 = 64;
// The input rows sampled to measure their mean L1 size (evenly spaced ids).
constexpr int64_t kRowL1SampleRows = 4096;

// The rate for a model of architecture `arch` (the model file's `arch`
// attribute: "sage", "rgcn", ...) trained for `task` on input rows of mean L1
// size `mean_row_l1` (nullopt: no feature rows, the nodes' inputs are learnt).
double DefaultLearningRate(TrainTask task, const std::string& arch, std::optional<double> mean_row_l1);

// "lr 0.01 (the default for sage on feature rows of mean L1 size 18.2 <= 64)",
// for the log line that says which rate a run took and why.
std::string DescribeDefaultLearningRate(TrainTask task, const std::string& arch, std::optional<double> mean_row_l1);

}  // namespace dg
