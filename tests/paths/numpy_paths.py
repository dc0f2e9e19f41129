#!/usr/bin/python3
"""Contraction paths of the built `einplan check` against NumPy, in the same run:

- the Einsum Trees paper's Table 5 networks (`einplan gen NET`): our FLOPs equal those
  of NumPy's `einsum_path(optimize=('optimal', no memory limit))` (TRN, whose 'optimal'
  search takes minutes in NumPy: no more than NumPy's greedy);
- random regular networks of degree 3 (16-44 tensors, bonds of size 2-4, a few open
  legs, seed printed): our FLOPs (default budget) are at most those of NumPy's greedy
  path (numpy.core.einsumfunc._greedy_path, the function einsum_path(optimize='greedy')
  calls, here without the 52-letter limit of einsum strings);
- in every case our path, replayed with NumPy's own step costs, costs what we claim;
- the --path-* options: reported in the search line, bad values exit 2 naming the option.

NumPy's printed "Optimized FLOP count" is the sum of its steps plus one; the paths here
are compared by their exact sums. Prints one line per case; exits 1 on any failure.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

import numpy as np
import yaml
from numpy.core import einsumfunc

NO_MEMORY_LIMIT = 10 ** 40
failures = []


def report(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def numpy_flops(operands, output, sizes, path):
    """The exact FLOPs of a positional path, step by step as einsum_path counts them."""
    remaining = [set(op) for op in operands]
    total = 0
    for pair in path:
        pair = tuple(sorted(pair, reverse=True))
        _, remaining, removed, contracted = einsumfunc._find_contraction(pair, remaining, set(output))
        total += einsumfunc._flop_count(contracted, removed, len(pair), sizes)
    return total


def run(cmd):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True)


def our_path(einplan, graph, *options):
    r = run([einplan, "check", graph, "--format", "json", *options])
    if r.returncode != 0:
        raise RuntimeError(f"einplan check {graph}: {r.stderr}")
    (info,) = json.loads(r.stdout)["paths"]
    return int(info["optimized_flops"]), [tuple(p) for p in info["path"]], info


def table5(einplan, work):
    for net in ["syn", "tt", "fctn", "tw", "getd", "trn"]:
        graph = os.path.join(work, net + ".yaml")
        r = run([einplan, "gen", net, "-o", graph])
        if r.returncode != 0:
            report(False, f"table 5 {net}: einplan gen: {r.stderr}")
            continue
        doc = yaml.safe_load(open(graph))
        (node,) = doc["nodes"]
        shapes = {t["name"]: t["shape"] for t in doc["inputs"]}
        lhs, out = node["einsum"].replace(" ", "").split("->")
        operands = lhs.split(",")
        sizes = {}
        for labels, name in zip(operands, node["inputs"]):
            sizes.update(zip(labels, shapes[name]))
        ours, path, _ = our_path(einplan, graph)
        method = "optimal" if len(operands) < 9 else "greedy"
        arrays = [np.broadcast_to(np.float32(0), [sizes[c] for c in op]) for op in operands]
        numpy_path = np.einsum_path(node["einsum"].replace(" ", ""), *arrays, optimize=(method, NO_MEMORY_LIMIT))[0][1:]
        theirs = numpy_flops(operands, out, sizes, numpy_path)
        replay = numpy_flops(operands, out, sizes, path)
        ok = (ours == theirs if method == "optimal" else ours <= theirs) and replay == ours
        report(ok, f"table 5 {net}: ours {ours:.4e}, numpy {method} {theirs:.4e}, our path replayed {replay:.4e}")


def random_regular(n, rng):
    """Tensors are the vertices of a random 3-regular graph, bonds its edges; three
    tensors get an open leg of size 2."""
    while True:
        stubs = [v for v in range(n) for _ in range(3)]
        rng.shuffle(stubs)
        pairs = [tuple(sorted(stubs[i:i + 2])) for i in range(0, len(stubs), 2)]
        if all(a != b for a, b in pairs) and len(set(pairs)) == len(pairs):
            break
    operands, sizes = [[] for _ in range(n)], {}
    for k, (a, b) in enumerate(pairs):
        sizes[f"e{k}"] = rng.choice([2, 3, 4])
        operands[a].append(f"e{k}")
        operands[b].append(f"e{k}")
    output = []
    for k, t in enumerate(rng.sample(range(n), 3)):
        sizes[f"o{k}"] = 2
        operands[t].append(f"o{k}")
        output.append(f"o{k}")
    return operands, output, sizes


def write_network(path, operands, output, sizes):
    inputs = [{"name": f"T{i}", "shape": [sizes[l] for l in op]} for i, op in enumerate(operands)]
    einsum = ", ".join(" ".join(op) for op in operands) + " -> " + " ".join(output)
    doc = {"name": "net", "inputs": inputs,
           "nodes": [{"name": "net", "einsum": einsum, "inputs": [t["name"] for t in inputs]}]}
    with open(path, "w") as f:
        json.dump(doc, f)


def random_networks(einplan, work, seed):
    print(f"random regular networks: seed {seed}")
    rng = random.Random(seed)
    for n in [16, 22, 28, 34, 40, 44]:
        operands, output, sizes = random_regular(n, rng)
        graph = os.path.join(work, f"rr{n}.json")
        write_network(graph, operands, output, sizes)
        ours, path, info = our_path(einplan, graph)
        greedy = einsumfunc._greedy_path([set(op) for op in operands], set(output), sizes, NO_MEMORY_LIMIT)
        theirs = numpy_flops(operands, output, sizes, greedy)
        replay = numpy_flops(operands, output, sizes, path)
        report(ours <= theirs and replay == ours,
               f"random regular n={n}: ours {ours:.4e} ({info['search']['trials']} trials, "
               f"{info['search']['seconds']:.2f} s), numpy greedy {theirs:.4e} (x{theirs / ours:.2f}), "
               f"our path replayed {replay:.4e}")


def options(einplan, work):
    rng = random.Random(1)
    operands, output, sizes = random_regular(20, rng)
    graph = os.path.join(work, "options.json")
    write_network(graph, operands, output, sizes)
    r = run([einplan, "check", graph, "--path-budget", "5", "--path-seed", "3", "--path-objective", "memory"])
    report(r.returncode == 0 and "5 trials in " in r.stdout and "seed 3, objective memory" in r.stdout,
           "check --path-budget 5 --path-seed 3 --path-objective memory: in the search line")
    first, _, _ = our_path(einplan, graph, "--path-budget", "7", "--path-seed", "9")
    again, _, _ = our_path(einplan, graph, "--path-budget", "7", "--path-seed", "9")
    report(first == again, "the same trial budget and seed give the same path")
    for opt, value in [("--path-budget", "0"), ("--path-budget", "fast"), ("--path-budget", "-1s"),
                       ("--path-objective", "time"), ("--path-seed", "-4")]:
        r = run([einplan, "check", graph, opt, value])
        report(r.returncode == 2 and opt in r.stderr and value in r.stderr,
               f"check {opt} {value}: exit {r.returncode}, {r.stderr.strip()}")
    r = run([einplan, "gen", "tt", "--path-budget", "8", "-o", os.path.join(work, "tt.yaml")])
    report(r.returncode == 2 and "--split" in r.stderr, f"gen --path-budget without --split: exit {r.returncode}")
    r = run([einplan, "gen", "tt", "--split", "--path-budget", "8", "-o", os.path.join(work, "tt.yaml")])
    report(r.returncode == 0, f"gen --split --path-budget 8: exit {r.returncode}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--einplan", required=True)
    ap.add_argument("--seed", type=int, default=20260214)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        table5(a.einplan, work)
        random_networks(a.einplan, work, a.seed)
        options(a.einplan, work)
    print(f"{len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
