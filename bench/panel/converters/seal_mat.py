"""SEAL's link-prediction graphs (MATLAB/data/<NAME>.mat, the adjacency as the sparse matrix `net`) -> a
distgnn link-prediction dataset (docs/formats.md): edges.tsv.gz only (no features, no labels), each
undirected edge once as min<TAB>max, no self-loops. Parameter (source.json): file (the .mat).
Needs python3-scipy for scipy.io.loadmat."""
import os
import numpy as np
import scipy.io, scipy.sparse
from converters.common import undirected, write_edges

def convert(src, out, file):
    net = scipy.sparse.coo_matrix(scipy.io.loadmat(os.path.join(src, file))["net"])
    n = net.shape[0]
    e, self_loops = undirected(net.row, net.col)
    deg = np.bincount(e.ravel(), minlength=n)
    os.makedirs(out, exist_ok=True)
    write_edges(os.path.join(out, "edges.tsv.gz"), e)
    return {"matrix_nodes": n, "stored_entries": int(net.nnz), "self_loops_dropped": self_loops,
            "undirected_edges": len(e), "isolated": int((deg == 0).sum()), "max_id": int(e.max()),
            "max_degree": int(deg.max()), "mean_degree": round(2 * len(e) / n, 3)}
