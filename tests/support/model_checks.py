"""What the tests of imported torch models share: running a command that must succeed
(its output printed when it fails), comparing an array with torch's, and running an
imported model's emitted program against torch and its plan."""
import json
import os
import sys

import numpy as np

import sanitizer_flake
from emitted_build import make_command


def run(cmd, **kw):
    """Runs cmd (once more if LeakSanitizer's tracer crashed at exit, sanitizer_flake.py);
    exits with the command and its output when it fails."""
    p = sanitizer_flake.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit(f"FAILED (exit {p.returncode}): {' '.join(map(str, cmd))}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return p


def close(got, want, what, tolerance=1e-5, floor=0.0, width=44):
    """Prints and returns whether got is want within `tolerance`, relative to want's largest
    magnitude or to `floor` where that is larger (a gradient that is zero in exact
    arithmetic, as a key bias's under softmax, is rounding noise)."""
    scale = max(float(np.max(np.abs(want))), floor)
    err = float(np.max(np.abs(got - want))) / scale if got.shape == want.shape else float("inf")
    ok = err <= tolerance
    print(f"  {what:<{width}} max relative error {err:.1e}  {'ok' if ok else 'WRONG'}")
    return ok


def program_matches(eincodegen, graph, weights, want, p, prog, out, env, output="y", fixed_plan=None, check=True, opt="O0"):
    """Emits GRAPH for p ranks (or with its plan FIXED_PLAN), builds PROG and runs it on the
    .npy files of WEIGHTS (with --check unless told: rank 0's recomputation of the whole
    graph, seconds on a resnet); prints and returns whether OUTPUT is torch's WANT and the
    program's bytes and peaks are the plan's. Built at -O0 (`opt`): small layers compile in a
    third of -O1's time and run in milliseconds; a resnet's convolutions want O1."""
    source = ["--plan", fixed_plan] if fixed_plan else ["-p", p]
    run([eincodegen, graph, *source, "-o", prog, "--force"])
    run(make_command(prog, "-j2", opt=opt), env=env)
    report = out + ".report.json"
    run(["mpirun", "--oversubscribe", "-np", p, os.path.join(prog, "torch_jit"), "--inputs", weights, "--outputs", out,
         *(["--check"] if check else []), "--iters", 1, "--report", report], env=env, timeout=300)
    ok = close(np.load(os.path.join(out, output + ".npy")), want, f"mpirun -np {p} program vs torch")
    r = json.load(open(report))
    same = r["bytes_sent"] == r["bytes_predicted"] and r["peak_bytes_per_rank"] == r["peak_bytes_predicted_per_rank"]
    print(f"  bytes {r['bytes_sent']} / {r['bytes_predicted']} planned, peaks {r['peak_bytes_per_rank']} / "
          f"{r['peak_bytes_predicted_per_rank']} planned  {'ok' if same else 'WRONG'}")
    return ok and same
