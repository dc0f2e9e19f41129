#!/usr/bin/python3
"""bench/local_kernels: one rank, local kernels of emitted programs.

1. GFLOP/s of the emitted program for an N x N x N f32 matmul against one OpenBLAS
   cblas_sgemm call of the same size (sgemm_baseline.cpp), both single-threaded
   (OPENBLAS_NUM_THREADS=1), measured in the same run. Target: ratio >= 0.85.
2. The tensor networks of the Einsum Trees paper (einplan gen tt|fctn|tw|getd|trn --scale D):
   the emitted program (n-ary nodes split by eindecomp's path optimizer, GEMMs) against
   numpy.einsum(..., optimize='optimal') on the same shapes, medians of the timed runs.

usage: bench/local_kernels/run.py [--build build] [--n 2048] [--scale 2] [--iters 5]
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np
import yaml

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OPENBLAS_NUM_THREADS="1",
           OMP_NUM_THREADS="1")
HERE = pathlib.Path(__file__).resolve().parent


def sh(cmd, **kw):
    p = subprocess.run([str(c) for c in cmd], text=True, capture_output=True, env=ENV, **kw)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{p.stdout}\n{p.stderr}")
    return p.stdout


def emitted_program(build, graph, work, iters):
    """Generates, builds and runs the one-rank program; returns its report."""
    proj = work / (graph.stem + "_proj")
    sh([build / "bin/eincodegen", graph, "-p", 1, "-o", proj])
    sh(["make", "-C", proj, "JOBS=2"])
    name = yaml.safe_load(graph.read_text()).get("name", "einprog")
    report = work / (graph.stem + "_report.json")
    sh(["mpirun", "-np", 1, proj / name, "--iters", iters, "--warmup", 1, "--report", report])
    return json.loads(report.read_text())


def numpy_einsum_time(graph, iters):
    """Times numpy.einsum(optimize='optimal') on the graph's single n-ary node."""
    g = yaml.safe_load(graph.read_text())
    inputs = g["inputs"]
    if isinstance(inputs, dict):
        inputs = [{"name": k, "shape": v} for k, v in inputs.items()]
    shapes = {t["name"]: t["shape"] for t in inputs}
    (node,) = g["nodes"]
    letters = {}

    def term(spec):
        labels = spec.split() if " " in spec.strip() else list(spec.strip())
        out = ""
        for l in labels:
            letters.setdefault(l, chr(ord("a") + len(letters)) if len(letters) < 26 else chr(ord("A") + len(letters) - 26))
            out += letters[l]
        return out

    lhs, rhs = node["einsum"].split("->")
    expr = ",".join(term(t) for t in lhs.split(",")) + "->" + term(rhs)
    dtype = np.float64 if g.get("dtype") == "f64" else np.float32
    rng = np.random.default_rng(0)
    arrays = [rng.uniform(-1, 1, shapes[n]).astype(dtype) for n in node["inputs"]]
    path = np.einsum_path(expr, *arrays, optimize="optimal")[0]
    times = []
    for _ in range(iters + 1):
        t0 = time.perf_counter()
        np.einsum(expr, *arrays, optimize=path)
        times.append(time.perf_counter() - t0)
    return float(np.median(times[1:])), expr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--n", type=int, default=2048)
    ap.add_argument("--scale", type=int, default=2)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--networks", default="tt,fctn,tw,getd,trn")
    a = ap.parse_args()
    build = pathlib.Path(a.build).resolve()
    work = pathlib.Path(tempfile.mkdtemp(prefix="bench_local_kernels_"))

    baseline = work / "sgemm_baseline"
    sh(["g++", "-O2", "-std=c++17", HERE / "sgemm_baseline.cpp", "-I/usr/include/x86_64-linux-gnu", "-lopenblas", "-o", baseline])
    graph = work / "matmul.yaml"
    graph.write_text(f"name: matmul\ninputs: {{A: [{a.n}, {a.n}], B: [{a.n}, {a.n}]}}\n"
                     f"nodes:\n  - {{name: C, einsum: \"ij,jk->ik\", inputs: [A, B]}}\n")
    r = emitted_program(build, graph, work, a.iters)
    base_s, base_gflops = map(float, sh([baseline, a.n, a.iters]).split())
    print(f"## matmul {a.n}x{a.n}x{a.n} f32, one rank, OPENBLAS_NUM_THREADS=1\n")
    print("| kernel | time_s | GFLOP/s | ratio vs sgemm |")
    print("|---|---|---|---|")
    print(f"| one cblas_sgemm call (baseline) | {base_s:.4g} | {base_gflops:.4g} | 1.00 |")
    print(f"| emitted program | {r['time_s']:.4g} | {r['gflops']:.4g} | {r['gflops'] / base_gflops:.2f} |\n")

    print(f"## tensor networks (einplan gen NAME --scale {a.scale}), one rank\n")
    print("| network | einsum | FLOP/s emitted (GFLOP/s) | emitted time_s | numpy.einsum optimal time_s | speedup vs numpy |")
    print("|---|---|---|---|---|---|")
    for net in a.networks.split(","):
        g = work / f"{net}.yaml"
        gen = subprocess.run([str(build / "bin/einplan"), "gen", net, "--scale", str(a.scale), "-o", str(g)],
                             text=True, capture_output=True, env=ENV)
        if gen.returncode != 0:
            print(f"| {net} | (einplan gen failed: {gen.stderr.strip()[:80]}) | | | | |")
            continue
        r = emitted_program(build, g, work, a.iters)
        t_np, expr = numpy_einsum_time(g, a.iters)
        print(f"| {net} | `{expr}` | {r['gflops']:.4g} | {r['time_s']:.4g} | {t_np:.4g} | {t_np / r['time_s']:.2f} |")


if __name__ == "__main__":
    main()
