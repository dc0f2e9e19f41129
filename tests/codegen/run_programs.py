#!/usr/bin/python3
"""End-to-end check of emitted programs for one graph over several device counts.

For every p: `einplan plan GRAPH -p p -o plan.json`, `eincodegen GRAPH --plan plan.json -o
PROJECT` (the same project folder and command line for every p, so kernels.cpp stays as it
was and `make` recompiles only the plan's tables in program.cpp),
`make -C PROJECT`, then `mpirun -np p PROJECT/NAME [--check] --seed S --outputs OUT --report
R.json`. Plans are made for a cluster of two ranks per node (a machine file with
ranks_per_node: 2, SPEC 9), so every run with more than two ranks also has bytes between
nodes. It requires: exit 0, measured bytes == predicted bytes == the plan's
traffic_bytes (total and per node), the same for the split by link (intra_node_bytes and
inter_node_bytes, total and per node, measured by the program's counters == the plan's), no bytes at p = 1, and every output equal to `einplan eval --seed S` (the reference
evaluator, a separate implementation) within the dtype's tolerance, compared with NumPy.
At one p (the largest up to 4) the program runs with --check (which must pass: rank 0's
whole-graph recomputation, the same at every p) and it also checks that `eincodegen -p p` emits the same plan as
`einplan plan -p p`, that a wrong rank count is a clear error, that random
.npy inputs (--inputs, scattered from rank 0) give `einplan eval --inputs` outputs and that
a missing input file is a clear error. With --inputs DIR every run (eval and programs)
reads DIR's .npy files instead of generating its inputs.

--graph may name several graphs: they are merged into one (every tensor name prefixed
with its graph's stem, so one project, one build and one run per p cover them all), and
--dtype sets the element type of the graph that runs (issue 22: bf16 and f16 for every
example family at p = 1, 2, 3, 4 in one build per type).
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

import numpy as np
import yaml

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
import sanitizer_flake  # noqa: E402
from emitted_build import make_command  # noqa: E402

# Against einplan eval (double arithmetic, each node's result rounded once to the dtype):
# the programs round at the same places, but from f32 sums taken in another order, so an
# output may differ by a few roundings of the type after the nodes before it.
# A cluster of two ranks per node with slow links between nodes: the plans' bytes are
# split by link, which the programs measure (the program learns ranks_per_node from the plan).
CLUSTER_MACHINE = """latency: 2 us
bandwidth: 100 GB/s
flops: 1 TFLOP/s
memory_bandwidth: 100 GB/s
ranks_per_node: 2
inter_node_latency: 10 us
inter_node_bandwidth: 10 GB/s
"""

TOLERANCE = {"f32": 1e-4, "f64": 1e-10, "bf16": 6e-2, "f16": 8e-3}
NPY_INPUT_TYPE = {"f32": np.float32, "f64": np.float64, "bf16": np.float32, "f16": np.float16}


def load_graph(path):
    text = pathlib.Path(path).read_text()
    g = yaml.safe_load(text)  # JSON is YAML
    if isinstance(g.get("inputs"), dict):
        g["inputs"] = [dict(v, name=k) if isinstance(v, dict) else {"name": k, "shape": v} for k, v in g["inputs"].items()]
    return g


def merged_graph(paths, dtype, out):
    """One graph holding every graph of `paths`, names prefixed by their graph's stem."""
    merged = {"name": "families", "dtype": dtype or "f32", "inputs": [], "nodes": [], "outputs": []}
    for path in paths:
        g = load_graph(path)
        prefix = "".join(c if c.isalnum() else "_" for c in pathlib.Path(path).stem) + "_"
        for t in g["inputs"]:
            merged["inputs"].append(dict(t, name=prefix + t["name"]))
        for n in g["nodes"]:
            merged["nodes"].append(dict(n, name=prefix + n["name"], inputs=[prefix + i for i in n["inputs"]]))
        outs = g.get("outputs") or [n["name"] for n in g["nodes"]
                                    if not any(n["name"] in m["inputs"] for m in g["nodes"])]
        merged["outputs"] += [prefix + o for o in outs]
        if "sizes" in g:
            sys.exit(f"{path}: graph-level sizes cannot be merged")
    out.write_text(yaml.safe_dump(merged, sort_keys=False))
    return out


def run(cmd, **kw):
    start = time.monotonic()
    done = sanitizer_flake.run([str(c) for c in cmd], text=True, capture_output=True, **kw)
    print(f"+ ({time.monotonic() - start:.1f} s)", " ".join(str(c) for c in cmd), flush=True)
    return done


