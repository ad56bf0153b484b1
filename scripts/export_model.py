#!/usr/bin/env python3
"""Export a GraphSAGE-mean model for distgnn with torch.jit.script.

This is the template for writing your own model: any TorchScript module whose
forward is

    forward(self, x: Tensor, blocks: List[Tuple[Tensor, Tensor, int]]) -> Tensor

works with `distgnn train-local` and `distgnn --role trainer`. `x` holds the
input features of block 0's source nodes; each block is (indptr, indices,
num_dst): a CSR over destination nodes whose indices point into the block's
source nodes, the first num_dst sources being the destinations themselves.
Return one row of logits per seed node. Optionally export
`forward_layer(layer, x, block)` (one layer alone) and an int attribute
`num_layers`: layer-wise inference and --save-embeddings use them. Only torch is needed (Debian:
python3-torch); no DGL.

distgnn's native graph operators (torch.ops.distgnn.csr_mean, csr_sum,
gcn_aggregate, edge_softmax, csr_weighted_sum, linear) are in
build/libdistgnn_ops.so: load it with torch.ops.load_library before scripting
a model that calls them. This script does so when the library exists (and
falls back to plain torch otherwise); the distgnn binary has them built in.

    python3 scripts/export_model.py --in-dim 1433 --hidden 64 --classes 7 -o sage.pt
"""
import argparse
import os
from typing import List, Tuple

import torch
from torch import Tensor

OPS_LIBRARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "libdistgnn_ops.so")


def mean_aggregate_native(h: Tensor, indptr: Tensor, indices: Tensor, num_dst: int) -> Tensor:
    """Mean of each destination's in-neighbour rows, with distgnn's parallel CSR kernel."""
    return torch.ops.distgnn.csr_mean(indptr, indices, h, num_dst)


def mean_aggregate_torch(h: Tensor, indptr: Tensor, indices: Tensor, num_dst: int) -> Tensor:
    """The same in plain torch (a scatter over edges)."""
    deg = indptr[1:] - indptr[:-1]
    dst = torch.repeat_interleave(deg)  # destination of every edge
    out = torch.zeros([num_dst, h.size(1)], dtype=h.dtype)
    out.index_add_(0, dst, h.index_select(0, indices))
    return out / deg.clamp(min=1).unsqueeze(1).to(h.dtype)


mean_aggregate = mean_aggregate_torch  # replaced by the native one in main() when it loads


class SAGEConv(torch.nn.Module):
    """h_i' = W_self h_i + W_neigh mean_{j in N(i)} h_j + b (DGL SAGEConv 'mean')."""

    def __init__(self, in_dim: int, out_dim: int):
        super().__init__()
        self.fc_self = torch.nn.Linear(in_dim, out_dim, bias=True)
        self.fc_neigh = torch.nn.Linear(in_dim, out_dim, bias=False)

    def forward(self, x: Tensor, block: Tuple[Tensor, Tensor, int]) -> Tensor:
        indptr, indices, num_dst = block
        neigh = mean_aggregate(self.fc_neigh(x), indptr, indices, num_dst)
        return self.fc_self(x[:num_dst]) + neigh


class SAGE(torch.nn.Module):
    def __init__(self, in_dim: int, hidden: int, classes: int, layers: int, dropout: float):
        super().__init__()
        dims = [in_dim] + [hidden] * (layers - 1) + [classes]
        self.layers = torch.nn.ModuleList([SAGEConv(dims[i], dims[i + 1]) for i in range(layers)])
        self.dropout = dropout
        self.num_layers = layers

    def forward(self, x: Tensor, blocks: List[Tuple[Tensor, Tensor, int]]) -> Tensor:
        h = x
        for i, layer in enumerate(self.layers):
            if i > 0:  # dropout on hidden layers, not on the input features (as DGL's examples)
                h = torch.nn.functional.dropout(h, self.dropout, self.training)
            h = layer(h, blocks[i])
            if i != self.num_layers - 1:
                h = torch.relu(h)
        return h

    @torch.jit.export
    def forward_layer(self, layer: int, x: Tensor, block: Tuple[Tensor, Tensor, int]) -> Tensor:
        """Layer `layer` alone (optional; enables layer-wise inference and --save-embeddings)."""
        h = x
        for i, conv in enumerate(self.layers):
            if i == layer:
                h = conv(x, block)
                if i != self.num_layers - 1:
                    h = torch.relu(h)
        return h

    @torch.jit.export
    def forward_agg(self, x_dst: Tensor, neigh_mean: Tensor, blocks: List[Tuple[Tensor, Tensor, int]]) -> Tensor:
        """forward with layer 0 pre-aggregated (optional; docs/models.md): x_dst = block 0's destination
        rows, neigh_mean = the mean of each one's sampled sources, computed where the features live."""
        h = x_dst
        for i, conv in enumerate(self.layers):
            if i == 0:
                h = conv.fc_self(x_dst) + conv.fc_neigh(neigh_mean)
            else:
                h = torch.nn.functional.dropout(h, self.dropout, self.training)
                h = conv(h, blocks[i])
            if i != self.num_layers - 1:
                h = torch.relu(h)
        return h

    @torch.jit.export
    def cv_input(self, x: Tensor, ax: Tensor, deg: Tensor) -> Tensor:
        """Layer 0 for control-variate training (optional; README "Writing your own model"):
        x = own input features, ax = their mean over the in-neighbours (propagated), deg = in-degree."""
        return self.cv_layer(0, x, ax, deg)

    @torch.jit.export
    def cv_layer(self, layer: int, h_self: Tensor, h_neigh: Tensor, deg: Tensor) -> Tensor:
        """Layer `layer` from a node's own input and the (estimated) mean of its in-neighbours'."""
        h = h_self
        for i, conv in enumerate(self.layers):
            if i == layer:
                if i > 0:
                    h_self = torch.nn.functional.dropout(h_self, self.dropout, self.training)
                    h_neigh = torch.nn.functional.dropout(h_neigh, self.dropout, self.training)
                h = conv.fc_self(h_self) + conv.fc_neigh(h_neigh)
                if i != self.num_layers - 1:
                    h = torch.relu(h)
        return h


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--in-dim", type=int, required=True)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--classes", type=int, required=True)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--dropout", type=float, default=0.5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ops-library", default=OPS_LIBRARY,
                   help="libdistgnn_ops.so to use native aggregation ('' = plain torch)")
    p.add_argument("-o", "--out", required=True)
    a = p.parse_args()
    global mean_aggregate
    if a.ops_library and os.path.exists(a.ops_library):
        torch.ops.load_library(a.ops_library)
        mean_aggregate = mean_aggregate_native
    torch.manual_seed(a.seed)
    model = torch.jit.script(SAGE(a.in_dim, a.hidden, a.classes, a.layers, a.dropout))
    torch.jit.save(model, a.out)
    kind = "native" if mean_aggregate is mean_aggregate_native else "plain torch"
    print(f"wrote SAGE ({a.layers} layers, {a.in_dim} -> {a.hidden} -> {a.classes}, {kind} aggregation) to {a.out}")


if __name__ == "__main__":
    main()
