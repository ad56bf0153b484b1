#include "common/sampling/typed_link.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

namespace dg {

std::string EdgeTypeName(const TypedGraphInput& in, int etype) {
  const auto& e = in.edge_types[static_cast<size_t>(etype)];
  return in.node_types[e.src_type].name + ":" + e.relation + ":" + in.node_types[e.dst_type].name;
}

Result<int> FindEdgeType(const TypedGraphInput& in, const std::string& spec, const std::string& flag) {
  std::vector<int> by_relation;
  for (size_t t = 0; t < in.edge_types.size(); ++t) {
    const auto& e = in.edge_types[t];
    const std::string& s = in.node_types[e.src_type].name;
    const std::string& d = in.node_types[e.dst_type].name;
    if (spec == s + ":" + e.relation + ":" + d || spec == s + "__" + e.relation + "__" + d)
      return static_cast<int>(t);
    if (spec == e.relation) by_relation.push_back(static_cast<int>(t));
  }
  if (by_relation.size() == 1) return by_relation[0];
  std::string list;
  for (size_t t = 0; t < in.edge_types.size(); ++t)
    list += (t ? ", " : "") + EdgeTypeName(in, static_cast<int>(t));
  if (by_relation.size() > 1)
    return Status::InvalidArgument(flag + " '" + spec + "': the relation belongs to " +
                                   std::to_string(by_relation.size()) +
                                   " edge types; name one as src:relation:dst (edge types: " + list + ")");
  return Status::InvalidArgument(flag + " '" + spec + "': no such edge type (expected src:relation:dst or a relation; " +
                                 "edge types: " + list + ")");
}

int ReverseEdgeType(const TypedGraphInput& in, int etype) {
  const auto& f = in.edge_types[static_cast<size_t>(etype)];
  const std::string want = f.relation.rfind("rev_", 0) == 0 ? f.relation.substr(4) : "rev_" + f.relation;
  for (size_t t = 0; t < in.edge_types.size(); ++t) {
    const auto& e = in.edge_types[t];
    if (e.relation == want && e.src_type == f.dst_type && e.dst_type == f.src_type) return static_cast<int>(t);
  }
  return -1;
}

Result<TypedLinkEdges> HoldOutTypedEdges(TypedGraphInput* in, int etype, const EdgeSplitFractions& fractions,
                                         uint64_t seed) {
  if (etype < 0 || etype >= static_cast<int>(in->edge_types.size()))
    return Status::InvalidArgument("edge type " + std::to_string(etype) + " out of range");
  TypedLinkEdges out;
  out.etype = etype;
  out.reverse_etype = ReverseEdgeType(*in, etype);
  std::vector<int64_t> first(in->node_types.size() + 1, 0);
  for (size_t t = 0; t < in->node_types.size(); ++t) first[t + 1] = first[t] + in->node_types[t].count;
  auto& e = in->edge_types[static_cast<size_t>(etype)];
  out.dst_first = first[e.dst_type];
  out.dst_count = in->node_types[e.dst_type].count;
  const int64_t so = first[e.src_type], dof = first[e.dst_type];
  EdgeList local;
  local.src = e.src;
  local.dst = e.dst;
  const std::vector<int8_t> split = AssignEdgeSplit(local, fractions, seed, /*undirected=*/false);
  // Held-out pairs with their multiplicity, to take as many copies out of the reverse type.
  std::map<std::pair<int64_t, int64_t>, int64_t> held;
  size_t w = 0;
  for (size_t i = 0; i < e.src.size(); ++i) {
    const int64_t s = e.src[i], d = e.dst[i];
    if (split[i] == 0) {
      e.src[w] = s;
      e.dst[w++] = d;
      out.train.src.push_back(so + s);
      out.train.dst.push_back(dof + d);
      continue;
    }
    EdgeList& to = split[i] == 1 ? out.val : out.test;
    to.src.push_back(so + s);
    to.dst.push_back(dof + d);
    ++held[{s, d}];
  }
  e.src.resize(w);
  e.dst.resize(w);
  if (out.train.src.empty())
    return Status::InvalidArgument("edge type " + EdgeTypeName(*in, etype) + ": no training edges left after the split");
  if (out.reverse_etype >= 0) {
    auto& r = in->edge_types[static_cast<size_t>(out.reverse_etype)];
    size_t k = 0;
    for (size_t i = 0; i < r.src.size(); ++i) {
      auto it = held.find({r.dst[i], r.src[i]});
      if (it != held.end() && it->second > 0) {
        --it->second;
        continue;
      }
      r.src[k] = r.src[i];
      r.dst[k++] = r.dst[i];
    }
    r.src.resize(k);
    r.dst.resize(k);
  }
  return out;
}

}  // namespace dg
