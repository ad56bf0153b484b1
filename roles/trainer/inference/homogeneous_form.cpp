// Layer-wise inference on a homogeneous partition (layerwise_form.h): layer
// l's blocks hold every in-edge; layer 0 reads the node inputs; rank 0 writes
// the outputs of every node in original node order.
#include <ATen/Parallel.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fcntl.h>
#include <unistd.h>

#include "common/io/npy.h"
#include "common/sampling/minibatch.h"
#include "common/storage/partition_seeds.h"
#include "roles/trainer/inference/layerwise_form.h"
#include "roles/trainer/model/model_runner.h"
#include "roles/trainer/trainer_util.h"

namespace dg {
namespace {

// An output .npy in original node order, filled by scattered row writes: rows
// arrive in partition order (new ids) and row g goes to original id orig[g].
// Created as PATH.filling (zeros, written sequentially), renamed on Finish.
class ScatteredNpy {
 public:
  ~ScatteredNpy() {
    if (fd_ >= 0) ::close(fd_);
    if (!path_.empty()) std::filesystem::remove(path_ + ".filling");
  }
  Status Open(const std::string& path, DType dtype, int64_t rows, int64_t cols) {
    path_ = path;
    const std::vector<int64_t> shape = cols < 0 ? std::vector<int64_t>{rows} : std::vector<int64_t>{rows, cols};
    NpyWriter w;
    DG_RETURN_IF_ERROR(w.Open(path + ".filling", dtype, shape));
    row_bytes_ = DTypeSize(dtype) * static_cast<size_t>(cols < 0 ? 1 : cols);
    const std::vector<uint8_t> zeros(1 << 20);
    for (size_t left = row_bytes_ * rows; left > 0;) {
      const size_t n = std::min(left, zeros.size());
      DG_RETURN_IF_ERROR(w.Append(zeros.data(), n));
      left -= n;
    }
    DG_RETURN_IF_ERROR(w.Finish());
    fd_ = ::open((path + ".filling").c_str(), O_RDWR | O_CLOEXEC);
    if (fd_ < 0) return Status::IOError("open " + path + ".filling: " + std::strerror(errno));
    data_offset_ = std::filesystem::file_size(path + ".filling") - row_bytes_ * rows;
    return Status::OK();
  }
  Status WriteRow(int64_t row, const void* bytes) {
    const off_t at = static_cast<off_t>(data_offset_ + row_bytes_ * static_cast<size_t>(row));
    if (::pwrite(fd_, bytes, row_bytes_, at) != static_cast<ssize_t>(row_bytes_))
      return Status::IOError("write " + path_ + ".filling: " + std::strerror(errno));
    return Status::OK();
  }
  Status Finish() {
    if (::close(fd_) != 0) return Status::IOError("close " + path_ + ".filling: " + std::strerror(errno));
    fd_ = -1;
    std::error_code ec;
    std::filesystem::rename(path_ + ".filling", path_, ec);
    if (ec) return Status::IOError("rename " + path_ + ".filling: " + ec.message());
    path_.clear();
    return Status::OK();
  }

