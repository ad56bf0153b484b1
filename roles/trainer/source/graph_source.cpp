// LinkOptions::Check (graph_source.h): what a source hands the link task is
// checked once, before the task uses it.
#include "roles/trainer/source/graph_source.h"

namespace dg {
namespace {

Status OutOfGraph(int64_t first, int64_t count, int64_t num_nodes) {
  return Status::InvalidArgument("link prediction: evaluation negatives [" + std::to_string(first) + ", +" +
                                 std::to_string(count) + ") out of the graph's " + std::to_string(num_nodes) +
                                 " nodes");
}

}  // namespace

Status LinkOptions::Check() const {
  if (num_nodes <= 0) return Status::InvalidArgument("link prediction needs a graph with nodes");
  if (negative_first < 0 || negative_count < 0 || negative_first + negative_count > num_nodes)
    return OutOfGraph(negative_first, negative_count, num_nodes);
  int64_t range_total = 0;
  for (const auto& [first, count] : negative_ranges) {
    if (first < 0 || count < 0 || first + count > num_nodes) return OutOfGraph(first, count, num_nodes);
    range_total += count;
  }
  if (!negative_ranges.empty() && range_total == 0)
    return Status::InvalidArgument("link prediction: no destination nodes to draw evaluation negatives from");
  return Status::OK();
}

}  // namespace dg
