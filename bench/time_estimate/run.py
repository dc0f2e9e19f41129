#!/usr/bin/python3
"""bench/time_estimate: einplan's estimated time against the emitted program's measured time.

Calibrate, plan, run — the one command to repeat on a new machine or cluster:
for each p, `mpirun -np p einrt-calibrate -o machine.yaml` (this machine, this layout of
ranks; its kernel model, docs/cost-model.md), then for each workload
`einplan plan G -p p --machine machine.yaml -o plan.json` (the estimate),
`eincodegen G --plan plan.json`, make, and
`mpirun -np p PROGRAM --iters N --warmup 2 --report r.json` in --rounds rounds, each round
running every program once after all were built (the measurement: the median round of the
medians over the timed iterations of the slowest rank; at least --iters, more for short
workloads: about 0.3 s of timed runs, at most 200; per node, the median round of that node). Prints estimate, measurement and their ratio per
workload, and per node the worst ratios (fused groups compared as the program times them,
at their first member; nodes under 2 % of the workload's time left out).

With --objectives, also plans each workload with --objective time and --objective traffic
and, where the plans differ, runs both, one right after the other in every round (a slow
stretch of the machine then falls on both): the time plan should never be slower.

usage: bench/time_estimate/run.py [--build build] [--ranks 1,2] [--iters 5] [--rounds 3] [--nodes]
                                  [--sizes tuned,other] [--objectives] [--mpirun "mpirun --oversubscribe"]
                                  [--machine-dir DIR]  (reuse DIR/machineP.yaml instead of calibrating)
"""
import argparse
import json
import os
import pathlib
import shlex
import subprocess
import sys
import tempfile

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OPENBLAS_NUM_THREADS="1",
           OMP_NUM_THREADS="1")

# (name, gen arguments) per size set: "tuned" are the sizes the model was checked on while
# it was built; "other" are other sizes of the same families.
WORKLOADS = {
    "tuned": [
        ("matrix-chain square", ["matrix-chain", "--shape", "square", "--scale", "1024"]),
        ("matrix-chain skewed", ["matrix-chain", "--shape", "skewed", "--scale", "1000"]),
        ("ffnn", ["ffnn", "--batch", "1024", "--features", "1024", "--hidden", "2048", "--classes", "256"]),
        ("attention", ["attention", "--batch", "4", "--seq", "256", "--dim", "512", "--heads", "8"]),
        ("llama layer", ["llama", "--layers", "1", "--dim", "1024", "--heads", "8", "--ffn", "2752", "--seq", "256",
                         "--vocab", "4096"]),
        ("syn", ["syn"]), ("tt", ["tt"]), ("fctn", ["fctn"]), ("tw", ["tw"]), ("getd", ["getd"]), ("trn", ["trn"]),
    ],
    "other": [
        ("matrix-chain square 640", ["matrix-chain", "--shape", "square", "--scale", "640"]),
        ("ffnn 512", ["ffnn", "--batch", "512", "--features", "768", "--hidden", "1536", "--classes", "128"]),
        ("attention seq 128", ["attention", "--batch", "8", "--seq", "128", "--dim", "256", "--heads", "4"]),
        ("llama layer 768", ["llama", "--layers", "1", "--dim", "768", "--heads", "12", "--ffn", "2048", "--seq", "128",
                             "--vocab", "2048"]),
        ("syn / 2", ["syn", "--scale", "2"]), ("tt / 2", ["tt", "--scale", "2"]), ("fctn / 2", ["fctn", "--scale", "2"]),
        ("getd / 2", ["getd", "--scale", "2"]), ("trn / 2", ["trn", "--scale", "2"]),
    ],
}


def sh(cmd, cwd=None):
    p = subprocess.run([str(c) for c in cmd], text=True, capture_output=True, env=ENV, cwd=cwd)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{p.stdout}\n{p.stderr}")
    return p.stdout


