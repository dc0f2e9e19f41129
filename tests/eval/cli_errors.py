#!/usr/bin/python3
"""`einplan eval` from the outside: every kind of bad input exits 2 with a message that
names the offending file and says what is wrong, and leaves nothing written (an
existing output file keeps its old contents, no temporary files remain, also when a
write fails part-way); files that are not files (a directory, FIFO or /dev/zero named
X.npy) are refused at once; plus the successful variants (stdin graph, nested output
directory, NumPy's defaults: float64 and Fortran-order inputs).

Prints one line per case and a final 'N passed, M failed' line; exits 1 on any failure.
"""
import argparse
import json
import os
import resource
import signal
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
    ("wrong shape", ["--inputs", "{in}"], spoil("B.npy", lambda p: np.save(p, np.ones((2, 3), np.float32))),
     "{in}/B.npy: error:", "shape (2, 3) where (3, 2) was expected"),
    ("truncated data", ["--inputs", "{in}"], spoil("B.npy", truncated), "{in}/B.npy: error:", "truncated"),
    ("int32 beyond float32's integers", ["--inputs", "{in}"],
     spoil("B.npy", lambda p: np.save(p, np.full((3, 2), 2**24 + 1, np.int32))),
     "{in}/B.npy: error:", "holds int32 integers where a float tensor was expected, and 16777217 (element 0) has no exact float32"),
    ("uint8 dtype", ["--inputs", "{in}"], spoil("B.npy", lambda p: np.save(p, np.ones((3, 2), np.uint8))),
     "{in}/B.npy: error:", "unsupported dtype '|u1'"),
    ("not a .npy file", ["--inputs", "{in}"], spoil("B.npy", raw(b"1,2\n3,4\n5,6\n")), "{in}/B.npy: error:",
     "bad magic"),
    ("inputs directory missing", ["--inputs", "{in}/nowhere"], good_inputs, "{in}/nowhere: error:",
     "does not exist"),
    ("outputs path is a file", ["--seed", "1"], None, "{out}: error:", "--outputs: not a folder"),
    ("--seed and --inputs together", ["--seed", "1", "--inputs", "{in}"], good_inputs, "", "excludes"),
    ("negative seed", ["--seed", "-1"], None, "error: --seed:", "'-1' is not an integer from 0 to 2^64 - 1"),
    ("seed of 2^64", ["--seed", str(2**64)], None, "error: --seed:", "is not an integer from 0 to 2^64 - 1"),
    # Files that are not files: refused at once, naming the file, never read or waited on.
    ("a directory named B.npy", ["--inputs", "{in}"], spoil("B.npy", lambda p: (os.remove(p), os.mkdir(p))), "{in}/B.npy: error:",
     "graph input 'B': is a directory, not a .npy file"),
    ("a FIFO named B.npy", ["--inputs", "{in}"], spoil("B.npy", lambda p: (os.remove(p), os.mkfifo(p))),
     "{in}/B.npy: error:", "is a FIFO, not a .npy file"),
    ("B.npy links to /dev/zero", ["--inputs", "{in}"],
     spoil("B.npy", lambda p: (os.remove(p), os.symlink("/dev/zero", p))), "{in}/B.npy: error:",
     "is a character device, not a .npy file"),
    ("a header claiming 4 GiB", ["--inputs", "{in}"],
     spoil("B.npy", raw(b"\x93NUMPY\x02\x00\xff\xff\xff\xff{'descr'")), "{in}/B.npy: error:",
     "the .npy header claims 4294967295 bytes, more than the 1048576 this reader accepts"),
    ("--inputs is a file", ["--inputs", "{graph}"], None, "{graph}: error:", "--inputs must be a directory"),
    ("--inputs -", ["--inputs", "-"], None, "error: --inputs:", "'-' is not a directory"),
    ("--outputs -", ["--outputs", "-"], None, "error: --outputs:", "'-' is not a directory"),
]


def run(einplan, args, stdin=None, preexec_fn=None):
    return subprocess.run([einplan] + args, capture_output=True, text=True, input=stdin, timeout=20,
                          preexec_fn=preexec_fn)


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
    outputs = [] if "--outputs" in extra else ["--outputs", out_dir]
    proc = run(einplan, ["eval", graph] + outputs + [subst(a) for a in extra])
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
    np.save(os.path.join(in_dir, "A.npy"), np.ones((3, 3), np.float32))
    second = run(einplan, ["eval", graph, "--inputs", in_dir, "--outputs", out_dir])
    after = open(os.path.join(out_dir, "C.npy"), "rb").read()
    if second.returncode != 2 or before != after or os.listdir(out_dir) != ["C.npy"]:
        return False, f"exit {second.returncode}, output changed or extra files {os.listdir(out_dir)}"
    if not np.array_equal(np.load(os.path.join(out_dir, "C.npy")), np.full((2, 2), 3, np.float32)):
        return False, "the good run's output is wrong"
    return True, "old C.npy untouched"


