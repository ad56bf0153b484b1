#include "roles/trainer/model/model_export.h"

#include "config/enum_words.h"

#include "roles/trainer/graph_ops/graph_ops.h"
#include "roles/trainer/model/script_resolver.h"

#include <torch/script.h>
#include <torch/torch.h>

#include <sstream>
#include <utility>
#include <vector>

namespace dg {
namespace {

// Layer widths: dims[0] = in, dims[l+1] = output width of layer l.
std::vector<int64_t> LayerDims(const ModelSpec& s) {
  std::vector<int64_t> dims{s.in_dim};
  for (int l = 0; l + 1 < s.layers; ++l) dims.push_back(s.hidden);
  dims.push_back(s.classes);
  return dims;
}

// Shared helpers: destination index of every edge, dropout, forward.
const char kHelpers[] = R"TS(
def _edge_dst(self, indptr: Tensor) -> Tensor:
    return torch.repeat_interleave(indptr[1:] - indptr[:-1])

def _drop(self, x: Tensor, p: float) -> Tensor:
    # distgnn's dropout: a hashed mask, several times cheaper than bernoulli_ on CPU.
    return torch.ops.distgnn.dropout(x, p, self.training)

def _dropout(self, x: Tensor, layer: int) -> Tensor:
    return self._drop(x, self.dropout if layer > 0 else self.input_dropout)

def forward(self, x: Tensor, blocks: List[Tuple[Tensor, Tensor, int]]) -> Tensor:
    assert len(blocks) == self.num_layers, "model has " + str(self.num_layers) + " layers but got " + str(len(blocks)) + " blocks"
    h = x
    for i in range(self.num_layers):
        h = self.forward_layer(i, h, blocks[i])
    return h
)TS";

// The layer's first line: dropout on its input (hidden layers; the raw input
// features only with input_dropout > 0, as DGL's examples do).
std::string LayerHead(int l) {
  std::ostringstream s;
  s << "def _layer" << l << "(self, x: Tensor, indptr: Tensor, indices: Tensor, num_dst: int) -> Tensor:\n"
    << "    x = self._dropout(x, " << l << ")\n";
  return s.str();
}

std::string SageLayer(int l, int64_t in, int64_t out, bool last) {
  std::ostringstream s;
  s << LayerHead(l);
  // A linear map commutes with the mean: project first when it shrinks rows.
  if (out < in) {
    s << "    n = torch.ops.distgnn.csr_mean(indptr, indices, torch.ops.distgnn.linear(x, self.w_neigh_" << l
      << "), num_dst)\n";
  } else {
    s << "    n = torch.ops.distgnn.linear(torch.ops.distgnn.csr_mean(indptr, indices, x, num_dst), self.w_neigh_"
      << l << ")\n";
  }
  s << "    h = torch.ops.distgnn.linear(x[:num_dst], self.w_self_" << l << ") + n + self.b_" << l << "\n";
  if (!last) s << "    h = torch.relu(h)\n";
  s << "    return h\n";
  return s.str();
}

std::string GcnLayer(int l, int64_t in, int64_t out, bool last) {
  std::ostringstream s;
  s << LayerHead(l);
  s << "    h = x\n";
  if (out < in) s << "    h = torch.ops.distgnn.linear(h, self.w_" << l << ")\n";
  s << "    h = torch.ops.distgnn.gcn_aggregate(indptr, indices, h, num_dst)\n";
  if (!(out < in)) s << "    h = torch.ops.distgnn.linear(h, self.w_" << l << ")\n";
  s << "    h = h + self.b_" << l << "\n";
  if (!last) s << "    h = torch.relu(h)\n";
  s << "    return h\n";
  return s.str();
}

std::string GatLayer(int l, int heads, int64_t per_head, bool last) {
  std::ostringstream s;
  s << LayerHead(l);
  s << "    H = " << heads << "\n    F = " << per_head << "\n"
    << "    num_src = x.size(0)\n"
    << "    f = torch.ops.distgnn.linear(x, self.w_" << l << ").view(num_src, H, F)\n"
    << "    el = (f * self.attn_l_" << l << ").sum(-1)\n"
    << "    er = (f[:num_dst] * self.attn_r_" << l << ").sum(-1)\n"
    << "    ip, ix = torch.ops.distgnn.add_self_loops(indptr, indices, num_dst)\n"
    << "    e = torch.leaky_relu(el.index_select(0, ix) + er.index_select(0, self._edge_dst(ip)), 0.2)\n"
    << "    a = torch.ops.distgnn.edge_softmax(ip, e)\n"
    << "    a = self._drop(a, self.attn_dropout)\n"
    << "    out = torch.ops.distgnn.csr_weighted_sum(ip, ix, a, f, num_dst)\n"
    << "    out = out + self.b_" << l << ".view(1, H, F)\n";
  if (last) s << "    return out.mean(1)\n";
  else s << "    return torch.elu(out).reshape(num_dst, H * F)\n";
  return s.str();
}

// The TorchScript class of the exported module.
const char* ModuleClassName(ModelArch arch) {
  switch (arch) {
    case ModelArch::kSage: return "DistgnnSAGE";
    case ModelArch::kGcn: return "DistgnnGCN";
    case ModelArch::kGat: return "DistgnnGAT";
    case ModelArch::kMlp: return "DistgnnMLP";
    case ModelArch::kRgcn: return "DistgnnRGCN";
    case ModelArch::kHeteroSage: return "DistgnnHeteroSAGE";
  }
  return "DistgnnGAT";
}

int GatHeads(const ModelSpec& s, int l) { return l + 1 == s.layers ? 1 : s.heads; }

// Control-variate training (roles/trainer/tasks/cv_task.h): layer
// 0 on a node's own input x and its propagated input ax = mean of x over the
// in-neighbours; layer l >= 1 on the node's own activation and the (estimated)
// mean of its in-neighbours' activations. deg = in-degree (float [n]).
// GCN here is the mean over the neighbourhood with a self loop,
// (deg * mean + self) / (deg + 1), i.e. D^-1 (A + I): exactly what the history
// aggregation (a mean) gives; SAGE is its usual self + neighbour weights.
std::string CvMethods(const ModelSpec& spec) {
  std::ostringstream s;
  const bool gcn = spec.arch == ModelArch::kGcn;
  for (int l = 0; l < spec.layers; ++l) {
    const bool last = l + 1 == spec.layers;
    s << "def _cv" << l << "(self, h_self: Tensor, h_neigh: Tensor, deg: Tensor) -> Tensor:\n";
    if (gcn) {
      s << "    d = deg.to(h_self.dtype).unsqueeze(1)\n"
        << "    a = self._dropout((h_neigh * d + h_self) / (d + 1.0), " << l << ")\n"
        << "    h = torch.ops.distgnn.linear(a, self.w_" << l << ") + self.b_" << l << "\n";
    } else {
      s << "    h = torch.ops.distgnn.linear(self._dropout(h_self, " << l << "), self.w_self_" << l << ")"
        << " + torch.ops.distgnn.linear(self._dropout(h_neigh, " << l << "), self.w_neigh_" << l << ") + self.b_" << l
        << "\n";
    }
    if (!last) s << "    h = torch.relu(h)\n";
    s << "    return h\n\n";
  }
  s << "def cv_input(self, x: Tensor, ax: Tensor, deg: Tensor) -> Tensor:\n"
    << "    return self._cv0(x, ax, deg)\n\n";
  s << "def cv_layer(self, layer: int, h_self: Tensor, h_neigh: Tensor, deg: Tensor) -> Tensor:\n";
  for (int l = 1; l < spec.layers; ++l)
    s << "    if layer == " << l << ":\n        return self._cv" << l << "(h_self, h_neigh, deg)\n";
  s << "    assert False, \"cv_layer: layer \" + str(layer) + \" out of range\"\n    return h_self\n";
  return s.str();
}

// SAGE's first layer from block 0's destination rows and the mean of their
// sampled sources, aggregated where the features live (docs/models.md,
// common/client/block_input.h). Only without input dropout: a mask drawn per
// source row does not commute with the servers' sums.
// forward_layer_agg is its layer 0 alone (historical rows compute layer 0
// for some nodes only).
std::string SageForwardAgg(const ModelSpec& spec) {
  std::ostringstream s;
  s << "def forward_layer_agg(self, x_dst: Tensor, neigh_mean: Tensor, block: Tuple[Tensor, Tensor, int]) -> Tensor:\n"
    << "    h = torch.ops.distgnn.linear(x_dst, self.w_self_0) + torch.ops.distgnn.linear(neigh_mean, self.w_neigh_0)"
       " + self.b_0\n";
  if (spec.layers > 1) s << "    h = torch.relu(h)\n";
  s << "    return h\n\n"
    << "def forward_agg(self, x_dst: Tensor, neigh_mean: Tensor, blocks: List[Tuple[Tensor, Tensor, int]]) -> Tensor:\n"
    << "    assert len(blocks) == self.num_layers, \"model has \" + str(self.num_layers) + \" layers but got \" + "
       "str(len(blocks)) + \" blocks\"\n"
    << "    h = self.forward_layer_agg(x_dst, neigh_mean, blocks[0])\n"
    << "    for i in range(1, self.num_layers):\n"
    << "        h = self.forward_layer(i, h, blocks[i])\n"
    << "    return h\n";
  return s.str();
}

// mlp: the seeds' own rows (the first rows of x: blocks keep destinations
// first) through `layers` linear layers; the blocks only say how many seeds.
std::string MlpSource(const ModelSpec& spec) {
  std::ostringstream s;
  s << "def _drop(self, x: Tensor, p: float) -> Tensor:\n"
    << "    return torch.ops.distgnn.dropout(x, p, self.training)\n\n"
    << "def forward(self, x: Tensor, blocks: List[Tuple[Tensor, Tensor, int]]) -> Tensor:\n"
    << "    num_seeds = blocks[len(blocks) - 1][2]\n"
    << "    h = self._drop(x[:num_seeds], self.input_dropout)\n";
  for (int l = 0; l < spec.layers; ++l) {
    if (l > 0) s << "    h = self._drop(torch.relu(h), self.dropout)\n";
    s << "    h = torch.ops.distgnn.linear(h, self.w_" << l << ") + self.b_" << l << "\n";
  }
  s << "    return h\n";
  return s.str();
}

// rgcn with fewer bases than relations mixes shared bases; with as many (the
// default) it has one weight per relation, as DGL's RelGraphConv does: the
// mixing coefficients would only re-parametrise the same weights (on IMDB they
// cost 0.7 points of test accuracy, docs/models.md).
bool UsesBases(const ModelSpec& s) { return s.arch == ModelArch::kRgcn && s.bases < s.num_relations; }

bool RelationRows(const ModelSpec& s) {
  return IsTypedArch(s.arch) && s.featureless_input == FeaturelessInput::kRelationRows;
}

// relation-rows: layer 0 without an input layer (model_export.h). Row j of h
// is node j's learnt row, K + 1 blocks of layer 0's output width; an edge of
// relation r brings sum_k a_rk h_j[k] (with bases) or h_j[r] (without), scaled
// by 1 / (the destination's in-edges of r), as the other layers' mean.
std::string RelationRowsLayer0(const ModelSpec& spec) {
  const std::string K = std::to_string(RelationRowBlocks(spec)), H = std::to_string(RelationRowBlockWidth(spec));
  const std::string R = std::to_string(spec.num_relations);
  std::ostringstream s;
  s << "def _layer0(self, h: Tensor, indptr: Tensor, indices: Tensor, etype: Tensor, num_dst: int) -> Tensor:\n"
    << "    dst = self._edge_dst(indptr)\n"
    << "    rel = etype.long()\n"
    << "    key = rel * num_dst + dst\n"
    << "    scale = torch.bincount(key, minlength=" << R << " * num_dst).index_select(0, key).to(h.dtype)"
       ".reciprocal().unsqueeze(1)\n"
    << "    src = indices.long()\n";
  if (UsesBases(spec))
    s << "    rows = h.index_select(0, src).view(-1, " << K << " + 1, " << H << ")[:, :" << K << "]\n"
      << "    m = torch.bmm(self.coef_0.index_select(0, rel).unsqueeze(1), rows).squeeze(1)\n";
  else
    s << "    m = h.reshape(-1, " << H << ").index_select(0, src * (" << K << " + 1) + rel)\n";
  s << "    out = h[:num_dst, " << K << " * " << H << ":] + self.b_0\n"
    << "    out = out.index_add(0, dst, m * scale)\n";
  if (spec.layers > 1) s << "    out = torch.relu(out)\n";
  s << "    return out\n\n";
  return s.str();
}

// The relations whose source type has features: forward_agg takes their
// means from the servers (empty: no forward_agg).
std::vector<int> AggregatedRelations(const ModelSpec& spec) {
  std::vector<int> out;
  if (spec.input_dropout > 0 || static_cast<int>(spec.relation_src_types.size()) != spec.num_relations) return out;
  for (int r = 0; r < spec.num_relations; ++r) {
    const int t = spec.relation_src_types[r];
    if (t >= 0 && t < static_cast<int>(spec.type_feature_dims.size()) && spec.type_feature_dims[t] > 0)
      out.push_back(r);
  }
  return out;
}

// The aggregated relations' terms of _layer0_agg. Relation r's sources are
// all of its source type t, whose input row is the affine x W_in_t + b_in_t
// of the node's features: the mean over a destination's r-sources of the
// input rows is the input layer of the mean of their features, exactly.
// neigh_mean holds, relation by relation (ascending), one row per
// destination with at least one r-edge (ascending), the mean of those
// sources' feature rows (padded to F_max).
std::string TypedAggregatedTerms(const ModelSpec& spec) {
  std::ostringstream s;
  s << "    at = 0\n";
  for (int r : AggregatedRelations(spec)) {
    const int t = spec.relation_src_types[r];
    const std::string T = std::to_string(t);
    s << "    deg = torch.bincount(dst.index_select(0, (etype == " << r << ").nonzero().squeeze(1)), minlength=num_dst)\n"
      << "    has = (deg > 0).nonzero().squeeze(1)\n"
      << "    k = has.numel()\n"
      << "    if k > 0:\n"
      << "        v = torch.matmul(neigh_mean[at:at + k, :" << spec.type_feature_dims[t] << "], self.w_in_" << T
      << ".t()) + self.b_in_" << T << "\n"
      << "        out = out.index_add(0, has, torch.matmul(v, w[" << r << "].t()))\n"
      << "    at = at + k\n";
  }
  s << "    assert at == neigh_mean.size(0), \"neigh_mean has \" + str(neigh_mean.size(0)) + \" rows, the block's "
       "aggregated relations \" + str(at)\n";
  return s.str();
}

// Relational layer l: h_i' = W_self h_i + b + sum_r mean_{j in N_r(i)} W_r h_j.
// With `agg` (layer 0 of forward_agg, _layer0_agg) the relations of
// AggregatedRelations are left out of the block's means and added from
// neigh_mean instead (TypedAggregatedTerms).
std::string TypedLayer(const ModelSpec& spec, int l, int64_t out, bool agg) {
  std::ostringstream s;
  const std::string L = std::to_string(l);
  const bool last = l + 1 == spec.layers;
  const int64_t in = spec.hidden;
  s << "def _layer" << l << (agg ? "_agg" : "") << "(self, h: Tensor, "
    << (agg ? "neigh_mean: Tensor, " : "") << "indptr: Tensor, indices: Tensor, etype: Tensor, num_dst: int) -> Tensor:\n";
  if (l > 0) s << "    h = self._drop(h, self.dropout)\n";
  if (UsesBases(spec))
    s << "    w = torch.matmul(self.coef_" << L << ", self.basis_" << L << ").view(" << spec.num_relations << ", "
      << out << ", " << in << ")\n";
  else
    s << "    w = self.w_rel_" << L << "\n";
  if (agg) {  // the block's edges of the other relations only
    s << "    dst = self._edge_dst(indptr)\n"
      << "    keep = etype >= 0\n";
    for (int r : AggregatedRelations(spec)) s << "    keep = keep & (etype != " << r << ")\n";
    s << "    kept = keep.nonzero().squeeze(1)\n";
  }
  // One mean over all relations: the edges ordered by (relation,
  // destination) (stable, so each row keeps the block's order) make row
  // r * num_dst + d of one CSR the in-edges of d by relation r. One op,
  // and in the backward one gradient of h instead of one per relation.
  // csr_mean wants at least as many source rows as rows: h gets zero rows
  // when the block has fewer sources than relations x destinations.
  const std::string R = std::to_string(spec.num_relations);
  s << "    out = torch.ops.distgnn.linear(h[:num_dst], self.w_self_" << L << ") + self.b_" << L << "\n";
  if (agg)
    s << "    key = etype.index_select(0, kept).long() * num_dst + dst.index_select(0, kept)\n";
  else
    s << "    key = etype.long() * num_dst + self._edge_dst(indptr)\n";
  s << "    order = torch.sort(key, stable=True)[1]\n"
    << "    n = " << R << " * num_dst\n"
    << "    ip = torch.cat([key.new_zeros([1]), torch.cumsum(torch.bincount(key, minlength=n), 0)])\n"
    << "    src = h if h.size(0) >= n else torch.cat([h, h.new_zeros([n - h.size(0), h.size(1)])])\n"
    << "    agg = torch.ops.distgnn.csr_mean(ip.to(indptr.dtype), "
    << (agg ? "indices.index_select(0, kept)" : "indices") << ".index_select(0, order), src, n)\n"
    << "    for r in range(" << R << "):\n"
    << "        if int(ip[(r + 1) * num_dst]) > int(ip[r * num_dst]):\n"
    << "            out = out + torch.matmul(agg[r * num_dst:(r + 1) * num_dst], w[r].t())\n";
  if (agg) s << TypedAggregatedTerms(spec);
  if (!last) s << "    out = torch.relu(out)\n";
  s << "    return out\n\n";
  return s.str();
}

// The typed forward_agg: forward with layer 0's aggregated relations taken
// from neigh_mean (docs/models.md, "Pre-aggregated first layer"). x is
// forward's x, but the feature rows of sources reached by aggregated
// relations alone may be zero (they are not read).
std::string TypedForwardAgg(const ModelSpec& spec, int64_t out0) {
  std::ostringstream s;
  s << TypedLayer(spec, 0, out0, true)
    << "def forward_agg(self, x: Tensor, neigh_mean: Tensor, "
       "blocks: List[Tuple[Tensor, Tensor, Tensor, Tensor, int]]) -> Tensor:\n"
    << "    assert len(blocks) == self.num_layers, \"model has \" + str(self.num_layers) + \" layers but got \" + "
       "str(len(blocks)) + \" blocks\"\n"
    << "    assert x.size(1) == self.in_dim, \"input rows have \" + str(x.size(1)) + \" columns, the model expects \" + "
       "str(self.in_dim)\n"
    << "    indptr, indices, etype, ntype, num_dst = blocks[0]\n"
    << "    h = self._layer0_agg(self._input(x, ntype), neigh_mean, indptr, indices, etype, num_dst)\n"
    << "    for i in range(1, self.num_layers):\n"
    << "        h = self.forward_layer(i, h, blocks[i])\n"
    << "    return h\n";
  return s.str();
}

// The input layer's rows (type rows): each type's own features, or its
// embedding columns, through its input weight, or its learnt vector.
void TypedInputRows(const ModelSpec& spec, int64_t fmax, std::ostringstream& s) {
  for (size_t t = 0; t < spec.type_feature_dims.size(); ++t) {
    const int64_t f = spec.type_feature_dims[t];
    const std::string T = std::to_string(t);
    s << "    idx = (ntype == " << t << ").nonzero().squeeze(1)\n";
    if (f > 0)
      s << "    v = torch.matmul(x.index_select(0, idx)[:, :" << f << "], self.w_in_" << T << ".t()) + self.b_in_" << T
        << "\n";
    else if (spec.embedding_dim > 0)
      s << "    v = torch.matmul(x.index_select(0, idx)[:, " << fmax << ":" << fmax + spec.embedding_dim
        << "], self.w_in_" << T << ".t()) + self.b_in_" << T << "\n";
    else
      s << "    v = self.b_in_" << T << ".unsqueeze(0).expand(idx.numel(), " << spec.hidden << ")\n";
    s << "    rows.append(v)\n    ids.append(idx)\n";
  }
  s << "    order = torch.cat(ids)\n"
    << "    assert order.numel() == x.size(0), \"a source node type is outside [0, " << spec.type_feature_dims.size()
    << ")\"\n"
    << "    at = torch.empty_like(order).index_copy_(0, order, torch.arange(order.numel(), dtype=order.dtype))\n"
    << "    return torch.cat(rows).index_select(0, at)\n\n";
}

// rgcn | hetero-sage (model_export.h): an input layer per node type (none
// with relation rows), then `layers` relational layers over typed blocks.
std::string TypedSource(const ModelSpec& spec) {
  const std::vector<int64_t> dims = LayerDims(spec);  // dims[0] is replaced by hidden below
  std::ostringstream s;
  int64_t fmax = 0;
  for (int64_t f : spec.type_feature_dims) fmax = std::max(fmax, f);
  s << "def _edge_dst(self, indptr: Tensor) -> Tensor:\n"
    << "    return torch.repeat_interleave(indptr[1:] - indptr[:-1])\n\n"
    << "def _drop(self, x: Tensor, p: float) -> Tensor:\n"
    << "    return torch.ops.distgnn.dropout(x, p, self.training)\n\n";
  // Input layer: one hidden row per source node of block 0, by its type.
  // The rows of each type are computed apart, stacked type by type and put
  // back in block order by one index_select (one copy of h each way instead
  // of one per type).
  s << "def _input(self, x: Tensor, ntype: Tensor) -> Tensor:\n"
    << "    x = self._drop(x, self.input_dropout)\n";
  if (RelationRows(spec)) {
    s << "    return x\n\n";  // the rows are layer 0's input as they are
  } else {
    s << "    rows: List[Tensor] = []\n"
      << "    ids: List[Tensor] = []\n";
    TypedInputRows(spec, fmax, s);
  }
  // Layer-wise inference (roles/trainer/inference/typed_form.cpp) calls the
  // input layer on its own, then forward_layer one layer at a time.
  s << "def forward_input(self, x: Tensor, ntype: Tensor) -> Tensor:\n"
    << "    return self._input(x, ntype)\n\n";
  for (int l = 0; l < spec.layers; ++l)
    s << (l == 0 && RelationRows(spec) ? RelationRowsLayer0(spec) : TypedLayer(spec, l, dims[l + 1], false));
  s << "def forward_layer(self, layer: int, x: Tensor, block: Tuple[Tensor, Tensor, Tensor, Tensor, int]) -> Tensor:\n"
    << "    indptr, indices, etype, ntype, num_dst = block\n";
  for (int l = 0; l < spec.layers; ++l)
    s << "    if layer == " << l << ":\n        return self._layer" << l << "(x, indptr, indices, etype, num_dst)\n";
  s << "    assert False, \"layer \" + str(layer) + \" out of range\"\n    return x\n\n";
  s << "def forward(self, x: Tensor, blocks: List[Tuple[Tensor, Tensor, Tensor, Tensor, int]]) -> Tensor:\n"
    << "    assert len(blocks) == self.num_layers, \"model has \" + str(self.num_layers) + \" layers but got \" + "
       "str(len(blocks)) + \" blocks\"\n"
    << "    assert x.size(1) == self.in_dim, \"input rows have \" + str(x.size(1)) + \" columns, the model expects \" + "
       "str(self.in_dim) + \" (padded features, then the node embedding)\"\n"
    << "    h = self._input(x, blocks[0][3])\n"
    << "    for i in range(self.num_layers):\n"
    << "        h = self.forward_layer(i, h, blocks[i])\n"
    << "    return h\n";
  if (!AggregatedRelations(spec).empty()) s << "\n" << TypedForwardAgg(spec, dims[1]);
  return s.str();
}

ModelSpec WithTypedInDim(ModelSpec s) {
  if (!IsTypedArch(s.arch)) return s;
  int64_t fmax = 0;
  for (int64_t f : s.type_feature_dims) fmax = std::max(fmax, f);
  s.in_dim = fmax + s.embedding_dim;
  if (s.bases <= 0) s.bases = s.num_relations;
  return s;
}

}  // namespace

