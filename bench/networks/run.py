#!/usr/bin/python3
"""bench/networks: the Einsum Trees paper's contraction trees (Table 5) as emitted programs,
at 1 and 2 threads, against this machine's big-square sgemm (issue 29).

For each network — `einplan gen syn|tt|fctn|tw|getd|trn` (the paper's sizes and paths, f32)
and the MERA networks of bench/path_networks.py — the program is planned for p = 1 with
the machine file einrt-calibrate writes for one rank first (its kernel model picks each
GEMM's path, the BLAS or LIBXSMM's tiles, from the grids measured here; --machine FILE
reuses one, --no-machine leaves the choice to einrt's built-in rule), built,
and run --rounds times at 1 and at 2 threads, the two interleaved (one run of --iters
timed iterations each), every run as `mpirun -np 1 --map-by slot:PE=T` so that the rank
really has T cores (mpirun's default binds a rank to one core). The table gives the
medians and the spread (min-max over the rounds) of the programs' GFLOP/s, the ratio of
2 threads to 1, the 2-thread rate as a fraction of NumPy's 4096^2 sgemm on 2 threads
measured in the same run (OpenBLAS pinned to 2 threads in-process; the median of its
runs before and after the networks), the issue's target fraction, numpy.einsum on 2
threads with NumPy's 'optimal' path (computed once; left out where it does not finish
in --numpy-timeout seconds), and the paper's per-core rate on Sapphire Rapids (ET-TPP,
Table 6, / 48 cores). The load average is printed before and after.

usage: bench/networks/run.py [--build build] [--rounds 5] [--iters 5] [--networks syn,tt,...]
                             [--numpy-timeout 120] [--machine FILE | --no-machine]
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

os.environ["OPENBLAS_NUM_THREADS"] = "2"  # NumPy's sgemm and einsum on 2 threads (pinned below)
import numpy as np  # noqa: E402
import yaml  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import path_networks as pn  # noqa: E402

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OPENBLAS_NUM_THREADS="1",
           OMP_NUM_THREADS="1")

# The targets (fraction of the 2-thread sgemm) and the paper's ET-TPP on SPR per core.
TARGET = {"syn": 0.52, "tt": 0.28, "fctn": 0.25, "tw": 0.15, "getd": 0.40, "trn": 0.35}
PAPER_PER_CORE = {"syn": 4790 / 48, "tt": 2591 / 48, "fctn": 2295 / 48, "tw": 746 / 48, "getd": 3677 / 48,
                  "trn": 1057 / 48}
MERA = {"mera-27": (27, 3, [6, 12, 16]), "mera-81": (81, 2, [4, 8, 12, 16])}


def sh(cmd, timeout=None):
    p = subprocess.run([str(c) for c in cmd], text=True, capture_output=True, env=ENV, timeout=timeout)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{p.stdout}\n{p.stderr}")
    return p.stdout


def load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def pin_openblas(n):
    import ctypes
    for line in open("/proc/self/maps"):
        m = re.search(r"(/\S*libopenblas\S*\.so\S*)", line)
        if m:
            lib = ctypes.CDLL(m.group(1))
            lib.openblas_set_num_threads(n)
            if lib.openblas_get_num_threads() != n:
                sys.exit(f"OpenBLAS did not take {n} threads")
            return
    sys.exit("could not find the OpenBLAS NumPy loaded; cannot pin its threads")


def sgemm_rate(reps=5, n=4096):
    a = np.random.default_rng(0).uniform(-1, 1, (n, n)).astype(np.float32)
    b = np.random.default_rng(1).uniform(-1, 1, (n, n)).astype(np.float32)
    a @ b
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        a @ b
        times.append(time.perf_counter() - t0)
    # OpenBLAS's threads spin a while after a call: let them sleep before the programs run.
    time.sleep(1)
    return 2 * n ** 3 / float(np.median(times)) / 1e9


def graph_for(name, build, work):
    path = work / f"{name.replace('-', '_')}.yaml"
    if name in MERA:
        ops, out, sizes = pn.mera(*MERA[name])
        path.write_text(pn.to_graph_yaml(name.replace("-", "_"), ops, out, sizes))
    else:
        sh([build / "bin/einplan", "gen", name, "-o", path])
    return path


NUMPY_EINSUM = """
import os, sys, time, ctypes, re
os.environ["OPENBLAS_NUM_THREADS"] = "2"
import numpy as np, yaml
for line in open("/proc/self/maps"):
    m = re.search(r"(/\\S*libopenblas\\S*\\.so\\S*)", line)
    if m:
        ctypes.CDLL(m.group(1)).openblas_set_num_threads(2)
