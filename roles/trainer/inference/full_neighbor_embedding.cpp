#include "roles/trainer/inference/full_neighbor_embedding.h"

#include <torch/torch.h>

#include <algorithm>

#include "common/storage/neighbor_sampling.h"
#include "roles/trainer/loop/training_state.h"
#include "roles/trainer/model/model_runner.h"
#include "roles/trainer/trainer_util.h"

namespace dg {
namespace {

// Layer l's rows of `dst` (layer 0 from the nodes' input, else from `h_prev`).
Result<torch::Tensor> LayerRows(torch::jit::Module& module, const std::string& model, const FullNeighborEmbedding& o,
                                int l, const std::vector<int64_t>& dst, const torch::Tensor& h_prev) {
  SampledNeighbors nb;
  DG_RETURN_IF_ERROR(o.source->SampleNeighbors(dst, SampleSpec(), &nb));  // every in-edge
  std::vector<int64_t> src_nodes;
  Block block = BuildBlock(dst, nb, &src_nodes, o.num_nodes);
  torch::Tensor x;
  if (l == 0) {
    MiniBatch mb;
    mb.input_nodes = src_nodes;
    if (!o.feature_name.empty()) {
      DG_ASSIGN_OR_RETURN(mb.features, o.source->Gather(o.feature_name, src_nodes));
    }
    DG_ASSIGN_OR_RETURN(x, ModelInput(o.rows, o.use_features, mb, nullptr));
  } else {
    x = h_prev.index_select(0, VectorTensor(src_nodes));
  }
  try {
    return module.get_method("forward_layer")({int64_t{l}, x, BlockValue(block)}).toTensor();
  } catch (const std::exception& e) {
    return Status::InvalidArgument("model " + model + ": forward_layer(" + std::to_string(l) +
                                   ") failed: " + FirstLine(e.what()));
  }
}

}  // namespace

Result<torch::Tensor> EmbedAllNodes(torch::jit::Module& module, const std::string& model,
                                    const FullNeighborEmbedding& o) {
  torch::NoGradGuard no_grad;
  module.train(false);
  const int64_t N = o.num_nodes;
  std::vector<int64_t> all(static_cast<size_t>(N));
  for (int64_t i = 0; i < N; ++i) all[i] = i;
  const std::vector<int64_t> mine = NodeSplit(all, o.world, o.rank, /*even=*/false);
  const size_t bs = static_cast<size_t>(std::max<int64_t>(1, o.batch_size));
  torch::Tensor h_cur;
  for (int l = 0; l < o.layers; ++l) {
    torch::Tensor h_next;
    int64_t width = -1;
    for (size_t c = 0; c < mine.size(); c += bs) {
      std::vector<int64_t> dst(mine.begin() + c, mine.begin() + std::min(mine.size(), c + bs));
      DG_ASSIGN_OR_RETURN(torch::Tensor h, LayerRows(module, model, o, l, dst, h_cur));
      if (!h_next.defined()) {
        width = h.size(1);
        h_next = torch::zeros({N, width}, torch::kFloat32);
      }
      h_next.index_copy_(0, VectorTensor(dst), h.to(torch::kFloat32));
    }
    // Every rank must agree on the width before the sum (a rank may have no nodes).
    if (o.sync) {
      torch::Tensor wmax = torch::zeros({o.world}, torch::kFloat64);
      wmax[o.rank] = static_cast<double>(width);
      DG_RETURN_IF_ERROR(o.sync->AllReduce({wmax}, false));
      width = static_cast<int64_t>(wmax.max().item<double>());
      if (!h_next.defined()) h_next = torch::zeros({N, width}, torch::kFloat32);
      DG_RETURN_IF_ERROR(o.sync->AllReduce({h_next}, false));
    }
    if (!h_next.defined()) return Status::InvalidArgument("layer-wise evaluation: no nodes");
    h_cur = h_next;
  }
  return h_cur;
}

}  // namespace dg
