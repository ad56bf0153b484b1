#!/usr/bin/python3
"""Converts SEAL's MATLAB/data/Yeast.mat (repository muhanzhang/SEAL) into a distgnn link-prediction
dataset directory (docs/formats.md): edges.tsv.gz only (no features, no labels), each undirected edge
once as min<TAB>max, no self-loops.
Usage: convert.py SRC_DIR OUT_DIR   (Debian's /usr/bin/python3 with python3-numpy and python3-scipy
for scipy.io.loadmat)."""
import gzip, hashlib, json, os, sys
import numpy as np
import scipy.io, scipy.sparse

NAME = "Yeast"
INPUTS = {"Yeast.mat": (34354, "2d199acffa6cecd9dfd0d13f0c4eaecd34158e83f1a717e5da7e38089692e112")}

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

def main():
    src, out = sys.argv[1], sys.argv[2]
    check_inputs(src)
    net = scipy.sparse.coo_matrix(scipy.io.loadmat(os.path.join(src, NAME + ".mat"))["net"])
    n = net.shape[0]
    a, b = net.row.astype(np.int64), net.col.astype(np.int64)
    keep = a != b
    e = np.unique(np.stack([np.minimum(a, b)[keep], np.maximum(a, b)[keep]], 1), axis=0)
    deg = np.bincount(e.ravel(), minlength=n)
    os.makedirs(out, exist_ok=True)
    with gzip.GzipFile(os.path.join(out, "edges.tsv.gz"), "wb", mtime=0, compresslevel=9) as f:
        f.write("".join(f"{p}\t{q}\n" for p, q in e).encode())
    print(json.dumps({"name": NAME, "matrix_nodes": n, "stored_entries": int(net.nnz),
                      "self_loops_dropped": int((~keep).sum()), "undirected_edges": len(e),
                      "isolated": int((deg == 0).sum()), "max_id": int(e.max()),
                      "max_degree": int(deg.max()), "mean_degree": round(2 * len(e) / n, 3)}))

main()
