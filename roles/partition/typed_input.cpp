#include "roles/partition/typed_input.h"

#include <algorithm>

#include "common/io/npy.h"
#include "roles/partition/out_of_core_input.h"

namespace dg {

namespace {

void AddEdgeTypes(const TypedDataset& ds, TypeLayout* l) {
  for (const EdgeTypeData& et : ds.edge_types) {
    PartitionConfig::EdgeType e;
    e.src = et.src_type;
    e.relation = et.relation;
    e.dst = et.dst_type;
    e.src_type = et.src_type_id;
    e.dst_type = et.dst_type_id;
    l->edge_types.push_back(e);
  }
}

}  // namespace

int TypeLayout::NodeType(int64_t id) const {
  auto it = std::upper_bound(type_offsets.begin() + 1, type_offsets.end(), id);
  return static_cast<int>(it - type_offsets.begin()) - 1;
}

int TypeLayout::EdgeType(int64_t eid) const {
  auto it = std::upper_bound(edge_offsets.begin() + 1, edge_offsets.end(), eid);
  return static_cast<int>(it - edge_offsets.begin()) - 1;
}

std::vector<uint8_t> TypeLayout::TrainFlags() const {
  std::vector<uint8_t> flags;
  if (target_type < 0) return flags;
  auto it = node_data[target_type].find("split");
  if (it == node_data[target_type].end()) return flags;
  flags.assign(static_cast<size_t>(num_nodes()), 0);
  const int8_t* s = it->second.as<int8_t>();
  const int64_t off = type_offsets[target_type];
  for (int64_t i = 0; i < it->second.shape[0]; ++i) flags[off + i] = s[i] == 0;
  return flags;
}

TypeLayout FlattenTypedDataset(TypedDataset* ds, EdgeList* edges) {
  TypeLayout l;
  l.type_offsets = ds->TypeOffsets();
  for (NodeTypeData& t : ds->node_types) {
    l.node_types.push_back(t.name);
    l.node_data.push_back(std::move(t.data));
  }
  AddEdgeTypes(*ds, &l);
  l.target_type = ds->target_type;
  l.num_classes = ds->num_classes;
  l.edge_offsets.assign(1, 0);
  const int64_t e = ds->NumEdges();
  edges->src.clear();
  edges->dst.clear();
  edges->src.reserve(static_cast<size_t>(e));
  edges->dst.reserve(static_cast<size_t>(e));
  for (EdgeTypeData& et : ds->edge_types) {
    const int64_t so = l.type_offsets[et.src_type_id], dof = l.type_offsets[et.dst_type_id];
    for (int64_t k = 0; k < et.size(); ++k) {
      edges->src.push_back(so + et.src[k]);
      edges->dst.push_back(dof + et.dst[k]);
    }
    l.edge_offsets.push_back(l.edge_offsets.back() + et.size());
    std::vector<int64_t>().swap(et.src);
    std::vector<int64_t>().swap(et.dst);
  }
  edges->max_id = l.num_nodes() - 1;
  return l;
}

Result<TypeLayout> OpenTypedLayout(const std::string& dir, bool undirected, const std::string& scratch_dir) {
  DG_ASSIGN_OR_RETURN(TypedDataset ds, ReadTypedMeta(dir));
  TypeLayout l;
  l.type_offsets = ds.TypeOffsets();
  l.target_type = ds.target_type;
  l.num_classes = ds.num_classes;
  for (NodeTypeData& t : ds.node_types) {
    l.node_types.push_back(t.name);
    std::map<std::string, Array> arrays;
    for (const auto& [name, path] : TypedNodeFiles(dir, t.name)) {
      DG_ASSIGN_OR_RETURN(std::string plain, PlainNpyPath(path, scratch_dir, t.name + "." + name + ".npy"));
      DG_ASSIGN_OR_RETURN(Array a, NpyMap(plain));
      if (a.shape.empty() || a.shape[0] != t.count)
        return Status::InvalidArgument(path + ": shape " + a.ShapeString() + ", expected " + std::to_string(t.count) +
                                       " rows (meta.json node_types." + t.name + ")");
      l.mapped.insert(t.name + "/" + name);
      t.data[name] = a;  // for ValidateTypedDataset below (labels/split dtypes)
      arrays[name] = std::move(a);
    }
    l.node_data.push_back(std::move(arrays));
  }
  {  // Checks the arrays (labels int64 / split int8 are converted to heap copies there).
    TypedDataset check = ds;
    DG_RETURN_IF_ERROR(ValidateTypedDataset(&check, dir));
    for (size_t t = 0; t < check.node_types.size(); ++t)
      for (auto& [name, a] : check.node_types[t].data)
        if (a.data != l.node_data[t][name].data) {
          l.node_data[t][name] = a;
          l.mapped.erase(check.node_types[t].name + "/" + name);
        }
    if (l.num_classes <= 0) l.num_classes = check.num_classes;
  }
  if (undirected) {
    TypedDataset rev = ds;  // types only: forward then rev_ (NormalizeTypedEdges on empty lists)
    TypedLoadOptions o;
    o.undirected = true;
    NormalizeTypedEdges(&rev, o);
    ds.edge_types = rev.edge_types;
  }
  AddEdgeTypes(ds, &l);
  const size_t forward = undirected ? ds.edge_types.size() / 2 : ds.edge_types.size();
  l.num_file_edge_types = static_cast<int>(forward);
  // Pass 1: edge counts per type (an .npy's header, so a rank of the MPI
  // partitioner reads only its rows; a text file's lines counted, not parsed).
  // The ids are checked when read.
  std::vector<int64_t> count(forward, 0);
  for (size_t r = 0; r < forward; ++r) {
    const EdgeTypeData& et = ds.edge_types[r];
    DG_ASSIGN_OR_RETURN(std::string path, TypedEdgeFile(dir, et));
    if (path.size() > 4 && path.compare(path.size() - 4, 4, ".npy") == 0) {
      DG_ASSIGN_OR_RETURN(Array a, NpyMap(path));
      if (a.shape.size() != 2 || a.shape[1] != 2)
        return Status::InvalidArgument(path + ": expected an [E, 2] array of (src, dst) pairs, got shape " +
                                       a.ShapeString());
      count[r] = a.shape[0];
      continue;
    }
    if (path.size() < 7 || path.compare(path.size() - 7, 7, ".npy.gz") != 0) {
      DG_ASSIGN_OR_RETURN(count[r], CountEdgeTextRows(path));
      continue;
    }
    DG_RETURN_IF_ERROR(ForEachTypedEdge(dir, et, ds.node_types[et.src_type_id].count, ds.node_types[et.dst_type_id].count,
                                        [&](const int64_t*, const int64_t*, int64_t n) {
                                          count[r] += n;
                                          return Status::OK();
                                        }));
  }
  l.edge_offsets.assign(1, 0);
  for (size_t r = 0; r < ds.edge_types.size(); ++r) l.edge_offsets.push_back(l.edge_offsets.back() + count[r % forward]);
  return l;
}

EdgeTypeData FileEdgeType(const TypeLayout& l, int r) {
  const PartitionConfig::EdgeType& e = l.edge_types[r];
  EdgeTypeData et;
  et.src_type = e.src;
  et.relation = e.relation;
  et.dst_type = e.dst;
  et.src_type_id = e.src_type;
  et.dst_type_id = e.dst_type;
  return et;
}

Result<TypeLayout> OpenTypedOutOfCore(const std::string& dir, bool undirected, const std::string& scratch_dir,
                                      std::string* src_path, std::string* dst_path) {
  DG_ASSIGN_OR_RETURN(TypeLayout l, OpenTypedLayout(dir, undirected, scratch_dir));
  const size_t forward = static_cast<size_t>(l.num_file_edge_types);
  const int64_t total = l.edge_offsets.back();
  // Pass 2 (and 3 for the reverse types): the flat columns.
  *src_path = scratch_dir + "/typed_src.npy";
  *dst_path = scratch_dir + "/typed_dst.npy";
  NpyWriter ws, wd;
  DG_RETURN_IF_ERROR(ws.Open(*src_path, DType::kInt64, {total}));
  DG_RETURN_IF_ERROR(wd.Open(*dst_path, DType::kInt64, {total}));
  std::vector<int64_t> bs, bd;
  for (size_t r = 0; r < l.edge_types.size(); ++r) {
    const EdgeTypeData file = FileEdgeType(l, static_cast<int>(r % forward));  // a reverse type reads its forward type's file
    const bool reverse = r >= forward;
    const int64_t so = l.type_offsets[file.src_type_id], dof = l.type_offsets[file.dst_type_id];
    DG_RETURN_IF_ERROR(ForEachTypedEdge(dir, file, l.NumNodesOfType(file.src_type_id), l.NumNodesOfType(file.dst_type_id),
                                        [&](const int64_t* s, const int64_t* d, int64_t n) {
                                          bs.resize(n);
                                          bd.resize(n);
                                          for (int64_t i = 0; i < n; ++i) {
                                            bs[i] = reverse ? dof + d[i] : so + s[i];
                                            bd[i] = reverse ? so + s[i] : dof + d[i];
                                          }
                                          DG_RETURN_IF_ERROR(ws.Append(bs.data(), n * sizeof(int64_t)));
                                          return wd.Append(bd.data(), n * sizeof(int64_t));
                                        }));
  }
  DG_RETURN_IF_ERROR(ws.Finish());
  DG_RETURN_IF_ERROR(wd.Finish());
  return l;
}

}  // namespace dg
