#!/usr/bin/python3
"""Converts HeCo's ACM files (repository liun-online/HeCo, data/acm/) into a
distgnn typed dataset (docs/formats.md): paper / author / subject, target paper.
Usage: convert.py HECO_ACM_DIR OUT_DIR   (Debian's /usr/bin/python3 with python3-numpy)."""
import gzip, io, json, os, sys, zipfile
import numpy as np

src, out = sys.argv[1], sys.argv[2]

def edges(name):
    pairs = np.loadtxt(os.path.join(src, name), dtype=np.int64)
    return pairs[:, 0], pairs[:, 1]

# p_feat.npz is scipy's save_npz of a CSR matrix: read its arrays with NumPy alone.
with np.load(os.path.join(src, "p_feat.npz")) as z:
    rows, cols = (int(v) for v in z["shape"])
    dense = np.zeros((rows, cols), dtype=np.float32)
    indptr, indices, data = z["indptr"], z["indices"], z["data"]
    for r in range(rows):
        dense[r, indices[indptr[r]:indptr[r + 1]]] = data[indptr[r]:indptr[r + 1]]
labels = np.load(os.path.join(src, "labels.npy")).astype(np.int64)
split = np.full(rows, -1, dtype=np.int8)
for value, name in ((0, "train_20.npy"), (1, "val_20.npy"), (2, "test_20.npy")):
    split[np.load(os.path.join(src, name))] = value

pa_p, pa_a = edges("pa.txt")
ps_p, ps_s = edges("ps.txt")
counts = {"paper": rows, "author": int(pa_a.max()) + 1, "subject": int(ps_s.max()) + 1}
assert pa_p.max() < rows and ps_p.max() < rows and len(labels) == rows

os.makedirs(os.path.join(out, "nodes", "paper"), exist_ok=True)
os.makedirs(os.path.join(out, "edges"), exist_ok=True)
buf = io.BytesIO()
np.save(buf, dense)
with gzip.GzipFile(os.path.join(out, "nodes/paper/features.npy.gz"), "wb", mtime=0) as f:
    f.write(buf.getvalue())
np.save(os.path.join(out, "nodes/paper/labels.npy"), labels)
np.save(os.path.join(out, "nodes/paper/split.npy"), split)
for (s, d), rel, dst in (((pa_p, pa_a), "has_author", "author"), ((ps_p, ps_s), "has_subject", "subject")):
    with open(os.path.join(out, "edges", f"paper__{rel}__{dst}.tsv"), "w") as f:
        f.writelines(f"{a}\t{b}\n" for a, b in zip(s, d))
meta = {"node_types": counts, "edge_types": [["paper", "has_author", "author"], ["paper", "has_subject", "subject"]],
        "target": "paper", "num_classes": int(labels.max()) + 1}
with open(os.path.join(out, "meta.json"), "w") as f:
    json.dump(meta, f, indent=2)
    f.write("\n")
print(counts, {k: int((split == v).sum()) for k, v in (("train", 0), ("val", 1), ("test", 2))})