def node_ratios(planned, measured):
    """(ratio, node, estimated s, measured s) per node as the program times it."""
    est = {n["name"]: n["estimated_time_s"] for n in planned["nodes"]}
    timed = {}
    for n in measured["nodes"]:
        kernel = n["kernel"]
        owner = kernel.split("timed with ")[1].rstrip(")") if "timed with " in kernel else n["name"]
        e, t = timed.get(owner, (0.0, 0.0))
        timed[owner] = (e + est[n["name"]], t + n["time_s"])
    total = measured["time_s"]
    return sorted(((e / t, name, e, t) for name, (e, t) in timed.items() if t >= 0.02 * total and t > 0),
                  key=lambda r: abs(__import__("math").log(r[0])), reverse=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--ranks", default="1,2")
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3, help="runs of each program; the median run (and node) counts")
    ap.add_argument("--nodes", action="store_true", help="print the nodes with the largest gaps")
    ap.add_argument("--sizes", default="tuned,other")
    ap.add_argument("--only", default="", help="comma-separated workload names to run (default: all)")
    ap.add_argument("--objectives", action="store_true", help="compare --objective time plans with traffic plans")
    ap.add_argument("--mpirun", default="mpirun --oversubscribe")
    ap.add_argument("--machine-dir", default="", help="reuse DIR/machineP.yaml instead of calibrating")
    a = ap.parse_args()
    bin_dir = pathlib.Path(a.build).resolve() / "bin"
    einplan, eincodegen, calibrate = bin_dir / "einplan", bin_dir / "eincodegen", bin_dir / "einrt-calibrate"
    mpirun = shlex.split(a.mpirun)
    work = pathlib.Path(tempfile.mkdtemp(prefix="time_estimate_"))
    print(f"work folder {work}; load average before: {os.getloadavg()[0]:.2f}", flush=True)
    only = set(a.only.split(",")) if a.only else None
    workloads = [(s, n, g) for s in a.sizes.split(",") for n, g in WORKLOADS[s] if not only or n in only]
    rows, choices = [], []

    def build(stem, graph, plan, p, tag=""):
        project = work / f"{stem}_{p}{tag}_prog"
        sh([eincodegen, graph, "--plan", plan, "-o", project])
        sh(["make", "-C", project, "JOBS=2"])
        return next(f for f in project.iterdir() if f.is_file() and os.access(f, os.X_OK) and f.suffix == "")

    def median_report(runs):
        runs = sorted(runs, key=lambda rep: rep["time_s"])
        median = dict(runs[len(runs) // 2])
        median["nodes"] = [dict(n, time_s=sorted(rep["nodes"][i]["time_s"] for rep in runs)[len(runs) // 2])
                           for i, n in enumerate(median["nodes"])]
        return median

    # Calibrate, plan and build everything first; then --rounds rounds, each running every
    # program once (the time plan right after its traffic plan): this machine's times swing
    # for minutes at a time (other guests of the host), and a workload's median then spans
    # the whole run instead of one stretch of it.
    entries = []  # (size, name, p, [(plan, program)], same plan?)
    for p in [int(r) for r in a.ranks.split(",")]:
        machine = pathlib.Path(a.machine_dir) / f"machine{p}.yaml" if a.machine_dir else work / f"machine{p}.yaml"
        if not a.machine_dir:
            sh(mpirun + ["-np", p, calibrate, "-o", machine])
        for size, name, args in workloads:
            stem = name.replace(" ", "_").replace("/", "by")
            graph = work / f"{stem}.yaml"
            if not graph.exists():
                sh([einplan, "gen"] + args + ["-o", graph])
            plan = work / f"{stem}_{p}.json"
            sh([einplan, "plan", graph, "-p", p, "--machine", machine, "-o", plan])
            programs = [(plan, build(stem, graph, plan, p))]
            same = True
            if a.objectives:
                tplan = work / f"{stem}_{p}_time.json"
                sh([einplan, "plan", graph, "-p", p, "--machine", machine, "--objective", "time", "-o", tplan])
                same = [n["partition"] for n in json.loads(tplan.read_text())["nodes"]] == \
                       [n["partition"] for n in json.loads(plan.read_text())["nodes"]]
                if not same:
                    programs.append((tplan, build(stem, graph, tplan, p, "_time")))
            entries.append((size, name, p, programs, same))
        print(f"  p={p}: calibrated, planned and built {len(workloads)} workloads", flush=True)
    reports = {}
    for r in range(a.rounds):
        for _, _, p, programs, _ in entries:
            for plan, program in programs:
                # Short workloads get more iterations (about 0.3 s of timed runs, at most 200):
                # a median of 3 runs of a 0.5 ms program is mostly noise.
                estimate = json.loads(plan.read_text())["estimated_time_s"]
                iters = min(200, max(a.iters, int(0.3 / max(estimate, 1e-6))))
                report = plan.with_suffix(f".report{r}.json")
                sh(mpirun + ["-np", p, program, "--iters", iters, "--warmup", 2, "--report", report])
                reports.setdefault(plan, []).append(json.loads(report.read_text()))
        print(f"  round {r + 1} of {a.rounds} done", flush=True)
    for size, name, p, programs, same in entries:
        planned = json.loads(programs[0][0].read_text())
        measured = median_report(reports[programs[0][0]])
        rows.append((size, name, p, planned["estimated_time_s"], measured["time_s"], node_ratios(planned, measured)))
        if a.objectives:
            tplan = work / f"{name.replace(' ', '_').replace('/', 'by')}_{p}_time.json"
            tmeasured = median_report(reports[programs[-1][0]])
            choices.append((name, p, same, planned["estimated_time_s"], json.loads(tplan.read_text())["estimated_time_s"],
                            measured["time_s"], tmeasured["time_s"]))
    print(f"load average after: {os.getloadavg()[0]:.2f}\n")
    print("| sizes | workload | p | estimated ms | measured ms | estimate / measured | worst node (estimate / measured) |")
    print("|---|---|---:|---:|---:|---:|---|")
    for size, name, p, est, got, nodes in rows:
        worst = f"{nodes[0][1]} {nodes[0][0]:.2f}" if nodes else "-"
        print(f"| {size} | {name} | {p} | {est * 1e3:.2f} | {got * 1e3:.2f} | {est / got:.2f} | {worst} |")
    ratios = [est / got for _, _, _, est, got, _ in rows]
    node_worst = [n[0][0] for *_, n in rows if n]
    print(f"\nworkload ratios {min(ratios):.2f} .. {max(ratios):.2f}; node ratios {min(node_worst + [1]):.2f} .. "
          f"{max(node_worst + [1]):.2f} (nodes of at least 2 % of their workload's time)")
    if a.nodes:
        for size, name, p, _, _, nodes in rows:
            print(f"\n{name}, p={p}: nodes by |log(estimate / measured)| (ms)")
            for ratio, node, e, t in nodes[:5]:
                print(f"  {node:24s} estimated {e * 1e3:8.3f}  measured {t * 1e3:8.3f}  ratio {ratio:.2f}")
    if choices:
        print("\n| workload | p | same plan | traffic plan: estimated / measured ms | time plan: estimated / measured ms | time / traffic measured |")
        print("|---|---:|---|---:|---:|---:|")
        for name, p, same, e1, e2, m1, m2 in choices:
            print(f"| {name} | {p} | {'yes' if same else 'no'} | {e1 * 1e3:.2f} / {m1 * 1e3:.2f} | {e2 * 1e3:.2f} / {m2 * 1e3:.2f} | {m2 / m1:.2f} |")


if __name__ == "__main__":
    main()