namespace {
const std::pair<ModelArch, const char*> kArchNames[] = {
    {ModelArch::kSage, "sage"}, {ModelArch::kGcn, "gcn"},   {ModelArch::kGat, "gat"},
    {ModelArch::kMlp, "mlp"},   {ModelArch::kRgcn, "rgcn"}, {ModelArch::kHeteroSage, "hetero-sage"}};
}  // namespace

const char* Name(ModelArch arch) {
  for (const auto& [a, name] : kArchNames)
    if (a == arch) return name;
  return "unknown";
}

bool Parse(const std::string& word, ModelArch* out) {
  for (const auto& [a, name] : kArchNames)
    if (word == name) {
      *out = a;
      return true;
    }
  return false;
}

std::string ModelArchChoices() { return "sage, gcn, gat, mlp, rgcn or hetero-sage"; }

bool IsTypedArch(ModelArch arch) { return arch == ModelArch::kRgcn || arch == ModelArch::kHeteroSage; }

int RelationRowBlocks(const ModelSpec& s) {
  return s.arch == ModelArch::kRgcn && s.bases > 0 && s.bases < s.num_relations ? s.bases : s.num_relations;
}

int64_t RelationRowBlockWidth(const ModelSpec& s) { return s.layers > 1 ? s.hidden : s.classes; }

