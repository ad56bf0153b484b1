// Control-variate training (VR-GCN, Chen et al. 2018), as the 2019
// DGL graph store ran it: `train.algorithm: control_variate` / train-local
// `--algorithm control_variate`.
//
// The model has L >= 2 layers and offers cv_input / cv_layer (model contract,
// roles/trainer/model/model_export.h; README "Writing your own model"). A batch of
// seeds V_{L-1} samples fanouts[l-1] in-neighbours per node for layer l
// (L-1 fanouts, input side first; 2 in the paper), giving V_{L-1} ⊆ ... ⊆ V_0
// (each a prefix of the next, destinations first). Then
//   h^1 = cv_input(x, ax, deg) on V_0, exact: ax is the propagated input
//         (mean of x over the in-neighbours, `propagate --hops 1 --norm mean`)
//   for l = 1 .. L-1, with history H_l (float32 [N, width], zeros at start):
//     h_neigh_v = mean_{u in S_v}(h^l_u - H_l[u]) + (sum_{u in N(v)} H_l[u]) / |N(v)|
//                 (the second term is the aggregating pull, PULL_AGGREGATE;
//                 0 for a node without in-edges)
//     H_l[V_{l-1}] <- h^l (detached; PUSH overwrite)
//     h^{l+1} = cv_layer(l, h^l_v, h_neigh_v, deg_v) on V_l
// i.e. the estimator agg(h)_v ~ (n_v/|S_v|) sum_S (h_u - H_u)/n_v + sum_N H_u / n_v
// for the mean aggregation Â = D^-1 A. The loss is cross entropy on the seeds;
// gradients flow through h^l of the sampled neighbours (the history is a
// constant). Evaluation is exact: all in-neighbours, no history.
//
// The training is the control-variate task (roles/trainer/tasks/cv_task.h)
// in the epoch loop (roles/trainer/loop/epoch_loop.h): rank 0 writes
// out_dir/metrics.jsonl -- per epoch {"epoch","loss","train_acc","val_acc",
// "test_acc","epoch_seconds",...,"bytes_per_step","seeds","algorithm"} and a
// last {"final":true,"best_epoch","best_val_acc","test_acc"} -- model.pt
// (best-validation parameters), checkpoint.pt and step checkpoints (with the
// history tensors); `resume` and restarts continue exactly as the node
// task's. bytes_per_step is CvStore::bytes() over the epoch's training steps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "roles/trainer/cv_store.h"
#include "roles/trainer/trainer.h"

namespace dg {

// The whole run on `store` (the epoch loop with the control-variate task);
// seeds are this trainer's shares.
Status RunControlVariateTask(CvStore* store, const TrainSpec& spec, const TrainHooks& hooks,
                             const TrainerSeeds& seeds);

// A trainer of a distributed job: history tensors are DistTensors on the
// servers, the history term is PULL_AGGREGATE; cv_input must be a node array
// of the partition (InvalidArgument naming train.cv_input otherwise).
Status RunControlVariateDistributed(DistGraphClient* client, NeighborSource* source, const TrainSpec& spec,
                                    const TrainHooks& hooks, const TrainerSeeds& seeds);

// One forward pass for `seeds` in eval mode (no dropout, no gradients), for
// tests: estimator = the control-variate estimator with spec.fanouts and the
// current history (which it then updates, as a training step does; the
// history tensors must exist), else exact over all in-neighbours. Logits
// float32 [seeds, classes].
Result<Array> ControlVariateLogits(CvStore* store, const TrainSpec& spec, const std::vector<int64_t>& seeds,
                                   bool estimator);

// train-local: history in process; spec.cv_input "" = the mean of `features`
// over the in-neighbours, computed here (what `propagate --hops 1 --norm mean` writes).
Status RunControlVariateLocal(InMemoryGraph* graph, const TrainSpec& spec, const TrainHooks& hooks,
                              const TrainerSeeds& seeds);

}  // namespace dg
