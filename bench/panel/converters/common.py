"""What every panel converter shares: checking the pinned source files, deterministic gzip output
(mtime=0), the undirected edge list, seeded splits, the restricted unpickler and the count helpers.
Debian's /usr/bin/python3 with python3-numpy."""
import gzip, hashlib, io, os, pickle, sys
import numpy as np

def check_inputs(src, inputs):
    """inputs: [{"path": repository path, "bytes": N, "sha256": hex}, ...]; each file is looked for in
    src under its base name. Exits, naming the file, the expected and the actual bytes and sha256, on
    the first one missing or different; nothing is read before all of them pass."""
    for pin in inputs:
        path = os.path.join(src, os.path.basename(pin["path"]))
        if not os.path.isfile(path):
            sys.exit(f"refusing: {path} is missing")
        with open(path, "rb") as f:
            data = f.read()
        got = hashlib.sha256(data).hexdigest()
        if len(data) != pin["bytes"] or got != pin["sha256"]:
            sys.exit(f"refusing: {path} has {len(data)} bytes, sha256 {got}; "
                     f"expected {pin['bytes']} bytes, {pin['sha256']}")

def write_gz(path, data, level=9):
    """data (bytes) gzip-compressed with mtime=0: the same input gives the same bytes."""
    with gzip.GzipFile(path, "wb", mtime=0, compresslevel=level) as f:
        f.write(data)

def write_npy_gz(path, array, level=9):
    """array as a .npy file (np.save), gzip-compressed with mtime=0."""
    buf = io.BytesIO()
    np.save(buf, array)
    write_gz(path, buf.getvalue(), level)

def write_npy_gz_rows(path, n, f, rows, block=1024):
    """A dense float32 [n, f] .npy, gzip mtime=0, written `block` rows at a time (never the whole
    array at once): rows(r0, r1) gives rows r0..r1-1."""
    with gzip.GzipFile(path, "wb", mtime=0, compresslevel=9) as out:
        np.lib.format.write_array_header_1_0(out, {"descr": "<f4", "fortran_order": False, "shape": (n, f)})
        for r0 in range(0, n, block):
            out.write(np.ascontiguousarray(rows(r0, min(n, r0 + block)), dtype="<f4").tobytes())

def write_edges(path, pairs, level=9):
    """One `a<TAB>b` line per pair, in the given order, gzip mtime=0."""
    write_gz(path, "".join(f"{a}\t{b}\n" for a, b in pairs).encode(), level)

def undirected(a, b):
    """The undirected simple graph of the arcs a[i] -> b[i]: each edge once as (min, max), sorted,
    self-loops dropped. Returns (pairs [E, 2] int64, number of self-loop arcs dropped)."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    keep = a != b
    pairs = np.unique(np.stack([np.minimum(a, b)[keep], np.maximum(a, b)[keep]], 1), axis=0)
    return pairs, int((~keep).sum())

def save_node_arrays(out, labels, split):
    """labels.npy and split.npy in out (created if missing)."""
    os.makedirs(out, exist_ok=True)
    np.save(os.path.join(out, "labels.npy"), labels)
    np.save(os.path.join(out, "split.npy"), split)

def write_classes(path, column, names):
    """classes.tsv: header `class<TAB>column`, then one `id<TAB>name` line per class."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"class\t{column}\n")
        f.writelines(f"{i}\t{s}\n" for i, s in enumerate(names))

def fraction_parts(n, fractions, seed):
    """numpy.random.RandomState(seed).permutation(n) cut into consecutive parts of round(f * n)
    for each of fractions but the last; the last part is the rest."""
    perm = np.random.RandomState(seed).permutation(n)
    parts, start = [], 0
    for frac in fractions[:-1]:
        stop = start + int(round(frac * n))
        parts.append(perm[start:stop])
        start = stop
    return parts + [perm[start:]]

def per_class_split(labels, counts, seed):
    """split int8: for each class k in order, a RandomState(seed) permutation of its nodes; the first
    counts[0] get 0 (train), the next counts[1] get 1 (val), ...; every other node gets 2 (test)."""
    split = np.full(len(labels), 2, dtype=np.int8)
    rng = np.random.RandomState(seed)
    for k in range(int(labels.max()) + 1):
        idx = np.flatnonzero(labels == k)
        perm = idx[rng.permutation(len(idx))]
        start = 0
        for value, count in enumerate(counts):
            split[perm[start:start + count]] = value
            start += count
    return split

def split_counts(split):
    return {k: int((split == v).sum()) for k, v in (("train", 0), ("val", 1), ("test", 2), ("none", -1))}

class Restricted(pickle.Unpickler):
    """Unpickles only NumPy / SciPy / collections classes and plain list, set and dict (all that the
    pickled scipy.sparse matrices and Planetoid's dicts hold); anything else is refused."""
    BUILTINS = {(m, n) for m in ("builtins", "__builtin__") for n in ("list", "set", "dict")}

    def find_class(self, module, name):
        if module.split(".")[0] in ("numpy", "scipy", "collections") or (module, name) in self.BUILTINS:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"refusing to unpickle {module}.{name}")

def unpickle(f):
    return Restricted(f, encoding="latin1").load()
