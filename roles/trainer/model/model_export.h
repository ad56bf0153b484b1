// Ready-made GNN models (GraphSAGE-mean, GCN, GAT) written as TorchScript
// source and compiled in C++: `distgnn model export` needs no Python.
//
// Every exported module follows the model contract (docs/models.md):
//   forward(self, x: Tensor, blocks: List[Tuple[Tensor, Tensor, int]]) -> Tensor
// and also offers
//   forward_layer(self, layer: int, x: Tensor, block: Tuple[Tensor, Tensor, int]) -> Tensor
//   attributes num_layers: int, arch: str, in_dim: int, num_classes: int
// and, for sage and gcn with >= 2 layers, what control-variate training
// (roles/trainer/tasks/cv_task.h) calls:
//   cv_input(self, x: Tensor, ax: Tensor, deg: Tensor) -> Tensor   layer 0
//   cv_layer(self, layer: int, h_self: Tensor, h_neigh: Tensor, deg: Tensor) -> Tensor
// and, for sage without input_dropout, the pre-aggregated first layer
// (common/client/block_input.h):
//   forward_agg(self, x_dst: Tensor, neigh_mean: Tensor, blocks: List[Tuple[Tensor, Tensor, int]]) -> Tensor
// (rgcn and hetero-sage with relation_src_types and no input_dropout: the
// typed form forward_agg(self, x, neigh_mean, blocks) over typed blocks and
// the attribute agg_relations: List[int], the relations out of types with
// features, whose means come from neigh_mean; docs/models.md).
// Dropout is applied while training to the input of every hidden layer
// (`dropout`) and, only if input_dropout > 0, to the raw input features, as
// DGL's examples do; no mask is drawn at p = 0 or in eval mode. Aggregations
// call the native operators torch.ops.distgnn.* (graph_ops/graph_ops.h).
//   sage: h_dst W_self + mean_{j in N(i)} h_j W_neigh + b (DGL SAGEConv 'mean')
//   gcn:  D_in^-1/2 (A + I) D_out^-1/2 H W + b (self loops added per block)
//   gat:  multi-head attention with self loops; hidden layers concatenate
//         `heads` heads of hidden/heads features (elu), the last layer has 1 head.
//   mlp:  an MLP on the seeds' own rows (x[:num_seeds]); the graph is unused
//         (the baseline of a GNN on the same features).
// Typed graphs (rgcn, hetero-sage) follow the typed contract (docs/models.md):
//   forward(self, x: Tensor, blocks: List[Tuple[Tensor, Tensor, Tensor, Tensor, int]]) -> Tensor
// with blocks (indptr, indices, etype, src_ntype, num_dst); x = [padded
// features F_max | node embedding D]. Each node type first gets a hidden row
// (its own features through its input weight, or, for a featureless type, its
// embedding columns through its input weight, or a learnt per-type vector
// when D = 0), then every layer adds to a self term the mean over each
// relation's in-edges projected by that relation's weight:
//   h_i' = W_self h_i + b + sum_r mean_{j in N_r(i)} W_r h_j
//   rgcn: W_r = sum_b a_rb V_b (basis decomposition, Schlichtkrull et al.)
//         when bases < relations, else one W_r per relation (DGL's RelGraphConv)
//   hetero-sage: one W_r per relation.
// With featureless_input relation-rows (every node type featureless) there is
// no input layer: x is the node's row of K + 1 blocks of layer 0's output
// width (K = the bases, or the relations), and layer 0 is
//   h_i' = x_i[K] + b + sum_r mean_{j in N_r(i)} sum_k a_rk x_j[k]
// with a_rk the coefficients (rgcn with bases) or a_rk = [r == k]: the
// one-hot input's W_r rows, learnt as the node's own row.
// Typed input and self weights start as torch.nn.Linear's, relation weights
// N(0, 2/in) (docs/models.md, "Accuracy on IMDB").
// Parameters are initialised deterministically from `seed`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"

