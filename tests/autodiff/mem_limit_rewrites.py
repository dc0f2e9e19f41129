#!/usr/bin/python3
"""The rewrites of a training step's graph that trade traffic or FLOPs for memory (issue
"Training as people train"), on a small LLaMA training step (`einplan gen llama --train`,
two layers) at each given p:

--rewrite recompute: nodes computed again.
0. Once, at p = 3: a request no plan fits gives the same answer with both CPUs busy (the
   descents' budgets count work, not seconds: pricing_budget.h).
1. L is 3 % below the smallest peak the search reaches without rewrites (read from the
   exit-3 message of `einplan plan --no-recompute --no-shard` under a limit it cannot meet).
2. `einplan plan --mem-limit L --no-shard` is exit 0: the plan lists its `recompute`
   entries (and no `shard_at_rest`), its predicted peak is at most L.
3. With both rewrites allowed, a limit of 90 % of that smallest peak fits by recomputing
   (recomputation is tried from the graph as written as well as from the sharded one).

--rewrite shard: the weights sharded at rest (ZeRO-3). On a graph this small the search
under a limit prefers cutting the weights themselves, so the entries come from the hand
strategy `einplan gen llama ... --strategy zero3 -p P` (data-parallel partitions, every
trained weight sharded at rest).
1. Its plan lists every trained weight (an input its update reads), with a copy node
   before every other reader; `einplan plan --plan` of it is the same plan.

--rewrite megatron: no rewrite, the tensor-parallel hand strategy of a training step
(`--strategy megatron -p P --tensor-parallel 2`, all P ranks where P is odd): the backward
and the updates cut by the forward dimensions they stand for (heads, feed-forward width,
vocabulary inside a group, the rest across groups), every node at the calls the plan
reader expects.
1. Every node of the plan runs P calls (or is a fallback: the largest feasible count, which
   `einplan cost --plan` then checks), and at an even P the weights' gradients are cut
   along the heads or the feed-forward width as the forward is.

Then, for all three: `einplan cost --plan` of the plan gives the same peaks; eincodegen --plan,
built and run with --check: every rank's measured peak equals the plan's prediction, the
bytes sent equal the plan's, and every output equals `einplan eval` of the graph as
written (no rewrite: an independent run of the reference evaluator).

A failure prints the command and its output.
usage: mem_limit_rewrites.py --einplan E --eincodegen C --work DIR --rewrite recompute|shard|megatron [--ranks 2,4]
       [--quick]   (recompute: without steps 0 and 3; the sanitizer build, whose descents are slow)
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checked_run import require, run  # noqa: E402
from emitted_build import make_command  # noqa: E402



def run_loaded(cmd, expect=0):
    """run(cmd) while two busy processes compete for the CPUs."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        return run(cmd, expect)
    finally:
        for h in hogs:
            h.kill()
            h.wait()


def graph_inputs(einplan, graph):
    """The graph's inputs as `einplan check --format json` lists them."""
    summary = json.loads(run([einplan, "check", graph, "--format", "json"]).stdout)
    return [t for t in summary["tensors"] if t["kind"] == "input"]


