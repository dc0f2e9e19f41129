#!/usr/bin/env python3
"""The memory side of planning (issue 20, SPEC 3.2), two tables.

1. LLaMA-7B (32 layers, f32, batch 8, seq 1024) at p = 8 under --mem-limit 8 GiB and
   16 GiB: eindecomp (constrained), the hand strategies (megatron, sequence, heads) and
   data — the predicted peak per rank, the traffic, the estimated time with a machine file
   (einrt-calibrate, measured on this machine unless --machine is given), and whether the
   plan fits. Planning only: the model does not fit this machine.
2. A scaled-down LLaMA that runs here (4 layers, dim 512, 8 heads, ffn 1376, vocab 2000,
   seq 256) at p = 2: each rank's predicted peak, the peak its allocator counter measured,
   and its resident set (ru_maxrss through /usr/bin/time) minus that of an empty program
   (a one-node graph built and run the same way), against the done-when bound
   |RSS - empty - predicted| <= 25 % of predicted + 16 MiB.

Usage: bench/memory/run.py --build build [--machine machine.yaml] [--work DIR]
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

GIB = 1024 ** 3
MIB = 1024 ** 2


def run(cmd, **kw):
    p = subprocess.run([str(c) for c in cmd], text=True, capture_output=True, **kw)
    if p.returncode not in kw.pop("ok", (0,)):
        sys.exit(f"failed ({p.returncode}): {' '.join(map(str, cmd))}\n{p.stderr}")
    return p


def planning_table(einplan, work, machine):
    gen = [einplan, "gen", "llama", "--preset", "7b", "--batch", "8", "--seq", "1024"]
    graph = work / "llama7b.yaml"
    run(gen + ["-o", graph])
    plans = []
    for s in ["megatron", "sequence", "heads"]:
        run(gen + ["--strategy", s, "-p", "8", "-o", work / f"{s}.json"])
        plans.append(str(work / f"{s}.json"))
    print("## LLaMA-7B (32 layers, f32, batch 8, seq 1024), p = 8, planned\n")
    print("| --mem-limit | plan | fits | peak per rank (max) | traffic per execution | estimated time |")
    print("|---|---|---|---|---|---|")
    for limit in ["8GiB", "16GiB"]:
        p = subprocess.run([einplan, "compare", graph, "-p", "8", "--algorithms", "eindecomp,data", "--plans", ",".join(plans),
                            "--mem-limit", limit, "--machine", machine, "--format", "json"], text=True, capture_output=True)
        data = json.loads(p.stdout)
        for e in data["algorithms"]:
            name = e["algorithm"]
            r = None if "error" in e else e
            if not r:
                # Not fitting: price the plan without the limit to show its peak.
                free = None
                if name.endswith(".json"):
                    free = json.loads(run([einplan, "cost", graph, "--plan", work / name, "--machine", machine, "--format", "json"]).stdout)
                else:
                    free = json.loads(run([einplan, "plan", graph, "-p", "8", "--algorithm", name, "--machine", machine,
                                           "--format", "json"]).stdout)
                print(f"| {limit} | {name} | no | {max(free['peak_bytes_per_rank']) / GIB:.2f} GiB | "
                      f"{free['total_traffic_bytes'] / GIB:.1f} GiB | {free['estimated_time_s']:.2f} s |")
                continue
            print(f"| {limit} | {name} | yes | {max(r['peak_bytes_per_rank']) / GIB:.2f} GiB | "
                  f"{r['total_traffic_bytes'] / GIB:.1f} GiB | {r['estimated_time_s']:.2f} s |")
    print()


def build_program(einplan, eincodegen, graph, ranks, work, name, env):
    plan = work / f"{name}.plan.json"
    run([einplan, "plan", graph, "-p", ranks, "-o", plan])
    project = work / name
    run([eincodegen, graph, "--plan", plan, "-o", project], env=env)
    run(["make", "-C", project, "JOBS=2"], env=env)
    programs = [f for f in project.iterdir() if f.is_file() and os.access(f, os.X_OK) and f.suffix == ""]
    return programs[0], json.loads(plan.read_text())


def rss_per_rank(program, ranks, work, name, env):
    """Max RSS (KiB) of every rank via /usr/bin/time, and the program's report."""
    report = work / f"{name}.report.json"
    wrapper = work / f"{name}.sh"
    wrapper.write_text("#!/bin/sh\nexec /usr/bin/time -f \"%M\" -o \"" + str(work) + "/" + name +
                       ".rss.$OMPI_COMM_WORLD_RANK\" \"$@\"\n")
    wrapper.chmod(0o755)
    run(["mpirun", "--oversubscribe", "-np", ranks, wrapper, program, "--iters", "2", "--warmup", "1", "--report", report], env=env)
    rss = [int((work / f"{name}.rss.{r}").read_text().split()[-1]) * 1024 for r in range(ranks)]
    return rss, json.loads(report.read_text())


