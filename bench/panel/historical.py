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

--launch instead runs each as a job: 2 METIS partitions, 2 machines on 127.0.0.1 (a server and a trainer
each, batch 500 per trainer), the exact job beside `train.historical: {layers: [1], max_age_steps: K,
nodes: remote}`, the learning rate the panel's default run took.
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import panel  # noqa: E402

HEAVY = ("coauthor-cs", "facebook")  # minutes per node classification run here: left out


def job_run(p, g, model, seed, age, lr):
    """Test accuracy of a 2-partition job on 127.0.0.1 (age None: the exact job)."""
    d = tempfile.mkdtemp(dir=p.work, prefix="job-")
    try:
        panel.sh([p.bin, "partition", "--dataset", g.path, "--undirected", "--num-parts", "2", "--method", "metis",
                  "--name", "g", "--out", d + "/parts"], d + "/partition.log")
        panel.sh(p.export_cmd(g, model, seed, "node", d + "/m.pt"), d + "/export.log")
        base = 20000 + random.randrange(1200) * 10
        hist = "" if age is None else f", historical: {{layers: [1], max_age_steps: {age}, nodes: remote}}"
        with open(d + "/job.yaml", "w") as y:
            y.write(f"job: j\npartition: parts/g.json\nmachines:\n  - host: 127.0.0.1\n  - host: 127.0.0.1\n"
                    f"ports: {{server: {base}, trainer: {base + 4}, rendezvous: {base + 8}}}\n"
                    f"processes: {{servers: 1, trainers: 1, samplers_per_trainer: 0}}\n"
                    f"train: {{model: m.pt, batch_size: 500, epochs: {panel.EPOCHS}, lr: {lr}, seed: {seed}, "
                    f"intra_op_threads: 1{hist}}}\noutput_dir: runs\n")
        panel.sh([p.bin, "launch", d + "/job.yaml"], d + "/launch.log")
        final = [json.loads(l) for l in open(d + "/runs/j/metrics.jsonl") if '"final"' in l][-1]
        return 100 * final["test_acc"]
    finally:
        shutil.rmtree(d, ignore_errors=True)


def launch_table(p, graphs, models, ages):
    print("| graph | model | exact job: mean (seeds) | " +
          " | ".join(f"remote, K = {k}: mean (seeds), gap" for k in ages) + " |")
    print("| --- | --- | --- | " + " | ".join("---" for _ in ages) + " |")
    for g in graphs:
        for model in models:
            lrs = [p.node_run(g, model, "historical", [], [], s).get("lr", 0.003) for s in p.seeds]
            def cell(age):
                accs = [job_run(p, g, model, s, age, lr) for s, lr in zip(p.seeds, lrs)]
                return statistics.mean(accs), ", ".join(f"{a:.1f}" for a in accs)
            exact, exact_seeds = cell(None)
            row = [g.name, model, f"{exact:.1f} ({exact_seeds})"]
            for k in ages:
                mean, seeds = cell(k)
                row.append(f"{mean:.1f} ({seeds}), {mean - exact:+.1f}")
            print("| " + " | ".join(row) + " |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(panel.ROOT, "build/distgnn"))
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "distgnn-panel-historical"))
    ap.add_argument("--ages", default="2,10")
    ap.add_argument("--models", default="sage")
    ap.add_argument("--graphs", default="")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--launch", action="store_true", help="2-partition jobs on 127.0.0.1, nodes: remote")
    args = ap.parse_args()
    pargs = argparse.Namespace(bin=args.bin, work=args.work, seeds=args.seeds, grid="none", jobs=1,
                               graphs=args.graphs, kinds="", tasks="node")
    p = panel.Panel(pargs)
    graphs = [g for g in p.graphs if "node" in g.tasks and not g.typed() and g.name not in HEAVY]
    ages = [int(a) for a in args.ages.split(",")]
    for g in graphs:
        g.ensure()
    if args.launch:
        return launch_table(p, graphs, args.models.split(","), ages)
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
