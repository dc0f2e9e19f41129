#!/usr/bin/python3
"""einplan grad against torch.autograd (issue 23): random extended-EinSum graphs that use
every join of the expression language (each named op and each function of the table) and
every aggregation, in f64; per seed: einplan grad --loss, einplan eval --inputs on random
inputs, and torch.autograd over an independent interpreter of the forward graph
(graph_torch.py) — every grad_X must match torch's gradient to 1e-9 relative, inputs that
do not reach the loss must get no grad_X (and a note), and the loss itself must match.
Then the bad requests: exit 2 naming what is wrong, nothing written.

    grad_random.py --einplan EINPLAN --work DIR [--seeds N]
"""
import argparse
import pathlib
import random
import shutil
import subprocess
import sys

import numpy as np
import torch
import yaml

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import graph_torch  # noqa: E402

SIZES = {"i": 3, "j": 4, "k": 2, "l": 3}
# Joins over two operands and over one; arguments kept in the functions' domains (inputs
# are in [0.5, 1.5], intermediate values of either sign).
BINARY = ["mul", "add", "sub", "max", "min", "sqdiff", "absdiff", "exp(x - y)", "log(x * x + 1) * y",
          "sqrt(x * x + 1) + y", "rsqrt(x * x + 0.5) * y", "abs(x) * y", "tanh(x) + sigmoid(y)", "relu(x) - y",
          "max(x, y) * 2", "min(x, 0.25 * y)", "pow(x * x + 1, 0.5 * y)", "erf(x) * y", "sin(x) * cos(y)", "where(x - 0.9, y, 2 * y)",
          "x * y * 0.5", "-(x * y)"]
UNARY = ["x", "exp(0.5 * x)", "tanh(x)", "sigmoid(x)", "x * x", "log(x * x + 1)", "sqrt(x * x + 1)", "erf(x)",
         "relu(x - 0.5)", "abs(x)", "rsqrt(x * x + 1)", "pow(x * x + 1, 1.5)", "1 / (x * x + 1)", "cos(3 * x)"]
AGGS = ["sum", "sum", "max", "min", "prod"]
FAILED = []


def run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], text=True, capture_output=True, **kw)


def random_graph(rng, seed):
    labels = list(SIZES)
    tensors = []  # (name, labels)
    inputs = []
    for k in range(4):
        ls = "".join(rng.sample(labels, rng.randint(1, 3)))
        inputs.append({"name": f"In{k}", "shape": [SIZES[l] for l in ls]})
        tensors.append((f"In{k}", ls))
    # An input that never reaches the loss (its gradient is identically zero).
    inputs.append({"name": "Unused", "shape": [SIZES["i"]]})
    nodes = []
    for k in range(rng.randint(4, 7)):
        if k == 0 or rng.random() < 0.6:
            a, b = rng.sample(tensors, 2)
            join = rng.choice(BINARY)
            if join == "div" or rng.random() < 0.1:
                join, b = "div", rng.choice(tensors[:4])  # a positive denominator: an input
            union = "".join(dict.fromkeys(a[1] + b[1]))
            ops = [a, b]
        else:
            a = rng.choice(tensors)
            join = rng.choice(UNARY)
            union = a[1]
            ops = [a]
        agg = rng.choice(AGGS)
        keep = [l for l in union if rng.random() < 0.6] or ([] if rng.random() < 0.3 or not union else [union[0]])
        out = "".join(keep)
        if rng.random() < 0.15:
            extra = [l for l in labels if l not in union]
            if extra:
                out += extra[0]  # a broadcast label
        if agg == "prod" and len(union) - len([l for l in union if l in out]) > 1:
            agg = "sum"  # keep products of few factors: their values stay moderate
        node = {"name": f"N{k}", "einsum": ",".join(o[1] for o in ops) + "->" + out, "inputs": [o[0] for o in ops],
                "join": join, "agg": agg}
        if any(l not in union for l in out):
            node["sizes"] = {l: SIZES[l] for l in out if l not in union}
        nodes.append(node)
        tensors.append((node["name"], out))
    # The loss: the sum of every node that nothing consumes (each summed to a scalar).
    consumed = {i for n in nodes for i in n["inputs"]}
    sinks = [t for t in tensors if t[0].startswith("N") and t[0] not in consumed]
    total = None
    for t in sinks:
        s = {"name": f"S_{t[0]}", "einsum": f"{t[1]}->", "inputs": [t[0]]}
        nodes.append(s)
        if total is None:
            total = s["name"]
        else:
            nodes.append({"name": f"T_{len(nodes)}", "einsum": ",->", "join": "add", "inputs": [total, s["name"]]})
            total = nodes[-1]["name"]
    nodes.append({"name": "loss", "einsum": "->", "join": "x", "inputs": [total]})
    return {"name": f"random_{seed}", "dtype": "f64", "inputs": inputs, "nodes": nodes}


