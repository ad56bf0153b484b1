"""R-GCN entity classification files (an N-Triples dump + trainingSet.tsv / testSet.tsv) -> a distgnn
typed dataset (docs/formats.md) with ONE featureless node type `entity`: every RDF term (URI, literal,
blank node) that is a subject or object is a node, every predicate a relation r0, r1, ...
Parameters (source.json): graph (the .nt.gz), train / test (the task files), label_predicates (triples
removed), entity_col / label_col (task file columns), val_fraction and seed (validation = a seeded
part of the official training set)."""
import gzip, json, os, re, sys
import numpy as np
from converters.common import fraction_parts, save_node_arrays, split_counts, write_classes, write_edges, write_gz

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

def read_task(path, entity_col, label_col):
    rows = []
    with open(path, encoding="utf-8") as f:
        next(f)  # header
        for line in f:
            if line.strip():
                cols = line.rstrip("\n").split("\t")
                rows.append((cols[entity_col], cols[label_col]))
    return rows

def convert(src, out, graph, train, test, label_predicates, entity_col, label_col, val_fraction, seed):
    label_predicates = set(label_predicates)
    raw = read_triples(os.path.join(src, graph))
    triples = sorted(set(t for t in raw if t[1] not in label_predicates))
    removed = sum(1 for t in raw if t[1] in label_predicates)
    # Node ids: every term that is a subject or an object, sorted by its N-Triples text.
    terms = sorted({t[0] for t in triples} | {t[2] for t in triples})
    ent = {t: i for i, t in enumerate(terms)}
    preds = sorted({t[1] for t in triples})
    n = len(terms)

    train_rows = read_task(os.path.join(src, train), entity_col, label_col)
    test_rows = read_task(os.path.join(src, test), entity_col, label_col)
    classes = sorted({lab for _, lab in train_rows + test_rows})
    cls = {c: i for i, c in enumerate(classes)}
    labels = np.full(n, -1, dtype=np.int64)
    split = np.full(n, -1, dtype=np.int8)
    train_ids = []
    for rows, value in ((train_rows, 0), (test_rows, 2)):
        for uri, lab in rows:
            i = ent[f"<{uri}>"]
            assert labels[i] == -1, f"{uri} listed twice"
            labels[i] = cls[lab]
            split[i] = value
            if value == 0:
                train_ids.append(i)
    # validation: a seeded part of the official training set, in file order
    train_ids = np.array(train_ids, dtype=np.int64)
    split[train_ids[fraction_parts(len(train_ids), (val_fraction, 1 - val_fraction), seed)[0]]] = 1

    save_node_arrays(os.path.join(out, "nodes", "entity"), labels, split)
    os.makedirs(os.path.join(out, "edges"), exist_ok=True)
    by_pred = {p: [] for p in preds}
    for s, p, o in triples:
        by_pred[p].append((ent[s], ent[o]))
    rel_lines = ["relation\tpredicate\tedges\n"]
    for k, p in enumerate(preds):
        pairs = sorted(by_pred[p])
        write_edges(os.path.join(out, "edges", f"entity__r{k}__entity.tsv.gz"), pairs)
        rel_lines.append(f"r{k}\t{p[1:-1]}\t{len(pairs)}\n")
    with open(os.path.join(out, "relations.tsv"), "w", encoding="utf-8") as f:
        f.writelines(rel_lines)
    write_gz(os.path.join(out, "entities.tsv.gz"), "".join(f"{i}\t{t}\n" for i, t in enumerate(terms)).encode("utf-8"))
    write_classes(os.path.join(out, "classes.tsv"), "value", classes)
    meta = {"node_types": {"entity": n}, "edge_types": [["entity", f"r{k}", "entity"] for k in range(len(preds))],
            "target": "entity", "num_classes": len(classes)}
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    kinds = {"uri": sum(t.startswith("<") for t in terms), "blank": sum(t.startswith("_:") for t in terms),
             "literal": sum(t.startswith('"') for t in terms)}
    return {"triples_read": len(raw), "label_triples_removed": removed, "edges": len(triples), "nodes": n,
            "node_kinds": kinds, "relations": len(preds), "classes": len(classes),
            "per_class": np.bincount(labels[labels >= 0]).tolist(), "split": split_counts(split)}
