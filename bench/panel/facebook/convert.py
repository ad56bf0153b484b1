#!/usr/bin/python3
"""Converts MUSAE's Facebook page-page graph (repository benedekrozemberczki/MUSAE, input/) into a
distgnn dataset directory (docs/formats.md): multi-hot features from the JSON as dense float32,
page type as the label, a seeded 60/20/20 split.
Usage: convert.py SRC_DIR OUT_DIR   (Debian's /usr/bin/python3 with python3-numpy; no SciPy)."""
import csv, gzip, hashlib, io, json, os, sys
import numpy as np

INPUTS = {  # file -> (bytes, sha256); checked before anything is read
    "facebook_edges.csv": (1882610, "7c50d8f02a75cc0829577814a1fc14535164daa38d79c3612340c9e9cdbd4022"),
    "facebook.json": (2088766, "ea870537646a93642a0008d38aa9bfeff02018070ba97b1f3f469d9622626436"),
    "facebook_target.csv": (1177912, "7bd96eafea3c2ca40f44bfa9e73642194696c21e38c7b29ed409c32ad14075cd"),
}
FRACTIONS, SEED = (0.6, 0.2, 0.2), 0

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
    with open(os.path.join(src, "facebook_target.csv"), encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    n = len(rows)
    assert [int(r["id"]) for r in rows] == list(range(n))
    classes = sorted({r["page_type"] for r in rows})
    labels = np.array([classes.index(r["page_type"]) for r in rows], dtype=np.int64)
    e = np.loadtxt(os.path.join(src, "facebook_edges.csv"), dtype=np.int64, delimiter=",", skiprows=1)
    keep = e[:, 0] != e[:, 1]
    und = np.unique(np.stack([e[keep].min(1), e[keep].max(1)], 1), axis=0)
    assert und.max() < n
    with open(os.path.join(src, "facebook.json"), encoding="utf-8") as f:
        feats = {int(k): v for k, v in json.load(f).items()}
    assert set(feats) <= set(range(n))
    nfeat = 1 + max(max(v) for v in feats.values() if v)
    split = np.empty(n, dtype=np.int8)
    perm = np.random.RandomState(SEED).permutation(n)
    a = int(round(FRACTIONS[0] * n)); b = a + int(round(FRACTIONS[1] * n))
    split[perm[:a]], split[perm[a:b]], split[perm[b:]] = 0, 1, 2

    os.makedirs(out, exist_ok=True)
    write_gz(os.path.join(out, "edges.tsv.gz"), "".join(f"{p}\t{q}\n" for p, q in und).encode())
    with gzip.GzipFile(os.path.join(out, "features.npy.gz"), "wb", mtime=0, compresslevel=9) as g:
        np.lib.format.write_array_header_1_0(g, {"descr": "<f4", "fortran_order": False, "shape": (n, nfeat)})
        for r0 in range(0, n, 1024):
            block = np.zeros((min(1024, n - r0), nfeat), dtype="<f4")
            for i in range(r0, r0 + len(block)):
                block[i - r0, feats.get(i, [])] = 1.0
            g.write(block.tobytes())
    np.save(os.path.join(out, "labels.npy"), labels)
    np.save(os.path.join(out, "split.npy"), split)
    with open(os.path.join(out, "classes.tsv"), "w", encoding="utf-8") as f:
        f.write("class\tpage_type\n")
        f.writelines(f"{i}\t{c}\n" for i, c in enumerate(classes))
    print(json.dumps({"name": "facebook", "nodes": n, "features": nfeat, "edge_lines": len(e),
                      "self_loops_dropped": int((~keep).sum()), "undirected_edges": len(und),
                      "nodes_without_feature": int(sum(1 for i in range(n) if not feats.get(i))),
                      "feature_ones": int(sum(len(set(v)) for v in feats.values())), "classes": classes,
                      "split": {k: int((split == v).sum()) for k, v in (("train", 0), ("val", 1), ("test", 2))}}))

main()
