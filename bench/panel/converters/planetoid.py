"""Planetoid's ind.<name>.{x,y,tx,ty,allx,ally,graph,test.index} (kimiyoung/planetoid data/) -> a distgnn
dataset (docs/formats.md) with the Planetoid public split (train = the x rows, the next `val` ids
validation, test.index test). Parameters (source.json): name, val.
Needs python3-scipy: the files are pickled scipy.sparse matrices."""
import os, warnings
import numpy as np
from converters.common import save_node_arrays, split_counts, undirected, unpickle, write_edges, write_npy_gz

def dense(m):
    return np.asarray(m.todense() if hasattr(m, "todense") else m)

def convert(src, out, name, val):
    warnings.simplefilter("ignore", DeprecationWarning)  # scipy.sparse.csr in the old pickles
    def load(suffix):
        with open(os.path.join(src, f"ind.{name}.{suffix}"), "rb") as f:
            return unpickle(f)
    x, y, tx, ty, allx, ally, graph = (load(s) for s in ("x", "y", "tx", "ty", "allx", "ally", "graph"))
    test_index = np.loadtxt(os.path.join(src, f"ind.{name}.test.index"), dtype=np.int64)
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
    split[ntrain:ntrain + val] = 1
    split[test_index] = 2
    assert (labels[split >= 0] >= 0).all()

    arcs = [(i, j) for i, nbrs in graph.items() for j in nbrs]
    e, self_loops = undirected([i for i, _ in arcs], [j for _, j in arcs])
    assert e.max() < n
    os.makedirs(out, exist_ok=True)
    write_edges(os.path.join(out, "edges.tsv.gz"), e)
    write_npy_gz(os.path.join(out, "features.npy.gz"), feats)
    save_node_arrays(out, labels, split)
    return {"nodes": n, "features": feats.shape[1], "classes": c, "undirected_edges": len(e),
            "self_loops_dropped": self_loops, "test_ids_without_row": len(missing),
            "unlabelled": int((labels < 0).sum()),
            "per_class": np.bincount(labels[labels >= 0], minlength=c).tolist(), "split": split_counts(split)}
