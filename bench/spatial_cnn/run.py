#!/usr/bin/python3
"""A CNN on one large image (issue "Convolutions": batch 1, 2048 x 2048), imported from
torch, planned by `einplan plan` for p ranks, emitted, built (-O3) and run: which labels
the plan cuts in each convolution node, and the bytes each receives (the halo rows a
spatial cut exchanges) as the plan counts them and as the program measures them.

The network: four 3x3 convolutions (3 -> 16 -> 16, a 2x2 max pool, 16 -> 16 -> 8
channels, padding 1, ReLU between), exported at opset 17 with batch 1. With one image the
batch cannot be cut; cutting the channels would send every rank the whole input of each
convolution, so the plan should cut the image's rows or columns and move only the halo.
The program's output is compared with torch's (relative 1e-5).

usage: bench/spatial_cnn/run.py --build build [--image 2048] [--ranks 4]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import torch


class CNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.c2 = torch.nn.Conv2d(16, 16, 3, padding=1)
        self.pool = torch.nn.MaxPool2d(2)
        self.c3 = torch.nn.Conv2d(16, 16, 3, padding=1)
        self.c4 = torch.nn.Conv2d(16, 8, 3, padding=1)

    def forward(self, x):
        x = torch.relu(self.c2(torch.relu(self.c1(x))))
        return self.c4(torch.relu(self.c3(self.pool(x))))


def run(cmd, **kw):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit(f"FAILED (exit {p.returncode}): {' '.join(map(str, cmd))}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return p


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--image", type=int, default=2048)
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--work", default="/tmp/eindecomp-bench-spatial-cnn")
    args = ap.parse_args()
    einplan, eincodegen = os.path.join(args.build, "bin", "einplan"), os.path.join(args.build, "bin", "eincodegen")
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    torch.manual_seed(0)
    model = CNN().eval()
    x = torch.randn(1, 3, args.image, args.image)
    base = os.path.join(args.work, "cnn")
    torch.onnx.export(model, (x,), base + ".onnx", opset_version=17, input_names=["x"], output_names=["y"])
    run([einplan, "import", base + ".onnx", "-o", base + ".yaml"])
    np.save(os.path.join(base + ".weights", "x.npy"), x.numpy())
    run([einplan, "plan", base + ".yaml", "-p", args.ranks, "-o", base + ".plan.json"])
    plan = json.load(open(base + ".plan.json"))
    prog = base + ".prog"
    run([eincodegen, base + ".yaml", "--plan", base + ".plan.json", "-o", prog])
    run(["make", "-C", prog, "-j2"])
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1")
    report = base + ".report.json"
    run(["mpirun", "--oversubscribe", "-np", args.ranks, os.path.join(prog, "torch_jit"), "--inputs", base + ".weights",
         "--outputs", base + ".out", "--iters", 1, "--report", report], env=env, timeout=1200)
    with torch.no_grad():
        want = model(x).numpy()
    got = np.load(os.path.join(base + ".out", "y.npy"))
    err = float(np.max(np.abs(got - want)) / np.max(np.abs(want)))
    r = json.load(open(report))
    print(f"CNN on 1 x 3 x {args.image} x {args.image} (4 convolutions 3x3, a 2x2 max pool), p = {args.ranks}; "
          f"output vs torch: max relative error {err:.1e}")
    # Per convolution node (its input read through windows over the kernel's taps): the
    # labels its plan cuts, and the bytes it received (the halo rows), planned and measured.
    graph = {n["name"]: n for n in __import__("yaml").safe_load(open(base + ".yaml"))["nodes"]}
    parts = {n["name"]: n["partition"] for n in plan["nodes"]}
    print("| convolution | its plan cuts | bytes planned | measured |")
    print("|---|---|---|---|")
    for n in r["nodes"]:
        if n["kernel"] != "convolution":
            continue
        name = n["name"]
        labels = graph[name]["einsum"].split("->")[1]  # the result: [n, o, y, x]
        cut = ", ".join(f"{what} / {parts[name].get(l, 1)}" for what, l in zip(("batch", "channels", "rows", "columns"), labels)
                        if parts[name].get(l, 1) > 1)
        print(f"| {re.sub(r'_Conv_output_0(_product)?$', '', name)} | {cut} | {n['bytes_predicted']} | {n['bytes_sent']} |")
    same = r["bytes_sent"] == r["bytes_predicted"] and r["peak_bytes_per_rank"] == r["peak_bytes_predicted_per_rank"]
    print(f"whole program: bytes {r['bytes_sent']} measured / {r['bytes_predicted']} planned, peaks "
          f"{r['peak_bytes_per_rank']} / {r['peak_bytes_predicted_per_rank']} planned, {r['time_s'] * 1e3:.0f} ms  "
          f"{'equal' if same else 'DIFFERENT'}")
    if err > 1e-5 or not same:
        sys.exit("the program differs from torch or from its plan")


if __name__ == "__main__":
    main()
