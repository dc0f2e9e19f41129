"""What the end-to-end test scripts share to run a command and check a result: a failure
ends the test with the command and its whole output (the brief: a test that fails says
why), a check prints its line either way."""
import os
import subprocess
import sys

# mpirun as root, one BLAS and OpenMP thread per rank (several ranks share the 2 cores).
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OPENBLAS_NUM_THREADS="1",
           OMP_NUM_THREADS="1")


def run(cmd, expect=0):
    """cmd's completed process; exits the test where its status is not `expect`."""
    cmd = [str(c) for c in cmd]
    p = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=600)
    if p.returncode != expect:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode} (expected {expect})\n{p.stdout}\n{p.stderr}")
    return p


def require(ok, what):
    print(f"  {what}: {'ok' if ok else 'WRONG'}")
    if not ok:
        sys.exit(f"FAIL: {what}")