int64_t RelationRowsWidth(const ModelSpec& s) { return (RelationRowBlocks(s) + 1) * RelationRowBlockWidth(s); }

namespace {
const std::pair<FeaturelessInput, const char*> kFeaturelessInputNames[] = {
    {FeaturelessInput::kTypeRows, "type-rows"}, {FeaturelessInput::kRelationRows, "relation-rows"}};
}  // namespace

const char* Name(FeaturelessInput input) { return NameIn(kFeaturelessInputNames, input); }
bool Parse(const std::string& word, FeaturelessInput* out) { return ParseIn(kFeaturelessInputNames, word, out); }

Status ValidateModelSpec(const ModelSpec& s) {
  if (IsTypedArch(s.arch)) {
    const std::string arch = std::string("--arch ") + Name(s.arch);
    if (s.type_feature_dims.empty()) return Status::InvalidArgument(arch + ": no node types");
    if (s.num_relations <= 0) return Status::InvalidArgument(arch + ": no edge types");
    if (s.bases < 0) return Status::InvalidArgument("--bases: must be >= 0");
    if (s.embedding_dim < 0) return Status::InvalidArgument("--embedding-dim: must be >= 0");
    for (int64_t f : s.type_feature_dims) {
      if (f < 0) return Status::InvalidArgument(arch + ": negative feature width");
      if (f > 0 && RelationRows(s))
        return Status::InvalidArgument("--featureless-input relation-rows: a node type has features (relation rows "
                                       "are the input of graphs without any; type-rows reads featured types)");
    }
    if (RelationRows(s) && s.embedding_dim != RelationRowsWidth(s))
      return Status::InvalidArgument("--featureless-input relation-rows: the rows have " +
                                     std::to_string(RelationRowsWidth(s)) + " columns (one block per relation "
                                     "weight and one for the self weight), not --embedding-dim " +
                                     std::to_string(s.embedding_dim));
  } else if (s.in_dim <= 0) return Status::InvalidArgument("--in-dim: must be > 0");
  if (s.hidden <= 0) return Status::InvalidArgument("--hidden: must be > 0");
  if (s.classes <= 0) return Status::InvalidArgument("--classes: must be > 0");
  if (s.layers <= 0 || s.layers > 8) return Status::InvalidArgument("--layers: must be in [1, 8]");
  if (s.dropout < 0 || s.dropout >= 1) return Status::InvalidArgument("--dropout: must be in [0, 1)");
  if (s.input_dropout < 0 || s.input_dropout >= 1)
    return Status::InvalidArgument("--input-dropout: must be in [0, 1)");
  if (s.attn_dropout < 0 || s.attn_dropout >= 1)
    return Status::InvalidArgument("--attn-dropout: must be in [0, 1)");
  if (s.arch == ModelArch::kGat) {
    if (s.heads <= 0) return Status::InvalidArgument("--heads: must be > 0");
    if (s.hidden % s.heads != 0)
      return Status::InvalidArgument("--hidden " + std::to_string(s.hidden) +
                                     " is not divisible by --heads " + std::to_string(s.heads));
  }
  return Status::OK();
}