def same_answer_when_loaded(einplan, graph):
    """The descents under --mem-limit stop by a budget of work, not of seconds: a request that
    no plan fits names the same smallest peak with both CPUs busy (at p = 3, where the
    wall-clock budget's descent stopped at a different node on every run)."""
    print("p = 3, idle and loaded:")
    floor = run([einplan, "plan", graph, "-p", 3, "--mem-limit", 1], expect=3).stderr
    limit = int(re.search(r"need (\d+) bytes", floor).group(1)) + 1
    request = [einplan, "plan", graph, "-p", 3, "--mem-limit", limit, "--no-recompute", "--no-shard"]
    idle = run(request, expect=3).stderr
    loaded = run_loaded(request, expect=3).stderr
    require(idle == loaded, f"the same answer with both CPUs busy: {loaded.strip()[-90:]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--einplan", required=True)
    ap.add_argument("--eincodegen", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--ranks", default="2,4")
    ap.add_argument("--rewrite", choices=["recompute", "shard", "megatron"], required=True)
    ap.add_argument("--quick", action="store_true",
                    help="recompute: leave out step 0 and step 3 (the sanitizer build: its descents are slow)")
    a = ap.parse_args()
    work = pathlib.Path(a.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    graph = work / "train.yaml"
    gen = [a.einplan, "gen", "llama", "--layers", 2, "--dim", 64, "--heads", 4, "--ffn", 172, "--vocab", 100, "--seq", 16,
           "--batch", 2, "--train"]
    run(gen + ["-o", graph])
    reference = work / "reference"
    run([a.einplan, "eval", graph, "--seed", 7, "--outputs", reference])
    project = work / "project"
    if a.rewrite == "recompute" and not a.quick:
        same_answer_when_loaded(a.einplan, graph)
    for p in [int(r) for r in a.ranks.split(",")]:
        print(f"p = {p}:")
        plan = work / f"plan{p}.json"
        if a.rewrite == "recompute":
            # The smallest peak without rewrites: the search's own figure, from a limit it
            # cannot meet (the inputs' and outputs' floor plus one byte).
            floor = run([a.einplan, "plan", graph, "-p", p, "--mem-limit", 1], expect=3).stderr
            need = int(re.search(r"need (\d+) bytes", floor).group(1))
            plain = run([a.einplan, "plan", graph, "-p", p, "--mem-limit", need + 1, "--no-recompute", "--no-shard"],
                        expect=3).stderr
            smallest = int(re.search(r"smallest peak eindecomp reached is (\d+) bytes", plain).group(1))
            limit = smallest * 97 // 100  # below every plan the search finds without rewrites
            run([a.einplan, "plan", graph, "-p", p, "--mem-limit", limit, "--no-shard", "-o", plan])
            planned = json.loads(plan.read_text())
            entries = planned.get("recompute", [])
            require(len(entries) > 0 and not planned.get("shard_at_rest"),
                    f"the plan under --mem-limit {limit} ({smallest} without rewrites) recomputes {len(entries)} "
                    f"node(s) and shards nothing: {', '.join(e['node'] for e in entries)}")
            require(planned["peak_bytes_per_device"] <= limit,
                    f"its predicted peak {planned['peak_bytes_per_device']} <= {limit}")
            # Both rewrites allowed, at 90 %: sharding alone does not fit, recomputation from
            # the sharded graph does not either, recomputation from the graph as written does
            # (exit 3 while recomputation started only from the sharded graph).
            tighter = smallest * 90 // 100
            if not a.quick:
                both = json.loads(run([a.einplan, "plan", graph, "-p", p, "--mem-limit", tighter, "--format",
                                       "json"]).stdout)
                require(both["peak_bytes_per_device"] <= tighter and both.get("recompute"),
                        f"--mem-limit {tighter} with both rewrites allowed fits by recomputing "
                        f"({len(both.get('recompute', []))} entries, {len(both.get('shard_at_rest', []))} inputs sharded)")
        elif a.rewrite == "megatron":
            groups = ["--tensor-parallel", 2] if p % 2 == 0 else []
            run(gen + ["--strategy", "megatron", "-p", p] + groups + ["-o", plan])
            planned = json.loads(plan.read_text())
            short = [n["name"] for n in planned["nodes"] if n["kernel_calls"] != p and not n.get("fallback")]
            require(not short, f"every node runs {p} calls or is a fallback ({len(short)} short: {', '.join(short[:5])})")
            cuts = {n["name"]: n["partition"] for n in planned["nodes"]}
            # grad_L0_wq's labels are (heads, rotary pair, head dim, model dim) in einplan
            # grad's names: cut along the heads as L0_q is, its partial sums over batch and
            # sequence reduced; grad_L0_w2 along the feed-forward width.
            if groups:  # (at an odd p no label size here is a multiple: every node falls back)
                require(max(cuts["grad_L0_wq"].values()) == cuts["L0_q"]["h"] and cuts["L0_q"]["h"] > 1 and
                        max(cuts["grad_L0_w2"].values()) == cuts["L0_down"]["f"],
                        f"the weight gradients cut as their forward nodes: grad_L0_wq {cuts['grad_L0_wq']} "
                        f"(L0_q {cuts['L0_q']}), grad_L0_w2 {cuts['grad_L0_w2']} (L0_down {cuts['L0_down']})")
        else:
            run(gen + ["--strategy", "zero3", "-p", p, "-o", plan])
            planned = json.loads(plan.read_text())
            names = planned.get("shard_at_rest", [])
            weights = [t["name"] for t in graph_inputs(a.einplan, graph) if re.fullmatch(r"L\d+_\w+|norm|output", t["name"])]
            copies = [n["name"] for n in planned["nodes"] if re.fullmatch(r"\w+_fetched(_\d+)?", n["name"])]
            fetched = {re.sub(r"_fetched(_\d+)?$", "", c) for c in copies}
            require(sorted(names) == sorted(weights) and fetched == set(names),
                    f"the zero3 plan shards the {len(weights)} weights at rest, with {len(copies)} copy nodes")
            again = json.loads(run([a.einplan, "plan", graph, "--plan", plan, "--format", "json"]).stdout)
            require(again["total_traffic_bytes"] == planned["total_traffic_bytes"] and
                    again["peak_bytes_per_rank"] == planned["peak_bytes_per_rank"], "einplan plan --plan of it: the same plan")
        cost = json.loads(run([a.einplan, "cost", graph, "--plan", plan, "--format", "json"]).stdout)
        require(cost["peak_bytes_per_rank"] == planned["peak_bytes_per_rank"], "einplan cost --plan prices the same peaks")
        run([a.eincodegen, graph, "--plan", plan, "-o", project, "--force"])
        run(make_command(project, "-j2", opt="O0"))  # a few hundred tiny nodes: compiling is the cost
        out, report = work / f"out{p}", work / f"report{p}.json"
        run(["mpirun", "--oversubscribe", "-np", p, project / "llama_7b_train", "--check", "--seed", 7, "--outputs", out,
             "--report", report, "--iters", 1])
        r = json.loads(report.read_text())
        require(r["check"]["passed"], "--check passed")
        require(r["peak_bytes_per_rank"] == r["peak_bytes_predicted_per_rank"] == planned["peak_bytes_per_rank"],
                f"measured peaks {r['peak_bytes_per_rank']} == the plan's")
        require(r["bytes_sent"] == r["bytes_predicted"] == planned["total_traffic_bytes"],
                f"bytes sent {r['bytes_sent']} == the plan's")
        worst = 0.0
        for f in sorted(os.listdir(reference)):
            want, got = np.load(reference / f), np.load(out / f)
            scale = max(1e-30, float(np.max(np.abs(want))))
            worst = max(worst, float(np.max(np.abs(got - want))) / scale)
        require(worst < 1e-4, f"every output equals einplan eval of the graph as written (largest error {worst:.2e} of its scale)")


if __name__ == "__main__":
    main()
