#include "roles/sampler/link_sampler.h"

#include "common/sampling/link_partition.h"
#include "common/storage/link_split.h"

namespace dg {

Result<std::unique_ptr<LinkSamplerState>> MakeLinkSamplerState(const JobConfig& job, const PartitionConfig& pc,
                                                               NeighborSource* source, int trainer_rank, int workers,
                                                               int prefetch) {
  DG_ASSIGN_OR_RETURN(LinkSplitInfo info, ReadLinkSplitInfo(pc.base_dir));
  if (!info.present)
    return Status::InvalidArgument("train.task link: partition " + pc.path +
                                   " has no edge split (no link_split.json); partition it with --edge-split");
  auto st = std::make_unique<LinkSamplerState>();
  std::vector<int64_t> ids;
  LinkBatchOptions lo;
  if (pc.typed()) {  // as the trainer's (roles/trainer/source/job_source.cpp)
    DG_ASSIGN_OR_RETURN(PartitionTypedLink typed,
                        TypedTrainEdgeShare(pc, info, job.num_trainers(), trainer_rank, &st->table, &ids));
    DG_RETURN_IF_ERROR(SetTypedLinkBatchOptions(typed, job.train.link.negative_distribution, &lo));
  } else {
    DG_RETURN_IF_ERROR(TrainEdgeShare(pc, job.num_trainers(), trainer_rank, &st->table, &ids));
    DG_RETURN_IF_ERROR(SetLinkBatchOptions(pc, info, job.train.link.negative_distribution, &lo));
  }
  lo.feature_name = job.train.embedding.uses_features() ? "features" : "";
  lo.negatives = job.train.link.negative_k;
  st->provider = std::make_unique<LinkBatchProvider>(source, &st->table, lo, workers, prefetch);
  return st;
}

}  // namespace dg