Result<std::string> ModelSource(const ModelSpec& given) {
  const ModelSpec spec = WithTypedInDim(given);
  DG_RETURN_IF_ERROR(ValidateModelSpec(spec));
  if (spec.arch == ModelArch::kMlp) return MlpSource(spec);
  if (IsTypedArch(spec.arch)) return TypedSource(spec);
  const std::vector<int64_t> dims = LayerDims(spec);
  std::ostringstream s;
  s << kHelpers << "\n";
  for (int l = 0; l < spec.layers; ++l) {
    bool last = l + 1 == spec.layers;
    if (spec.arch == ModelArch::kSage) s << SageLayer(l, dims[l], dims[l + 1], last);
    if (spec.arch == ModelArch::kGcn) s << GcnLayer(l, dims[l], dims[l + 1], last);
    if (spec.arch == ModelArch::kGat) {
      int h = GatHeads(spec, l);
      s << GatLayer(l, h, dims[l + 1] / h, last);
    }
    s << "\n";
  }
  s << "def forward_layer(self, layer: int, x: Tensor, block: Tuple[Tensor, Tensor, int]) -> Tensor:\n"
    << "    indptr, indices, num_dst = block\n";
  for (int l = 0; l < spec.layers; ++l)
    s << "    if layer == " << l << ":\n        return self._layer" << l
      << "(x, indptr, indices, num_dst)\n";
  s << "    assert False, \"layer \" + str(layer) + \" out of range\"\n    return x\n";
  if ((spec.arch == ModelArch::kGcn || spec.arch == ModelArch::kSage) && spec.layers >= 2) s << "\n" << CvMethods(spec);
  if (spec.arch == ModelArch::kSage && spec.input_dropout == 0) s << "\n" << SageForwardAgg(spec);
  return s.str();
}