def measured_table(einplan, eincodegen, work):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1")
    ranks = 2
    small = work / "llama-small.yaml"
    run([einplan, "gen", "llama", "--layers", "4", "--dim", "512", "--heads", "8", "--ffn", "1376", "--vocab", "2000",
         "--seq", "256", "-o", small])
    empty = work / "empty.yaml"
    empty.write_text("name: empty\ninputs: {X: [2, 2]}\nnodes:\n  - {name: Y, einsum: \"ij->ij\", join: \"x + 1\", inputs: [X]}\n")
    program, plan = build_program(einplan, eincodegen, small, ranks, work, "small", env)
    empty_program, _ = build_program(einplan, eincodegen, empty, ranks, work, "empty", env)
    rss, report = rss_per_rank(program, ranks, work, "small", env)
    empty_rss, _ = rss_per_rank(empty_program, ranks, work, "empty", env)
    print("## Scaled-down LLaMA (4 layers, dim 512, 8 heads, ffn 1376, vocab 2000, seq 256), p = 2, run here\n")
    print("| rank | predicted peak | measured peak (allocator) | RSS | RSS - empty program | (RSS - empty) / predicted | within 25 % + 16 MiB |")
    print("|---|---|---|---|---|---|---|")
    ok = True
    for r in range(ranks):
        predicted = plan["peak_bytes_per_rank"][r]
        measured = report["peak_bytes_per_rank"][r]
        extra = rss[r] - empty_rss[r]
        within = abs(extra - predicted) <= 0.25 * predicted + 16 * MIB
        ok = ok and within and measured == predicted
        print(f"| {r} | {predicted / MIB:.2f} MiB | {measured / MIB:.2f} MiB | {rss[r] / MIB:.1f} MiB | {extra / MIB:.1f} MiB | "
              f"{extra / predicted:.2f} | {'yes' if within else 'NO'} |")
    print(f"\nempty program RSS per rank: {', '.join(f'{x / MIB:.1f} MiB' for x in empty_rss)}; "
          f"measured == predicted on every rank: {report['peak_bytes_per_rank'] == plan['peak_bytes_per_rank']}")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--machine", help="a machine file (default: einrt-calibrate on 2 ranks, here)")
    ap.add_argument("--work", help="keep the files here (default: a temporary folder)")
    a = ap.parse_args()
    bindir = pathlib.Path(a.build).resolve() / "bin"
    einplan, eincodegen = bindir / "einplan", bindir / "eincodegen"
    work = pathlib.Path(a.work or tempfile.mkdtemp(prefix="bench-memory-"))
    work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OPENBLAS_NUM_THREADS="1")
    machine = a.machine
    if not machine:
        machine = work / "machine.yaml"
        run(["mpirun", "--oversubscribe", "-np", "2", bindir / "einrt-calibrate", "-o", machine], env=env)
    print(f"load average: {os.getloadavg()[0]:.2f}\n")
    planning_table(einplan, work, machine)
    ok = measured_table(einplan, eincodegen, work)
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
