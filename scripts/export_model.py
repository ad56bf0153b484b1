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

    python3 scripts/export_model.py --in-dim 1433 --hidden 64 --classes 7 -o sage.pt
"""
import argparse
from typing import List, Tuple

import torch
from torch import Tensor


def mean_aggregate(h: Tensor, indptr: Tensor, indices: Tensor, num_dst: int) -> Tensor:
    deg = indptr[1:] - indptr[:-1]
    dst = torch.repeat_interleave(deg)  # destination of every edge
    out = torch.zeros([num_dst, h.size(1)], dtype=h.dtype)
    out.index_add_(0, dst, h.index_select(0, indices))
    return out / deg.clamp(min=1).unsqueeze(1).to(h.dtype)


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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--in-dim", type=int, required=True)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--classes", type=int, required=True)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--dropout", type=float, default=0.5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-o", "--out", required=True)
    a = p.parse_args()
    torch.manual_seed(a.seed)
    model = torch.jit.script(SAGE(a.in_dim, a.hidden, a.classes, a.layers, a.dropout))
    torch.jit.save(model, a.out)
    print(f"wrote SAGE ({a.layers} layers, {a.in_dim} -> {a.hidden} -> {a.classes}) to {a.out}")


if __name__ == "__main__":
    main()
