"""yandex-research/heterophilous-graphs' data/<name>.npz (node_features, node_labels, edges, ten
train/val/test masks) -> a distgnn dataset (docs/formats.md) with one of the file's splits.
Parameters (source.json): file (the .npz), split (which of the ten mask rows). NumPy only."""
import os
import numpy as np
from converters.common import save_node_arrays, split_counts, undirected, write_edges, write_npy_gz

def convert(src, out, file, split):
    with np.load(os.path.join(src, file), allow_pickle=False) as z:
        x = z["node_features"].astype(np.float32)
        y = z["node_labels"].astype(np.int64)
        edges = z["edges"].astype(np.int64)
        tr, va, te = z["train_masks"][split], z["val_masks"][split], z["test_masks"][split]
    n = len(y)
    assert x.shape[0] == n and edges.min() >= 0 and edges.max() < n
    assert not (tr & va).any() and not (tr & te).any() and not (va & te).any()
    # the file stores each undirected edge once; write it once as min<TAB>max, sorted, no self-loops
    e, self_loops = undirected(edges[:, 0], edges[:, 1])
    values = np.full(n, -1, dtype=np.int8)
    values[tr], values[va], values[te] = 0, 1, 2
    os.makedirs(out, exist_ok=True)
    write_edges(os.path.join(out, "edges.tsv.gz"), e)
    write_npy_gz(os.path.join(out, "features.npy.gz"), x)
    save_node_arrays(out, y, values)
    return {"nodes": n, "features": x.shape[1], "stored_edges": len(edges), "self_loops_dropped": self_loops,
            "duplicates_merged": len(edges) - self_loops - len(e), "undirected_edges": len(e),
            "classes": int(y.max()) + 1, "split": split_counts(values)}
