#!/usr/bin/env python3
"""Historical rows against the exact run on the panel's homogeneous node graphs.

For each graph with node labels and a homogeneous layout, each model and seed: the panel's default run
(bench/panel/panel.py: `model export` defaults, `train-local --undirected --epochs 30 --threads 1`) and the
same run with `--historical-layers 1 --historical-max-age K` for each K. In train-local every node but a
batch's seeds may be read from the store (what `train.historical.nodes: all` does in a job). Runs are kept
in WORK/results.jsonl as the panel keeps its own. Prints one markdown table: test accuracy (mean of the
seeds), the historical run's gap to the exact one, and the seeds.

  /usr/bin/python3 bench/panel/historical.py [--bin build/distgnn] [--ages 2,10] [--models sage]
      [--graphs a,b] [--seeds 0,1,2] [--work /tmp/distgnn-panel-historical]
"""
import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import panel  # noqa: E402

HEAVY = ("coauthor-cs", "facebook")  # panel.py leaves their node runs out too (about 25 minutes a run here)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(panel.ROOT, "build/distgnn"))
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "distgnn-panel-historical"))
    ap.add_argument("--ages", default="2,10")
    ap.add_argument("--models", default="sage")
    ap.add_argument("--graphs", default="")
    ap.add_argument("--seeds", default="0,1,2")
    args = ap.parse_args()
    pargs = argparse.Namespace(bin=args.bin, work=args.work, seeds=args.seeds, grid="none", jobs=1,
                               graphs=args.graphs, kinds="", tasks="node")
    p = panel.Panel(pargs)
    graphs = [g for g in p.graphs if "node" in g.tasks and not g.typed() and g.name not in HEAVY]
    ages = [int(a) for a in args.ages.split(",")]
    print("| graph | model | exact: mean (seeds) | " + " | ".join(f"K = {k}: mean (seeds), gap" for k in ages) + " |")
    print("| --- | --- | --- | " + " | ".join("---" for _ in ages) + " |")
    for g in graphs:
        g.ensure()
        for model in args.models.split(","):
            def cell(flags):
                accs = [100 * p.node_run(g, model, "historical", [], flags, s)["test"] for s in p.seeds]
                return statistics.mean(accs), ", ".join(f"{a:.1f}" for a in accs)
            exact, exact_seeds = cell([])
            row = [g.name, model, f"{exact:.1f} ({exact_seeds})"]
            for k in ages:
                mean, seeds = cell(["--historical-layers", "1", "--historical-max-age", str(k)])
                row.append(f"{mean:.1f} ({seeds}), {mean - exact:+.1f}")
            print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