sys.path.insert(0, sys.argv[3])
import path_networks as pn
g = yaml.safe_load(open(sys.argv[1]))
(node,) = g["nodes"]
shapes = {t["name"]: t["shape"] for t in g["inputs"]}
expr = pn.numpy_einsum(node)
rng = np.random.default_rng(0)
arrays = [rng.uniform(-1, 1, shapes[n]).astype(np.float32) for n in node["inputs"]]
path = np.einsum_path(expr, *arrays, optimize=("optimal", 2**62))[0]
np.einsum(expr, *arrays, optimize=path)
times = []
for _ in range(int(sys.argv[2])):
    t0 = time.perf_counter(); np.einsum(expr, *arrays, optimize=path); times.append(time.perf_counter() - t0)
print(float(np.median(times)))
"""


def numpy_einsum_seconds(graph, reps, timeout):
    try:
        out = subprocess.run([sys.executable, "-c", NUMPY_EINSUM, str(graph), str(reps), str(HERE.parent)], text=True,
                             capture_output=True,
                             timeout=timeout, env=dict(ENV, OPENBLAS_NUM_THREADS="2"))
    except subprocess.TimeoutExpired:
        return None
    return float(out.stdout) if out.returncode == 0 else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--networks", default="syn,tt,fctn,tw,getd,trn,mera-27,mera-81")
    ap.add_argument("--numpy-timeout", type=float, default=120)
    ap.add_argument("--machine", default="", help="plan with this machine file instead of calibrating one")
    ap.add_argument("--no-machine", action="store_true", help="plan without a machine file (einrt's GEMM rule)")
    a = ap.parse_args()
    build = pathlib.Path(a.build).resolve()
    work = pathlib.Path(tempfile.mkdtemp(prefix="bench_networks_"))
    pin_openblas(2)
    print(f"# bench/networks ({time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, load {load()})")
    machine = []
    if not a.no_machine:
        path = pathlib.Path(a.machine) if a.machine else work / "machine1.yaml"
        if not a.machine:
            sh(["mpirun", "-np", 1, build / "bin/einrt-calibrate", "-o", path])
        machine = ["--machine", path]
    print(f"planned with {machine[1] if machine else 'no machine file (einrt rule for GEMM paths)'}")
    sgemm = [sgemm_rate()]
    rows = []
    for net in a.networks.split(","):
        graph = graph_for(net, build, work)
        name = yaml.safe_load(graph.read_text())["name"]
        project = work / f"{name}_p1"
        sh([build / "bin/eincodegen", graph, "-p", 1, "-o", project] + machine)
        sh(["make", "-C", project, "JOBS=2"])
        rates = {1: [], 2: []}
        flops = 0
        for _ in range(a.rounds):
            for threads in (1, 2):
                report = project / "report.json"
                sh(["mpirun", "-np", 1, "--map-by", f"slot:PE={threads}", project / name, "--iters", a.iters,
                    "--warmup", 1, "--threads", threads, "--report", report])
                r = json.loads(report.read_text())
                rates[threads].append(r["gflops"])
                flops = r["gflops"] * r["time_s"] * 1e9
        t_np = numpy_einsum_seconds(graph, 3, a.numpy_timeout)
        rows.append((net, flops, rates, t_np))
        print(f"  {net}: {np.median(rates[1]):.1f} / {np.median(rates[2]):.1f} GFLOP/s", flush=True)
    sgemm.append(sgemm_rate())
    peak = float(np.median(sgemm))
    print(f"\nNumPy sgemm 4096^2 on 2 threads: {sgemm[0]:.1f} GFLOP/s before, {sgemm[1]:.1f} after; "
          f"fractions below use {peak:.1f}. Load at the end: {load()}.\n")
    print("| network | GFLOP | 1 thread GFLOP/s (spread) | 2 threads GFLOP/s (spread) | 2 / 1 | fraction of sgemm "
          "| target | numpy.einsum 2 threads GFLOP/s | paper ET-TPP per core (SPR) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for net, flops, rates, t_np in rows:
        one, two = float(np.median(rates[1])), float(np.median(rates[2]))
        spread = lambda v: f"{min(v):.0f}-{max(v):.0f}"  # noqa: E731
        numpy_col = f"{flops / t_np / 1e9:.1f}" if t_np else "did not finish"
        target = TARGET.get(net)
        paper = PAPER_PER_CORE.get(net)
        print(f"| {net} | {flops / 1e9:.2f} | {one:.1f} ({spread(rates[1])}) | {two:.1f} ({spread(rates[2])}) | "
              f"{two / one:.2f} | {two / peak:.2f} | {f'{target:.2f}' if target else '-'} | {numpy_col} | "
              f"{f'{paper:.0f}' if paper else '-'} |")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