# Windows (SPEC 8.1), differentiated as copies read the other way: a slice feeding a
# matmul, rotate_half (two padded reads), a concatenation, padding with a fill and a max
# over a window with -inf outside, on one loss.
WINDOWS = {
    "name": "windows", "dtype": "f64",
    "inputs": [{"name": "X", "shape": [4, 10]}, {"name": "W", "shape": [10, 6]}, {"name": "B", "shape": [4, 3]},
               {"name": "Unused", "shape": [2]}],
    "nodes": [
        {"name": "Q", "einsum": "ij,jk->ik", "inputs": ["X", "W"]},
        {"name": "M", "einsum": "ij,jk->ik", "inputs": ["X", "W"], "windows": [{"j": 3}, {"j": 5}], "sizes": {"j": 4}},
        {"name": "R", "einsum": "sk,sk->sk", "join": "y - x", "inputs": ["Q", "Q"], "windows": [{"k": 3}, {"k": -3}],
         "sizes": {"k": 6}},
        {"name": "C", "einsum": "sk,sk->sk", "join": "add", "inputs": ["M", "B"], "windows": [{"k": 0}, {"k": -6}], "sizes": {"k": 9}},
        {"name": "P", "einsum": "sk->sk", "inputs": ["C"], "windows": [{"s": -1, "k": 2}], "sizes": {"s": 6, "k": 8},
         "fill": 0.5},
        {"name": "N", "einsum": "sk,sk->sk", "join": "max", "inputs": ["R", "R"], "windows": [{"k": -1}, {"k": 1}],
         "sizes": {"k": 6}, "fill": "-inf"},
        {"name": "loss", "einsum": "sk,tj->", "join": "x * x + y", "inputs": ["P", "N"]},
        {"name": "U", "einsum": "i->", "inputs": ["Unused"]},
    ],
    "outputs": ["loss", "U"],
}


def check_seed(a, seed, work, g=None):
    rng = random.Random(seed)
    g = g or random_graph(rng, seed)
    d = work / f"seed{seed}"
    d.mkdir()
    graph = d / "graph.yaml"
    graph.write_text(yaml.safe_dump(g, sort_keys=False))
    train = d / "train.yaml"
    p = run([a.einplan, "grad", graph, "--loss", "loss", "-o", train])
    if p.returncode != 0:
        FAILED.append(f"seed {seed}: einplan grad failed: {p.stderr.strip()}")
        return
    if "Unused" not in p.stderr:
        FAILED.append(f"seed {seed}: no note that the gradient of Unused is zero")
    nprng = np.random.default_rng(seed if isinstance(seed, int) else 4242)
    ins = d / "in"
    ins.mkdir()
    values = {}
    for t in g["inputs"]:
        values[t["name"]] = nprng.uniform(0.5, 1.5, t["shape"])
        np.save(ins / f"{t['name']}.npy", values[t["name"]])
    outs = d / "out"
    p = run([a.einplan, "eval", train, "--inputs", ins, "--outputs", outs])
    if p.returncode != 0:
        FAILED.append(f"seed {seed}: einplan eval of the training graph failed: {p.stderr.strip()}")
        return
    tin = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in values.items()}
    vals = graph_torch.evaluate(g, tin)
    loss = vals["loss"].sum()
    grads = torch.autograd.grad(loss, [tin[k] for k in tin], allow_unused=True)
    if not np.allclose(np.load(outs / "loss.npy"), loss.detach().numpy(), rtol=1e-12, atol=0):
        FAILED.append(f"seed {seed}: the loss differs from torch's")
    used = set()
    for name, grad in zip(tin, grads):
        f = outs / f"grad_{name}.npy"
        if grad is None or not torch.any(grad != 0):
            if f.exists() and np.abs(np.load(f)).max() > 1e-9:  # round-off of x / x may remain
                FAILED.append(f"seed {seed}: grad_{name} is nonzero where torch's is zero")
            continue
        if not f.exists():
            FAILED.append(f"seed {seed}: grad_{name} missing (torch's is nonzero)")
            continue
        got, want = np.load(f), grad.numpy()
        scale = max(np.abs(want).max(), 1.0)  # absolute for gradients that are round-off (x / x)
        err = np.abs(got - want).max() / scale
        if not np.isfinite(err) or err > 1e-9:
            FAILED.append(f"seed {seed}: grad_{name} differs from torch.autograd: max rel err {err:.3g}")
        used.add(name)
    joins = {n.get("join", "") for n in g["nodes"]} | {n.get("agg", "sum") for n in g["nodes"]}
    return joins


