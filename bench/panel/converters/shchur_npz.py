"""Shchur et al.'s npz graphs as re-saved in EdisonLeeeee/GraphData (members adj_matrix, node_attr:
pickled scipy.sparse; node_label; metadata with class_names) -> a distgnn dataset (docs/formats.md)
with a seeded per-class train / val / rest-test split (Shchur et al. 2018's protocol).
Parameters (source.json): file (the .npz), train_per_class, val_per_class, seed.
Needs python3-scipy: the object members are scipy.sparse matrices."""
import os, warnings, zipfile
import numpy as np
from converters.common import (per_class_split, save_node_arrays, split_counts, undirected, unpickle,
                               write_classes, write_edges, write_npy_gz_rows)

def member(zf, name):
    """One .npy member of the .npz; object arrays through the restricted unpickler."""
    with zf.open(name + ".npy") as f:
        version = np.lib.format.read_magic(f)
        shape, fortran, dtype = np.lib.format._read_array_header(f, version)
        if dtype.hasobject:
            return unpickle(f)
        return np.frombuffer(f.read(), dtype=dtype).reshape(shape, order="F" if fortran else "C")

def convert(src, out, file, train_per_class, val_per_class, seed):
    warnings.simplefilter("ignore", DeprecationWarning)
    with zipfile.ZipFile(os.path.join(src, file)) as zf:
        adj = member(zf, "adj_matrix").item().tocoo()
        attr = member(zf, "node_attr").item().tocsr()
        labels = member(zf, "node_label").astype(np.int64)
        meta = member(zf, "metadata").item()
    n = labels.shape[0]
    assert adj.shape == (n, n) and attr.shape[0] == n
    attr.sort_indices()
    # undirected simple graph: every stored pair once as min<TAB>max, self-loops dropped
    e, self_loops = undirected(adj.row, adj.col)
    c = int(labels.max()) + 1
    split = per_class_split(labels, (train_per_class, val_per_class), seed)
    os.makedirs(out, exist_ok=True)
    write_edges(os.path.join(out, "edges.tsv.gz"), e)
    write_npy_gz_rows(os.path.join(out, "features.npy.gz"), n, attr.shape[1], lambda r0, r1: attr[r0:r1].toarray())
    save_node_arrays(out, labels, split)
    write_classes(os.path.join(out, "classes.tsv"), "name", list(meta.get("class_names", [])))
    return {"nodes": n, "features": attr.shape[1], "attr_nnz": int(attr.nnz),
            "attr_values": np.unique(attr.data)[:5].tolist(), "stored_adj": int(adj.nnz),
            "self_loops_dropped": self_loops, "undirected_edges": len(e), "classes": c,
            "per_class": np.bincount(labels, minlength=c).tolist(), "split": split_counts(split)}
