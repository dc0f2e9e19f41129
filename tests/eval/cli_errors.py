#!/usr/bin/python3
"""`einplan eval` from the outside: every kind of bad input exits 2 with a message that
names the offending file and says what is wrong, and leaves nothing written (an
existing output file keeps its old contents, no temporary files remain); plus the
successful variants (stdin graph, nested output directory).

Prints one line per case and a final 'N passed, M failed' line; exits 1 on any failure.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

GRAPH = {"name": "cli", "dtype": "f32",
         "inputs": [{"name": "A", "shape": [2, 3]}, {"name": "B", "shape": [3, 2]}],
         "nodes": [{"name": "C", "einsum": "ij,jk->ik", "inputs": ["A", "B"]}]}


def write_graph(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


def good_inputs(directory):
    os.makedirs(directory, exist_ok=True)
    np.save(os.path.join(directory, "A.npy"), np.ones((2, 3), np.float32))
    np.save(os.path.join(directory, "B.npy"), np.ones((3, 2), np.float32))


def spoil(name, writer):
    """An inputs directory with good files, then B.npy replaced by `writer(path)`."""
    def make(directory):
        good_inputs(directory)
        writer(os.path.join(directory, name))
    return make


def raw(data):
    def write(path):
        with open(path, "wb") as f:
            f.write(data)
    return write


def truncated(path):
    np.save(path, np.ones((3, 2), np.float32))
    with open(path, "rb") as f:
        data = f.read()
    raw(data[:-5])(path)


# name, extra arguments (after the graph), how to prepare the inputs directory,
# the file the first stderr line must start with ({in}, {out}, {graph} substituted),
# and the words it must contain.
ERROR_CASES = [
    ("missing input file", ["--inputs", "{in}"], spoil("B.npy", os.remove), "{in}/B.npy: error:",
     "missing: graph input 'B'"),
    ("f64 file for an f32 graph", ["--inputs", "{in}"],
     spoil("B.npy", lambda p: np.save(p, np.ones((3, 2), np.float64))), "{in}/B.npy: error:",
     "dtype '<f8' where '<f4' (float32) was expected"),
    ("wrong shape", ["--inputs", "{in}"], spoil("B.npy", lambda p: np.save(p, np.ones((2, 3), np.float32))),
     "{in}/B.npy: error:", "shape (2, 3) where (3, 2) was expected"),
    ("Fortran order", ["--inputs", "{in}"],
     spoil("B.npy", lambda p: np.save(p, np.asfortranarray(np.arange(6, dtype=np.float32).reshape(3, 2)))),
     "{in}/B.npy: error:", "Fortran-order arrays are not supported"),
    ("truncated data", ["--inputs", "{in}"], spoil("B.npy", truncated), "{in}/B.npy: error:", "truncated"),
    ("int32 dtype", ["--inputs", "{in}"], spoil("B.npy", lambda p: np.save(p, np.ones((3, 2), np.int32))),
     "{in}/B.npy: error:", "unsupported dtype '<i4'"),
    ("not a .npy file", ["--inputs", "{in}"], spoil("B.npy", raw(b"1,2\n3,4\n5,6\n")), "{in}/B.npy: error:",
     "bad magic"),
    ("inputs directory missing", ["--inputs", "{in}/nowhere"], good_inputs, "{in}/nowhere: error:",
     "does not exist"),
    ("outputs path is a file", ["--seed", "1"], None, "{out}: error:", "cannot create the --outputs directory"),
    ("--seed and --inputs together", ["--seed", "1", "--inputs", "{in}"], good_inputs, "", "excludes"),
    ("negative seed", ["--seed", "-1"], None, "", "the seed must be an integer from 0 to 2^64 - 1"),
    ("seed of 2^64", ["--seed", str(2**64)], None, "", "the seed must be an integer from 0 to 2^64 - 1"),
]


def run(einplan, args, stdin=None):
    return subprocess.run([einplan] + args, capture_output=True, text=True, input=stdin)


def check_error_case(einplan, root, k, case):
    name, extra, prepare, prefix, words = case
    work = os.path.join(root, f"err{k:02d}")
    in_dir, out_dir, graph = os.path.join(work, "in"), os.path.join(work, "out"), os.path.join(work, "g.json")
    os.makedirs(work)
    write_graph(graph, GRAPH)
    if prepare:
        prepare(in_dir)
    if name == "outputs path is a file":
        with open(out_dir, "w") as f:
            f.write("keep")
    subst = lambda s: s.replace("{in}", in_dir).replace("{out}", out_dir).replace("{graph}", graph)
    proc = run(einplan, ["eval", graph, "--outputs", out_dir] + [subst(a) for a in extra])
    first = proc.stderr.splitlines()[0] if proc.stderr else ""
    if proc.returncode != 2:
        return False, f"exit {proc.returncode}, expected 2; stderr: {proc.stderr.strip()}"
    if not first.startswith(subst(prefix)) or words not in proc.stderr:
        return False, f"stderr {proc.stderr.strip()!r} lacks {subst(prefix)!r} ... {words!r}"
    if os.path.isdir(out_dir) and os.listdir(out_dir):
        return False, f"wrote {os.listdir(out_dir)} despite the error"
    if name == "outputs path is a file" and open(out_dir).read() != "keep":
        return False, "the file in the way was changed"
    return True, first


def check_bad_graph(einplan, root):
    """A graph error is reported at its line and column and nothing is written."""
    work = os.path.join(root, "badgraph")
    os.makedirs(work)
    graph, out_dir = os.path.join(work, "g.yaml"), os.path.join(work, "out")
    with open(graph, "w") as f:
        f.write("inputs:\n  - {name: A, shape: [2, 3]}\nnodes:\n  - {name: C, einsum: \"ij->i\", inputs: [Q]}\n")
    proc = run(einplan, ["eval", graph, "--outputs", out_dir])
    if proc.returncode != 2 or not proc.stderr.startswith(graph + ":4:") or "Q" not in proc.stderr:
        return False, f"exit {proc.returncode}; stderr {proc.stderr.strip()!r}"
    if os.path.exists(out_dir):
        return False, "created the outputs directory despite the error"
    return True, proc.stderr.strip()


def check_keeps_old_output(einplan, root):
    """An error after a previous successful run leaves the old output as it was."""
    work = os.path.join(root, "keepold")
    os.makedirs(work)
    graph, in_dir, out_dir = os.path.join(work, "g.json"), os.path.join(work, "in"), os.path.join(work, "out")
    write_graph(graph, GRAPH)
    good_inputs(in_dir)
    first = run(einplan, ["eval", graph, "--inputs", in_dir, "--outputs", out_dir])
    if first.returncode != 0:
        return False, f"good run exited {first.returncode}: {first.stderr.strip()}"
    before = open(os.path.join(out_dir, "C.npy"), "rb").read()
    np.save(os.path.join(in_dir, "A.npy"), np.ones((2, 3), np.float64))
    second = run(einplan, ["eval", graph, "--inputs", in_dir, "--outputs", out_dir])
    after = open(os.path.join(out_dir, "C.npy"), "rb").read()
    if second.returncode != 2 or before != after or os.listdir(out_dir) != ["C.npy"]:
        return False, f"exit {second.returncode}, output changed or extra files {os.listdir(out_dir)}"
    if not np.array_equal(np.load(os.path.join(out_dir, "C.npy")), np.full((2, 2), 3, np.float32)):
        return False, "the good run's output is wrong"
    return True, "old C.npy untouched"


def check_stdin_and_nested_outputs(einplan, root):
    out_dir = os.path.join(root, "nested", "a", "b")
    proc = run(einplan, ["eval", "-", "--input-format", "json", "--seed", "3", "--outputs", out_dir],
               stdin=json.dumps(GRAPH))
    if proc.returncode != 0:
        return False, f"exit {proc.returncode}: {proc.stderr.strip()}"
    got = np.load(os.path.join(out_dir, "C.npy"))
    if got.dtype != np.float32 or got.shape != (2, 2):
        return False, f"wrote {got.dtype} {got.shape}"
    if os.path.join(out_dir, "C.npy") not in proc.stdout:
        return False, f"stdout does not list the file: {proc.stdout!r}"
    return True, proc.stdout.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--einplan", required=True)
    args = parser.parse_args()
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="eval_cli_") as root:
        results = [(c[0], check_error_case(args.einplan, root, k, c)) for k, c in enumerate(ERROR_CASES)]
        results.append(("graph error at its line", check_bad_graph(args.einplan, root)))
        results.append(("error keeps the previous output", check_keeps_old_output(args.einplan, root)))
        results.append(("graph on stdin, nested --outputs", check_stdin_and_nested_outputs(args.einplan, root)))
        for name, (ok, detail) in results:
            print(f"{'PASS' if ok else 'FAIL'}  {name}  {detail}")
            passed, failed = passed + ok, failed + (not ok)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