def bad_requests(a, work):
    graph = work / "bad.yaml"
    graph.write_text(yaml.safe_dump({"name": "bad", "dtype": "f64", "inputs": [{"name": "A", "shape": [3, 3]},
                                                                              {"name": "B", "shape": [3]}],
                                     "nodes": [{"name": "D", "einsum": "ii->i", "inputs": ["A"]},
                                               {"name": "L", "einsum": "i,i->", "inputs": ["D", "B"]},
                                               {"name": "L2", "einsum": "i->", "inputs": ["B"]}]}))
    cases = [
        (["--loss", "Lx"], "--loss 'Lx' is not a node of the graph (did you mean 'L'?)"),
        (["--loss", "A"], "--loss 'A' is a graph input, not a node"),
        (["--loss", "L2", "--wrt", "D"], "--wrt 'D' is a node; gradients are taken with respect to graph inputs"),
        (["--loss", "L2", "--wrt", "C"], "--wrt 'C' is not an input of the graph"),
        (["--loss", "L2", "--wrt", "A"], "the loss 'L2' does not depend on any of the inputs"),
        (["--loss", "L"], "node 'D': operand 1 repeats label 'i' (a diagonal or trace)"),
        (["--loss", "L2", "--update", "sgd", "--lr", "-1"], "--lr '-1': expected a positive number"),
        (["--loss", "L2", "--update", "adam", "--lr", "0.1"], "--update 'adam': the rules are sgd and adamw"),
        (["--loss", "L2", "--update", "adamw", "--lr", "0.1", "--beta2", "1"], "--beta2 '1': expected a number in [0, 1)"),
        (["--loss", "L2", "--update", "adamw", "--lr", "0.1", "--eps", "0"], "--eps '0': expected a positive number"),
        (["--loss", "L2", "--update", "sgd", "--lr", "0.1", "--weight-decay", "0.1"], "--weight-decay is adamw's"),
    ]
    for args, words in cases:
        out = work / "bad_out.yaml"
        p = run([a.einplan, "grad", graph, *args, "-o", out])
        ok = p.returncode == 2 and words in p.stderr and not out.exists()
        print(f"{'PASS' if ok else 'FAIL'} {' '.join(args)}: exit {p.returncode}, {p.stderr.strip()[:150]}")
        if not ok:
            FAILED.append(f"bad request {args}: exit {p.returncode}, stderr {p.stderr.strip()!r}, expected {words!r}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--einplan", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--seeds", type=int, default=40)
    a = ap.parse_args()
    work = pathlib.Path(a.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    covered = set()
    for seed in range(a.seeds):
        covered |= check_seed(a, seed, work) or set()
    before = len(FAILED)
    check_seed(a, "windows", work, WINDOWS)
    print(f"{'PASS' if len(FAILED) == before else 'FAIL'} windows: slices, rotate_half, a concatenation, padding and "
          f"a -inf max window, every gradient against torch.autograd")
    wanted = set(BINARY) | set(UNARY) | {"sum", "max", "min", "prod", "div"}
    missing = wanted - covered
    if missing:
        FAILED.append(f"the seeds did not use {sorted(missing)}; raise --seeds")
    bad_requests(a, work)
    if FAILED:
        print("\n".join(FAILED))
        sys.exit(f"FAILED: {len(FAILED)} problems (seeds 0..{a.seeds - 1})")
    print(f"{a.seeds} random graphs (seeds 0..{a.seeds - 1}): every gradient equals torch.autograd's; "
          f"{len(covered)} joins and aggregations covered")


if __name__ == "__main__":
    main()
