// Loading a TorchScript model, checking it against the model contract, and
// turning a MiniBatch into its arguments. Includes torch: roles/trainer only.
//
// Contract (docs/models.md): forward(self, x: Tensor, blocks: List[Tuple[Tensor,
// Tensor, int]]) -> Tensor. A module that does not fit gets a message naming the
// file, the schema found and what is wrong.
#pragma once

#include <torch/script.h>

#include <string>

#include "common/sampling/minibatch.h"
#include "common/base/status.h"

namespace dg {

Result<torch::jit::Module> LoadModel(const std::string& path);
Status CheckModelContract(const torch::jit::Module& module, const std::string& path);
bool HasForwardLayer(const torch::jit::Module& module);
// forward_layer_agg(self, x_dst: Tensor, neigh_mean: Tensor, block) -> Tensor:
// forward_agg's layer 0 alone (docs/models.md "Pre-aggregated first layer").
bool HasForwardLayerAgg(const torch::jit::Module& module);
// The typed contract: forward(self, x: Tensor, blocks: List[Tuple[Tensor,
// Tensor, Tensor, Tensor, int]]) -> Tensor, blocks (indptr, indices, etype,
// src_ntype, num_dst) (docs/models.md "Typed graphs").
bool IsTypedModel(const torch::jit::Module& module);
// forward_agg(self, x_dst: Tensor, neigh_mean: Tensor, blocks: List[Tuple[Tensor,
// Tensor, int]]) -> Tensor (a typed model: forward_agg(self, x, neigh_mean,
// blocks) with typed blocks): false when absent, an error when its signature
// differs.
Result<bool> HasForwardAgg(const torch::jit::Module& module, const std::string& path);
// A typed model's agg_relations: the relations (edge type ids, ascending)
// whose block-0 means its forward_agg takes from neigh_mean.
Result<std::vector<int64_t>> AggRelations(const torch::jit::Module& module, const std::string& path);

// A tensor sharing the Array's memory (keeps its holder alive).
torch::Tensor ArrayTensor(const Array& array);
// The other way, copied: an int64 tensor as int64, any other as float32.
Array TensorArray(const torch::Tensor& t);
// A tensor over a vector's memory (no copy; the vector must outlive it).
torch::Tensor VectorTensor(const std::vector<int64_t>& v);
torch::Tensor VectorTensor(const IdBuffer& v);
torch::IValue BlockValue(const Block& block);
// (indptr, indices, etype, src_ntype, num_dst) of a typed batch's block;
// src_ntypes: the batch's input_ntypes (a prefix of it is the block's).
torch::IValue TypedBlockValue(const Block& block, const std::vector<int64_t>& src_ntypes);
// List[Tuple[Tensor, Tensor, int]] of the batch's blocks; for a typed batch
// (input_ntypes set) List[Tuple[Tensor, Tensor, Tensor, Tensor, int]].
torch::IValue BlocksValue(const MiniBatch& batch);

}  // namespace dg