namespace {

// The attributes the contract and the trainer read (model_export.h).
void RegisterAttributes(const ModelSpec& spec, torch::jit::Module* m) {
  if (!m->hasattr("training")) m->register_attribute("training", c10::BoolType::get(), true);
  m->register_attribute("num_layers", c10::IntType::get(), static_cast<int64_t>(spec.layers));
  m->register_attribute("dropout", c10::FloatType::get(), spec.dropout);
  m->register_attribute("input_dropout", c10::FloatType::get(), spec.input_dropout);
  m->register_attribute("attn_dropout", c10::FloatType::get(), spec.attn_dropout);
  m->register_attribute("arch", c10::StringType::get(), std::string(Name(spec.arch)));
  m->register_attribute("in_dim", c10::IntType::get(), spec.in_dim);
  m->register_attribute("num_classes", c10::IntType::get(), spec.classes);
  // gcn's D_out^-1/2 reads each source's degree within the block, so its
  // outputs depend on which destinations share a block: node classification
  // then evaluates by node batches of the seeds, not layer by layer.
  if (spec.arch == ModelArch::kGcn) m->register_attribute("reads_source_degrees", c10::BoolType::get(), true);
  if (IsTypedArch(spec.arch)) {
    m->register_attribute("num_node_types", c10::IntType::get(),
                          static_cast<int64_t>(spec.type_feature_dims.size()));
    m->register_attribute("num_relations", c10::IntType::get(), static_cast<int64_t>(spec.num_relations));
    m->register_attribute("embedding_dim", c10::IntType::get(), spec.embedding_dim);
    m->register_attribute("featureless_input", c10::StringType::get(), std::string(Name(spec.featureless_input)));
    c10::List<int64_t> agg;  // the relations forward_agg takes from neigh_mean
    for (int r : AggregatedRelations(spec)) agg.push_back(r);
    m->register_attribute("agg_relations", c10::ListType::ofInts(), agg);
    if (spec.embedding_dim > 0 && spec.embedding_init_scale >= 0 && spec.embedding_lr > 0) {
      m->register_attribute("embedding_init_scale", c10::FloatType::get(), spec.embedding_init_scale);
      m->register_attribute("embedding_lr", c10::FloatType::get(), spec.embedding_lr);
    }
    if (spec.embedding_dim > 0 && spec.embedding_weight_decay >= 0)
      m->register_attribute("embedding_weight_decay", c10::FloatType::get(), spec.embedding_weight_decay);
  }
}

}  // namespace

