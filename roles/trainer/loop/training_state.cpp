#include "roles/trainer/loop/training_state.h"

#include <cstring>
#include <filesystem>

#include "common/storage/node_embedding.h"

#include "roles/trainer/model/model_runner.h"
#include "roles/trainer/trainer_util.h"

namespace dg {

Result<torch::Tensor> ModelInput(NodeEmbedding* embedding, bool use_features, const MiniBatch& mb,
                                 torch::Tensor* emb_leaf) {
  torch::Tensor x;
  if (use_features || !embedding) {
    if (mb.features.dtype != DType::kFloat32 || mb.features.shape.size() != 2)
      return Status::InvalidArgument("features must be a float32 [N, F] array, got " +
                                     std::string(DTypeName(mb.features.dtype)) + mb.features.ShapeString());
    x = ArrayTensor(mb.features);
  }
  if (!embedding) return x;
  DG_ASSIGN_OR_RETURN(Array rows, embedding->Rows(mb.input_nodes));
  torch::Tensor e = ArrayTensor(rows);
  if (emb_leaf) {
    e = e.clone().set_requires_grad(true);
    *emb_leaf = e;
  }
  return x.defined() ? torch::cat({x, e}, 1) : e;
}

Result<torch::Tensor> ModelForward(torch::jit::Module& module, const TrainSpec& spec, NodeEmbedding* embedding,
                                   const MiniBatch& mb, torch::Tensor* emb_leaf) {
  if (mb.blocks.size() != spec.fanouts.size())
    return Status::InvalidArgument("batch has " + std::to_string(mb.blocks.size()) + " blocks, expected " +
                                   std::to_string(spec.fanouts.size()));
  DG_ASSIGN_OR_RETURN(torch::Tensor x, ModelInput(embedding, spec.embedding.features, mb, emb_leaf));
  try {
    if (!mb.input_neigh_mean.shape.empty())  // block 0 aggregated where the features live
      return module.get_method("forward_agg")({x, ArrayTensor(mb.input_neigh_mean), BlocksValue(mb)}).toTensor();
    return module.forward({x, BlocksValue(mb)}).toTensor();
  } catch (const std::exception& e) {
    return Status::InvalidArgument("model " + spec.model + ": forward failed on a batch with " +
                                   std::to_string(x.size(1)) + "-dim input rows: " + FirstLine(e.what()));
  }
}

Status UpdateEmbedding(NodeEmbedding* embedding, ModelState* model, const std::vector<int64_t>& ids,
                       const std::vector<torch::Tensor>& leaves) {
  std::vector<torch::Tensor> grads;
  for (const torch::Tensor& leaf : leaves) grads.push_back(leaf.grad().defined() ? leaf.grad() : torch::zeros_like(leaf));
  torch::Tensor g = (grads.size() == 1 ? grads[0] : torch::cat(grads)).to(torch::kFloat32).contiguous();
  Array a = Array::Zeros(DType::kFloat32, {g.size(0), g.size(1)});
  std::memcpy(a.data, g.data_ptr(), a.nbytes());
  return embedding->Update(ids, a, model->embedding_steps++);
}

Result<torch::Tensor> AllRngStates(GradientSync* sync, const DataParallelOptions& dp) {
  torch::Tensor mine = at::detail::getDefaultCPUGenerator().get_state();
  if (!sync) return mine.unsqueeze(0);
  torch::Tensor all = torch::zeros({dp.world_size, mine.numel()}, torch::kInt32);
  all[dp.rank].copy_(mine.to(torch::kInt32));
  DG_RETURN_IF_ERROR(sync->AllReduce({all}, /*average=*/false));
  return all.to(torch::kUInt8);
}

std::vector<float> FlattenParameters(const std::vector<torch::Tensor>& params) {
  std::vector<float> out;
  for (const auto& p : params) {
    torch::Tensor c = p.detach().to(torch::kFloat32).contiguous().reshape({-1});
    out.insert(out.end(), c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  }
  return out;
}

Status WriteModelFile(ModelState* m, const std::string& path, bool use_best) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> saved;
  if (use_best && !m->best_params.empty()) {
    for (size_t i = 0; i < m->params.size(); ++i) {
      saved.push_back(m->params[i].detach().clone());
      m->params[i].detach().copy_(m->best_params[i]);
    }
  }
  Status st;
  try {
    m->module.train(false);
    m->module.save(path + ".tmp");
    std::filesystem::rename(path + ".tmp", path);
  } catch (const std::exception& e) {
    st = Status::IOError("write model " + path + ": " + FirstLine(e.what()));
  }
  for (size_t i = 0; i < saved.size(); ++i) m->params[i].detach().copy_(saved[i]);
  return st;
}

Status SaveCheckpointFile(const std::string& path, const ModelState& m, int64_t epoch, int64_t best_epoch,
                          const torch::Tensor& rng_all, const CheckpointWriter& extra) {
  try {
    torch::serialize::OutputArchive ar;
    for (size_t i = 0; i < m.params.size(); ++i) ar.write("param." + m.names[i], m.params[i].detach());
    for (size_t i = 0; i < m.best_params.size(); ++i) ar.write("best." + m.names[i], m.best_params[i]);
    ar.write("epoch", torch::tensor(epoch));
    ar.write("best_epoch", torch::tensor(best_epoch));
    if (extra) extra(&ar);
    ar.write("rng", at::detail::getDefaultCPUGenerator().get_state());
    ar.write("rng_all", rng_all);
    torch::serialize::OutputArchive opt_ar;
    m.optimizer->save(opt_ar);
    ar.write("optimizer", opt_ar);
    ar.save_to(path + ".tmp");
    std::filesystem::rename(path + ".tmp", path);
  } catch (const std::exception& e) {
    return Status::IOError("write checkpoint " + path + ": " + FirstLine(e.what()));
  }
  return Status::OK();
}

Result<int64_t> LoadCheckpointFile(const std::string& path, ModelState* m, const DataParallelOptions& dp,
                                   int64_t* best_epoch, const CheckpointReader& extra, const std::string& what) {
  try {
    torch::NoGradGuard no_grad;
    torch::serialize::InputArchive ar;
    ar.load_from(path);
    // A fresh tensor per key: reading into a defined tensor set_()s it, which
    // fails on the archive's fixed-size storages.
    auto get = [&ar](const std::string& key) {
      torch::Tensor t;
      ar.read(key, t);
      return t;
    };
    if (extra) DG_RETURN_IF_ERROR(extra(&ar));
    for (size_t i = 0; i < m->params.size(); ++i) {
      torch::Tensor t = get("param." + m->names[i]);
      if (!t.sizes().equals(m->params[i].sizes()))
        return Status::InvalidArgument("checkpoint " + path + ": parameter " + m->names[i] + " has shape " +
                                       c10::str(t.sizes()) + ", the model has " + c10::str(m->params[i].sizes()));
      m->params[i].detach().copy_(t);
    }
    m->best_params.clear();
    for (size_t i = 0; i < m->params.size(); ++i) {
      torch::Tensor t;
      if (!ar.try_read("best." + m->names[i], t)) break;
      m->best_params.push_back(t.clone());
    }
    *best_epoch = get("best_epoch").item<int64_t>();
    at::Generator gen = at::detail::getDefaultCPUGenerator();
    torch::Tensor all;
    if (ar.try_read("rng_all", all) && all.dim() == 2 && all.size(0) == dp.world_size) {
      gen.set_state(all[dp.rank].clone());
    } else {  // another number of trainers: rank 0's state
      gen.set_state(get("rng"));
    }
    torch::serialize::InputArchive opt_ar;
    ar.read("optimizer", opt_ar);
    m->optimizer->load(opt_ar);
    return get("epoch").item<int64_t>();
  } catch (const std::exception& e) {
    return Status::Corruption("checkpoint " + path + ": cannot be loaded" + what + ": " + FirstLine(e.what()));
  }
}

}  // namespace dg
