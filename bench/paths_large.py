#!/usr/bin/python3
"""Contraction paths of larger tensor networks, generated here (bench/path_networks.py):
MERA-like ternary trees, grids (PEPS-like), random regular graphs of degree 3 with
30-60 tensors, and a tensor-train language model.

For each network, in the same run:
- NumPy's greedy path (numpy.core.einsumfunc._greedy_path, what einsum_path(optimize=
  'greedy') calls, here without the 52-letter limit of einsum strings and without a
  memory limit): FLOPs and time, median of --repeats runs;
- NumPy's optimal path where it finishes (tried on networks of at most 10 tensors, for
  --optimal-timeout seconds in a child process: 8 tensors take about a minute here);
- trial 0 of our search: greedy by FLOPs + 8-leaf subtree reconfiguration, the path this
  project chose before the search existed;
- ours: `einplan check --format json` at the default budget (time to path: the search's
  own time, median of --repeats runs; FLOPs are the same in every run), and once with
  --path-budget 60s (the best path we can find in a minute; --long to change).
FLOPs are SPEC 3's, NumPy's and opt_einsum's count, summed exactly over the steps (NumPy
prints that sum plus one). NumPy runs in this process with one thread.

usage: /usr/bin/python3 bench/paths_large.py [--einplan build/bin/einplan] [--repeats 5] [--long 60s]
"""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import multiprocessing  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from numpy.core import einsumfunc  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import path_networks as pn  # noqa: E402

try:
    from threadpoolctl import threadpool_limits  # noqa: E402
    threadpool_limits(1)
except ImportError:
    pass  # the environment variables above already pin NumPy's BLAS

NO_MEMORY_LIMIT = 10 ** 40

NETWORKS = [
    ("random 3-regular 8", lambda: pn.random_regular(8, 3, 4, 801)),
    ("mera-9 (ternary)", lambda: pn.mera(9, 3, [8, 16])),
    ("mera-27 (ternary)", lambda: pn.mera(27, 3, [6, 12, 16])),
    ("grid 6x6 bond 4", lambda: pn.grid(6, 6, 4)),
    ("grid 8x8 bond 2", lambda: pn.grid(8, 8, 2)),
    ("random 3-regular 30", lambda: pn.random_regular(30, 3, 4, 3001)),
    ("random 3-regular 40", lambda: pn.random_regular(40, 3, 4, 4001)),
    ("random 3-regular 50", lambda: pn.random_regular(50, 3, 4, 5001)),
    ("random 3-regular 60", lambda: pn.random_regular(60, 3, 4, 6001)),
    ("tensor-train LM 26", lambda: pn.tensor_train_lm(26, 16, 12, 10)),
]


def path_flops(operands, output, sizes, path):
    """Exact FLOPs of a positional path, step by step as einsum_path counts them."""
    remaining = [set(op) for op in operands]
    total = 0
    for pair in path:
        pair = tuple(sorted(pair, reverse=True))
        _, remaining, removed, contracted = einsumfunc._find_contraction(pair, remaining, set(output))
        total += einsumfunc._flop_count(contracted, removed, len(pair), sizes)
    return total


def numpy_greedy(operands, output, sizes):
    start = time.perf_counter()
    path = einsumfunc._greedy_path([set(op) for op in operands], set(output), sizes, NO_MEMORY_LIMIT)
    return path, time.perf_counter() - start


def _optimal_child(queue, operands, output, sizes):
    start = time.perf_counter()
    path = einsumfunc._optimal_path([set(op) for op in operands], set(output), sizes, NO_MEMORY_LIMIT)
    queue.put((path, time.perf_counter() - start))


def numpy_optimal(operands, output, sizes, timeout):
    """(path, seconds), or None when it does not finish in time."""
    queue = multiprocessing.Queue()
    child = multiprocessing.Process(target=_optimal_child, args=(queue, operands, output, sizes))
    child.start()
    child.join(timeout)
    if child.is_alive():
        child.terminate()
        child.join()
        return None
    return queue.get()


def ours(einplan, graph, budget=None):
    cmd = [einplan, "check", graph, "--format", "json"] + (["--path-budget", budget] if budget else [])
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    (info,) = json.loads(r.stdout)["paths"]
    return int(info["optimized_flops"]), [tuple(p) for p in info["path"]], info["search"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--einplan", default="build/bin/einplan")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--long", default="60s", help="the long budget, the 'best we can find' reference")
    ap.add_argument("--optimal-timeout", type=float, default=180)
    a = ap.parse_args()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; numpy {np.__version__}, "
          f"1 thread; ours: default budget (median of {a.repeats}) and --path-budget {a.long}")
    header = (f"| {'network':22} | {'tensors':>7} | {'labels':>6} | {'numpy greedy':>12} | {'s':>6} | "
              f"{'numpy optimal':>13} | {'trial 0':>10} | {'ours (default)':>14} | {'s':>6} | {'greedy/ours':>11} | "
              f"{'ours (' + a.long + ')':>13} | {'default/long':>12} |")
    print(header)
    print("|" + "|".join("-" * (len(c)) for c in header.split("|")[1:-1]) + "|")
    with tempfile.TemporaryDirectory() as work:
        for name, make in NETWORKS:
            operands, output, sizes = make()
            graph = os.path.join(work, "net.yaml")
            with open(graph, "w") as f:
                f.write(pn.to_graph_yaml("net", operands, output, sizes))
            greedy_runs = [numpy_greedy(operands, output, sizes) for _ in range(a.repeats)]
            greedy = path_flops(operands, output, sizes, greedy_runs[0][0])
            greedy_s = statistics.median(s for _, s in greedy_runs)
            optimal_text = "-"
            if len(operands) <= 10:
                optimal = numpy_optimal(operands, output, sizes, a.optimal_timeout)
                optimal_text = f"{path_flops(operands, output, sizes, optimal[0]):.4e}" if optimal else "timeout"
            runs = [ours(a.einplan, graph) for _ in range(a.repeats)]
            flops, path, search = runs[0]
            first = int(search["first_flops"])
            assert all(r[0] == flops for r in runs), "the default budget gave different paths"
            assert path_flops(operands, output, sizes, path) == flops, "our path does not cost what we claim"
            seconds = statistics.median(r[2]["seconds"] for r in runs)
            long_flops, long_path, _ = ours(a.einplan, graph, a.long)
            assert path_flops(operands, output, sizes, long_path) == long_flops
            print(f"| {name:22} | {len(operands):7} | {len(sizes):6} | {greedy:12.4e} | {greedy_s:6.3f} | "
                  f"{optimal_text:>13} | {first:10.3e} | {flops:14.4e} | {seconds:6.3f} | {greedy / flops:11.2f} | "
                  f"{long_flops:13.4e} | {flops / long_flops:12.3f} |", flush=True)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("greedy/ours > 1: our path needs fewer FLOPs than NumPy's greedy; default/long <= 1.2 is the target "
          "(default budget within 1.2x of the long search). NumPy's optimal: '-' not tried (more than "
          f"10 tensors), 'timeout' not finished in {a.optimal_timeout:g} s.")


if __name__ == "__main__":
    main()
