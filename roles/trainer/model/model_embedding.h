// The node embedding a model reads, taken from the model file so that a job
// need not repeat the width: `distgnn model export` records it.
//
//  - A typed model (rgcn, hetero-sage) records `embedding_dim`, the width of
//    the learnt rows its featureless node types read (0: one learnt vector per
//    featureless type instead). The trainer and train-local take it when the
//    user gives no width (train.embedding.dim, --embedding-dim), with the
//    start scale and learning rate below unless the user sets them.
//  - On a homogeneous dataset without features, a model's `in_dim` is the
//    width of a learnt row per node that is the model's whole input
//    (train-local's --no-features --embedding-dim in_dim).
//
// A width the user gives that differs from the model's is an error naming
// both; a model that records nothing (written by hand) changes nothing.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "common/base/status.h"
#include "config/train_spec.h"

namespace dg {

// The start scale and learning rate of a typed model's featureless rows when
// the user sets none (train.embedding.init_scale / lr). Export chooses them
// from the types and records them in the model (docs/models.md "Featureless
// node types"): when every featureless type has a neighbour type with
// features, the rows start at zero (each node starts as its type's learnt
// vector, the input bias) and learn slowly, since the featured neighbours carry
// the signal and fast random rows memorise the few labels through them; when a
// featureless type has none (an RDF graph, ogbn-mag's institutions), its rows
// are the only signal there and start random and learn fast. A model that
// records none takes the first pair.
constexpr double kFeaturelessTypeInitScale = 0;
constexpr double kFeaturelessTypeLr = 0.001;
constexpr double kUnanchoredTypeInitScale = 0.1;
constexpr double kUnanchoredTypeLr = 0.05;
// Relation rows decay as the one-hot input's weights do under R-GCN's L2
// penalty, which reaches every node's weights each step, read or not: a
// decoupled decay of every row (train.embedding.weight_decay), by 1 - lr * wd
// per step, 0.95 at the rows' rate. Chosen on the panel's two graphs without
// features (docs/panel.md): MUTAG needs the decay (68.1 without, 72.1 with)
// and AIFB loses 0.8 to none (docs/models.md "The decay, and where it loses").
constexpr double kRelationRowsWeightDecay = 1.0;
// Relation rows (model_export.h) start as the one-hot input's weights of
// R-GCN's code do: Xavier-uniform over a [nodes, width] weight, in
// +-sqrt(6 / (nodes + width)) (AIFB 0.027, MUTAG 0.016 at width 16); they
// learn at kUnanchoredTypeLr.
inline double RelationRowsInitScale(int64_t nodes, int64_t width) {
  return std::sqrt(6.0 / static_cast<double>(nodes + width));
}

// key: the user's name for the width, e.g. "--embedding-dim" or
// "job.yaml: train.embedding.dim".
Status TakeTypedModelEmbedding(const std::string& model_path, const std::string& key, EmbeddingSpec* embedding);
Status TakeFeaturelessModelEmbedding(const std::string& model_path, const std::string& key,
                                     EmbeddingSpec* embedding);

}  // namespace dg
