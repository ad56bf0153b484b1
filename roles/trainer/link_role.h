// The trainer role's link-prediction run (train.task: link): called
// by trainer_role.cpp once the servers, samplers (or sampling threads) and the
// node BatchProvider are set up.
//
// Needs a partition made with --edge-split (link_split.json). Training edges:
// TrainEdgeShare (common/sampling/link_partition.h); batches made in-process by
// a LinkBatchProvider over the servers, or, with sampler processes, by the
// samplers (`edges` given); val/test: HeldOutShare; evaluation embeddings from
// `nodes`. With one partition and one trainer the run equals train-local
// --task link on the same dataset, split and seeds. A typed partition split on
// one edge type (`partition --edge-split --link-etype`, train.link_etype)
// trains on that type's edges (TypedTrainEdgeShare) with negatives of its
// destination type, in batches and in evaluation, and a typed model.
#pragma once

#include "common/client/dist_graph_client.h"
#include "common/sampling/batch_provider.h"
#include "common/base/status.h"
#include "common/storage/partition.h"
#include "config/train_spec.h"
#include "roles/trainer/loop/train_hooks.h"
#include "roles/trainer/trainer.h"

namespace dg {

struct LinkRoleContext {
  const PartitionConfig* partition = nullptr;
  NeighborSource* source = nullptr;   // the servers, for in-process sampling
  BatchProvider* nodes = nullptr;     // node batches (evaluation embeddings)
  BatchProvider* edges = nullptr;     // link batches from sampler processes; null = sample in-process
  int sampler_threads = 1;
  int world = 1, rank = 0;
  // save_embeddings (rank 0): the nodes of embeddings.npy, in row order; null = none.
  const std::vector<int64_t>* predict = nullptr;
};

// `spec` is the job's (with this trainer's threads and resume).
Status RunLinkTrainerRole(const LinkRoleContext& ctx, const TrainSpec& spec, const TrainHooks& hooks);

}  // namespace dg
