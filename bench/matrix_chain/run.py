#!/usr/bin/python3
"""bench/matrix_chain: EinDecomp experiment 1 on this machine.

The chain Z = A B + C (D E) (`einplan gen matrix-chain --shape square|skewed --scale S
--dtype f64`), planned by every algorithm (eindecomp under the default traffic objective,
and the uniform "SQRT", balanced and data baselines) for p = 2 and 4, emitted, built and
run under mpirun: the plan's traffic_bytes (einplan plan), the bytes the program measured,
and the median time of the timed iterations. External baseline in the same run: ScaLAPACK
pdgemm on the same shapes and ranks (pdgemm_chain.cpp, 2-D grid, 64 x 64 blocks).
The graph inputs start where the plan wants them (generated in place by every rank, as in
the paper's experiments): neither the plans' traffic nor the times include distributing
them; pdgemm's inputs are likewise generated in its block-cyclic layout.

usage: bench/matrix_chain/run.py [--build build] [--scale 1000] [--iters 3] [--ranks 2,4]
                                 [--algorithms eindecomp,uniform,balanced,data]
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

import yaml

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OPENBLAS_NUM_THREADS="1",
           OMP_NUM_THREADS="1")
HERE = pathlib.Path(__file__).resolve().parent


def sh(cmd):
    p = subprocess.run([str(c) for c in cmd], text=True, capture_output=True, env=ENV)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{p.stdout}\n{p.stderr}")
    return p.stdout


def shapes(graph):
    g = yaml.safe_load(graph.read_text())
    inputs = g["inputs"]
    if isinstance(inputs, dict):
        return {k: v for k, v in inputs.items()}
    return {t["name"]: t["shape"] for t in inputs}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--scale", type=int, default=1000)
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--ranks", default="2,4")
    ap.add_argument("--algorithms", default="eindecomp,uniform,balanced,data")
    a = ap.parse_args()
    build = pathlib.Path(a.build).resolve()
    work = pathlib.Path(tempfile.mkdtemp(prefix="bench_matrix_chain_"))
    pdgemm = work / "pdgemm_chain"
    sh(["mpicxx", "-O2", HERE / "pdgemm_chain.cpp", "-o", pdgemm, "-lscalapack-openmpi", "-lopenblas"])

    print(f"## matrix chain Z = A B + C (D E), f64, scale {a.scale}, OPENBLAS_NUM_THREADS=1, "
          f"load average {os.getloadavg()[0]:.2f}\n")
    print("| shape | p | plan | time_s | plan traffic_bytes | bytes_sent (measured) | time vs pdgemm |")
    print("|---|---|---|---|---|---|---|")
    for shape in ["square", "skewed"]:
        graph = work / f"chain_{shape}.yaml"
        sh([build / "bin/einplan", "gen", "matrix-chain", "--shape", shape, "--scale", a.scale, "--dtype", "f64", "-o", graph])
        s = shapes(graph)
        m, k = s["A"]
        n = s["B"][1]
        q, r = s["D"]
        assert s["C"] == [m, q] and s["E"] == [r, n], s
        name = yaml.safe_load(graph.read_text()).get("name", "einprog")
        for ranks in [int(x) for x in a.ranks.split(",")]:
            base = float(sh(["mpirun", "--oversubscribe", "-np", ranks, pdgemm, m, k, n, q, r, a.iters, 64]).split()[0])
            print(f"| {shape} | {ranks} | ScaLAPACK pdgemm (baseline) | {base:.4g} | n/a | n/a | 1.00 |")
            for algorithm in a.algorithms.split(","):
                proj = work / f"proj_{shape}"
                plan = work / "plan.json"
                sh([build / "bin/einplan", "plan", graph, "-p", ranks, "--algorithm", algorithm, "-o", plan])
                planned = json.loads(plan.read_text())["total_traffic_bytes"]
                sh([build / "bin/eincodegen", graph, "--plan", plan, "-o", proj])
                sh(["make", "-C", proj, "JOBS=2"])
                report = work / "report.json"
                sh(["mpirun", "--oversubscribe", "-np", ranks, proj / name, "--iters", a.iters, "--warmup", 1,
                    "--report", report])
                rep = json.loads(report.read_text())
                if rep["bytes_sent"] != planned:
                    sys.exit(f"{shape} p={ranks} {algorithm}: measured {rep['bytes_sent']} bytes, planned {planned}")
                print(f"| {shape} | {ranks} | {algorithm} | {rep['time_s']:.4g} | {planned} | "
                      f"{rep['bytes_sent']} | {rep['time_s'] / base:.2f} |", flush=True)
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
