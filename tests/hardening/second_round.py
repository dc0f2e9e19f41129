#!/usr/bin/python3
"""The second hardening round (docs/hardening.md, "Second round"): the front doors added since
the first — import, grad, machine files, calibration — tried as a careless or hostile user
would. Each case is a row: a command, the exit status it must end with, words its stderr
must hold, and what must (not) have changed on disk. Every failure prints the command and
its output.

usage: second_round.py --einplan EINPLAN --work DIR [--calibrate EINRT_CALIBRATE]
"""
import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

failures = []


def check(ok, what, p=None):
    if ok:
        print(f"ok: {what}")
        return
    failures.append(what)
    detail = ""
    if p is not None:
        detail = f"\n  command: {' '.join(map(str, p.args))}\n  exit {p.returncode}\n  stdout: {p.stdout[-1500:]}\n  stderr: {p.stderr[-2500:]}"
    print(f"FAIL: {what}{detail}")


def run(cmd, timeout=120, **kw):
    return subprocess.run([str(c) for c in cmd], text=True, capture_output=True, timeout=timeout, **kw)


def linear_model(path, weights):
    """y = x @ w (+ more products for each further weight): initializers named as given."""
    nodes, inits, prev = [], [], "x"
    for i, (name, value) in enumerate(weights.items()):
        out = "y" if i == len(weights) - 1 else f"h{i}"
        nodes.append(helper.make_node("MatMul", [prev, name], [out], name=f"mm{i}"))
        inits.append(numpy_helper.from_array(value, name))
        prev = out
    g = helper.make_graph(nodes, "lin", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 8
    onnx.save(m, str(path))


def weights_folder_cases(einplan, work):
    """Issue 45, item 1: import never replaces or leaves behind files it does not own."""
    w = np.arange(9, dtype=np.float32).reshape(3, 3)
    d = work / "weights"
    d.mkdir()
    model = d / "model.onnx"
    linear_model(model, {"w": w})

    theirs = d / "theirs"
    theirs.mkdir()
    np.save(theirs / "w.npy", np.full((3, 3), 7, np.float32))
    p = run([einplan, "import", model, "-o", d / "g.yaml", "--weights", theirs])
    check(p.returncode == 2 and "--weights" in p.stderr and "--force" in p.stderr,
          "import refuses --weights into a user's non-empty folder", p)
    check(np.array_equal(np.load(theirs / "w.npy"), np.full((3, 3), 7, np.float32)) and not (d / "g.yaml").exists(),
          "the user's w.npy is untouched and no graph is written", p)

    p = run([einplan, "import", model, "-o", d / "g.yaml", "--weights", d])
    check(p.returncode == 2 and "not empty" in p.stderr, "import refuses --weights at the model's own folder", p)
    check(sorted(os.listdir(d)) == ["model.onnx", "theirs"], "the model's folder is as it was", p)

    p = run([einplan, "import", model, "-o", d / "g.yaml", "--weights", theirs, "--force"])
    check(p.returncode == 0 and np.array_equal(np.load(theirs / "w.npy"), w), "--force writes into the user's folder", p)

    # A second import to the same -o: the first model's weights go, the user's inputs stay.
    out = d / "out"
    out.mkdir()
    p = run([einplan, "import", model, "-o", out / "g.yaml"])
    check(p.returncode == 0 and (out / "g.weights" / "w.npy").exists(), "import into a new folder", p)
    np.save(out / "g.weights" / "x.npy", np.ones((2, 3), np.float32))
    model2 = d / "model2.onnx"
    linear_model(model2, {"v": w, "u": w})
    p = run([einplan, "import", model2, "-o", out / "g.yaml"])
    files = sorted(f for f in os.listdir(out / "g.weights") if not f.startswith("."))
    check(p.returncode == 0 and files == ["u.npy", "v.npy", "x.npy"],
          f"a second import replaces the first's weights and keeps the user's input (found {files})", p)

    # A file the user put into import's folder under a weight's name is not replaced.
    np.save(out / "g.weights" / "w.npy", np.full((3, 3), 5, np.float32))
    p = run([einplan, "import", model, "-o", out / "g.yaml"])
    check(p.returncode == 2 and "w.npy" in p.stderr and np.array_equal(np.load(out / "g.weights" / "w.npy"),
                                                                       np.full((3, 3), 5, np.float32)),
          "import refuses to replace a user's file in its own folder", p)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--einplan", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    work = pathlib.Path(a.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    weights_folder_cases(a.einplan, work)
    if failures:
        print(f"{len(failures)} case(s) failed: " + "; ".join(failures))
        return 1
    print("all cases passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
