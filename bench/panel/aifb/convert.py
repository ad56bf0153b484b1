#!/usr/bin/python3
"""Converts the R-GCN AIFB files (aifb_stripped.nt.gz + trainingSet.tsv + testSet.tsv, as in
repository alexanderdesouza/latent-GCN data/aifb/, identical task files in tkipf/relational-gcn)
into a distgnn typed dataset (docs/formats.md) with ONE featureless node type `entity`: every
RDF term (URI, literal, blank node) is a node, every predicate a relation r0, r1, ...
Usage: convert.py SRC_DIR OUT_DIR   (Debian's /usr/bin/python3 with python3-numpy)."""
import gzip, hashlib, io, json, os, re, sys
import numpy as np

NAME = "aifb"
GRAPH = "aifb_stripped.nt.gz"
INPUTS = {  # file -> (bytes, sha256); checked before anything is read
    "aifb_stripped.nt.gz": (568040, "ba4191235456e09d8f12a2415f24273b8d7641ffee6001ca9340f02c04d77fea"),
    "trainingSet.tsv": (22927, "4960629668c6548215871321e4b6daaee24191f38f41ccfbc4de62016d18c5a7"),
    "testSet.tsv": (5921, "abe4a9e7c393164996d1fe7250d72ec1f1a7b350583f2dff5d880f60ec04b3b6"),
}
# Label predicates: removed (the stripped dump already lacks them; removing again is a no-op).
LABEL_PREDICATES = {"<http://swrc.ontoware.org/ontology#affiliation>", "<http://swrc.ontoware.org/ontology#employs>"}
ENTITY_COL, LABEL_COL = 0, 2      # trainingSet.tsv: person, id, label_affiliation
VAL_FRACTION, SEED = 0.2, 0

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

# N-Triples: subject (IRI | blank node), predicate (IRI), object (IRI | blank node | literal), " ."
IRI = r"<[^>]*>"
BNODE = r"_:[A-Za-z0-9_\-.]+"
LITERAL = r'"(?:[^"\\]|\\.)*"(?:@[A-Za-z][A-Za-z0-9\-]*|\^\^<[^>]*>)?'
TRIPLE = re.compile(rf"^\s*({IRI}|{BNODE})\s+({IRI})\s+({IRI}|{BNODE}|{LITERAL})\s*\.\s*$")

def read_triples(path):
    triples = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            m = TRIPLE.match(line)
            if not m:
                sys.exit(f"{path}:{lineno}: not an N-Triples line: {line[:200]!r}")
            triples.append(m.groups())
    return triples

def write_gz(path, data):
    with gzip.GzipFile(path, "wb", mtime=0, compresslevel=9) as f:
        f.write(data)

def read_task(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        next(f)  # header
        for line in f:
            if line.strip():
                cols = line.rstrip("\n").split("\t")
                rows.append((cols[ENTITY_COL], cols[LABEL_COL]))
    return rows

def main():
    src, out = sys.argv[1], sys.argv[2]
    check_inputs(src)
    raw = read_triples(os.path.join(src, GRAPH))
    triples = sorted(set(t for t in raw if t[1] not in LABEL_PREDICATES))
    removed = sum(1 for t in raw if t[1] in LABEL_PREDICATES)
    # Node ids: every term that is a subject or an object, sorted by its N-Triples text.
    terms = sorted({t[0] for t in triples} | {t[2] for t in triples})
    ent = {t: i for i, t in enumerate(terms)}
    preds = sorted({t[1] for t in triples})
    n = len(terms)

    train = read_task(os.path.join(src, "trainingSet.tsv"))
    test = read_task(os.path.join(src, "testSet.tsv"))
    classes = sorted({lab for _, lab in train + test})
    cls = {c: i for i, c in enumerate(classes)}
    labels = np.full(n, -1, dtype=np.int64)
    split = np.full(n, -1, dtype=np.int8)
    train_ids = []
    for rows, value in ((train, 0), (test, 2)):
        for uri, lab in rows:
            i = ent[f"<{uri}>"]
            assert labels[i] == -1, f"{uri} listed twice"
            labels[i] = cls[lab]
            split[i] = value
            if value == 0:
                train_ids.append(i)
    # validation: a seeded 20 % of the official training set
    train_ids = np.array(train_ids, dtype=np.int64)
    perm = np.random.RandomState(SEED).permutation(len(train_ids))
    split[train_ids[perm[: int(round(VAL_FRACTION * len(train_ids)))]]] = 1

    os.makedirs(os.path.join(out, "nodes", "entity"), exist_ok=True)
    os.makedirs(os.path.join(out, "edges"), exist_ok=True)
    np.save(os.path.join(out, "nodes/entity/labels.npy"), labels)
    np.save(os.path.join(out, "nodes/entity/split.npy"), split)
    by_pred = {p: [] for p in preds}
    for s, p, o in triples:
        by_pred[p].append((ent[s], ent[o]))
    rel_lines = ["relation\tpredicate\tedges\n"]
    for k, p in enumerate(preds):
        pairs = sorted(by_pred[p])
        write_gz(os.path.join(out, "edges", f"entity__r{k}__entity.tsv.gz"),
                 "".join(f"{a}\t{b}\n" for a, b in pairs).encode())
        rel_lines.append(f"r{k}\t{p[1:-1]}\t{len(pairs)}\n")
    with open(os.path.join(out, "relations.tsv"), "w", encoding="utf-8") as f:
        f.writelines(rel_lines)
    write_gz(os.path.join(out, "entities.tsv.gz"), "".join(f"{i}\t{t}\n" for i, t in enumerate(terms)).encode("utf-8"))
    with open(os.path.join(out, "classes.tsv"), "w", encoding="utf-8") as f:
        f.write("class\tvalue\n")
        f.writelines(f"{i}\t{c}\n" for i, c in enumerate(classes))
    meta = {"node_types": {"entity": n}, "edge_types": [["entity", f"r{k}", "entity"] for k in range(len(preds))],
            "target": "entity", "num_classes": len(classes)}
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    kinds = {"uri": sum(t.startswith("<") for t in terms), "blank": sum(t.startswith("_:") for t in terms),
             "literal": sum(t.startswith('"') for t in terms)}
    print(json.dumps({"name": NAME, "triples_read": len(raw), "label_triples_removed": removed,
                      "edges": len(triples), "nodes": n, "node_kinds": kinds, "relations": len(preds),
                      "classes": len(classes), "per_class": np.bincount(labels[labels >= 0]).tolist(),
                      "split": {k: int((split == v).sum()) for k, v in (("train", 0), ("val", 1), ("test", 2), ("none", -1))}}))

main()
