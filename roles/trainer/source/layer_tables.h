// LayerTables: where layer-wise evaluation keeps each layer's rows of every
// node while the next layer reads them (inference/layerwise_form.h's driver).
// Two implementations:
//  - a job's (MakeDistLayerTables): scratch DistTensors on the servers, each
//    partition holding its own nodes' rows (InitTensorSpec::scratch keeps them
//    out of step checkpoints); a trainer holds only the rows of one batch, and
//    a layer ends at a barrier of every trainer;
//  - train-local's (MakeLocalLayerTables): one float32 [N, D] array per layer
//    in this process, beside the graph it already holds.
// A table is made by the first Write to it, [num_nodes, width of the rows]
// float32, and kept for the next evaluation (same name, same shape). Torch-free.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/base/status.h"

namespace dg {

class DistGraphClient;

class LayerTables {
 public:
  virtual ~LayerTables() = default;
  // Rows [ids.size(), D] float32 into table `name` at `ids`.
  virtual Status Write(const std::string& name, const std::vector<int64_t>& ids, const Array& rows) = 0;
  // Rows of `ids` in their order (the table must have been written).
  virtual Result<Array> Read(const std::string& name, const std::vector<int64_t>& ids) = 0;
  // Every trainer has written its rows of `name`; waits for the others.
  virtual Status EndLayer(const std::string& name) = 0;
};

// `world` trainers meet at each layer's barrier; `client` outlives the tables.
std::unique_ptr<LayerTables> MakeDistLayerTables(DistGraphClient* client, int world);
// `tables` (outliving the result) whose layers end at `barrier` instead: the
// trainers' own collective, which names a lost or frozen trainer by its
// deadline, where the servers' BARRIER would wait out its call deadline.
std::unique_ptr<LayerTables> EndLayersAt(LayerTables* tables, std::function<Status()> barrier);
std::unique_ptr<LayerTables> MakeLocalLayerTables(int64_t num_nodes);

}  // namespace dg
