#!/usr/bin/python3
"""The plan's GEMM path reaches the program (gemm.h GemmPlanned, plan key gemm_path).

One contraction, Z = X (64 x 256) Y (256 x 96), which einrt's own rule sends to the BLAS (a
reduction longer than 192), planned for 2 ranks; the plan's JSON is then given
`gemm_path: primitive` and `gemm_path: blas` by hand, and each plan is generated, built
and run with --check: the report's gemm_path says what ran ("libxsmm+blas" where LIBXSMM's
tiles ran, "blas" where only the BLAS did) and the numbers pass the program's check on
both paths. Registered where einrt has LIBXSMM (einrt::xsmm), which the programs link.

usage: gemm_path.py --einplan EINPLAN --eincodegen EINCODEGEN --work DIR
"""
import argparse
import json
import pathlib
import shutil
import subprocess
import sys

GRAPH = """name: gemm_path
dtype: f32
inputs:
  - {name: X, shape: [64, 256]}
  - {name: Y, shape: [256, 96]}
nodes:
  - {name: Z, einsum: "ik,kj->ij", inputs: [X, Y]}
outputs: [Z]
"""


def run(cmd, what):
    p = subprocess.run([str(c) for c in cmd], text=True, capture_output=True)
    if p.returncode != 0:
        sys.exit(f"FAIL: {what}: {' '.join(map(str, cmd))} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--einplan", required=True)
    ap.add_argument("--eincodegen", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    work = pathlib.Path(a.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    graph = work / "gemm_path.yaml"
    graph.write_text(GRAPH)
    plan = json.loads(run([a.einplan, "plan", graph, "-p", 2, "--format", "json"], "einplan plan").stdout)
    project = work / "project"
    for path, expected in (("primitive", "libxsmm+blas"), ("blas", "blas")):
        for node in plan["nodes"]:
            node["gemm_path"] = path
        plan_file = work / f"plan_{path}.json"
        plan_file.write_text(json.dumps(plan))
        run([a.eincodegen, graph, "--plan", plan_file, "-o", project, "--force"], f"eincodegen ({path})")
        source = (project / "program.cpp").read_text()
        want = "GemmPlanned::" + path.capitalize()
        if want not in source:
            sys.exit(f"FAIL: program.cpp does not carry the plan's path ({want})")
        run(["make", "-C", project], f"make ({path})")
        report = work / f"report_{path}.json"
        run(["mpirun", "--oversubscribe", "-np", 2, project / "gemm_path", "--check", "--report", report], f"run ({path})")
        r = json.loads(report.read_text())
        if not r.get("check", {}).get("passed"):
            sys.exit(f"FAIL: --check on the {path} path: {r.get('check')}")
        if r.get("gemm_path") != expected:
            sys.exit(f"FAIL: plan gemm_path {path}: the report says {r.get('gemm_path')!r}, expected {expected!r}")
        print(f"gemm_path {path}: ran on {r['gemm_path']!r}, check passed (max_rel_err {r['check'].get('max_rel_err')})")
    print("PASS")


if __name__ == "__main__":
    main()
