#!/usr/bin/env python3
"""Contraction paths on the Einsum Trees paper's Table 5 networks at full size.

For each network: the naive FLOPs (one loop nest), the FLOPs of the path printed in
Table 5 (TRN's with its missing last pair (0, 1) appended), NumPy's
`einsum_path(optimize=('optimal', no memory limit))` (the baseline, same FLOP convention
as SPEC 3 / opt_einsum; 'greedy' for TRN, where 'optimal' takes minutes), and ours: `einplan gen NET --split` followed by `einplan check`,
whose total is the sum over the binary steps. Prints a table with ours / numpy-optimal.

usage: /usr/bin/python3 bench/paths_table5.py [EINPLAN]
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

EINPLAN = sys.argv[1] if len(sys.argv) > 1 else "build/bin/einplan"
NETWORKS = {
    "syn": ("iaje,bf,dcba,cigj,dh->hgfei", [24, 48, 12, 56, 32, 64, 8, 84, 8, 72], [(1, 2), (2, 3), (0, 1), (0, 1)]),
    "tt": ("af,fbg,gch,hdi,ie->abcde", [100, 72, 128, 128, 3, 71, 305, 32, 3], [(1, 2), (0, 3), (0, 1), (0, 1)]),
    "fctn": ("aefg,behi,cfhj,dgij->abcd", [60, 60, 20, 20, 8, 8, 8, 8, 8, 8], [(2, 3), (0, 2), (0, 1)]),
    "tw": ("aefi,bfgj,cghk,dhel,ijkl->abcd", [40, 40, 20, 20, 6, 6, 6, 6, 4, 4, 4, 4],
           [(2, 3), (2, 3), (0, 2), (0, 1)]),
    "getd": ("aib,bjc,ckd,dle,ema->ijklm", [40, 40, 40, 40, 40, 25, 25, 25, 25, 25],
             [(0, 1), (0, 1), (0, 1), (0, 1)]),
    "trn": ("Babcd,aij,bik,ckl,dlm,ejp,fop,gno,hmn->Befgh",
            [128, 4, 7, 4, 7, 3, 4, 5, 5, 50, 50, 50, 50, 50, 50, 50, 50],
            [(1, 5), (4, 5), (1, 2), (1, 2), (1, 2), (1, 2), (0, 1), (0, 1)]),
}


def numpy_flops(eq, sizes, path):
    labels = sorted(set(eq.replace(",", "").replace("->", "")))
    size = dict(zip(labels, sizes))
    # einsum_path only needs shapes: broadcast views of a scalar cost no memory.
    ops = [np.broadcast_to(np.float32(0), [size[c] for c in op]) for op in eq.split("->")[0].split(",")]
    info = np.einsum_path(eq, *ops, optimize=path)[1]
    naive = float(next(l for l in info.splitlines() if "Naive FLOP count" in l).split(":")[1])
    opt = float(next(l for l in info.splitlines() if "Optimized FLOP count" in l).split(":")[1])
    return naive, opt


def main():
    print(f"{'network':8} {'naive':>10} {'paper path':>11} {'numpy':>10} {'method':>7} {'ours':>11} "
          f"{'ours/numpy':>10} {'gen+check s':>11}")
    with tempfile.TemporaryDirectory() as work:
        for net, (eq, sizes, paper) in NETWORKS.items():
            # No memory limit: NumPy's default caps intermediates at the largest operand.
            # NumPy's 'optimal' enumerates orderings and takes minutes for TRN's 9 operands.
            method = "optimal" if eq.count(",") < 6 else "greedy"
            naive, numpy_opt = numpy_flops(eq, sizes, (method, 10**40))
            _, paper_flops = numpy_flops(eq, sizes, ["einsum_path"] + paper)
            graph = os.path.join(work, net + ".yaml")
            t0 = time.perf_counter()
            subprocess.run([EINPLAN, "gen", net, "--split", "-o", graph], check=True)
            out = subprocess.run([EINPLAN, "check", graph, "--format", "json"], check=True, capture_output=True)
            seconds = time.perf_counter() - t0
            ours = json.loads(out.stdout)["totals"]["flops"]
            print(f"{net:8} {naive:10.3e} {paper_flops:11.3e} {numpy_opt:10.3e} {method:>7} {ours:11.3e} "
                  f"{ours / numpy_opt:10.3f} {seconds:11.3f}")


if __name__ == "__main__":
    main()
