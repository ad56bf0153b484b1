"""R-GCN for entity classification written from the paper (Schlichtkrull et al., ESWC 2018), in plain PyTorch, on a
converted panel graph without features (bench/panel/{aifb,mutag}/data): a reference for distgnn's relation rows
(docs/models.md "Featureless node types").

Full batch, every relation and its inverse, the mean per relation and destination; layer 0 reads a one-hot input, so
its weights are a learnt row per node for each relation (or basis) and for the self term; layer 1 has one weight per
relation (or bases). Adam; the test accuracy of the best validation epoch (the panel's selection, its split).

    /usr/bin/python3 bench/panel/rgcn_reference.py bench/panel/mutag/data --seeds 0,1,2 --bases 0 --l2 5e-4 \
        --rows-l2 5e-4 --dropout 0.5 --rows-lr 0.05 --rows-init 0.0159

--rows-l2 is the L2 penalty (coupled, inside Adam) on layer 0's per-node rows, --l2 on every other weight.
"""
import argparse, gzip, json
import numpy as np
import torch


def load(d):
    meta = json.load(open(d + "/meta.json"))
    (ntype, n), = meta["node_types"].items()
    src, dst, rel = [], [], []
    for r, (a, name, b) in enumerate(meta["edge_types"]):
        e = np.loadtxt(gzip.open("%s/edges/%s__%s__%s.tsv.gz" % (d, a, name, b)), dtype=np.int64, ndmin=2)
        src += [e[:, 0], e[:, 1]]
        dst += [e[:, 1], e[:, 0]]
        rel += [np.full(len(e), 2 * r), np.full(len(e), 2 * r + 1)]  # the relation, then its inverse
    src, dst, rel = (torch.from_numpy(np.concatenate(x)) for x in (src, dst, rel))
    num_rel = 2 * len(meta["edge_types"])
    key = rel * n + dst
    norm = (1.0 / torch.bincount(key, minlength=num_rel * n).float()[key]).unsqueeze(1)
    split = torch.from_numpy(np.load("%s/nodes/%s/split.npy" % (d, ntype)).astype(np.int64))
    labels = torch.from_numpy(np.load("%s/nodes/%s/labels.npy" % (d, ntype)))
    return n, num_rel, src, dst, rel, norm, split, labels


def uniform(shape, bound):
    return torch.nn.Parameter(torch.empty(*shape).uniform_(-bound, bound))


def glorot(*shape):
    return uniform(shape, (6.0 / (shape[-2] + shape[-1])) ** 0.5)


class RGCN(torch.nn.Module):
    def __init__(self, n, num_rel, bases, hidden, classes, rows_init, dropout):
        super().__init__()
        self.k = bases if 0 < bases < num_rel else num_rel
        init = rows_init if rows_init > 0 else (6.0 / (n + hidden)) ** 0.5
        self.rows = uniform((self.k, n, hidden), init)  # one-hot input x W_k: a row per node per basis/relation
        self.self_rows = uniform((n, hidden), init)
        self.b0 = torch.nn.Parameter(torch.zeros(hidden))
        self.coef0 = glorot(num_rel, self.k) if self.k < num_rel else None
        self.w1 = glorot(self.k, hidden, classes)
        self.coef1 = glorot(num_rel, self.k) if self.k < num_rel else None
        self.self1 = glorot(hidden, classes)
        self.b1 = torch.nn.Parameter(torch.zeros(classes))
        self.dropout = dropout

    def forward(self, g):
        n, _, src, dst, rel, norm = g[:6]
        if self.coef0 is None:
            m = self.rows[rel, src]
        else:
            m = torch.einsum("eb,ebh->eh", self.coef0[rel], self.rows[:, src].transpose(0, 1))
        h = self.self_rows + self.b0 + torch.zeros_like(self.self_rows).index_add(0, dst, m * norm)
        h = torch.nn.functional.dropout(torch.relu(h), self.dropout, self.training)
        w1 = self.w1 if self.coef1 is None else torch.einsum("rb,bhc->rhc", self.coef1, self.w1)
        m1 = torch.bmm(h[src].unsqueeze(1), w1[rel]).squeeze(1)
        return h @ self.self1 + self.b1 + torch.zeros(n, w1.size(2)).index_add(0, dst, m1 * norm)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data")
    ap.add_argument("--seeds", default="0,1,2,3,4,5,6,7,8,9")
    ap.add_argument("--bases", type=int, default=0, help="0: one weight per relation")
    ap.add_argument("--hidden", type=int, default=16)
    ap.add_argument("--epochs", type=int, default=50)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--l2", type=float, default=0.0, help="L2 penalty of the weights other than the rows")
    ap.add_argument("--rows-l2", type=float, default=0.0, help="L2 penalty of layer 0's per-node rows")
    ap.add_argument("--rows-lr", type=float, default=0.01)
    ap.add_argument("--rows-init", type=float, default=0.0, help="rows start uniform in +-this; 0: Xavier")
    ap.add_argument("--dropout", type=float, default=0.0)
    args = ap.parse_args()
    torch.set_num_threads(1)
    g = load(args.data)
    n, num_rel, split, labels = g[0], g[1], g[6], g[7]
    train, val, test = [(split == k).nonzero().squeeze(1) for k in range(3)]
    accs = []
    for seed in [int(s) for s in args.seeds.split(",")]:
        torch.manual_seed(seed)
        model = RGCN(n, num_rel, args.bases, args.hidden, int(labels.max()) + 1, args.rows_init, args.dropout)
        rows = [model.rows, model.self_rows]
        rest = [p for p in model.parameters() if all(p is not r for r in rows)]
        opt = torch.optim.Adam([{"params": rows, "lr": args.rows_lr, "weight_decay": args.rows_l2},
                                {"params": rest, "lr": args.lr, "weight_decay": args.l2}])
        best = (-1.0, 0.0, 0)
        for epoch in range(args.epochs):
            model.train()
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(g)[train], labels[train]).backward()
            opt.step()
            model.eval()
            with torch.no_grad():
                pred = model(g).argmax(1)
            v, t = [(pred[s] == labels[s]).float().mean().item() for s in (val, test)]
            if v > best[0]:
                best = (v, t, epoch + 1)
        accs.append(best[1])
        print("seed %d: val %.4f test %.4f (epoch %d)" % (seed, *best), flush=True)
    print("mean %.4f over %d seeds" % (np.mean(accs), len(accs)))


if __name__ == "__main__":
    main()
