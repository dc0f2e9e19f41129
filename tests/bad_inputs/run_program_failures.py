#!/usr/bin/python3
"""Failure modes of an emitted program (issue 7), each with a bounded wait:

  - a wrong rank count is a clear error (exit 2) naming the planned count;
  - --inputs with a missing, malformed (not NumPy), wrongly shaped or int32 .npy, or a FIFO
    in its place: exit 2 naming the file; float64 and Fortran-order files (NumPy's
    defaults) are converted, with a note, and pass --check;
  - NaN or Inf in an input: a warning naming the tensor, and --check fails (exit 1) saying
    which output holds non-finite values instead of passing on matching NaNs;
  - a rank killed mid-run: mpirun ends the job with an error naming the rank;
  - a rank stopped mid-run (the others wait in a collective): --timeout ends the job with
    exit 124 and a message, instead of hanging.

usage: run_program_failures.py EINCODEGEN WORK_DIR
"""
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
import sanitizer_flake  # noqa: E402

GRAPH = """name: failmm
inputs: {X: [192, 192], Y: [192, 192]}
nodes:
  - {name: Z, einsum: "ij,jk->ik", inputs: [X, Y]}
"""
# Min-plus (tropical) shortest paths: +inf is "no edge", and unreachable pairs stay +inf.
MINPLUS = """name: minplus
inputs: {D: [48, 48], E: [48, 48]}
nodes:
  - {name: P, einsum: "ij,jk->ik", join: add, agg: min, inputs: [D, E]}
"""
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
failures = 0


def mpirun(np_, *args):
    return ["mpirun", "--oversubscribe", "-np", str(np_), *[str(a) for a in args]]


def expect(what, cmd, code, fragments, limit_s=120):
    global failures
    try:
        p = sanitizer_flake.run(cmd, capture_output=True, text=True, timeout=limit_s, env=ENV)
        rc, err = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        rc, err = None, "(no answer within %d s)" % limit_s
    ok = rc == code and all(f in err for f in fragments)
    print(f"{'PASS' if ok else 'FAIL'} {what}: exit {rc}")
    if not ok:
        failures += 1
        print("    expected exit", code, "and", fragments, "\n    " + " ".join(cmd) + "\n    " + err.strip()[-1500:])


def rank_pids(mpirun_pid, program):
    """The rank processes mpirun started (its children running the program)."""
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == mpirun_pid and cmdline and cmdline[0].decode(errors="replace") == str(program):
            found.append(int(entry.name))
    return sorted(found)


