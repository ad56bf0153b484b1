#include "common/sampling/typed_link.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace dg {

std::string EdgeTypeName(const TypedGraphInput& in, int etype) {
  const auto& e = in.edge_types[static_cast<size_t>(etype)];
  return in.node_types[e.src_type].name + ":" + e.relation + ":" + in.node_types[e.dst_type].name;
}

namespace {

std::vector<EdgeTypeNames> Names(const TypedGraphInput& in) {
  std::vector<EdgeTypeNames> out;
  for (const auto& e : in.edge_types)
    out.push_back({in.node_types[e.src_type].name, e.relation, in.node_types[e.dst_type].name});
  return out;
}

}  // namespace

Result<int> FindEdgeType(const TypedGraphInput& in, const std::string& spec, const std::string& flag) {
  return MatchEdgeType(Names(in), spec, flag);
}

int ReverseEdgeType(const TypedGraphInput& in, int etype) { return MatchReverseEdgeType(Names(in), etype); }

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
  std::vector<int64_t>* rev_src = nullptr;
  std::vector<int64_t>* rev_dst = nullptr;
  if (out.reverse_etype >= 0) {
    auto& r = in->edge_types[static_cast<size_t>(out.reverse_etype)];
    rev_src = &r.src;
    rev_dst = &r.dst;
  }
  DG_ASSIGN_OR_RETURN(HeldOutEdges held, HoldOutTypePairs(&e.src, &e.dst, rev_src, rev_dst, fractions, seed));
  if (e.src.empty())
    return Status::InvalidArgument("edge type " + EdgeTypeName(*in, etype) + ": no training edges left after the split");
  auto shift = [&](const std::vector<int64_t>& src, const std::vector<int64_t>& dst, EdgeList* to) {
    for (size_t i = 0; i < src.size(); ++i) {
      to->src.push_back(so + src[i]);
      to->dst.push_back(dof + dst[i]);
    }
  };
  shift(e.src, e.dst, &out.train);
  shift(held.val.src, held.val.dst, &out.val);
  shift(held.test.src, held.test.dst, &out.test);
  return out;
}

}  // namespace dg
