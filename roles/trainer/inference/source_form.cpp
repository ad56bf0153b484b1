// SourceForm (source_form.h): full-neighbour layers over a NeighborSource.
#include "roles/trainer/inference/source_form.h"

#include "common/storage/neighbor_sampling.h"
#include "roles/trainer/grad_sync.h"
#include "roles/trainer/source/layer_tables.h"
#include "roles/trainer/loop/training_state.h"
#include "roles/trainer/model/model_runner.h"
#include "roles/trainer/trainer_util.h"

namespace dg {
namespace {

class SourceForm : public LayerwiseForm {
 public:
  SourceForm(const SourceFormOptions& o, torch::jit::Module* module, LayerTables* tables)
      : o_(o), module_(module), tables_(tables) {}

  Status Check() const override {
    if (!o_.source || o_.num_nodes <= 0) return Status::InvalidArgument("layer-wise evaluation: no graph");
    if (!HasForwardLayer(*module_))
      return Status::InvalidArgument("model " + o_.model + ": layer-wise evaluation needs forward_layer(layer, x, block)");
    return Status::OK();
  }

  Result<torch::Tensor> InputRows(const std::vector<int64_t>& /*dst*/) override {
    return Status::Internal("a source form has no input layer of its own");
  }

  NodeRange LayerRange(int /*l*/, bool /*last*/) const override { return {0, o_.num_nodes}; }

  Result<torch::Tensor> LayerRows(int l, const std::vector<int64_t>& dst, const std::string& input) override {
    SampledNeighbors nb;
    DG_RETURN_IF_ERROR(o_.source->SampleNeighbors(dst, SampleSpec(), &nb));  // every in-edge
    std::vector<int64_t> src_nodes;
    Block block = BuildBlock(dst, nb, &src_nodes, o_.num_nodes);
    torch::Tensor x;
    if (input.empty()) {  // layer 0: the nodes' own input
      MiniBatch mb;
      mb.input_nodes = src_nodes;
      if (!o_.feature_name.empty()) {
        DG_ASSIGN_OR_RETURN(mb.features, o_.source->Gather(o_.feature_name, src_nodes));
      }
      DG_ASSIGN_OR_RETURN(x, ModelInput(o_.rows, o_.use_features, mb, nullptr));
    } else {
      DG_ASSIGN_OR_RETURN(Array prev, tables_->Read(input, src_nodes));
      x = ArrayTensor(prev);
    }
    try {
      return module_->get_method("forward_layer")({int64_t{l}, x, BlockValue(block)}).toTensor();
    } catch (const std::exception& e) {
      return Status::InvalidArgument("model " + o_.model + ": forward_layer(" + std::to_string(l) +
                                     ") failed: " + FirstLine(e.what()));
    }
  }

 private:
  const SourceFormOptions& o_;
  torch::jit::Module* module_;
  LayerTables* tables_;
};

}  // namespace

std::unique_ptr<LayerwiseForm> MakeSourceForm(const SourceFormOptions& options, torch::jit::Module* module,
                                              LayerTables* tables) {
  return std::make_unique<SourceForm>(options, module, tables);
}

SourceFormOptions TrainingFormOptions(const TrainSpec& spec, NodeEmbedding* rows, NeighborSource* source,
                                      int64_t num_nodes, const std::string& feature_name) {
  SourceFormOptions o;
  o.source = source;
  o.num_nodes = num_nodes;
  o.layers = static_cast<int>(spec.fanouts.size());
  o.feature_name = feature_name;
  o.rows = rows;
  o.use_features = spec.embedding.features;
  o.model = spec.model;
  return o;
}

Result<std::string> ComputeEveryNode(const SourceFormOptions& options, torch::jit::Module* module,
                                     LayerTables* tables, GradientSync* sync, int rank, int world,
                                     int64_t batch_size, const std::string& tag) {
  std::unique_ptr<LayerTables> met;
  if (sync) {
    met = EndLayersAt(tables, [sync] {
      torch::Tensor t = torch::zeros({1});
      return sync->AllReduce({t}, /*average=*/false);
    });
    tables = met.get();
  }
  SourceForm form(options, module, tables);
  DG_RETURN_IF_ERROR(form.Check());
  torch::NoGradGuard no_grad;
  module->train(false);
  LayerShare share;
  share.trainers_per_machine = world;
  share.index = rank;
  share.batch_size = batch_size;
  share.tag = tag;
  share.log_layers = false;
  DG_ASSIGN_OR_RETURN(LayerOutputs out, RunLayers(form, *tables, share, options.layers));
  return out.last;
}

}  // namespace dg
