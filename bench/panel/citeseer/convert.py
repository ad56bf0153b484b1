#!/usr/bin/python3
"""Converts Planetoid's ind.citeseer.* files (repository kimiyoung/planetoid, data/) into a
distgnn dataset directory (docs/formats.md) with the Planetoid public split.
Usage: convert.py SRC_DIR OUT_DIR   (Debian's /usr/bin/python3 with python3-numpy and
python3-scipy: the files are pickled scipy.sparse matrices)."""
import gzip, hashlib, io, json, os, pickle, sys, warnings
import numpy as np

NAME = "citeseer"
INPUTS = {  # file -> (bytes, sha256); checked before anything is read
    "ind.citeseer.x": (31087, "d20de19150741e555de0ed037195630fc194114ebc7fd72ced62810148aa22f6"),
    "ind.citeseer.y": (3014, "8ba87e515d8e3ee3cf52f6d2c5b86aa73f11ecad825a808455209ec26cd54924"),
    "ind.citeseer.tx": (260321, "539a8906a2da97628d212f2fdd668c109a8b3f0d36574b59e5d3fd5b5303da21"),
    "ind.citeseer.ty": (24135, "55e5bd1ba1e733a04598753ad1a8d57957f4b8f89e74519f41f4f4938767e4ce"),
    "ind.citeseer.allx": (595021, "2ac30345d95c9ec933a817ee0bdd6a5f077f8c184a20e696910192d534414668"),
    "ind.citeseer.ally": (55623, "f704b2d986dde6c2669934de1f3ae5696a6cf9455c0f6b2646a2d135ea0a1c95"),
    "ind.citeseer.graph": (61987, "d79a4ef9d3e7169aee8946145f6b7306e35bc79bffad26346cfb94e10e9912a7"),
    "ind.citeseer.test.index": (5000, "2af990671580b6b2df5d158d1038f8292e30c9cd821b5453f399659b25b723d4"),
}

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

SAFE_BUILTINS = {("builtins", "list"), ("__builtin__", "list"), ("builtins", "set"), ("__builtin__", "set")}

class Restricted(pickle.Unpickler):
    """Only NumPy / SciPy / collections classes (the Planetoid pickles hold nothing else)."""
    def find_class(self, module, name):
        if module.split(".")[0] in ("numpy", "scipy", "collections") or (module, name) in SAFE_BUILTINS:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"refusing to unpickle {module}.{name}")

def load(src, suffix):
    with open(os.path.join(src, f"ind.{NAME}.{suffix}"), "rb") as f:
        return Restricted(f, encoding="latin1").load()

def dense(m):
    return np.asarray(m.todense() if hasattr(m, "todense") else m)

def write_gz(path, data):
    with gzip.GzipFile(path, "wb", mtime=0, compresslevel=9) as f:
        f.write(data)

def main():
    warnings.simplefilter("ignore", DeprecationWarning)  # scipy.sparse.csr in the old pickles
    src, out = sys.argv[1], sys.argv[2]
    check_inputs(src)
    x, y, tx, ty, allx, ally, graph = (load(src, s) for s in ("x", "y", "tx", "ty", "allx", "ally", "graph"))
    test_index = np.loadtxt(os.path.join(src, f"ind.{NAME}.test.index"), dtype=np.int64)
    test_sorted = np.sort(test_index)
    tx, ty, allx, ally = dense(tx), dense(ty), dense(allx), dense(ally)
    # CiteSeer: some test ids (isolated nodes) have no row in tx/ty: as PyG and Kipf's GCN do, extend
    # tx/ty to the whole id range test_sorted[0]..test_sorted[-1] with zero rows for them.
    full = np.arange(test_sorted[0], test_sorted[-1] + 1)
    missing = np.setdiff1d(full, test_sorted)
    if len(missing):
        tx_ext = np.zeros((len(full), tx.shape[1]), dtype=tx.dtype)
        tx_ext[test_sorted - test_sorted[0]] = tx
        ty_ext = np.zeros((len(full), ty.shape[1]), dtype=ty.dtype)
        ty_ext[test_sorted - test_sorted[0]] = ty
        tx, ty = tx_ext, ty_ext
    feats = np.vstack([allx, tx]).astype(np.float32)
    onehot = np.vstack([ally, ty])
    feats[test_index] = feats[test_sorted]
    onehot[test_index] = onehot[test_sorted]
    n, c = feats.shape[0], onehot.shape[1]
    labels = np.where(onehot.sum(1) > 0, onehot.argmax(1), -1).astype(np.int64)
    split = np.full(n, -1, dtype=np.int8)
    ntrain = dense(y).shape[0]
    split[:ntrain] = 0
    split[ntrain:ntrain + 500] = 1
    split[test_index] = 2
    assert (labels[split >= 0] >= 0).all()

    pairs = set()
    self_loops = 0
    for i, nbrs in graph.items():
        for j in nbrs:
            if i == j:
                self_loops += 1
            else:
                pairs.add((min(i, j), max(i, j)))
    e = np.array(sorted(pairs), dtype=np.int64)
    assert e.max() < n

    os.makedirs(out, exist_ok=True)
    write_gz(os.path.join(out, "edges.tsv.gz"), "".join(f"{a}\t{b}\n" for a, b in e).encode())
    buf = io.BytesIO()
    np.save(buf, feats)
    write_gz(os.path.join(out, "features.npy.gz"), buf.getvalue())
    np.save(os.path.join(out, "labels.npy"), labels)
    np.save(os.path.join(out, "split.npy"), split)
    print(json.dumps({"name": NAME, "nodes": n, "features": feats.shape[1], "classes": c,
                      "undirected_edges": len(e), "self_loops_dropped": self_loops,
                      "test_ids_without_row": len(missing), "unlabelled": int((labels < 0).sum()),
                      "per_class": np.bincount(labels[labels >= 0], minlength=c).tolist(),
                      "split": {k: int((split == v).sum()) for k, v in (("train", 0), ("val", 1), ("test", 2), ("none", -1))}}))

main()
