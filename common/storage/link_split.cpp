#include "common/storage/link_split.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "common/io/npy.h"
#include "common/storage/neighbor_sampling.h"

namespace dg {

Result<EdgeSplitFractions> ParseEdgeSplit(const std::string& text, const std::string& flag) {
  EdgeSplitFractions f{};
  std::stringstream ss(text);
  std::string item;
  int n = 0;
  bool extra = false;
  while (std::getline(ss, item, ',')) {
    if (n >= 3) {
      extra = true;
      break;
    }
    try {
      size_t used = 0;
      f[n] = std::stod(item, &used);
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      return Status::InvalidArgument(flag + ": '" + item + "' is not a number (expected train,val,test fractions, e.g. 0.85,0.05,0.10)");
    }
    if (!(f[n] >= 0)) return Status::InvalidArgument(flag + ": fractions must be >= 0, got '" + item + "'");
    ++n;
  }
  if (n != 3 || extra)
    return Status::InvalidArgument(flag + ": expected three fractions train,val,test (e.g. 0.85,0.05,0.10), got '" + text + "'");
  if (std::fabs(f[0] + f[1] + f[2] - 1.0) > 1e-6)
    return Status::InvalidArgument(flag + ": the fractions must sum to 1, got '" + text + "'");
  return f;
}

std::vector<int8_t> AssignEdgeSplit(const EdgeList& edges, const EdgeSplitFractions& fractions,
                                    uint64_t seed, bool undirected) {
  const size_t m = edges.src.size();
  // Unit key of each edge: (u, v), or (min, max) when undirected.
  std::vector<std::pair<int64_t, int64_t>> key(m);
  for (size_t i = 0; i < m; ++i) {
    int64_t u = edges.src[i], v = edges.dst[i];
    if (undirected && u > v) std::swap(u, v);
    key[i] = {u, v};
  }
  std::vector<std::pair<int64_t, int64_t>> units = key;
  std::sort(units.begin(), units.end());
  units.erase(std::unique(units.begin(), units.end()), units.end());
  const size_t n = units.size();
  std::vector<int64_t> perm(n);
  for (size_t i = 0; i < n; ++i) perm[i] = static_cast<int64_t>(i);
  Rng rng(MixSeed(seed, 0xed9e));
  for (size_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[rng.Uniform(i)]);
  const size_t n_train = static_cast<size_t>(std::llround(fractions[0] * static_cast<double>(n)));
  const size_t n_val = std::min(n - std::min(n, n_train),
                                static_cast<size_t>(std::llround(fractions[1] * static_cast<double>(n))));
  std::vector<int8_t> unit_split(n, 2);
  for (size_t r = 0; r < n; ++r) unit_split[perm[r]] = r < n_train ? 0 : r < n_train + n_val ? 1 : 2;
  std::vector<int8_t> out(m);
  for (size_t i = 0; i < m; ++i) {
    auto it = std::lower_bound(units.begin(), units.end(), key[i]);
    out[i] = unit_split[it - units.begin()];
  }
  return out;
}

Status LoadInputEdgeSplit(const std::string& dataset_dir, int64_t input_edges, bool* present, Array* out) {
  const std::string path = dataset_dir + "/edge_split.npy";
  *present = std::filesystem::exists(path);
  if (!*present) return Status::OK();
  DG_ASSIGN_OR_RETURN(*out, NpyLoad(path));
  if ((out->dtype != DType::kInt8 && out->dtype != DType::kUInt8) || out->shape.size() != 1 ||
      out->shape[0] != input_edges)
    return Status::InvalidArgument(path + ": expected int8 [" + std::to_string(input_edges) +
                                   "] (one of 0 train / 1 val / 2 test per input edge), got " +
                                   std::string(DTypeName(out->dtype)) + out->ShapeString());
  const int8_t* s = out->as<int8_t>();
  for (int64_t i = 0; i < input_edges; ++i)
    if (s[i] < 0 || s[i] > 2)
      return Status::InvalidArgument(path + ": input edge " + std::to_string(i) + " has value " +
                                     std::to_string(int(s[i])) + " (expected 0 train, 1 val, 2 test)");
  return Status::OK();
}

Result<std::vector<int8_t>> SplitFromInput(const Array& input_split, const EdgeList& edges,
                                           const std::vector<int64_t>& origin, bool undirected) {
  const size_t m = edges.src.size();
  if (origin.size() != m) return Status::Internal("edge split: no input origin for the normalized edges");
  const int8_t* s = input_split.as<int8_t>();
  std::vector<int8_t> out(m);
  for (size_t k = 0; k < m; ++k) out[k] = s[origin[k]];
  if (!undirected) return out;
  std::vector<std::pair<std::pair<int64_t, int64_t>, int8_t>> canon;
  for (size_t k = 0; k < m; ++k)
    if (edges.src[k] <= edges.dst[k]) canon.push_back({{edges.src[k], edges.dst[k]}, out[k]});
  std::sort(canon.begin(), canon.end());
  for (size_t k = 0; k < m; ++k) {
    if (edges.src[k] <= edges.dst[k]) continue;
    auto key = std::make_pair(edges.dst[k], edges.src[k]);
    auto it = std::lower_bound(canon.begin(), canon.end(), std::make_pair(key, int8_t{-128}));
    if (it != canon.end() && it->first == key) out[k] = it->second;
  }
  return out;
}

Result<HeldOutEdges> SplitEdgeList(EdgeList* edges, std::vector<int64_t>* origin,
                                   const std::vector<int8_t>& split) {
  const size_t m = edges->src.size();
  if (split.size() != m)
    return Status::InvalidArgument("edge split has " + std::to_string(split.size()) + " entries for " +
                                   std::to_string(m) + " edges");
  const bool with_origin = origin && !origin->empty();
  HeldOutEdges held;
  size_t w = 0;
  for (size_t i = 0; i < m; ++i) {
    const int8_t s = split[i];
    if (s < 0 || s > 2)
      return Status::InvalidArgument("edge split: edge " + std::to_string(i) + " has value " +
                                     std::to_string(int(s)) + " (expected 0 train, 1 val, 2 test)");
    if (s == 0) {
      edges->src[w] = edges->src[i];
      edges->dst[w] = edges->dst[i];
      if (with_origin) (*origin)[w] = (*origin)[i];
      ++w;
    } else {
      EdgeList& h = s == 1 ? held.val : held.test;
      h.src.push_back(edges->src[i]);
      h.dst.push_back(edges->dst[i]);
    }
  }
  edges->src.resize(w);
  edges->dst.resize(w);
  if (with_origin) origin->resize(w);
  return held;
}

std::string EdgeTypeList(const std::vector<EdgeTypeNames>& types) {
  std::string list;
  for (size_t t = 0; t < types.size(); ++t) list += (t ? ", " : "") + types[t].Name();
  return list;
}

Result<int> MatchEdgeType(const std::vector<EdgeTypeNames>& types, const std::string& spec, const std::string& flag) {
  std::vector<int> by_relation;
  for (size_t t = 0; t < types.size(); ++t) {
    const EdgeTypeNames& e = types[t];
    if (spec == e.Name() || spec == e.src + "__" + e.relation + "__" + e.dst) return static_cast<int>(t);
    if (spec == e.relation) by_relation.push_back(static_cast<int>(t));
  }
  if (by_relation.size() == 1) return by_relation[0];
  if (by_relation.size() > 1)
    return Status::InvalidArgument(flag + " '" + spec + "': the relation belongs to " +
                                   std::to_string(by_relation.size()) +
                                   " edge types; name one as src:relation:dst (edge types: " + EdgeTypeList(types) +
                                   ")");
  return Status::InvalidArgument(flag + " '" + spec + "': no such edge type (expected src:relation:dst or a relation; " +
                                 "edge types: " + EdgeTypeList(types) + ")");
}

int MatchReverseEdgeType(const std::vector<EdgeTypeNames>& types, int etype) {
  const EdgeTypeNames& f = types[static_cast<size_t>(etype)];
  const std::string want = f.relation.rfind("rev_", 0) == 0 ? f.relation.substr(4) : "rev_" + f.relation;
  for (size_t t = 0; t < types.size(); ++t) {
    const EdgeTypeNames& e = types[t];
    if (e.relation == want && e.src == f.dst && e.dst == f.src) return static_cast<int>(t);
  }
  return -1;
}

Result<HeldOutEdges> HoldOutTypePairs(std::vector<int64_t>* src, std::vector<int64_t>* dst,
                                      std::vector<int64_t>* rev_src, std::vector<int64_t>* rev_dst,
                                      const EdgeSplitFractions& fractions, uint64_t seed) {
  EdgeList local;
  local.src = *src;
  local.dst = *dst;
  const std::vector<int8_t> split = AssignEdgeSplit(local, fractions, seed, /*undirected=*/false);
  // Held-out pairs with their multiplicity, to take as many copies out of the reverse type.
  std::map<std::pair<int64_t, int64_t>, int64_t> held_count;
  HeldOutEdges held;
  size_t w = 0;
  for (size_t i = 0; i < src->size(); ++i) {
    const int64_t s = (*src)[i], d = (*dst)[i];
    if (split[i] == 0) {
      (*src)[w] = s;
      (*dst)[w++] = d;
      continue;
    }
    EdgeList& to = split[i] == 1 ? held.val : held.test;
    to.src.push_back(s);
    to.dst.push_back(d);
    ++held_count[{s, d}];
  }
  src->resize(w);
  dst->resize(w);
  if (rev_src && rev_dst) {
    size_t k = 0;
    for (size_t i = 0; i < rev_src->size(); ++i) {
      auto it = held_count.find({(*rev_dst)[i], (*rev_src)[i]});
      if (it != held_count.end() && it->second > 0) {
        --it->second;
        continue;
      }
      (*rev_src)[k] = (*rev_src)[i];
      (*rev_dst)[k++] = (*rev_dst)[i];
    }
    rev_src->resize(k);
    rev_dst->resize(k);
  }
  return held;
}

Result<LinkSplitInfo> ReadLinkSplitInfo(const std::string& base_dir) {
  LinkSplitInfo info;
  const std::string path = base_dir + "/link_split.json";
  if (!std::filesystem::exists(path)) return info;
  try {
    YAML::Node root = YAML::LoadFile(path);
    info.present = true;
    info.undirected = root["undirected"] && root["undirected"].as<bool>();
    info.num_train = root["num_train"].as<int64_t>();
    info.num_val = root["num_val"].as<int64_t>();
    info.num_test = root["num_test"].as<int64_t>();
    if (root["etype"] && root["etype"].IsScalar()) info.etype = root["etype"].Scalar();
    if (root["reverse_etype"] && root["reverse_etype"].IsScalar() && !root["reverse_etype"].IsNull())
      info.reverse_etype = root["reverse_etype"].Scalar();
  } catch (const std::exception& e) {
    return Status::Corruption(path + ": " + e.what());
  }
  return info;
}

Status ReadHeldOutEdges(const std::string& part_dir, const std::string& which, EdgeList* out) {
  const std::string path = part_dir + "/" + which + "_edges.npy";
  DG_ASSIGN_OR_RETURN(Array a, NpyLoad(path));
  if (a.dtype != DType::kInt64 || a.shape.size() != 2 || a.shape[1] != 2)
    return Status::Corruption(path + ": expected int64 [M, 2], got " + std::string(DTypeName(a.dtype)) +
                              a.ShapeString());
  const int64_t* p = a.as<int64_t>();
  for (int64_t i = 0; i < a.shape[0]; ++i) {
    out->src.push_back(p[2 * i]);
    out->dst.push_back(p[2 * i + 1]);
  }
  return Status::OK();
}

}  // namespace dg
