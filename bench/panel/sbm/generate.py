#!/usr/bin/python3
"""Generates the panel's synthetic stochastic block model with planted communities of known size, as a
distgnn dataset directory (docs/formats.md). Deterministic: the same arguments give the same bytes.
Usage: generate.py OUT_DIR [--seed S] [--communities K] [--size M] [--mean-degree D]
                   [--inside F] [--classes C] [--features P] [--signal A]
(Debian's /usr/bin/python3 with python3-numpy; numpy.random.RandomState, whose streams NumPy keeps fixed)."""
import argparse, json, os, sys
import numpy as np
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from converters.common import write_edges, write_npy_gz

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--communities", type=int, default=20, help="K planted communities")
    ap.add_argument("--size", type=int, default=500, help="M nodes per community")
    ap.add_argument("--mean-degree", type=float, default=20.0, help="expected mean degree")
    ap.add_argument("--inside", type=float, default=0.8, help="expected fraction of edges inside communities")
    ap.add_argument("--classes", type=int, default=5, help="label = community mod C (C = K: the community)")
    ap.add_argument("--features", type=int, default=32, help="feature dimension")
    ap.add_argument("--signal", type=float, default=1.0, help="norm of the class mean added to N(0, I) noise")
    a = ap.parse_args()
    k, m = a.communities, a.size
    n = k * m
    rng = np.random.RandomState(a.seed)
    # expected edges: n * D / 2, a fraction `inside` of them within communities
    total = n * a.mean_degree / 2
    pairs_in = k * m * (m - 1) / 2
    pairs_out = (n * (n - 1) / 2) - pairs_in
    p_in = a.inside * total / pairs_in
    p_out = (1 - a.inside) * total / pairs_out
    assert 0 < p_in <= 1 and 0 <= p_out <= 1, (p_in, p_out)
    tri_r, tri_c = np.triu_indices(m, 1)
    parts = []
    for i in range(k):              # inside community i: Binomial count, then distinct pairs
        cnt = rng.binomial(len(tri_r), p_in)
        pick = rng.choice(len(tri_r), cnt, replace=False)
        parts.append(np.stack([i * m + tri_r[pick], i * m + tri_c[pick]], 1))
    for i in range(k):              # between communities i < j
        for j in range(i + 1, k):
            cnt = rng.binomial(m * m, p_out)
            pick = rng.choice(m * m, cnt, replace=False)
            parts.append(np.stack([i * m + pick // m, j * m + pick % m], 1))
    e = np.concatenate(parts).astype(np.int64)
    e = e[np.lexsort((e[:, 1], e[:, 0]))]
    community = np.repeat(np.arange(k, dtype=np.int64), m)
    labels = community % a.classes
    centers = rng.normal(size=(a.classes, a.features))
    centers *= a.signal / np.linalg.norm(centers, axis=1, keepdims=True)
    feats = (rng.normal(size=(n, a.features)) + centers[labels]).astype(np.float32)
    split = np.empty(n, dtype=np.int8)
    perm = rng.permutation(n)
    t, v = int(round(0.1 * n)), int(round(0.1 * n))
    split[perm[:t]], split[perm[t:t + v]], split[perm[t + v:]] = 0, 1, 2

    os.makedirs(a.out, exist_ok=True)
    write_edges(os.path.join(a.out, "edges.tsv.gz"), e, level=6)
    write_npy_gz(os.path.join(a.out, "features.npy.gz"), feats, level=6)
    np.save(os.path.join(a.out, "labels.npy"), labels)
    np.save(os.path.join(a.out, "split.npy"), split)
    np.save(os.path.join(a.out, "communities.npy"), community)
    inside = float((community[e[:, 0]] == community[e[:, 1]]).mean())
    deg = np.bincount(e.ravel(), minlength=n)
    info = {"seed": a.seed, "nodes": n, "communities": k, "community_size": m, "p_in": p_in, "p_out": p_out,
            "undirected_edges": int(len(e)), "mean_degree": round(2 * len(e) / n, 3), "max_degree": int(deg.max()),
            "inside_fraction": round(inside, 4), "classes": a.classes, "features": a.features, "signal": a.signal,
            "edge_homophily": round(float((labels[e[:, 0]] == labels[e[:, 1]]).mean()), 4),
            "split": {s: int((split == x).sum()) for s, x in (("train", 0), ("val", 1), ("test", 2))}}
    with open(os.path.join(a.out, "sbm.json"), "w") as f:
        json.dump(info, f, indent=1)
        f.write("\n")
    print(json.dumps(info))

main()