 private:
  std::string path_;
  int fd_ = -1;
  size_t row_bytes_ = 0, data_offset_ = 0;
};

// Correct predictions among `ids` (sorted new ids) that fall in [lo, hi).
int64_t CountCorrect(const std::vector<int64_t>& ids, const std::vector<int64_t>& labels, int64_t lo, int64_t hi,
                     const int64_t* pred) {
  int64_t ok = 0;
  for (auto it = std::lower_bound(ids.begin(), ids.end(), lo); it != ids.end() && *it < hi; ++it)
    ok += pred[*it - lo] == labels[it - ids.begin()];
  return ok;
}

// Rank 0: outputs in original node order and exact accuracy. Streamed in
// chunks of node ids, so its memory is O(chunk x row width + val/test nodes),
// not O(num_nodes): the original ids are mapped, the val/test ids come from
// the per-part id files where the partition has them.
Status WriteNodeOutputs(DistGraphClient* client, const InferenceOptions& o, const std::string& last,
                        const std::string& hidden, InferenceResult* result) {
  const PartitionConfig& pc = client->config();
  const int64_t n = pc.num_nodes;
  DG_ASSIGN_OR_RETURN(Array orig, NpyLoad(pc.base_dir + "/" + pc.orig_nids));
  if (orig.dtype != DType::kInt64 || orig.numel() != n)
    return Status::InvalidArgument(pc.base_dir + "/" + pc.orig_nids + ": expected int64 [" + std::to_string(n) + "]");
  std::vector<int64_t> eval_ids[2], eval_labels[2];  // val, test
  if (pc.node_data.count("split") && pc.node_data.count("labels")) {
    auto pull_split = [&](int64_t begin, int64_t end) {
      std::vector<int64_t> ids(static_cast<size_t>(end - begin));
      for (int64_t i = begin; i < end; ++i) ids[i - begin] = i;
      return client->Pull("split", ids);
    };
    DG_RETURN_IF_ERROR(RequirePartSeeds(pc));
    for (int v : {1, 2}) {
      DG_ASSIGN_OR_RETURN(eval_ids[v - 1], PartSeedSlice(pc, v, 1, 0, /*even=*/false, pull_split));
      DG_ASSIGN_OR_RETURN(Array labels, client->Pull("labels", eval_ids[v - 1]));
      eval_labels[v - 1].assign(labels.as<int64_t>(), labels.as<int64_t>() + labels.numel());
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir, ec);
  ScatteredNpy pred_out, logits_out, emb_out;
  bool opened = false;
  int64_t correct[2] = {0, 0};
  constexpr int64_t kChunk = 65536;
  std::vector<int64_t> ids;
  for (int64_t c = 0; c < n; c += kChunk) {
    const int64_t hi = std::min(n, c + kChunk);
    ids.resize(static_cast<size_t>(hi - c));
    for (int64_t g = c; g < hi; ++g) ids[g - c] = g;
    DG_ASSIGN_OR_RETURN(Array logits, client->Pull(last, ids));
    DG_ASSIGN_OR_RETURN(Array emb, client->Pull(hidden, ids));
    Array pred = TensorArray(ArrayTensor(logits).argmax(1));
    if (!opened) {
      DG_RETURN_IF_ERROR(pred_out.Open(o.out_dir + "/predictions.npy", DType::kInt64, n, -1));
      DG_RETURN_IF_ERROR(logits_out.Open(o.out_dir + "/logits.npy", logits.dtype, n, logits.shape[1]));
      DG_RETURN_IF_ERROR(emb_out.Open(o.out_dir + "/embeddings.npy", emb.dtype, n, emb.shape[1]));
      opened = true;
    }
    for (int64_t g = c; g < hi; ++g) {
      const int64_t j = orig.as<int64_t>()[g], r = g - c;
      DG_RETURN_IF_ERROR(pred_out.WriteRow(j, pred.as<int64_t>() + r));
      DG_RETURN_IF_ERROR(logits_out.WriteRow(j, logits.as<uint8_t>() + r * logits.row_bytes()));
      DG_RETURN_IF_ERROR(emb_out.WriteRow(j, emb.as<uint8_t>() + r * emb.row_bytes()));
    }
    for (int k = 0; k < 2; ++k) correct[k] += CountCorrect(eval_ids[k], eval_labels[k], c, hi, pred.as<int64_t>());
  }
  DG_RETURN_IF_ERROR(pred_out.Finish());
  DG_RETURN_IF_ERROR(logits_out.Finish());
  DG_RETURN_IF_ERROR(emb_out.Finish());
  if (pc.node_data.count("split") && pc.node_data.count("labels")) {
    result->val_acc = eval_ids[0].empty() ? -1 : double(correct[0]) / eval_ids[0].size();
    result->test_acc = eval_ids[1].empty() ? -1 : double(correct[1]) / eval_ids[1].size();
  }
  std::ofstream f(o.out_dir + "/inference.json");
  f << "{\"val_acc\": " << result->val_acc << ", \"test_acc\": " << result->test_acc
    << ", \"seconds\": " << result->seconds << ", \"num_nodes\": " << n << "}\n";
  if (!f) return Status::IOError("write " + o.out_dir + "/inference.json failed");
  return Status::OK();
}

class HomogeneousForm : public LayerwiseForm {
 public:
  HomogeneousForm(DistGraphClient* client, const InferenceOptions& o, torch::jit::Module* module)
      : client_(client), o_(o), module_(module) {}

  Status Check() const override {
    if (!HasForwardLayer(*module_) || !module_->hasattr("num_layers"))
      return Status::InvalidArgument("model " + o_.model_path +
                                     ": layer-wise inference needs forward_layer(layer, x, block) and num_layers");
    return Status::OK();
  }

  Result<torch::Tensor> InputRows(const std::vector<int64_t>& /*dst*/) override {
    return Status::Internal("a homogeneous model has no input layer of its own");
  }

  NodeRange LayerRange(int /*l*/, bool /*last*/) const override {
    return {client_->book().Begin(o_.machine), client_->book().End(o_.machine)};
  }

  Result<torch::Tensor> LayerRows(int l, const std::vector<int64_t>& dst, const std::string& input) override {
    SampleSpec every_edge;  // fanout -1: every in-edge
    every_edge.edge_ids = true;
    DG_ASSIGN_OR_RETURN(SampledEdges s, client_->SampleNeighbors(dst, every_edge));
    SampledNeighbors nb{std::move(s.offsets), std::move(s.src), {}};
    std::vector<int64_t> src_nodes;
    Block block = BuildBlock(dst, nb, &src_nodes, client_->num_nodes());
    std::vector<torch::Tensor> xs;
    for (const std::string& name : input.empty() ? o_.input_names : std::vector<std::string>{input}) {
      DG_ASSIGN_OR_RETURN(Array x, client_->Pull(name, src_nodes));
      xs.push_back(ArrayTensor(x).to(torch::kFloat32));
    }
    try {
      return module_->get_method("forward_layer")({int64_t{l}, xs.size() == 1 ? xs[0] : torch::cat(xs, 1),
                                                   BlockValue(block)})
          .toTensor();
    } catch (const std::exception& e) {
      return Status::InvalidArgument("model " + o_.model_path + ": forward_layer(" + std::to_string(l) +
                                     ") failed: " + FirstLine(e.what()));
    }
  }

  Status WriteOutputs(const std::string& last, const std::string& hidden, InferenceResult* result) override {
    return WriteNodeOutputs(client_, o_, last, hidden, result);
  }

 private:
  DistGraphClient* client_;
  const InferenceOptions& o_;
  torch::jit::Module* module_;
};

}  // namespace

std::unique_ptr<LayerwiseForm> MakeHomogeneousForm(DistGraphClient* client, const InferenceOptions& options,
                                                   torch::jit::Module* module) {
  return std::make_unique<HomogeneousForm>(client, options, module);
}

}  // namespace dg
