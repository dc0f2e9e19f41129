"""Runs a command again when LeakSanitizer itself crashed at exit, and only then.

Under `make test-asan`, LeakSanitizer's stop-the-world tracer sometimes segfaults while a
process exits ("Tracer caught signal 11" followed by "LeakSanitizer has encountered a fatal
error"), reporting no leak: a known sanitizer bug (google/sanitizers#1170). MPI ranks run
with detect_leaks=0 for that reason (Makefile, test-asan); should it hit another process
started by a test script (einplan, eincodegen, mpirun itself), the command runs a second
time. A reported leak ("detected memory leaks"), any other sanitizer
error and every other failure are returned as they are, on the first run.
"""
import subprocess
import sys

TRACER_CRASH = ("Tracer caught signal", "LeakSanitizer has encountered a fatal error")


def tracer_crashed(proc):
    text = (proc.stdout or "") + (proc.stderr or "")
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    return (proc.returncode != 0 and all(s in text for s in TRACER_CRASH)
            and "detected memory leaks" not in text)


def run(cmd, **kw):
    """subprocess.run(cmd, **kw), once more if the first run ended in the tracer crash."""
    proc = subprocess.run(cmd, **kw)
    if kw.get("capture_output") and tracer_crashed(proc):
        print("note: LeakSanitizer's tracer crashed at exit (no leak reported); running once more:",
              " ".join(str(c) for c in cmd), file=sys.stderr, flush=True)
        proc = subprocess.run(cmd, **kw)
    return proc