def require(ok, what, proc=None):
    if ok:
        return
    if proc is not None:
        print(proc.stdout, proc.stderr, sep="\n")
    print("FAILED:", what)
    sys.exit(1)


def compare_outputs(ref, out, dtype, what):
    tol = TOLERANCE[dtype]
    refs = sorted(ref.glob("*.npy"))
    require(len(refs) > 0 and len(refs) == len(list(out.glob("*.npy"))), f"{what}: same outputs as einplan eval")
    for f in refs:
        want = np.load(f)
        got = np.load(out / f.name)
        require(got.shape == want.shape and got.dtype == want.dtype, f"{what}: {f.name}: shape/dtype")
        # NaN and infinities are values (f16 overflows where f32 does not): the same in the
        # same places; the finite elements are held to the tolerance.
        got, want = got.astype(np.float64), want.astype(np.float64)
        special = ~np.isfinite(want) | ~np.isfinite(got)
        require(np.array_equal(np.isnan(got), np.isnan(want)) and np.array_equal(got[np.isinf(want)], want[np.isinf(want)]),
                f"{what}: {f.name}: NaN or infinity where einplan eval has none, or the other way round")
        got, want = got[~special], want[~special]
        scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
        err = float(np.max(np.abs(got - want))) if want.size else 0.0
        require(err <= tol * scale, f"{what}: {f.name}: max abs error {err} > {tol * scale}")


def id_ranges(g):
    """The range of every index input's ids: the size of the label its gathers and scatters
    select (graph files spell these einsums with one-letter labels)."""
    shapes = {t["name"]: t["shape"] for t in g["inputs"]}
    ranges = {}
    for n in g["nodes"]:
        if n.get("join") not in ("gather", "scatter"):
            continue
        (ids, values), out = n["einsum"].replace(" ", "").split("->")[0].split(","), n["einsum"].split("->")[1].strip()
        if n["join"] == "gather":
            (v,) = [l for l in values if l not in ids and l not in out]
            size = shapes[n["inputs"][1]][values.index(v)]
        else:
            (v,) = [l for l in out if l not in ids and l not in values]
            size = n["sizes"][v]
        ranges[n["inputs"][0]] = min(size, ranges.get(n["inputs"][0], size))
    return ranges


