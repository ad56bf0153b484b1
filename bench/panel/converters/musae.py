"""MUSAE's page-page graphs (benedekrozemberczki/MUSAE input/: <name>_edges.csv, <name>.json with each
node's feature ids, <name>_target.csv) -> a distgnn dataset (docs/formats.md): multi-hot features as
dense float32, the label column's values (sorted) as classes, a seeded fraction split.
Parameters (source.json): name, label (the target column), fractions (train, val, test), seed. NumPy only."""
import csv, json, os
import numpy as np
from converters.common import (fraction_parts, save_node_arrays, split_counts, undirected, write_classes,
                               write_edges, write_npy_gz_rows)

def convert(src, out, name, label, fractions, seed):
    with open(os.path.join(src, f"{name}_target.csv"), encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    n = len(rows)
    assert [int(r["id"]) for r in rows] == list(range(n))
    classes = sorted({r[label] for r in rows})
    labels = np.array([classes.index(r[label]) for r in rows], dtype=np.int64)
    arcs = np.loadtxt(os.path.join(src, f"{name}_edges.csv"), dtype=np.int64, delimiter=",", skiprows=1)
    e, self_loops = undirected(arcs[:, 0], arcs[:, 1])
    assert e.max() < n
    with open(os.path.join(src, f"{name}.json"), encoding="utf-8") as f:
        feats = {int(k): v for k, v in json.load(f).items()}
    assert set(feats) <= set(range(n))
    nfeat = 1 + max(max(v) for v in feats.values() if v)
    split = np.empty(n, dtype=np.int8)
    for value, part in enumerate(fraction_parts(n, fractions, seed)):
        split[part] = value

    def rows_of(r0, r1):
        block = np.zeros((r1 - r0, nfeat), dtype="<f4")
        for i in range(r0, r1):
            block[i - r0, feats.get(i, [])] = 1.0
        return block
    os.makedirs(out, exist_ok=True)
    write_edges(os.path.join(out, "edges.tsv.gz"), e)
    write_npy_gz_rows(os.path.join(out, "features.npy.gz"), n, nfeat, rows_of)
    save_node_arrays(out, labels, split)
    write_classes(os.path.join(out, "classes.tsv"), label, classes)
    return {"nodes": n, "features": nfeat, "edge_lines": len(arcs), "self_loops_dropped": self_loops,
            "undirected_edges": len(e), "nodes_without_feature": int(sum(1 for i in range(n) if not feats.get(i))),
            "feature_ones": int(sum(len(set(v)) for v in feats.values())), "classes": classes,
            "split": split_counts(split)}
