#!/usr/bin/python3
"""Recomputation under --mem-limit (issue "Training as people train"): a small LLaMA
training step (`einplan gen llama --train`, two layers) at each given p.

1. L is 3 % below the smallest peak the search reaches without recomputation (read from
   the exit-3 message of `einplan plan --no-recompute` under a limit it cannot meet).
2. `einplan plan --mem-limit L` is exit 0: the plan lists its `recompute`
   entries, its predicted peak is at most L, and `einplan cost --plan` of that file gives the
   same peak.
3. eincodegen --plan of that plan, built and run with --check: every rank's measured peak
   equals the plan's prediction (and so stays within L), the bytes sent equal the plan's,
   and every output equals `einplan eval` of the graph as written (no recomputation: an
   independent run of the reference evaluator).

A failure prints the command and its output.
usage: recompute.py --einplan E --eincodegen C --work DIR [--ranks 2,4]
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from emitted_build import make_command  # noqa: E402

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OPENBLAS_NUM_THREADS="1",
           OMP_NUM_THREADS="1")


def run(cmd, expect=0):
    cmd = [str(c) for c in cmd]
    p = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=600)
    if p.returncode != expect:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode} (expected {expect})\n{p.stdout}\n{p.stderr}")
    return p


def require(ok, what):
    print(f"  {what}: {'ok' if ok else 'WRONG'}")
    if not ok:
        sys.exit(f"FAIL: {what}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--einplan", required=True)
    ap.add_argument("--eincodegen", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--ranks", default="2,4")
    a = ap.parse_args()
    work = pathlib.Path(a.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    graph = work / "train.yaml"
    run([a.einplan, "gen", "llama", "--layers", 2, "--dim", 64, "--heads", 4, "--ffn", 172, "--vocab", 100, "--seq", 16,
         "--batch", 2, "--train", "-o", graph])
    reference = work / "reference"
    run([a.einplan, "eval", graph, "--seed", 7, "--outputs", reference])
    project = work / "project"
    for p in [int(r) for r in a.ranks.split(",")]:
        print(f"p = {p}:")
        # The smallest peak without recomputation: the search's own figure, from a limit it
        # cannot meet (the inputs' and outputs' floor plus one byte).
        floor = run([a.einplan, "plan", graph, "-p", p, "--mem-limit", 1], expect=3).stderr
        need = int(re.search(r"need (\d+) bytes", floor).group(1))
        plain = run([a.einplan, "plan", graph, "-p", p, "--mem-limit", need + 1, "--no-recompute"], expect=3).stderr
        smallest = int(re.search(r"smallest peak eindecomp reached is (\d+) bytes", plain).group(1))
        limit = smallest * 97 // 100  # below every plan the search finds without recomputation
        plan = work / f"plan{p}.json"
        run([a.einplan, "plan", graph, "-p", p, "--mem-limit", limit, "-o", plan])
        planned = json.loads(plan.read_text())
        entries = planned.get("recompute", [])
        require(len(entries) > 0, f"the plan under --mem-limit {limit} ({smallest} without recomputation) recomputes "
                                  f"{len(entries)} node(s): {', '.join(e['node'] for e in entries)}")
        require(planned["peak_bytes_per_device"] <= limit, f"its predicted peak {planned['peak_bytes_per_device']} <= {limit}")
        cost = json.loads(run([a.einplan, "cost", graph, "--plan", plan, "--format", "json"]).stdout)
        require(cost["peak_bytes_per_rank"] == planned["peak_bytes_per_rank"], "einplan cost --plan prices the same peaks")
        run([a.eincodegen, graph, "--plan", plan, "-o", project, "--force"])
        run(make_command(project, "-j2", opt="O0"))  # a few hundred tiny nodes: compiling is the cost
        out, report = work / f"out{p}", work / f"report{p}.json"
        run(["mpirun", "--oversubscribe", "-np", p, project / "llama_7b_train", "--check", "--seed", 7, "--outputs", out,
             "--report", report, "--iters", 1])
        r = json.loads(report.read_text())
        require(r["check"]["passed"], "--check passed")
        require(r["peak_bytes_per_rank"] == r["peak_bytes_predicted_per_rank"] == planned["peak_bytes_per_rank"],
                f"measured peaks {r['peak_bytes_per_rank']} == the plan's")
        require(r["bytes_sent"] == r["bytes_predicted"] == planned["total_traffic_bytes"],
                f"bytes sent {r['bytes_sent']} == the plan's")
        worst = 0.0
        for f in sorted(os.listdir(reference)):
            want, got = np.load(reference / f), np.load(out / f)
            scale = max(1e-30, float(np.max(np.abs(want))))
            worst = max(worst, float(np.max(np.abs(got - want))) / scale)
        require(worst < 1e-4, f"every output equals einplan eval of the graph as written (largest error {worst:.2e} of its scale)")


if __name__ == "__main__":
    main()
