#!/usr/bin/python3
"""Gradients of convolutions (SPEC 8.1, windows over tap labels; issue "Convolutions"):
tests/codegen/pinned/convolution.yaml (a padded 3x3 convolution, a ReLU, a convolution
dilated by 2 along rows; a 3x3 convolution of stride 2, a 1x1 one of stride 2 and a spread
of its rows and columns) with a loss sum(D * D) + sum(U * U), differentiated by `einplan
grad` with respect to the images and the kernels, evaluated (`einplan eval`) and compared
with torch.autograd of the same network in float64 (relative 1e-5); then the gradient graph
(its convolutions read the upstream gradient through windows of negated dilations, spread
by the strides, and the kernels' gradients read the image through the forward windows)
planned, emitted and run at each given p (3 in make test) by tests/codegen/run_programs.py:
outputs equal `einplan eval`'s, bytes and peaks equal to the plan, --check against plain
loops.

A failure prints the command and its output.
usage: convolution.py --einplan E --eincodegen C --work DIR [--ranks 2,3]
"""
import argparse
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import torch

HERE = pathlib.Path(__file__).resolve().parent
GRAPH = HERE.parent / "codegen" / "pinned" / "convolution.yaml"


def run(cmd):
    cmd = [str(c) for c in cmd]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}\n{p.stdout[-4000:]}\n{p.stderr[-4000:]}")
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--einplan", required=True)
    ap.add_argument("--eincodegen", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--ranks", default="2,3")
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    forward = os.path.join(args.work, "forward.yaml")
    loss = ('  - {name: LD, einsum: "npyx,npyx->", inputs: [D, D]}\n  - {name: LU, einsum: "npyx,npyx->", inputs: [U, U]}\n'
            '  - {name: L, einsum: ",->", join: add, inputs: [LD, LU]}\noutputs: [L]')
    text = GRAPH.read_text().replace("outputs: [D, T, U, N0]", loss)
    if "outputs: [L]" not in text:
        sys.exit(f"FAIL: {GRAPH} no longer ends with the outputs this test replaces by its loss")
    pathlib.Path(forward).write_text(text)
    backward = os.path.join(args.work, "grad.yaml")
    run([args.einplan, "grad", forward, "--loss", "L", "-o", backward])
    inputs = os.path.join(args.work, "inputs")
    os.makedirs(inputs)
    rng = np.random.default_rng(3)
    values = {"X": rng.standard_normal((2, 3, 12, 12)), "W": rng.standard_normal((4, 3, 3, 3)),
              "V": rng.standard_normal((5, 4, 3, 3)), "X2": rng.standard_normal((2, 3, 24, 24)),
              "W2": rng.standard_normal((4, 3, 3, 3)), "V2": rng.standard_normal((5, 4))}
    for name, v in values.items():
        np.save(os.path.join(inputs, name + ".npy"), v.astype(np.float32))
    out = os.path.join(args.work, "eval")
    run([args.einplan, "eval", backward, "--inputs", inputs, "--outputs", out])
    t = {n: torch.tensor(v.astype(np.float32), dtype=torch.float64, requires_grad=True) for n, v in values.items()}
    r = torch.relu(torch.nn.functional.conv2d(t["X"], t["W"], padding=1))
    # D reads R's row y + 2i - 2 (2 rows of padding, dilation 2) and column x + j (none).
    d = torch.nn.functional.conv2d(torch.nn.functional.pad(r, (0, 0, 2, 2)), t["V"], dilation=(2, 1))
    # S reads X2's row 2y + i - 1 (stride 2, padding 1); E reads S's row 2y and column
    # 2x + 1; U[y, x] is E[y / 2, (x + 1) / 2] where both divide and lie in E, else 0.
    s = torch.nn.functional.conv2d(t["X2"], t["W2"], stride=2, padding=1)
    e = torch.einsum("noyx,po->npyx", s[:, :, 0::2, 1::2], t["V2"])
    u = torch.zeros(2, 5, 12, 12, dtype=torch.float64)
    u[:, :, 0::2, 1:10:2] = e[:, :, :, 1:6]
    ((d * d).sum() + (u * u).sum()).backward()
    ok = True
    for name in values:
        got, want = np.load(os.path.join(out, f"grad_{name}.npy")), t[name].grad.numpy()
        err = float(np.max(np.abs(got - want)) / np.max(np.abs(want)))
        good = got.shape == want.shape and err < 1e-5
        ok &= good
        print(f"grad_{name} {got.shape} vs torch.autograd: max relative error {err:.1e}  {'ok' if good else 'WRONG'}")
    if not ok:
        sys.exit("FAIL: a convolution's gradient differs from torch.autograd")
    p = run([sys.executable, HERE.parent / "codegen" / "run_programs.py", "--einplan", args.einplan, "--eincodegen",
             args.eincodegen, "--graph", backward, "--work", os.path.join(args.work, "programs"), "--ranks", args.ranks])
    print("\n".join(line for line in p.stdout.splitlines() if line.startswith("p=")))


if __name__ == "__main__":
    main()
