#!/usr/bin/python3
"""bench/time_estimate: einplan's estimated time against the emitted program's measured time.

For each p: `mpirun -np p einrt-calibrate -o machine.yaml` (this machine, this layout of
ranks), then for each workload `einplan plan G -p p --machine machine.yaml -o plan.json`
(the estimate, SPEC 3 / docs/cost-model.md), `eincodegen G --plan plan.json`, make, and
`mpirun -np p PROGRAM --iters N --warmup 2 --report r.json` (the measurement: median over
the timed iterations of the slowest rank). Prints estimate, measurement and their ratio
per workload, and per node for the largest gaps with --nodes.

usage: bench/time_estimate/run.py [--build build] [--ranks 2,4] [--iters 7] [--nodes]
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OPENBLAS_NUM_THREADS="1",
           OMP_NUM_THREADS="1")

# (name, gen arguments): the bench workloads, sized to run in tens to hundreds of ms.
WORKLOADS = [
    ("matrix-chain square", ["matrix-chain", "--shape", "square", "--scale", "1024"]),
    ("matrix-chain skewed", ["matrix-chain", "--shape", "skewed", "--scale", "1000"]),
    ("ffnn", ["ffnn", "--batch", "1024", "--features", "1024", "--hidden", "2048", "--classes", "256"]),
    ("attention", ["attention", "--batch", "4", "--seq", "256", "--dim", "512", "--heads", "8"]),
    ("llama layer", ["llama", "--layers", "1", "--dim", "1024", "--heads", "8", "--ffn", "2752", "--seq", "256",
                     "--vocab", "4096"]),
]


def sh(cmd, cwd=None):
    p = subprocess.run([str(c) for c in cmd], text=True, capture_output=True, env=ENV, cwd=cwd)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{p.stdout}\n{p.stderr}")
    return p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--ranks", default="2,4")
    ap.add_argument("--iters", type=int, default=7)
    ap.add_argument("--nodes", action="store_true", help="also print the nodes with the largest gaps")
    a = ap.parse_args()
    bin_dir = pathlib.Path(a.build).resolve() / "bin"
    einplan, eincodegen, calibrate = bin_dir / "einplan", bin_dir / "eincodegen", bin_dir / "einrt-calibrate"
    work = pathlib.Path(tempfile.mkdtemp(prefix="time_estimate_"))
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    rows = []
    for p in [int(r) for r in a.ranks.split(",")]:
        machine = work / f"machine{p}.yaml"
        sh(["mpirun", "--oversubscribe", "-np", p, calibrate, "-o", machine])
        print(f"p={p}: {machine.read_text()}")
        for name, args in WORKLOADS:
            stem = name.replace(" ", "_")
            graph = work / f"{stem}.yaml"
            if not graph.exists():
                sh([einplan, "gen"] + args + ["-o", graph])
            plan = work / f"{stem}_{p}.json"
            sh([einplan, "plan", graph, "-p", p, "--machine", machine, "-o", plan])
            project = work / f"{stem}_prog"
            sh([eincodegen, graph, "--plan", plan, "-o", project])
            sh(["make", "-C", project, "JOBS=2"])
            program = next(f for f in project.iterdir() if f.is_file() and os.access(f, os.X_OK) and f.suffix == "")
            report = work / f"{stem}_{p}_report.json"
            sh(["mpirun", "--oversubscribe", "-np", p, program, "--iters", a.iters, "--warmup", 2, "--report", report])
            planned, measured = json.loads(plan.read_text()), json.loads(report.read_text())
            rows.append((name, p, planned["estimated_time_s"], measured["time_s"], planned, measured))
    print(f"load average after: {os.getloadavg()[0]:.2f}\n")
    print("| workload | p | estimated ms | measured ms | estimate / measured |")
    print("|---|---:|---:|---:|---:|")
    for name, p, est, got, _, _ in rows:
        print(f"| {name} | {p} | {est * 1e3:.2f} | {got * 1e3:.2f} | {est / got:.2f} |")
    if a.nodes:
        for name, p, _, _, planned, measured in rows:
            est = {n["name"]: n["estimated_time_s"] for n in planned["nodes"]}
            gaps = sorted(((n["time_s"] - est[n["name"]], n["name"], est[n["name"]], n["time_s"]) for n in measured["nodes"]),
                          reverse=True)[:5]
            print(f"\n{name}, p={p}: nodes measured slower than estimated (ms)")
            for gap, node, e, t in gaps:
                print(f"  {node:24s} estimated {e * 1e3:8.3f}  measured {t * 1e3:8.3f}")


if __name__ == "__main__":
    main()
