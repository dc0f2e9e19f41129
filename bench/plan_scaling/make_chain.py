#!/usr/bin/python3
"""Write a chain of N matrix multiplications X_k = X_{k-1} W_k as an EinGraph (YAML).

X_0 is m x d_0; W_k is d_{k-1} x d_k with d alternating between two widths (an MLP-like
chain), so consecutive nodes favour different partitions and the planner has real work.
Usage: make_chain.py N OUT.yaml [--m 4096] [--widths 1024,4096]
"""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("n", type=int)
parser.add_argument("out")
parser.add_argument("--m", type=int, default=4096)
parser.add_argument("--widths", default="1024,4096")
args = parser.parse_args()
widths = [int(w) for w in args.widths.split(",")]
width = lambda k: widths[k % len(widths)]

lines = [f"name: chain_{args.n}", "inputs:", f"  - {{name: X0, shape: [{args.m}, {width(0)}]}}"]
for k in range(1, args.n + 1):
    lines.append(f"  - {{name: W{k}, shape: [{width(k - 1)}, {width(k)}]}}")
lines.append("nodes:")
for k in range(1, args.n + 1):
    lines.append(f"  - {{name: X{k}, einsum: \"m d{k - 1}, d{k - 1} d{k} -> m d{k}\", inputs: [X{k - 1}, W{k}]}}")
lines.append(f"outputs: [X{args.n}]")
with open(args.out, "w") as f:
    f.write("\n".join(lines) + "\n")