def check_npy_inputs(a, env, work, program, ranks, dtype):
    """--inputs: random .npy inputs scattered from rank 0 give einplan eval's outputs."""
    graph = load_graph(a.graph)
    ranges = id_ranges(graph)
    ins = work / "npy_inputs"
    ins.mkdir()
    rng = np.random.default_rng(a.seed)
    for t in graph["inputs"]:
        if t.get("dtype") in ("i32", "i64"):  # ids within their range, in their own type
            value = rng.integers(0, ranges.get(t["name"], 1), t["shape"]).astype(np.int32 if t["dtype"] == "i32" else np.int64)
        else:
            value = rng.uniform(-1, 1, t["shape"]).astype(NPY_INPUT_TYPE[dtype])
        np.save(ins / (t["name"] + ".npy"), value)
    ref, out = work / "npy_reference", work / "npy_out"
    ref.mkdir()
    out.mkdir()
    p = run([a.einplan, "eval", a.graph, "--inputs", ins, "--outputs", ref], env=env)
    require(p.returncode == 0, "einplan eval --inputs", p)
    p = run(["mpirun", "--oversubscribe", "-np", ranks, program, "--check", "--inputs", ins, "--outputs", out], env=env)
    require(p.returncode == 0, f"program --inputs at p={ranks}", p)
    compare_outputs(ref, out, dtype, f"--inputs at p={ranks}")
    missing = graph["inputs"][0]["name"] + ".npy"
    (ins / missing).unlink()
    p = run(["mpirun", "--oversubscribe", "-np", ranks, program, "--inputs", ins], env=env)
    require(p.returncode != 0 and missing in p.stderr, "a missing input file is a clear error", p)
    print(f"--inputs at p={ranks}: ok")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--einplan", required=True)
    ap.add_argument("--eincodegen", required=True)
    ap.add_argument("--graph", required=True, nargs="+")
    ap.add_argument("--dtype", choices=["f32", "f64", "bf16", "f16"], help="run the graph in this element type")
    ap.add_argument("--work", required=True)
    ap.add_argument("--ranks", default="1,2,3,4,6,8")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--inputs", help="a folder of .npy inputs every run reads (default: the seeded generator's), "
                                     "for graphs whose inputs must be in a range (an optimizer's state)")
    ap.add_argument("--algorithm", default="eindecomp")
    ap.add_argument("--opt", choices=["O0", "O1"], default="O1",
                    help="the emitted project's optimization level (O0: many tiny nodes, compile time dominates)")
    ap.add_argument("--fix", action="append", default=[],
                    help="NODE=LABEL:p pins a node's partition for every plan (the letter p: the rank count)")
    ap.add_argument("--max-flops", type=float, default=3e8,
                    help="skip (exit 77) graphs whose FLOPs (einplan check) exceed this: they do not run in seconds")
    a = ap.parse_args()
    work = pathlib.Path(a.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    if len(a.graph) > 1 or a.dtype:
        a.graph = str(merged_graph(a.graph, a.dtype or load_graph(a.graph[0]).get("dtype"), work / "graph.yaml"))
    else:
        a.graph = a.graph[0]
    check = subprocess.run([a.einplan, "check", a.graph, "--format", "json"], text=True, capture_output=True)
    require(check.returncode == 0, "einplan check", check)
    flops = json.loads(check.stdout).get("totals", {}).get("flops", 0)
    if flops > a.max_flops:
        print(f"SKIPPED: {a.graph} has {flops:.3g} FLOPs (> {a.max_flops:.3g}); not a few-second example")
        sys.exit(77)

    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1")

    ref = work / "reference"
    ref.mkdir()
    source = ["--inputs", a.inputs] if a.inputs else ["--seed", a.seed]
    p = run([a.einplan, "eval", a.graph, *source, "--outputs", ref], env=env)
    require(p.returncode == 0, "einplan eval", p)

    project = work / "project"
    machine = work / "cluster.yaml"
    machine.write_text(CLUSTER_MACHINE)
    plan = work / "plan.json"
    counts = [int(r) for r in a.ranks.split(",")]
    # The input-file and rank-count checks run at one p: the largest up to 4 (scattering
    # from rank 0 to several ranks), not at 8, where starting the ranks dominates.
    extras_at = max([r for r in counts if r <= 4] or counts)
    for ranks in counts:
        pins = [arg for fix in a.fix for arg in ("--fix", fix.replace(":p", f":{ranks}"))]
        p = run([a.einplan, "plan", a.graph, "-p", ranks, "--algorithm", a.algorithm, "--machine", machine, *pins, "-o", plan],
                env=env)
        require(p.returncode == 0, f"einplan plan -p {ranks}", p)
        p = run([a.eincodegen, a.graph, "--plan", plan, "-o", project], env=env)
        require(p.returncode == 0, f"eincodegen for p={ranks}", p)
        p = run(make_command(project, "JOBS=1", opt=a.opt), env=env)
        require(p.returncode == 0, f"make for p={ranks}", p)
        programs = [f for f in project.iterdir() if f.is_file() and os.access(f, os.X_OK) and f.suffix == ""]
        require(len(programs) == 1, f"one program in {project}: {programs}")
        program = programs[0]
        out = work / f"out{ranks}"
        out.mkdir()
        report = work / f"report{ranks}.json"
        # --check (rank 0 computes the whole graph again, with whole-tensor kernels and, on
        # small graphs, plain loops: the same work at every p, most of a run) at one p; at
        # every p the outputs are compared with einplan eval's, the independent oracle.
        checking = ranks == extras_at
        p = run(["mpirun", "--oversubscribe", "-np", ranks, program, *(["--check"] if checking else []), *source,
                 "--ranks-per-node", 2, "--outputs", out, "--report", report, "--iters", 2, "--warmup", 1], env=env)
        print(p.stdout)
        require(p.returncode == 0, f"program run with p={ranks}", p)
        r = json.loads(report.read_text())
        for key in ["ranks", "backend", "dtype", "iters", "time_s", "gflops", "bytes_sent", "bytes_predicted", "nodes"]:
            require(key in r, f"report key {key}")
        require(r["ranks"] == ranks and r["iters"] == 2 and r["backend"] == "cpu", "report header")
        require(not checking or r.get("check", {}).get("passed") is True, f"--check passed at p={ranks}")
        require(r["bytes_sent"] == r["bytes_predicted"], f"measured {r['bytes_sent']} == predicted {r['bytes_predicted']} bytes")
        for n in r["nodes"]:
            require(n["bytes_sent"] == n["bytes_predicted"], f"node {n['name']}: {n['bytes_sent']} == {n['bytes_predicted']}")
        # The plan einplan wrote is the program: its traffic, node by node, is what the
        # program's byte counters measured.
        planned = json.loads(plan.read_text())
        require(r["bytes_sent"] == planned["total_traffic_bytes"],
                f"measured {r['bytes_sent']} == the plan's total_traffic_bytes {planned['total_traffic_bytes']}")
        traffic = {n["name"]: n for n in planned["nodes"]}
        for n in r["nodes"]:
            require(n["bytes_sent"] == traffic[n["name"]]["traffic_bytes"],
                    f"node {n['name']}: measured {n['bytes_sent']} == the plan's traffic_bytes {traffic[n['name']]['traffic_bytes']}")
        # The split by link (SPEC 9): what the counters saw cross nodes is the plan's.
        require(r["ranks_per_node"] == 2 or ranks <= 2, f"the program splits by the plan's 2 ranks per node ({r['ranks_per_node']})")
        for key in ["intra_node_bytes", "inter_node_bytes"]:
            require(r[key] == planned[key], f"measured {key} {r[key]} == the plan's {planned[key]}")
            for n in r["nodes"]:
                require(n[key] == traffic[n["name"]][key],
                        f"node {n['name']}: measured {key} {n[key]} == the plan's {traffic[n['name']][key]}")
        if ranks <= 2:
            require(r["inter_node_bytes"] == 0, "one node sends nothing between nodes")
        # Memory (SPEC 3.2): each rank's allocator high-water mark is the plan's peak.
        require(r["peak_bytes_per_rank"] == r["peak_bytes_predicted_per_rank"],
                f"measured peak per rank {r['peak_bytes_per_rank']} == predicted {r['peak_bytes_predicted_per_rank']}")
        require(r["peak_bytes_predicted_per_rank"] == planned["peak_bytes_per_rank"],
                f"the program's predicted peaks {r['peak_bytes_predicted_per_rank']} == the plan's {planned['peak_bytes_per_rank']}")
        require(r["peak_bytes"] == planned["peak_bytes_per_device"], "peak_bytes == the plan's peak_bytes_per_device")
        if ranks == 1:
            require(r["bytes_sent"] == 0, "one rank sends nothing")
        compare_outputs(ref, out, r["dtype"], f"p={ranks}")
        print(f"p={ranks}: ok, {r['bytes_sent']} bytes" + (f", check max_rel_err {r['check']['max_rel_err']}" if checking else ""))
        if ranks == extras_at:
            # Both tools plan alike: `eincodegen -p N` emits exactly the plan `einplan plan
            # -p N` wrote (same options), apart from who wrote it and the search time.
            direct = work / "project_direct"
            p = run([a.eincodegen, a.graph, "-p", ranks, "--algorithm", a.algorithm, "--machine", machine, *pins, "-o", direct],
                    env=env)
            require(p.returncode == 0, f"eincodegen -p {ranks}", p)
            def comparable(path):
                d = json.loads(path.read_text())
                for key in ["search_time_s", "command", "tool"]:
                    d.pop(key, None)
                return d
            require(comparable(direct / "plan.json") == comparable(plan),
                    f"eincodegen -p {ranks} emits the plan einplan plan -p {ranks} wrote")
            # Once per graph (each check costs a start of every rank).
            if ranks > 1:
                p = run(["mpirun", "--oversubscribe", "-np", ranks - 1, program], env=env)
                require(p.returncode != 0 and "planned for" in p.stderr, "wrong rank count is an error", p)
            if not a.inputs:  # (with --inputs every run reads .npy files)
                check_npy_inputs(a, env, work, program, ranks, r["dtype"])
        if ranks in (1, 2, 4):
            # Two threads per rank (issue 29: p = 1, 2, 4): GEMM items, permutations, the
            # kernels and the tiles of fused groups split between threads give the same
            # outputs. One rank gets both cores (mpirun binds a rank to one by default).
            out_threads = work / f"out{ranks}_threads"
            out_threads.mkdir()
            binding = ["--map-by", "slot:PE=2"] if ranks == 1 and (os.cpu_count() or 1) >= 2 else []
            p = run(["mpirun", "--oversubscribe", *binding, "-np", ranks, program, *source, "--threads", 2,
                     "--outputs", out_threads, "--iters", 1, "--warmup", 0, "--report", work / "report_threads.json"], env=env)
            require(p.returncode == 0, f"program run with p={ranks} --threads 2", p)
            rt = json.loads((work / "report_threads.json").read_text())
            workspace = planned["tile_workspace_bytes_per_rank"]
            require(rt["peak_bytes_per_rank"] == [a + b for a, b in zip(planned["peak_bytes_per_rank"], workspace)],
                    f"--threads 2: measured peaks {rt['peak_bytes_per_rank']} == the plan's plus one tile workspace {workspace}")
            compare_outputs(ref, out_threads, r["dtype"], f"p={ranks} --threads 2")
    print("all device counts passed")


if __name__ == "__main__":
    main()
