#!/usr/bin/python3
"""Converts EdisonLeeeee/GraphData's datasets/amazon_photo.npz (Shchur et al.'s Amazon Photo
co-purchase graph, re-saved) into a distgnn dataset directory (docs/formats.md), with a seeded
per-class 20 train / 30 val / rest test split (Shchur et al. 2018's protocol).
Usage: convert.py SRC_DIR OUT_DIR   (Debian's /usr/bin/python3 with python3-numpy and
python3-scipy: the .npz members are pickled scipy.sparse matrices)."""
import gzip, hashlib, io, json, os, pickle, sys, warnings, zipfile
import numpy as np

NAME = "amazon_photo"
INPUTS = {"amazon_photo.npz": (1772672, "bdb98b54cd3125bfa69b23ba0aae84fabcb770c6727175b8f6eb1d64f3be4b2b")}
TRAIN_PER_CLASS, VAL_PER_CLASS, SEED = 20, 30, 0

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

class Restricted(pickle.Unpickler):
    """Only NumPy / SciPy classes and plain builtins (the .npz's object members hold nothing else)."""
    def find_class(self, module, name):
        if module.split(".")[0] in ("numpy", "scipy") or (module, name) in {("builtins", "dict"), ("builtins", "list")}:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"refusing to unpickle {module}.{name}")

def member(zf, name):
    """One .npy member of the .npz; object arrays through the restricted unpickler."""
    with zf.open(name + ".npy") as f:
        version = np.lib.format.read_magic(f)
        shape, fortran, dtype = np.lib.format._read_array_header(f, version)
        if dtype.hasobject:
            return Restricted(f, encoding="latin1").load()
        return np.frombuffer(f.read(), dtype=dtype).reshape(shape, order="F" if fortran else "C")

def write_gz(path, data):
    with gzip.GzipFile(path, "wb", mtime=0, compresslevel=9) as f:
        f.write(data)

def write_features(path, csr):
    """Dense float32 [N, F] .npy, gzip mtime=0, written in row blocks (never the whole array at once)."""
    n, f = csr.shape
    with gzip.GzipFile(path, "wb", mtime=0, compresslevel=9) as out:
        np.lib.format.write_array_header_1_0(out, {"descr": "<f4", "fortran_order": False, "shape": (n, f)})
        for r in range(0, n, 1024):
            out.write(np.ascontiguousarray(csr[r:r + 1024].toarray(), dtype="<f4").tobytes())

def main():
    warnings.simplefilter("ignore", DeprecationWarning)
    src, out = sys.argv[1], sys.argv[2]
    check_inputs(src)
    with zipfile.ZipFile(os.path.join(src, NAME + ".npz")) as zf:
        adj = member(zf, "adj_matrix").item().tocoo()
        attr = member(zf, "node_attr").item().tocsr()
        labels = member(zf, "node_label").astype(np.int64)
        meta = member(zf, "metadata").item()
    n = labels.shape[0]
    assert adj.shape == (n, n) and attr.shape[0] == n
    attr.sort_indices()
    # undirected simple graph: every stored pair once as min<TAB>max, self-loops dropped
    a, b = adj.row.astype(np.int64), adj.col.astype(np.int64)
    keep = a != b
    e = np.unique(np.stack([np.minimum(a, b)[keep], np.maximum(a, b)[keep]], 1), axis=0)
    c = int(labels.max()) + 1
    split = np.full(n, 2, dtype=np.int8)   # rest = test
    rng = np.random.RandomState(SEED)
    for k in range(c):
        idx = np.flatnonzero(labels == k)
        perm = idx[rng.permutation(len(idx))]
        split[perm[:TRAIN_PER_CLASS]] = 0
        split[perm[TRAIN_PER_CLASS:TRAIN_PER_CLASS + VAL_PER_CLASS]] = 1
    os.makedirs(out, exist_ok=True)
    write_gz(os.path.join(out, "edges.tsv.gz"), "".join(f"{x}\t{y}\n" for x, y in e).encode())
    write_features(os.path.join(out, "features.npy.gz"), attr)
    np.save(os.path.join(out, "labels.npy"), labels)
    np.save(os.path.join(out, "split.npy"), split)
    names = list(meta.get("class_names", []))
    with open(os.path.join(out, "classes.tsv"), "w", encoding="utf-8") as f:
        f.write("class\tname\n")
        f.writelines(f"{i}\t{s}\n" for i, s in enumerate(names))
    print(json.dumps({"name": NAME, "nodes": n, "features": attr.shape[1], "attr_nnz": int(attr.nnz),
                      "attr_values": np.unique(attr.data)[:5].tolist(), "stored_adj": int(adj.nnz),
                      "self_loops_dropped": int((~keep).sum()), "undirected_edges": len(e), "classes": c,
                      "per_class": np.bincount(labels, minlength=c).tolist(),
                      "split": {k: int((split == v).sum()) for k, v in (("train", 0), ("val", 1), ("test", 2))}}))

main()
