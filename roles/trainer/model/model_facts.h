// What a TorchScript model file offers, asked from outside torch (the
// trainer role's input choice, train-local, tools and tests). Torch-free.
#pragma once

#include <string>
#include <vector>

#include "common/base/status.h"

namespace dg {

// Whether the model offers forward_agg(x_dst, neigh_mean, blocks) -- its first
// layer from block 0's destination rows and the mean of their sampled
// sources (docs/models.md) -- so the servers may aggregate block 0. A
// forward_agg with another signature is an error naming the file.
Result<bool> ModelHasForwardAgg(const std::string& path);

// A typed model's forward_agg: the relations whose block-0 means it takes from
// the servers (its agg_relations); an error when the model has none.
Result<std::vector<int64_t>> ModelAggRelations(const std::string& path);

// Whether the model takes the typed form of the contract (rgcn, hetero-sage;
// docs/models.md "Typed graphs").
Result<bool> ModelIsTyped(const std::string& path);

// Parameters of a TorchScript file, flattened in named_parameters order.
Result<std::vector<float>> ModelParameterVector(const std::string& path);

}  // namespace dg