def disturb_a_rank(what, program, sig, extra, fragments, limit_s=90):
    """Starts a long run on 2 ranks, sends `sig` to one rank, and requires the job to end
    within limit_s with a non-zero status and the fragments in its output."""
    global failures
    cmd = mpirun(2, program, "--iters", 100000, *extra)
    job = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=ENV)
    pids = []
    for _ in range(200):
        pids = rank_pids(job.pid, program)
        if len(pids) == 2:
            break
        time.sleep(0.1)
    time.sleep(2)
    if len(pids) == 2:
        os.kill(pids[1], sig)
    try:
        out, _ = job.communicate(timeout=limit_s)
        rc = job.returncode
    except subprocess.TimeoutExpired:
        job.kill()
        for pid in rank_pids(job.pid, program):
            os.kill(pid, signal.SIGKILL)
        out, rc = job.communicate()[0], None
    ok = len(pids) == 2 and rc not in (None, 0) and all(f in out for f in fragments)
    print(f"{'PASS' if ok else 'FAIL'} {what}: exit {rc}")
    if not ok:
        failures += 1
        print(f"    ranks found: {pids}; expected a non-zero exit within {limit_s} s and {fragments}\n    " + out.strip()[-1500:])


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    eincodegen, work = sys.argv[1], pathlib.Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    graph = work / "failmm.yaml"
    graph.write_text(GRAPH)
    project = work / "project"
    shutil.rmtree(project, ignore_errors=True)  # a folder of an older build may lack eincodegen's marker
    for cmd in ([eincodegen, graph, "-p", "2", "-o", project], ["make", "-C", project]):
        p = sanitizer_flake.run([str(c) for c in cmd], capture_output=True, text=True, env=ENV)
        if p.returncode != 0:
            print(p.stdout, p.stderr)
            raise SystemExit("FAIL: could not build the emitted program")
    program = project / "failmm"

    expect("wrong rank count", mpirun(3, program), 2, ["planned for 2 ranks but runs on 3"])

    rng = np.random.default_rng(7)
    good = {name: rng.uniform(-1, 1, (192, 192)).astype(np.float32) for name in ("X", "Y")}

    def inputs(case, arrays, raw=None):
        folder = work / case
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        for name, a in arrays.items():
            np.save(folder / f"{name}.npy", a)
        for name, data in (raw or {}).items():
            (folder / f"{name}.npy").write_bytes(data)
        return folder

    def fifo_inputs(folder):
        os.mkfifo(folder / "Y.npy")
        return folder

    expect("missing .npy", mpirun(2, program, "--inputs", inputs("missing", {"X": good["X"]})), 2, ["Y.npy"])
    expect("malformed .npy", mpirun(2, program, "--inputs", inputs("malformed", {"X": good["X"]}, {"Y": b"not numpy at all"})),
           2, ["Y.npy"])
    expect("truncated .npy", mpirun(2, program, "--inputs",
                                    inputs("truncated", {"X": good["X"]}, {"Y": b"\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (192, 192), }"})), 2, ["Y.npy"])
    expect(".npy of the wrong shape", mpirun(2, program, "--inputs",
                                             inputs("shape", {"X": good["X"], "Y": good["Y"][:96]})), 2, ["Y.npy"])
    # Integers are read where float32 holds them exactly (an attention mask), refused otherwise.
    expect(".npy of integers float32 cannot hold", mpirun(2, program, "--inputs", inputs(
        "dtype", {"X": good["X"], "Y": np.full(good["Y"].shape, 2**24 + 1, np.int32)})), 2, ["Y.npy", "16777217"])
    expect(".npy of small integers", mpirun(2, program, "--inputs", inputs(
        "ints", {"X": good["X"], "Y": np.ones(good["Y"].shape, np.int64)})), 0, ["int64 data converted to float32"])
    nan = good["X"].copy()
    nan[3, 5] = np.nan
    # NaN and infinities are values: the same NaN or infinity in the same place matches.
    expect("NaN input with --check", mpirun(2, program, "--check", "--inputs", inputs("nan", {"X": nan, "Y": good["Y"]})),
           0, ["X.npy holds 1 NaN value", "check: passed"])
    inf = good["Y"].copy()
    inf[0, 0] = np.inf
    expect("Inf input with --check", mpirun(2, program, "--check", "--inputs", inputs("inf", {"X": good["X"], "Y": inf})),
           0, ["check: passed"])
    expect("finite inputs with --check", mpirun(2, program, "--check", "--inputs", inputs("finite", good)), 0, [])

    # A min-plus graph with unreachable vertices: its exact outputs hold +inf, and --check passes.
    minplus = work / "minplus.yaml"
    minplus.write_text(MINPLUS)
    minplus_project = work / "minplus_project"
    shutil.rmtree(minplus_project, ignore_errors=True)
    for cmd in ([eincodegen, minplus, "-p", "2", "-o", minplus_project], ["make", "-C", minplus_project]):
        p = sanitizer_flake.run([str(c) for c in cmd], capture_output=True, text=True, env=ENV)
        if p.returncode != 0:
            print(p.stdout, p.stderr)
            raise SystemExit("FAIL: could not build the min-plus program")
    weights = rng.uniform(1, 10, (48, 48)).astype(np.float32)
    weights[rng.uniform(size=(48, 48)) < 0.7] = np.inf  # most pairs have no edge
    weights[:, 40:] = np.inf  # vertices 40..47 cannot be reached
    folder = work / "minplus_in"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    np.save(folder / "D.npy", weights)
    np.save(folder / "E.npy", weights)
    out = work / "minplus_out"
    expect("min-plus with unreachable vertices under --check", mpirun(2, minplus_project / "minplus", "--check", "--inputs", folder,
                                                                      "--outputs", out), 0, ["check: passed"])
    want = np.min(weights[:, :, None].astype(np.float64) + weights[None, :, :], axis=1)
    got = np.load(out / "P.npy")
    exact = bool(np.array_equal(np.isinf(got), np.isinf(want)) and np.allclose(got[np.isfinite(want)], want[np.isfinite(want)]))
    print(f"{'PASS' if exact else 'FAIL'} min-plus outputs equal NumPy's, infinities in place")
    failures_here = 0 if exact else 1
    globals()["failures"] += failures_here
    # NumPy's defaults are inputs too: float64 (converted, with a note) and Fortran order.
    expect("float64 and Fortran-order inputs with --check",
           mpirun(2, program, "--check", "--inputs",
                  inputs("defaults", {"X": good["X"].astype(np.float64), "Y": np.asfortranarray(good["Y"])})),
           0, ["X.npy: float64 data converted to float32"])
    expect("a FIFO named Y.npy", mpirun(2, program, "--inputs", fifo_inputs(inputs("fifo", {"X": good["X"]}))),
           2, ["Y.npy", "is a FIFO, not a .npy file"])

    disturb_a_rank("a rank killed mid-run", program, signal.SIGKILL, [], ["rank 1"])
    disturb_a_rank("a rank stopped mid-run, --timeout 5", program, signal.SIGSTOP, ["--timeout", 5],
                   ["still running after --timeout 5 s"])
    print("all failure modes handled" if failures == 0 else f"{failures} failure mode(s) mishandled")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
