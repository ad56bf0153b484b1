#include "common/client/partition_row_l1.h"

#include "common/client/typed_node_rows.h"
#include "common/storage/row_l1.h"

namespace dg {

Result<std::optional<double>> PartitionRowL1(DistGraphClient* client, const PartitionConfig& config,
                                             int64_t sample_rows) {
  const std::vector<int64_t> ids = EvenlySpacedIds(config.num_nodes, sample_rows);
  RowL1Mean mean;
  if (config.typed()) {
    if (TypedFeatureDim(config) == 0) return std::optional<double>();
    DG_ASSIGN_OR_RETURN(Array rows, PullTypedNodeRows(client, "features", ids));
    mean.AddAll(rows);  // a featureless type's rows are zeros, which RowL1Mean leaves out
    return mean.Mean();
  }
  if (!config.node_data.count("features")) return std::optional<double>();
  DG_ASSIGN_OR_RETURN(Array rows, client->PullUncached("features", ids.data(), ids.size()));
  mean.AddAll(rows);
  return mean.Mean();
}

}  // namespace dg