def check_numpy_defaults(einplan, root):
    """NumPy's defaults are inputs: a float64 array for an f32 graph is converted (with a
    note), a Fortran-order array is read as the array it is."""
    work = os.path.join(root, "defaults")
    os.makedirs(work)
    graph, in_dir, out_dir = os.path.join(work, "g.json"), os.path.join(work, "in"), os.path.join(work, "out")
    write_graph(graph, GRAPH)
    os.makedirs(in_dir)
    a = np.arange(6, dtype=np.float64).reshape(2, 3) / 7
    b = np.asfortranarray(np.arange(6, dtype=np.float32).reshape(3, 2) - 2)
    np.save(os.path.join(in_dir, "A.npy"), a)
    np.save(os.path.join(in_dir, "B.npy"), b)
    proc = run(einplan, ["eval", graph, "--inputs", in_dir, "--outputs", out_dir])
    if proc.returncode != 0:
        return False, f"exit {proc.returncode}: {proc.stderr.strip()}"
    note = f"note: {in_dir}/A.npy: float64 data converted to float32"
    if note not in proc.stderr or "B.npy" in proc.stderr:
        return False, f"stderr {proc.stderr!r} lacks {note!r} (and only that)"
    got = np.load(os.path.join(out_dir, "C.npy"))
    want = a.astype(np.float32) @ np.ascontiguousarray(b)
    if got.dtype != np.float32 or not np.allclose(got, want, rtol=1e-6):
        return False, f"C = {got.tolist()}, expected {want.tolist()}"
    return True, proc.stderr.strip()


def check_write_failure(einplan, root):
    """A write that fails part-way (here a file-size limit, as a full disk would) leaves
    no output file of the run, no temporary file, and the previous outputs as they were."""
    work = os.path.join(root, "writefail")
    os.makedirs(work)
    doc = {"name": "two", "dtype": "f64",
           "inputs": [{"name": "A", "shape": [4, 4]}, {"name": "B", "shape": [300, 300]}],
           "nodes": [{"name": "small", "einsum": "ij->ij", "inputs": ["A"]},
                     {"name": "large", "einsum": "ij->ij", "inputs": ["B"]}]}
    graph, out_dir, fresh = os.path.join(work, "g.json"), os.path.join(work, "out"), os.path.join(work, "new", "out")
    write_graph(graph, doc)
    os.makedirs(out_dir)
    with open(os.path.join(out_dir, "small.npy"), "w") as f:
        f.write("previous run")

    def limit_file_size():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write() then fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (100000, 100000))

    for target in (out_dir, fresh):
        proc = run(einplan, ["eval", graph, "--outputs", target], preexec_fn=limit_file_size)
        if proc.returncode != 2 or "large.npy: error: cannot write: File too large" not in proc.stderr:
            return False, f"exit {proc.returncode}; stderr {proc.stderr.strip()!r}"
    if sorted(os.listdir(out_dir)) != ["small.npy"] or open(os.path.join(out_dir, "small.npy")).read() != "previous run":
        return False, f"left {sorted(os.listdir(out_dir))} or changed small.npy"
    if os.path.exists(os.path.join(work, "new")):
        return False, "left the output folders it created"
    proc = run(einplan, ["eval", graph, "--outputs", out_dir])
    if proc.returncode != 0 or sorted(os.listdir(out_dir)) != ["large.npy", "small.npy"]:
        return False, f"without the limit: exit {proc.returncode}, {sorted(os.listdir(out_dir))}"
    return True, "nothing written, old outputs kept, no temporary files"


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
        results.append(("float64 and Fortran-order inputs", check_numpy_defaults(args.einplan, root)))
        results.append(("a failed write leaves nothing", check_write_failure(args.einplan, root)))
        for name, (ok, detail) in results:
            print(f"{'PASS' if ok else 'FAIL'}  {name}  {detail}")
            passed, failed = passed + ok, failed + (not ok)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
