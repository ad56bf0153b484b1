#include "roles/partition/merged_input.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <vector>

#include "common/base/logging.h"
#include "common/io/npy.h"
#include "roles/partition/out_of_core.h"
#include "roles/partition/typed_input.h"

namespace dg {

namespace {

// The shape of the merged node arrays of a layout, checked.
struct MergedShape {
  int64_t num_nodes = 0;
  int64_t feature_dim = 0;              // F_max; 0 = no type has features (no "features" array)
  std::vector<const Array*> features;   // per type, nullptr for a featureless type
  const Array* labels = nullptr;        // the target type's
  const Array* split = nullptr;
};

Result<MergedShape> ShapeOf(const TypeLayout& l) {
  MergedShape s;
  s.num_nodes = l.num_nodes();
  if (l.target_type < 0)
    return Status::InvalidArgument("--merge-types: the dataset has no target type (meta.json key 'target'); the "
                                   "merged graph keeps the target type's labels and split");
  for (int t = 0; t < l.num_types(); ++t) {
    auto it = l.node_data[t].find("features");
    const Array* f = it == l.node_data[t].end() ? nullptr : &it->second;
    if (f && (f->dtype != DType::kFloat32 || f->shape.size() != 2))
      return Status::InvalidArgument("--merge-types: node type " + l.node_types[t] + ": features must be float32 [" +
                                     std::to_string(l.type_offsets[t + 1] - l.type_offsets[t]) + ", F], got " +
                                     DTypeName(f->dtype) + f->ShapeString());
    s.features.push_back(f);
    if (f) s.feature_dim = std::max(s.feature_dim, f->shape[1]);
  }
  const auto& target = l.node_data[l.target_type];
  const std::string& tname = l.node_types[l.target_type];
  auto labels = target.find("labels"), split = target.find("split");
  if (labels == target.end() || split == target.end())
    return Status::InvalidArgument("--merge-types: the target type " + tname +
                                   " has no labels.npy or split.npy (the merged graph keeps both)");
  if (labels->second.dtype != DType::kInt64 || labels->second.shape.size() != 1)
    return Status::InvalidArgument("--merge-types: nodes/" + tname + "/labels.npy must be int64 [N], got " +
                                   DTypeName(labels->second.dtype) + labels->second.ShapeString());
  if (split->second.dtype != DType::kInt8 || split->second.shape.size() != 1)
    return Status::InvalidArgument("--merge-types: nodes/" + tname + "/split.npy must be int8 [N], got " +
                                   DTypeName(split->second.dtype) + split->second.ShapeString());
  s.labels = &labels->second;
  s.split = &split->second;
  return s;
}

// Hands the rows of merged array `name` (features, labels or split) to fn in
// input id order, at most about 8 MB at a time.
using RowsFn = std::function<Status(const void* data, size_t bytes)>;
Status ForEachMergedChunk(const TypeLayout& l, const MergedShape& s, const std::string& name, const RowsFn& fn) {
  const bool features = name == "features";
  const size_t width = features ? static_cast<size_t>(s.feature_dim) * sizeof(float)
                                : (name == "labels" ? sizeof(int64_t) : sizeof(int8_t));
  const int64_t chunk_rows = std::max<int64_t>(1, static_cast<int64_t>((8u << 20) / width));
  std::vector<char> buf;
  for (int t = 0; t < l.num_types(); ++t) {
    const int64_t count = l.type_offsets[t + 1] - l.type_offsets[t];
    for (int64_t b = 0; b < count; b += chunk_rows) {
      const int64_t n = std::min(chunk_rows, count - b);
      buf.assign(static_cast<size_t>(n) * width, 0);
      if (features) {
        if (const Array* f = s.features[t]) {
          const size_t fw = static_cast<size_t>(f->shape[1]) * sizeof(float);
          const char* from = static_cast<const char*>(f->data) + static_cast<size_t>(b) * fw;
          for (int64_t i = 0; i < n; ++i) std::memcpy(buf.data() + i * width, from + i * fw, fw);
        }
      } else if (t == l.target_type) {
        const Array* a = name == "labels" ? s.labels : s.split;
        std::memcpy(buf.data(), static_cast<const char*>(a->data) + static_cast<size_t>(b) * width, n * width);
      } else if (name == "labels") {
        std::fill_n(reinterpret_cast<int64_t*>(buf.data()), n, int64_t{-1});
      } else {
        std::fill_n(reinterpret_cast<int8_t*>(buf.data()), n, int8_t{-1});
      }
      DG_RETURN_IF_ERROR(fn(buf.data(), buf.size()));
    }
  }
  return Status::OK();
}

std::vector<std::string> MergedNames(const MergedShape& s) {
  std::vector<std::string> names = {"labels", "split"};
  if (s.feature_dim > 0) names.insert(names.begin(), "features");
  return names;
}

std::vector<int64_t> MergedArrayShape(const MergedShape& s, const std::string& name) {
  if (name == "features") return {s.num_nodes, s.feature_dim};
  return {s.num_nodes};
}

DType MergedDType(const std::string& name) {
  return name == "features" ? DType::kFloat32 : name == "labels" ? DType::kInt64 : DType::kInt8;
}

PartitionOptions WithClasses(PartitionOptions o, const TypeLayout& l) {
  if (o.num_classes <= 0) o.num_classes = l.num_classes;
  return o;
}

void PrintDone(const PartitionConfig& cfg, double seconds) {
  std::printf("done: %s (%d parts, edge cut %lld) in %.2f s total, peak RSS %.1f MB\n", cfg.path.c_str(),
              cfg.num_parts, (long long)cfg.edge_cut, seconds, PeakRssBytes() / 1048576.0);
}

}  // namespace

Status PartitionMergedInMemory(TypedDataset* ds, const PartitionOptions& opts, double read_seconds) {
  auto t0 = std::chrono::steady_clock::now();
  const size_t R = ds->edge_types.size();
  GraphInput in;
  const TypeLayout layout = FlattenTypedDataset(ds, &in.edges);
  DG_ASSIGN_OR_RETURN(MergedShape shape, ShapeOf(layout));
  in.num_nodes = layout.num_nodes();
  for (const std::string& name : MergedNames(shape)) {
    Array a = Array::Zeros(MergedDType(name), MergedArrayShape(shape, name));
    char* at = static_cast<char*>(a.data);
    DG_RETURN_IF_ERROR(ForEachMergedChunk(layout, shape, name, [&](const void* data, size_t bytes) {
      std::memcpy(at, data, bytes);
      at += bytes;
      return Status::OK();
    }));
    in.node_data[name] = std::move(a);
  }
  std::printf("  read input:        %.2f s (%lld nodes of %d types, %lld edges of %zu types; merged into one of each, "
              "%lld feature columns)\n",
              read_seconds, (long long)in.num_nodes, layout.num_types(), (long long)in.edges.src.size(), R,
              (long long)shape.feature_dim);
  std::fflush(stdout);
  const PartitionOptions o = WithClasses(opts, layout);
  DG_RETURN_IF_ERROR(ValidatePartitionRequest(in, o));
  DG_ASSIGN_OR_RETURN(PartitionConfig cfg, PartitionGraph(&in, o));
  PrintDone(cfg, read_seconds + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return Status::OK();
}

Status PartitionMergedOutOfCore(const std::string& dir, bool undirected, const std::string& scratch_dir,
                                const PartitionOptions& opts) {
  auto t0 = std::chrono::steady_clock::now();
  std::string src, dst;
  DG_ASSIGN_OR_RETURN(TypeLayout layout, OpenTypedOutOfCore(dir, undirected, scratch_dir, &src, &dst));
  DG_ASSIGN_OR_RETURN(MergedShape shape, ShapeOf(layout));
  OutOfCoreInput in;
  in.num_nodes = layout.num_nodes();
  DG_ASSIGN_OR_RETURN(in.edges, EdgeSource::Map(src, dst));
  for (const std::string& name : MergedNames(shape)) {
    const std::string path = scratch_dir + "/merged_" + name + ".npy";
    NpyWriter w;
    DG_RETURN_IF_ERROR(w.Open(path, MergedDType(name), MergedArrayShape(shape, name)));
    DG_RETURN_IF_ERROR(ForEachMergedChunk(layout, shape, name, [&](const void* data, size_t bytes) {
      return w.Append(data, bytes);
    }));
    DG_RETURN_IF_ERROR(w.Finish());
    DG_ASSIGN_OR_RETURN(in.node_data[name], NpyMap(path));
    in.mapped.insert(name);
  }
  std::printf("  open input:        %.2f s (%lld nodes of %d types, %lld edges of %zu types; merged into one of each, "
              "%lld feature columns)\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), (long long)in.num_nodes,
              layout.num_types(), (long long)in.edges.size(), layout.edge_types.size(), (long long)shape.feature_dim);
  const PartitionOptions o = WithClasses(opts, layout);
  GraphInput check;
  check.num_nodes = in.num_nodes;
  check.node_data = in.node_data;
  DG_RETURN_IF_ERROR(ValidatePartitionRequest(check, o));
  DG_ASSIGN_OR_RETURN(PartitionConfig cfg, PartitionGraphOutOfCore(&in, o));
  PrintDone(cfg, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return Status::OK();
}

}  // namespace dg
