#!/usr/bin/python3
"""Converts yandex-research/heterophilous-graphs' data/squirrel_filtered.npz into a distgnn dataset directory
(docs/formats.md), with the first of the file's ten splits.
Usage: convert.py SRC_DIR OUT_DIR   (Debian's /usr/bin/python3 with python3-numpy; no SciPy)."""
import gzip, hashlib, io, json, os, sys
import numpy as np

NAME = "squirrel_filtered"
INPUTS = {"squirrel_filtered.npz": (208215, "f06370ffb3116c5de8b7a600005400b2293c025e0ce2f6916d8201a825505ac7")}
SPLIT = 0  # first of the ten splits

def check_inputs(src):
    for name, (size, digest) in INPUTS.items():
        path = os.path.join(src, name)
        if not os.path.isfile(path):
            sys.exit(f"refusing: {path} is missing")
        with open(path, "rb") as f:
            data = f.read()
        got = hashlib.sha256(data).hexdigest()
        if len(data) != size or got != digest:
            sys.exit(f"refusing: {path} has {len(data)} bytes, sha256 {got}; expected {size} bytes, {digest}")

def write_gz(path, data):
    with gzip.GzipFile(path, "wb", mtime=0, compresslevel=9) as f:
        f.write(data)

def main():
    src, out = sys.argv[1], sys.argv[2]
    check_inputs(src)
    with np.load(os.path.join(src, NAME + ".npz"), allow_pickle=False) as z:
        x = z["node_features"].astype(np.float32)
        y = z["node_labels"].astype(np.int64)
        edges = z["edges"].astype(np.int64)
        tr, va, te = z["train_masks"][SPLIT], z["val_masks"][SPLIT], z["test_masks"][SPLIT]
    n = len(y)
    assert x.shape[0] == n and edges.min() >= 0 and edges.max() < n
    assert not (tr & va).any() and not (tr & te).any() and not (va & te).any()
    # the file stores each undirected edge once; write it once as min<TAB>max, sorted, no self-loops
    a, b = edges[:, 0], edges[:, 1]
    keep = a != b
    e = np.unique(np.stack([np.minimum(a, b)[keep], np.maximum(a, b)[keep]], 1), axis=0)
    split = np.full(n, -1, dtype=np.int8)
    split[tr], split[va], split[te] = 0, 1, 2
    os.makedirs(out, exist_ok=True)
    write_gz(os.path.join(out, "edges.tsv.gz"), "".join(f"{p}\t{q}\n" for p, q in e).encode())
    buf = io.BytesIO()
    np.save(buf, x)
    write_gz(os.path.join(out, "features.npy.gz"), buf.getvalue())
    np.save(os.path.join(out, "labels.npy"), y)
    np.save(os.path.join(out, "split.npy"), split)
    print(json.dumps({"name": NAME, "nodes": n, "features": x.shape[1], "stored_edges": len(edges),
                      "self_loops_dropped": int((~keep).sum()), "duplicates_merged": int(keep.sum() - len(e)),
                      "undirected_edges": len(e), "classes": int(y.max()) + 1,
                      "split": {k: int((split == v).sum()) for k, v in (("train", 0), ("val", 1), ("test", 2), ("none", -1))}}))

main()
