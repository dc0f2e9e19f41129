"""What the tests of imported torch models share: running a command that must succeed
(its output printed when it fails) and comparing an array with torch's."""
import sys

import numpy as np

import sanitizer_flake


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
