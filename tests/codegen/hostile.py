#!/usr/bin/python3
"""Graphs with hostile names (quotes, semicolons, newlines, #include, very long names)
must be rejected by eincodegen with exit 2 and a diagnostic, before anything is written;
so must graphs with nodes the CUDA backend does not run (an index node, a spread window)
under --backend cuda."""
import pathlib
import shutil
import subprocess
import sys

BASE = """name: {graph}
inputs:
  - {{name: {input}, shape: [4, 4]}}
nodes:
  - {{name: {node}, einsum: "{einsum}", inputs: [{input}, {input}]}}
"""
OK = dict(graph="g", input="A", node="B", einsum="ij,jk->ik")
HOSTILE = [
    dict(OK, graph='"evil\\"; int x;"'),
    dict(OK, graph="'a;b'"),
    dict(OK, node='"B\\n#include <cstdlib>"'),
    dict(OK, node="'B\"; system(\"rm -rf /\"); //'"),
    dict(OK, input="'A;B'"),
    dict(OK, node="N" * 80),
    dict(OK, graph="'#include'"),
    dict(OK, einsum="i\\\"j,jk->ik"),
]


def main():
    eincodegen, work = sys.argv[1], pathlib.Path(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    graph = work / "ok.yaml"
    graph.write_text(BASE.format(**OK))
    p = subprocess.run([eincodegen, str(graph), "-p", "2", "-o", str(work / "ok")], capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stderr)
        sys.exit("the benign graph must generate")
    for i, case in enumerate(HOSTILE):
        graph = work / f"hostile{i}.yaml"
        graph.write_text(BASE.format(**case))
        out = work / f"out{i}"
        p = subprocess.run([eincodegen, str(graph), "-p", "2", "-o", str(out)], capture_output=True, text=True)
        print(f"case {i}: exit {p.returncode}: {p.stderr.strip()[:160]!r}")
        if p.returncode != 2 or "error" not in p.stderr or out.exists():
            sys.exit(f"case {i} not rejected cleanly")
    pinned = pathlib.Path(__file__).resolve().parent / "pinned"
    # A widening contraction (bf16 x bf16 -> f32): a host GEMM only, for now.
    widening = work / "widening.yaml"
    widening.write_text("dtype: bf16\ninputs:\n  - {name: A, shape: [8, 8]}\n  - {name: B, shape: [8, 8]}\n"
                        "nodes:\n  - {name: C, einsum: \"ij,jk->ik\", inputs: [A, B], cast: f32}\n")
    for path, message in [(pinned / "vocab_parallel.yaml", "has no index kernel"), (pinned / "convolution.yaml", "reads a spread window"),
                          (widening, "widens 2-byte operands into f32")]:
        name = path.name
        out = work / f"cuda_{name}"
        p = subprocess.run([eincodegen, str(path), "-p", "2", "--backend", "cuda", "-o", str(out)],
                           capture_output=True, text=True)
        print(f"{name} --backend cuda: exit {p.returncode}: {p.stderr.strip()[:160]!r}")
        if p.returncode != 2 or message not in p.stderr or out.exists():
            sys.exit(f"{name} --backend cuda not refused cleanly (exit 2, {message!r}, nothing written)")
    print("all hostile graphs rejected, nothing written")


if __name__ == "__main__":
    main()
