#include "roles/trainer/source/cv_store.h"

#include <chrono>
#include <cstring>

#include "common/io/npy.h"

namespace dg {

namespace {

// Per layer: the destinations sent, 16 bytes (source, edge id) per sampled edge and a count each back.
int64_t SampleBytes(const MiniBatch& mb) {
  int64_t bytes = 0;
  for (const Block& b : mb.blocks) bytes += 16 * b.num_dst + 16 * b.num_edges();
  return bytes;
}

}  // namespace

Result<MiniBatch> CvStore::SampleLayers(const std::vector<int64_t>& seeds, const MiniBatchOptions& o,
                                        uint64_t job_seed, int64_t epoch, int64_t batch, int lowest_layer) {
  MiniBatch mb;
  const auto t0 = std::chrono::steady_clock::now();
  DG_RETURN_IF_ERROR(SampleBlocksDownTo(source(), seeds, o, job_seed, epoch, batch, lowest_layer, &mb, &mb.input_nodes));
  mb.sample_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  bytes_ += SampleBytes(mb);
  return mb;
}

Result<MiniBatch> CvStore::Sample(const std::vector<int64_t>& seeds, const MiniBatchOptions& o, uint64_t job_seed,
                                  int64_t epoch, int64_t batch) {
  DG_ASSIGN_OR_RETURN(MiniBatch mb, SampleMiniBatch(source(), seeds, o, job_seed, epoch, batch));
  bytes_ += SampleBytes(mb);
  if (mb.features.data) bytes_ += 8 * static_cast<int64_t>(mb.input_nodes.size()) + mb.features.nbytes();
  if (mb.labels.data) bytes_ += 8 * static_cast<int64_t>(mb.seeds.size()) + mb.labels.nbytes();
  return mb;
}

Result<Array> CvStore::Gather(const std::string& name, const std::vector<int64_t>& ids) {
  auto it = extra_.find(name);
  Array a;
  if (it != extra_.end()) {
    DG_ASSIGN_OR_RETURN(a, GatherRows(it->second, ids, name));
  } else {
    DG_ASSIGN_OR_RETURN(a, source()->Gather(name, ids));
  }
  bytes_ += 8 * static_cast<int64_t>(ids.size()) + a.nbytes();
  return a;
}

// ---- LocalCvStore ----

Result<Array*> LocalCvStore::Find(const std::string& what, const std::string& name) {
  auto it = history_.find(name);
  if (it == history_.end()) return Status::NotFound(what + ": unknown history tensor '" + name + "'");
  return &it->second;
}

Status LocalCvStore::SaveHistory(const std::string& dir) {
  for (const auto& [name, rows] : history_) DG_RETURN_IF_ERROR(NpyWrite(dir + "/history-" + name + ".npy", rows));
  return Status::OK();
}

Status LocalCvStore::LoadHistory(const std::string& dir) {
  for (auto& [name, rows] : history_) {
    const std::string path = dir + "/history-" + name + ".npy";
    DG_ASSIGN_OR_RETURN(Array a, NpyRead(path));
    if (a.dtype != rows.dtype || a.shape != rows.shape)
      return Status::Corruption(path + ": has shape " + a.ShapeString() + ", the history " + name + " has " +
                                rows.ShapeString());
    rows = std::move(a);
  }
  return Status::OK();
}

Status LocalCvStore::InitHistory(const std::string& name, int64_t dim) {
  DG_ASSIGN_OR_RETURN(history_[name], Array::TryZeros(DType::kFloat32, {graph_->num_nodes(), dim}, name));
  return Status::OK();
}

Result<Array> LocalCvStore::Pull(const std::string& name, const std::vector<int64_t>& ids) {
  DG_ASSIGN_OR_RETURN(Array * h, Find("Pull", name));
  DG_ASSIGN_OR_RETURN(Array out, GatherRows(*h, ids, name));
  bytes_ += 8 * static_cast<int64_t>(ids.size()) + out.nbytes();
  return out;
}

Status LocalCvStore::Push(const std::string& name, const std::vector<int64_t>& ids, const Array& rows) {
  DG_ASSIGN_OR_RETURN(Array * h, Find("Push", name));
  if (rows.dtype != DType::kFloat32 || rows.rows() != static_cast<int64_t>(ids.size()) ||
      rows.row_elems() != h->row_elems())
    return Status::InvalidArgument("Push '" + name + "': rows " + rows.ShapeString() + " do not fit");
  const size_t rb = h->row_bytes();
  for (size_t i = 0; i < ids.size(); ++i)
    std::memcpy(static_cast<uint8_t*>(h->data) + ids[i] * rb, static_cast<const uint8_t*>(rows.data) + i * rb, rb);
  bytes_ += 8 * static_cast<int64_t>(ids.size()) + rows.nbytes();
  return Status::OK();
}

Result<Array> LocalCvStore::AggregateSum(const std::string& name, const std::vector<int64_t>& ids,
                                         std::vector<int64_t>* degrees) {
  DG_ASSIGN_OR_RETURN(Array * h, Find("AggregateSum", name));
  const int64_t F = h->row_elems();
  Array out = Array::Zeros(DType::kFloat32, {static_cast<int64_t>(ids.size()), F});
  degrees->assign(ids.size(), 0);
  const auto& ip = graph_->indptr();
  const auto& ix = graph_->indices();
  const float* hv = h->as<float>();
  float* o = out.as<float>();
  for (size_t i = 0; i < ids.size(); ++i) {
    const int64_t v = ids[i];
    (*degrees)[i] = ip[v + 1] - ip[v];
    for (int64_t e = ip[v]; e < ip[v + 1]; ++e) {
      const float* r = hv + ix[e] * F;
      for (int64_t j = 0; j < F; ++j) o[i * F + j] += r[j];
    }
  }
  // What PULL_AGGREGATE would move with one partition: ids, counts and sums.
  bytes_ += 16 * static_cast<int64_t>(ids.size()) + out.nbytes();
  return out;
}

Result<std::vector<int64_t>> LocalCvStore::InDegrees(const std::vector<int64_t>& ids) {
  std::vector<int64_t> d(ids.size());
  const auto& ip = graph_->indptr();
  for (size_t i = 0; i < ids.size(); ++i) d[i] = ip[ids[i] + 1] - ip[ids[i]];
  bytes_ += 16 * static_cast<int64_t>(ids.size());
  return d;
}

// Every in-neighbour's row at once (the table applies the decay it owes),
// summed per id.
Result<Array> LocalCvStore::AggregateEmbedding(NodeEmbedding* embedding, const std::string& /*name*/,
                                               const std::vector<int64_t>& ids, std::vector<int64_t>* degrees) {
  const auto& ip = graph_->indptr();
  const auto& ix = graph_->indices();
  std::vector<int64_t> neighbours;
  degrees->assign(ids.size(), 0);
  for (size_t i = 0; i < ids.size(); ++i) {
    (*degrees)[i] = ip[ids[i] + 1] - ip[ids[i]];
    neighbours.insert(neighbours.end(), ix.begin() + ip[ids[i]], ix.begin() + ip[ids[i] + 1]);
  }
  DG_ASSIGN_OR_RETURN(Array rows, embedding->Rows(neighbours));
  const int64_t F = embedding->dim();
  Array out = Array::Zeros(DType::kFloat32, {static_cast<int64_t>(ids.size()), F});
  const float* r = rows.as<float>();
  float* o = out.as<float>();
  for (size_t i = 0; i < ids.size(); ++i)
    for (int64_t k = 0; k < (*degrees)[i]; ++k, r += F)
      for (int64_t j = 0; j < F; ++j) o[i * F + j] += r[j];
  bytes_ += 16 * static_cast<int64_t>(ids.size()) + out.nbytes();  // as AggregateSum
  return out;
}

Result<Array> MeanOverInNeighbours(const InMemoryGraph& graph, const Array& input) {
  if (input.dtype != DType::kFloat32 || input.shape.size() != 2 || input.rows() != graph.num_nodes())
    return Status::InvalidArgument("the propagated input needs float32 [N, F] node data, got " +
                                   std::string(DTypeName(input.dtype)) + " " + input.ShapeString());
  const int64_t N = graph.num_nodes(), F = input.row_elems();
  Array out = Array::Zeros(DType::kFloat32, {N, F});
  const auto& ip = graph.indptr();
  const auto& ix = graph.indices();
  const float* x = input.as<float>();
  float* o = out.as<float>();
  for (int64_t v = 0; v < N; ++v) {
    const int64_t d = ip[v + 1] - ip[v];
    if (d == 0) continue;
    for (int64_t e = ip[v]; e < ip[v + 1]; ++e)
      for (int64_t j = 0; j < F; ++j) o[v * F + j] += x[ix[e] * F + j];
    const float inv = 1.0f / static_cast<float>(d);
    for (int64_t j = 0; j < F; ++j) o[v * F + j] *= inv;
  }
  return out;
}

// ---- DistCvStore ----

Result<MiniBatch> DistCvStore::SampleWithBlockInput(const std::vector<int64_t>& seeds, const MiniBatchOptions& o,
                                                    uint64_t job_seed, int64_t epoch, int64_t batch) {
  if (!aggregates_) return CvStore::SampleWithBlockInput(seeds, o, job_seed, epoch, batch);
  return dg::SampleWithBlockInput(client_, source_, block_input_, seeds, o, job_seed, epoch, batch);
}

Result<MiniBatch> DistCvStore::SampleBlock0WithHistory(const std::vector<int64_t>& dst, const MiniBatchOptions& o,
                                                       uint64_t job_seed, int64_t epoch, int64_t batch,
                                                       const BlockHistoryRead& read, BlockHistoryHits* hits) {
  if (!aggregates_) return CvStore::SampleBlock0WithHistory(dst, o, job_seed, epoch, batch, read, hits);
  return dg::SampleBlock0WithHistory(client_, block_input_, dst, o, job_seed, epoch, batch, read, hits);
}

Status DistCvStore::InitHistory(const std::string& name, int64_t dim) {
  InitTensorSpec spec;
  spec.name = name;
  spec.dtype = DType::kFloat32;
  spec.shape = {client_->num_nodes(), dim};
  spec.init = Initializer::kZeros;
  return client_->InitTensor(spec);
}

Result<Array> DistCvStore::Pull(const std::string& name, const std::vector<int64_t>& ids) {
  DG_ASSIGN_OR_RETURN(Array out, client_->Pull(name, ids));
  bytes_ += 8 * static_cast<int64_t>(ids.size()) + out.nbytes();
  return out;
}

Status DistCvStore::Push(const std::string& name, const std::vector<int64_t>& ids, const Array& rows) {
  bytes_ += 8 * static_cast<int64_t>(ids.size()) + rows.nbytes();
  return client_->Push(name, ids, rows);
}

Result<Array> DistCvStore::AggregateSum(const std::string& name, const std::vector<int64_t>& ids,
                                        std::vector<int64_t>* degrees) {
  DG_ASSIGN_OR_RETURN(Array out, client_->PullAggregate(name, ids.data(), ids.size(), AggregateOp::kSum, degrees));
  bytes_ += static_cast<int64_t>(client_->num_parts()) * (16 * static_cast<int64_t>(ids.size()) + out.nbytes());
  return out;
}

Result<std::vector<int64_t>> DistCvStore::InDegrees(const std::vector<int64_t>& ids) {
  bytes_ += 16 * static_cast<int64_t>(ids.size());
  return client_->InDegrees(ids);
}

// The servers hold the table: their aggregating pull applies the decay.
Result<Array> DistCvStore::AggregateEmbedding(NodeEmbedding* /*embedding*/, const std::string& name,
                                              const std::vector<int64_t>& ids, std::vector<int64_t>* degrees) {
  return AggregateSum(name, ids, degrees);
}

}  // namespace dg
