#include "common/client/propagate.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "common/io/npy.h"

namespace dg {
namespace {

std::string HopName(const std::string& output, int k) { return output + "_" + std::to_string(k); }

}  // namespace

const char* Name(PropagateNorm norm) {
  return norm == PropagateNorm::kMean ? "mean" : norm == PropagateNorm::kSum ? "sum" : "sym";
}

Status ParsePropagateNorm(const std::string& word, PropagateNorm* out) {
  for (PropagateNorm n : {PropagateNorm::kMean, PropagateNorm::kSum, PropagateNorm::kSym})
    if (word == Name(n)) {
      *out = n;
      return Status::OK();
    }
  return Status::InvalidArgument("--norm: expected mean, sum or sym, got '" + word + "'");
}

Status CheckPropagateOptions(const PropagateOptions& o, const PartitionConfig& pc) {
  auto it = pc.node_data.find(o.input);
  if (it == pc.node_data.end())
    return Status::InvalidArgument("--input " + o.input + ": " + pc.path + " has no node array '" + o.input + "'");
  if (it->second.dtype != DType::kFloat32 || it->second.shape.size() != 2)
    return Status::InvalidArgument("--input " + o.input + ": must be float32 [N, F]");
  if (o.hops < 1) return Status::InvalidArgument("--hops must be >= 1");
  if (o.output.empty()) return Status::InvalidArgument("--output NAME is required");
  for (int k = 1; k <= o.hops; ++k)
    if (pc.node_data.count(HopName(o.output, k)))
      return Status::AlreadyExists(pc.path + " already has node array '" + HopName(o.output, k) +
                                   "'; choose another --output");
  return Status::OK();
}

Status RunPropagation(DistGraphClient* client, const PropagateOptions& o) {
  const PartitionConfig& pc = client->config();
  DG_RETURN_IF_ERROR(CheckPropagateOptions(o, pc));
  const int64_t dim = pc.node_data.at(o.input).shape[1];
  const int64_t begin = client->book().Begin(o.machine), end = client->book().End(o.machine);
  // This worker's contiguous share of the partition's nodes.
  const int64_t n = end - begin, per = (n + o.workers_per_machine - 1) / o.workers_per_machine;
  const int64_t lo = std::min(end, begin + per * o.index), hi = std::min(end, lo + per);
  spdlog::info("propagate {} -> {}_1..{} ({} norm): nodes [{}, {}) of partition {}", o.input, o.output, o.hops,
               Name(o.norm), lo, hi, o.machine);
  for (int k = 1; k <= o.hops; ++k) {
    const std::string in = k == 1 ? o.input : HopName(o.output, k - 1), out_name = HopName(o.output, k);
    InitTensorSpec spec;
    spec.name = out_name;
    spec.dtype = DType::kFloat32;
    spec.shape = {pc.num_nodes, dim};
    DG_RETURN_IF_ERROR(client->InitTensor(spec));
    for (int64_t c = lo; c < hi; c += o.chunk) {
      std::vector<int64_t> dst;
      for (int64_t v = c; v < std::min(hi, c + o.chunk); ++v) dst.push_back(v);
      SampleSpec every_edge;  // fanout -1: every in-edge
      every_edge.edge_ids = true;
      DG_ASSIGN_OR_RETURN(SampledEdges nb, client->SampleNeighbors(dst, every_edge));
      DG_ASSIGN_OR_RETURN(Array rows, client->Pull(in, nb.src));
      std::vector<int64_t> src_deg;
      if (o.norm == PropagateNorm::kSym) {
        DG_ASSIGN_OR_RETURN(src_deg, client->InDegrees(nb.src));
      }
      Array out = Array::Zeros(DType::kFloat32, {static_cast<int64_t>(dst.size()), dim});
      const float* x = rows.as<float>();
      float* y = out.as<float>();
      for (size_t i = 0; i < dst.size(); ++i) {
        const int64_t b = nb.offsets[i], e = nb.offsets[i + 1], deg = e - b;
        if (deg == 0) continue;
        float* yi = y + i * dim;
        for (int64_t j = b; j < e; ++j) {
          float w = 1.0f;
          if (o.norm == PropagateNorm::kMean) w = 1.0f / static_cast<float>(deg);
          if (o.norm == PropagateNorm::kSym) w = 1.0f / std::sqrt(static_cast<float>(deg) * static_cast<float>(src_deg[j]));
          const float* xj = x + j * dim;
          for (int64_t d = 0; d < dim; ++d) yi[d] += w * xj[d];
        }
      }
      DG_RETURN_IF_ERROR(client->Push(out_name, dst, out, PushMode::kOverwrite));
    }
    DG_RETURN_IF_ERROR(client->Barrier("propagate:" + out_name, static_cast<uint32_t>(o.total_workers)));
    spdlog::info("hop {} done", k);
  }
  // Worker 0 of each machine saves its partition's rows of every hop.
  if (o.index == 0) {
    std::vector<int64_t> own;
    for (int64_t v = begin; v < end; ++v) own.push_back(v);
    const std::string dir = pc.PartDir(o.machine) + "/node_data";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    for (int k = 1; k <= o.hops; ++k) {
      DG_ASSIGN_OR_RETURN(Array rows, client->Pull(HopName(o.output, k), own));
      const std::string path = dir + "/" + HopName(o.output, k) + ".npy";
      DG_RETURN_IF_ERROR(NpyWrite(path + ".tmp", rows));
      std::filesystem::rename(path + ".tmp", path, ec);
      if (ec) return Status::IOError("rename " + path + ".tmp: " + ec.message());
    }
    spdlog::info("wrote {} hop(s) of partition {} into {}", o.hops, o.machine, dir);
  }
  return Status::OK();
}

}  // namespace dg
