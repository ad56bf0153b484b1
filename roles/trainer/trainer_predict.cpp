// Trainer's predictions.npy and embeddings.npy: the model's output (and last
// hidden layer) for every node asked for, written by rank 0 in the order given.
#include <cstring>

#include "common/io/npy.h"
#include "common/storage/neighbor_sampling.h"
#include "roles/trainer/model_runner.h"
#include "roles/trainer/trainer_impl.h"
#include "roles/trainer/trainer_util.h"

namespace dg {

Status Trainer::Impl::Predict(BatchProvider* provider, const std::vector<int64_t>& nodes) {
  EpochRequest req;
  req.seeds = nodes;
  req.batch_size = EvalBatchSize();
  req.shuffle = false;
  req.labels = false;
  req.fanouts = opt.eval_fanouts.empty() ? std::vector<int>(opt.fanouts.size(), -1) : opt.eval_fanouts;
  req.job_seed = MixSeed(opt.seed, 0x9ed1);
  DG_RETURN_IF_ERROR(provider->BeginEpoch(req));
  torch::NoGradGuard no_grad;
  module.train(false);
  std::vector<torch::Tensor> preds, embs;
  MiniBatch mb;
  while (true) {
    DG_ASSIGN_OR_RETURN(bool more, provider->Next(&mb));
    if (!more) break;
    if (opt.save_embeddings) {
      try {
        DG_ASSIGN_OR_RETURN(torch::Tensor h, Input(mb, nullptr));
        const int L = static_cast<int>(mb.blocks.size());
        for (int l = 0; l < L; ++l) {
          if (l == L - 1) embs.push_back(h.narrow(0, 0, mb.blocks[l].num_dst).clone());
          h = module.get_method("forward_layer")({int64_t{l}, h, BlockValue(mb.blocks[l])}).toTensor();
        }
        preds.push_back(h.argmax(1));
      } catch (const std::exception& e) {
        return Status::InvalidArgument("model " + opt.model_path + ": forward_layer failed: " +
                                       FirstLine(e.what()));
      }
    } else {
      DG_ASSIGN_OR_RETURN(torch::Tensor logits, Forward(mb));
      preds.push_back(logits.argmax(1));
    }
  }
  if (opt.save_predictions) {
    torch::Tensor p = torch::cat(preds).to(torch::kInt64).contiguous();
    Array a = Array::Zeros(DType::kInt64, {p.size(0)});
    std::memcpy(a.data, p.data_ptr(), a.nbytes());
    DG_RETURN_IF_ERROR(NpyWrite(OutPath("predictions.npy"), a));
  }
  if (opt.save_embeddings) {
    torch::Tensor e = torch::cat(embs).to(torch::kFloat32).contiguous();
    Array a = Array::Zeros(DType::kFloat32, {e.size(0), e.size(1)});
    std::memcpy(a.data, e.data_ptr(), a.nbytes());
    DG_RETURN_IF_ERROR(NpyWrite(OutPath("embeddings.npy"), a));
  }
  return Status::OK();
}

}  // namespace dg
