#!/usr/bin/python3
"""Converts one panel graph's pinned source files into a distgnn dataset directory (docs/formats.md).
Usage: convert.py GRAPH SRC_DIR OUT_DIR   (Debian's /usr/bin/python3 with python3-numpy; the SEAL,
Planetoid and Shchur formats also need python3-scipy).
GRAPH names a folder next to this file whose source.json gives the source format (a module in
converters/), the pinned source files (repository, commit, path, bytes, sha256; looked for in SRC_DIR
under their base names and checked before anything is read) and the format's parameters."""
import importlib, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from converters.common import check_inputs

def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    graph, src, out = sys.argv[1:]
    spec_path = os.path.join(HERE, graph, "source.json")
    if not os.path.isfile(spec_path):
        sys.exit(f"no such panel graph: {spec_path} is missing")
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    check_inputs(src, spec["inputs"])
    summary = importlib.import_module("converters." + spec["format"]).convert(src, out, **spec["params"])
    print(json.dumps({"name": graph, **summary}))

main()
