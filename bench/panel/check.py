#!/usr/bin/python3
"""Sanity check of a converted panel dataset (homogeneous or typed layout, docs/formats.md):
ids in range, array lengths, labels in [0, C), split values; prints the counts as JSON.
Usage: check.py DATASET_DIR   (/usr/bin/python3 with python3-numpy)."""
import gzip, io, json, os, sys
import numpy as np

def load(path):
    if os.path.exists(path):
        return np.load(path)
    if os.path.exists(path + ".gz"):
        with gzip.open(path + ".gz", "rb") as f:
            return np.load(io.BytesIO(f.read()))
    return None

def edges(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        a = np.loadtxt(f, dtype=np.int64, ndmin=2)
    return a.reshape(-1, 2)

def node_arrays(d, n, num_classes=None):
    out = {}
    x = load(os.path.join(d, "features.npy"))
    if x is not None:
        assert x.dtype == np.float32 and x.ndim == 2 and x.shape[0] == n, (x.dtype, x.shape, n)
        assert np.isfinite(x).all()
        out["features"] = list(x.shape)
    y = load(os.path.join(d, "labels.npy"))
    s = load(os.path.join(d, "split.npy"))
    if y is not None:
        assert y.dtype == np.int64 and y.shape == (n,), (y.dtype, y.shape)
        c = num_classes or int(y.max()) + 1
        assert ((y == -1) | ((y >= 0) & (y < c))).all()
        out["classes"] = c
        out["per_class"] = np.bincount(y[y >= 0], minlength=c).tolist()
        out["unlabelled"] = int((y == -1).sum())
    if s is not None:
        assert s.dtype == np.int8 and s.shape == (n,)
        assert np.isin(s, [-1, 0, 1, 2]).all()
        if y is not None:
            assert (y[s >= 0] >= 0).all(), "a node in a split has no label"
        out["split"] = {k: int((s == v).sum()) for k, v in (("train", 0), ("val", 1), ("test", 2), ("none", -1))}
    return out

def main(d):
    if os.path.exists(os.path.join(d, "meta.json")):
        meta = json.load(open(os.path.join(d, "meta.json")))
        counts = meta["node_types"]
        rep = {"layout": "typed", "node_types": counts, "edge_types": len(meta["edge_types"]), "edges": 0}
        for s, r, t in meta["edge_types"]:
            base = os.path.join(d, "edges", f"{s}__{r}__{t}.tsv")
            e = edges(base + ".gz" if os.path.exists(base + ".gz") else base)
            assert len(e) > 0 and e.min() >= 0 and e[:, 0].max() < counts[s] and e[:, 1].max() < counts[t], (s, r, t)
            rep["edges"] += len(e)
        for t, n in counts.items():
            nd = os.path.join(d, "nodes", t)
            if os.path.isdir(nd):
                rep[t] = node_arrays(nd, n, meta.get("num_classes") if t == meta.get("target") else None)
        print(json.dumps(rep))
        return
    path = os.path.join(d, "edges.tsv.gz")
    e = edges(path if os.path.exists(path) else os.path.join(d, "edges.tsv"))
    y = load(os.path.join(d, "labels.npy"))
    x = load(os.path.join(d, "features.npy"))
    n = len(y) if y is not None else (x.shape[0] if x is not None else int(e.max()) + 1)
    assert e.min() >= 0 and e.max() < n
    und = np.unique(np.sort(e, axis=1), axis=0)
    deg = np.bincount(und.ravel(), minlength=n)
    rep = {"layout": "homo", "nodes": n, "edge_lines": len(e), "self_loops": int((e[:, 0] == e[:, 1]).sum()),
           "undirected_edges": int(len(und)), "isolated": int((deg == 0).sum()),
           "max_degree": int(deg.max()), "mean_degree": round(float(2 * len(und) / n), 3)}
    rep.update(node_arrays(d, n))
    if y is not None:
        ok = (y[und[:, 0]] >= 0) & (y[und[:, 1]] >= 0)
        rep["edge_homophily"] = round(float((y[und[ok, 0]] == y[und[ok, 1]]).mean()), 4)
    print(json.dumps(rep))

main(sys.argv[1])