Status ExportModel(const ModelSpec& given, const std::string& path) {
  static_cast<void>(GraphOpsRegistered());  // the source calls torch.ops.distgnn.*
  const ModelSpec spec = WithTypedInDim(given);
  DG_ASSIGN_OR_RETURN(std::string source, ModelSource(spec));
  const std::vector<int64_t> dims = LayerDims(spec);
  try {
    torch::NoGradGuard no_grad;
    torch::manual_seed(static_cast<uint64_t>(spec.seed));
    const double gain = std::sqrt(2.0);  // relu gain, as DGL initialises its layers
    torch::jit::Module m(ModuleClassName(spec.arch));
    auto init = [&](std::vector<int64_t> shape) {
      torch::Tensor t = torch::empty(shape);
      torch::nn::init::xavier_uniform_(t, gain);
      return t;
    };
    // rgcn | hetero-sage: input and self weights as torch.nn.Linear's default
    // (uniform in +-1/sqrt(in)), relation weights N(0, 2/in) (for rgcn the
    // product of N(0, 2/in) bases and N(0, 1/B) coefficients has that
    // variance). On IMDB this gives 0.5 points more test accuracy than the
    // Xavier (relu gain) start the homogeneous models use, whose input and
    // output weights start about 3 times larger (docs/models.md).
    auto linear_init = [&](std::vector<int64_t> shape) {
      const double bound = 1.0 / std::sqrt(static_cast<double>(shape.back()));
      return torch::empty(shape).uniform_(-bound, bound);
    };
    auto relation_init = [&](int64_t k, int64_t out, int64_t in, double variance) {
      return torch::randn({k, out, in}) * std::sqrt(variance);
    };
    if (IsTypedArch(spec.arch) && !RelationRows(spec)) {
      for (size_t t = 0; t < spec.type_feature_dims.size(); ++t) {
        const std::string T = std::to_string(t);
        const int64_t in = spec.type_feature_dims[t] > 0 ? spec.type_feature_dims[t] : spec.embedding_dim;
        if (in > 0) {
          m.register_parameter("w_in_" + T, linear_init({spec.hidden, in}), false);
          m.register_parameter("b_in_" + T, torch::zeros({spec.hidden}), false);
        } else {  // a learnt vector shared by the type's nodes
          m.register_parameter("b_in_" + T, torch::randn({spec.hidden}) * 0.1, false);
        }
      }
    }
    for (int l = 0; l < spec.layers; ++l) {
      const std::string L = std::to_string(l);
      int64_t in = IsTypedArch(spec.arch) ? spec.hidden : dims[l], out = dims[l + 1];
      if (l == 0 && RelationRows(spec)) {  // the rows are the weights; with bases, their coefficients
        if (UsesBases(spec))
          m.register_parameter("coef_0", torch::randn({spec.num_relations, spec.bases}) / std::sqrt(spec.bases),
                               false);
      } else if (IsTypedArch(spec.arch)) {
        m.register_parameter("w_self_" + L, linear_init({out, in}), false);
        if (UsesBases(spec)) {
          m.register_parameter("basis_" + L,
                               relation_init(spec.bases, out, in, 2.0 / in).view({spec.bases, out * in}), false);
          m.register_parameter("coef_" + L, torch::randn({spec.num_relations, spec.bases}) / std::sqrt(spec.bases),
                               false);
        } else {
          m.register_parameter("w_rel_" + L, relation_init(spec.num_relations, out, in, 2.0 / in), false);
        }
      } else if (spec.arch == ModelArch::kSage) {
        m.register_parameter("w_self_" + L, init({out, in}), false);
        m.register_parameter("w_neigh_" + L, init({out, in}), false);
      } else if (spec.arch == ModelArch::kGcn || spec.arch == ModelArch::kMlp) {
        m.register_parameter("w_" + L, init({out, in}), false);
      } else {
        int64_t h = GatHeads(spec, l);
        m.register_parameter("w_" + L, init({out, in}), false);
        m.register_parameter("attn_l_" + L, init({1, h, out / h}), false);
        m.register_parameter("attn_r_" + L, init({1, h, out / h}), false);
      }
      m.register_parameter("b_" + L, torch::zeros({out}), false);
    }
    RegisterAttributes(spec, &m);
    m.define(source, ScriptResolver());
    m.save(path);
  } catch (const std::exception& e) {
    std::string what = e.what();
    return Status::Internal(std::string("model export (") + Name(spec.arch) + ") to " + path + ": " +
                            what.substr(0, what.find('\n', 400)));
  }
  return Status::OK();
}

}  // namespace dg
