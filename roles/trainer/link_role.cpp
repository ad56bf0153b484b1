#include "roles/trainer/link_role.h"

#include <spdlog/spdlog.h>

#include "common/sampling/edge_batch.h"
#include "common/sampling/link_partition.h"
#include "common/storage/link_split.h"
#include "roles/trainer/link_trainer.h"

namespace dg {

Status RunLinkTrainerRole(const LinkRoleContext& ctx, const TrainSpec& spec, const TrainHooks& hooks) {
  const PartitionConfig& pc = *ctx.partition;
  DG_ASSIGN_OR_RETURN(LinkSplitInfo info, ReadLinkSplitInfo(pc.base_dir));
  if (!info.present)
    return Status::InvalidArgument("train.task link: partition " + pc.path +
                                   " has no edge split (no link_split.json); partition it with --edge-split 0.85,0.05,0.10");
  EdgeTable table;
  LinkSeeds seeds;
  LinkBatchOptions lo;
  LinkOptions link;
  if (pc.typed()) {  // one edge type: its edges, negatives of its destination type (link_partition.h)
    DG_ASSIGN_OR_RETURN(PartitionTypedLink typed, TypedTrainEdgeShare(pc, info, ctx.world, ctx.rank, &table,
                                                                      &seeds.train));
    DG_RETURN_IF_ERROR(SetTypedLinkBatchOptions(typed, spec.link.negative_distribution, &lo));
    link.negative_ranges = typed.dst_ranges;
    if (ctx.rank == 0)
      spdlog::info("link prediction on {} ({} training edges; {} held out of message passing); negatives from its "
                   "{} destination nodes",
                   info.etype, table.num_edges(),
                   info.reverse_etype.empty() ? "val/test" : "val/test and their " + info.reverse_etype + " copies",
                   typed.dst_count);
  } else {
    DG_RETURN_IF_ERROR(TrainEdgeShare(pc, ctx.world, ctx.rank, &table, &seeds.train));
    DG_RETURN_IF_ERROR(SetLinkBatchOptions(pc, info, spec.link.negative_distribution, &lo));
  }
  if (ctx.predict) seeds.predict = *ctx.predict;
  DG_RETURN_IF_ERROR(HeldOutShare(pc, "val", ctx.world, ctx.rank, &seeds.val));
  DG_RETURN_IF_ERROR(HeldOutShare(pc, "test", ctx.world, ctx.rank, &seeds.test));
  lo.feature_name = spec.embedding.uses_features() ? "features" : "";
  lo.negatives = spec.link.negative_k;
  std::unique_ptr<LinkBatchProvider> local;
  BatchProvider* edges = ctx.edges;
  if (!edges) {
    local = std::make_unique<LinkBatchProvider>(ctx.source, &table, lo, std::max(1, ctx.sampler_threads), 4);
    edges = local.get();
  }
  link.layerwise_source = ctx.source;  // full-neighbor evaluation: every node's embedding, layer by layer
  link.feature_name = lo.feature_name;
  link.num_nodes = pc.num_nodes;
  spdlog::info("trainer {} of {}: link prediction on {} train edges ({} val / {} test held out here), {} {} negatives",
               ctx.rank, ctx.world, seeds.train.size(), seeds.val.src.size(), seeds.test.src.size(), lo.negatives,
               Name(spec.link.negative_distribution));
  DG_ASSIGN_OR_RETURN(auto trainer, LinkTrainer::Create(spec, hooks, link));
  return trainer->Fit(edges, ctx.nodes, seeds);
}

}  // namespace dg
