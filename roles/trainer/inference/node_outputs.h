// Node classification's outputs after training (train.save_predictions,
// train.save_embeddings), made from node batches of the nodes asked for, with
// the evaluation fanouts (full neighbourhoods by default) and the model in
// eval mode:
//  - predictions.npy: the argmax class of each node of NodeOutputRows::predict;
//  - embeddings: the last hidden layer (the input of the model's last
//    forward_layer) of each node of NodeOutputRows::embed — embeddings.npy on
//    a homogeneous graph, embeddings/<type>.npy per node type on a typed one
//    (forward_input first, then typed blocks: docs/models.md's typed contract).
// Rows are in the order given (the sources give original node order).
#pragma once

#include <functional>
#include <vector>

#include <torch/script.h>

#include "common/sampling/batch_provider.h"
#include "config/train_spec.h"
#include "roles/trainer/loop/train_hooks.h"
#include "roles/trainer/source/graph_source.h"

namespace dg {

// The model's class logits of a batch's seeds (the task's forward, which
// takes block 0 aggregated at the servers when the batch carries it).
using BatchForward = std::function<Result<torch::Tensor>(const MiniBatch&)>;

// Writes what spec asks for into hooks.OutPath(...) (the caller is the run's writer).
Status WriteNodeOutputs(const TrainSpec& spec, const TrainHooks& hooks, torch::jit::Module& module,
                        BatchProvider* batches, const NodeOutputRows& rows, const BatchForward& forward);

// Rows of every node type of rows.embed_types, type after type, into
// embeddings/<type>.npy (float32).
Status WriteTypedEmbeddings(const TrainHooks& hooks, const NodeOutputRows& rows, const torch::Tensor& embeddings);

// Checks that `module` can give what spec asks for: the last hidden layer
// needs forward_layer (and forward_input on a typed model).
Status CheckNodeOutputs(const TrainSpec& spec, const torch::jit::Module& module);

}  // namespace dg