namespace dg {

// The architectures model export writes; rgcn and hetero-sage are typed.
enum class ModelArch { kSage, kGcn, kGat, kMlp, kRgcn, kHeteroSage };

// "sage", "gcn", "gat", "mlp", "rgcn", "hetero-sage": the --arch words, and the
// model file's `arch` attribute.
const char* Name(ModelArch arch);
// False on an unknown word.
bool Parse(const std::string& word, ModelArch* out);
// "sage, gcn, gat, mlp, rgcn or hetero-sage", for messages.
std::string ModelArchChoices();

// ModelSpec::embedding_dim for "chosen from the types" (typed_model_spec.h).
constexpr int64_t kEmbeddingDimAuto = -1;

// How a featureless node type's nodes enter a typed model (docs/models.md,
// "Featureless node types"):
//   kTypeRows: a learnt row per node (embedding_dim columns) through the type's
//     input weight, then every relational layer;
//   kRelationRows: R-GCN's one-hot input (Schlichtkrull et al.): a learnt
//     row per node holds a block of layer 0's output width per relation weight of
//     layer 0 (one per basis with bases, else one per relation) and one for
//     the self weight, and layer 0 reads the blocks directly, mixing them by
//     the relation's coefficients. Only where no node type has features.
enum class FeaturelessInput { kTypeRows, kRelationRows };
// "type-rows", "relation-rows": the --featureless-input words, and the model
// file's `featureless_input` attribute.
const char* Name(FeaturelessInput input);
bool Parse(const std::string& word, FeaturelessInput* out);

struct ModelSpec {
  ModelArch arch = ModelArch::kSage;
  int64_t in_dim = 0;
  int64_t hidden = 256;
  int64_t classes = 0;
  int layers = 2;
  double dropout = 0.5;        // input of hidden layers
  double input_dropout = 0;    // input features (layer 0)
  double attn_dropout = 0.5;  // gat only
  int heads = 8;              // gat only
  uint64_t seed = 0;
  // rgcn | hetero-sage: the feature width of each node type (0 = none), the
  // node embedding's width (the input of featureless types; 0: one learnt
  // vector per featureless type) and the relations. in_dim is then
  // max(type_feature_dims) + embedding_dim (set by the export).
  std::vector<int64_t> type_feature_dims;
  int64_t embedding_dim = 0;
  int num_relations = 0;
  // The source node type of each relation (empty: unknown). With it, and no
  // input_dropout, rgcn and hetero-sage offer forward_agg: the relations whose
  // source type has features take the servers' mean of those rows.
  std::vector<int> relation_src_types;
  int bases = 0;  // rgcn: number of bases; 0 (or >= relations) = one weight per relation
  FeaturelessInput featureless_input = FeaturelessInput::kTypeRows;
  // The learnt rows' start scale, learning rate and decoupled weight decay,
  // which the model records (`embedding_init_scale`, `embedding_lr`,
  // `embedding_weight_decay`) for the trainer to take unless the user sets
  // them; chosen from the types (typed_model_spec.h). < 0: none.
  double embedding_init_scale = -1, embedding_lr = -1, embedding_weight_decay = -1;
};

bool IsTypedArch(ModelArch arch);
// relation-rows: the blocks of layer 0's weights in a node's row (the bases,
// or the relations), a block's width (layer 0's output width), and the row's
// width: one block more (the self weight).
int RelationRowBlocks(const ModelSpec& spec);
int64_t RelationRowBlockWidth(const ModelSpec& spec);
int64_t RelationRowsWidth(const ModelSpec& spec);

Status ValidateModelSpec(const ModelSpec& spec);
// The TorchScript source of the module's methods (for inspection and tests).
Result<std::string> ModelSource(const ModelSpec& spec);
// Compiles the model and saves it as a TorchScript archive at `path`.
Status ExportModel(const ModelSpec& spec, const std::string& path);

}  // namespace dg
