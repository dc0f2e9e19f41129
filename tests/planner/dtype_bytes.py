#!/usr/bin/python3
"""Plans count bytes with the real element size (SPEC 8, issue 22): for every example graph,
the f32 plan at p = 4 is kept (`--plan`, its graph_sha256 removed) for the same graph in
f64, bf16 and f16, and every byte figure of the plan — total and per-node traffic, each
rank's peak and live bytes, staging — must be exactly the f32 figure times size/4. The
partitions and placements are the plan's, so nothing but the element size may change them.

Mixed precision (SPEC 8's per-tensor types): a LLaMA AdamW step in bf16 with f32 master
weights (`gen llama --train --dtype bf16 --master f32`) under the plan of the same graph
written in f32 alone: each node's traffic in, aggregation traffic and resident input bytes
are the all-f32 graph's where the node reads f32 (a cast: its operand's type; any other
node: its own) and the all-bf16 graph's where it reads bf16.

    dtype_bytes.py --einplan EINPLAN --examples DIR --work DIR
"""
import argparse
import json
import pathlib
import shutil
import subprocess
import sys

SIZE = {"f64": 8, "bf16": 2, "f16": 2}
FAILED = []


def run(cmd):
    done = subprocess.run([str(c) for c in cmd], text=True, capture_output=True)
    if done.returncode != 0:
        print(done.stdout, done.stderr)
        sys.exit(f"FAILED: {' '.join(map(str, cmd))}")


def byte_figures(plan):
    """Every byte figure of a plan, by a path-like key."""
    out = {}
    for key, value in plan.items():
        if "bytes" in key:
            out[key] = value
    for n in plan["nodes"]:
        for key, value in n.items():
            if "bytes" in key:
                out[f"node {n['name']} {key}"] = value
    return out


PER_NODE = ("traffic_bytes", "traffic_in_bytes", "traffic_agg_bytes", "resident_input_bytes")


def read_types(graph):
    """Per node, the type it reads (planner/graph/tensor_types.h's rule, written again)."""
    import yaml
    g = yaml.safe_load(graph.read_text())
    types = {t["name"]: t.get("dtype", g["dtype"]) for t in g["inputs"]}
    reads = {}
    for n in g["nodes"]:
        floats = [types[i] for i in n["inputs"] if types[i] not in ("i32", "i64")]
        reads[n["name"]] = floats[0] if floats else g["dtype"]
        types[n["name"]] = n.get("cast", reads[n["name"]])
    return reads


def mixed_precision(a, work):
    graph = work / "mixed.yaml"
    run([a.einplan, "gen", "llama", "--layers", "1", "--dim", "32", "--heads", "2", "--ffn", "48", "--vocab", "40", "--seq", "8",
         "--batch", "2", "--train", "--optimizer", "adamw", "--dtype", "bf16", "--master", "f32", "-o", graph])
    text = graph.read_text()
    uniform = "\n".join(line for line in text.split("\n") if not line.strip().startswith("cast:")).replace(", dtype: f32}", "}")
    plans = {}
    for dtype in ("f32", "bf16"):
        g = work / f"mixed_as_{dtype}.yaml"
        g.write_text(uniform.replace("\ndtype: bf16\n", f"\ndtype: {dtype}\n"))
        if dtype == "f32":
            run([a.einplan, "plan", g, "-p", 4, "-o", work / "mixed_kept.json"])
            kept = json.loads((work / "mixed_kept.json").read_text())
            kept.pop("graph_sha256", None)
            (work / "mixed_kept.json").write_text(json.dumps(kept))
        run([a.einplan, "plan", g, "-p", 4, "--plan", work / "mixed_kept.json", "-o", work / f"mixed_as_{dtype}.json"])
        plans[dtype] = {n["name"]: n for n in json.loads((work / f"mixed_as_{dtype}.json").read_text())["nodes"]}
    run([a.einplan, "plan", graph, "-p", 4, "--plan", work / "mixed_kept.json", "-o", work / "mixed.json"])
    mixed = json.loads((work / "mixed.json").read_text())
    reads = read_types(graph)
    counts = {"f32": 0, "bf16": 0}
    for n in mixed["nodes"]:
        want = plans[reads[n["name"]]][n["name"]]
        counts[reads[n["name"]]] += 1
        for key in PER_NODE:
            if n[key] != want[key]:
                FAILED.append(f"mixed precision: node {n['name']} (reads {reads[n['name']]}) {key} is {n[key]}, the "
                              f"all-{reads[n['name']]} graph's {want[key]}")
    if mixed["total_traffic_bytes"] != sum(n["traffic_bytes"] for n in mixed["nodes"]):
        FAILED.append("mixed precision: total traffic is not the sum of the nodes'")
    print(f"mixed precision: {counts['f32']} nodes reading f32 and {counts['bf16']} reading bf16 priced as the uniform "
          f"graphs' (total traffic {mixed['total_traffic_bytes']} B; all f32 "
          f"{sum(n['traffic_bytes'] for n in plans['f32'].values())} B, all bf16 "
          f"{sum(n['traffic_bytes'] for n in plans['bf16'].values())} B)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--einplan", required=True)
    ap.add_argument("--examples", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    work = pathlib.Path(a.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    graphs = sorted(pathlib.Path(a.examples).glob("gen-*.yaml"))
    print("| graph | f32 traffic | f64 | bf16 | f16 | f32 peak (busiest rank) | bf16 peak |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for graph in graphs:
        text = graph.read_text()
        if "\ndtype: f32\n" not in text:
            sys.exit(f"{graph}: expected a top-level 'dtype: f32' line")
        p32 = work / f"{graph.stem}.f32.json"
        run([a.einplan, "plan", graph, "-p", 4, "-o", p32])
        plan = json.loads(p32.read_text())
        plan.pop("graph_sha256", None)
        kept = work / f"{graph.stem}.kept.json"
        kept.write_text(json.dumps(plan))
        want = byte_figures(plan)
        row = {}
        for dtype, size in SIZE.items():
            g = work / f"{graph.stem}.{dtype}.yaml"
            g.write_text(text.replace("\ndtype: f32\n", f"\ndtype: {dtype}\n"))
            out = work / f"{graph.stem}.{dtype}.json"
            run([a.einplan, "plan", g, "-p", 4, "--plan", kept, "-o", out])
            got_plan = json.loads(out.read_text())
            got = byte_figures(got_plan)
            if got.keys() != want.keys():
                FAILED.append(f"{graph.stem} {dtype}: other byte figures {sorted(got.keys() ^ want.keys())}")
            for key, value in want.items():
                expect = [v * size // 4 for v in value] if isinstance(value, list) else value * size // 4
                scaled_exactly = all(v * size % 4 == 0 for v in (value if isinstance(value, list) else [value]))
                if not scaled_exactly or got.get(key) != expect:
                    FAILED.append(f"{graph.stem} {dtype}: {key} is {got.get(key)}, f32's {value} x {size}/4 = {expect}")
            row[dtype] = got_plan
        print(f"| {graph.stem} | {plan['total_traffic_bytes']} | {row['f64']['total_traffic_bytes']} | "
              f"{row['bf16']['total_traffic_bytes']} | {row['f16']['total_traffic_bytes']} | "
              f"{plan['peak_bytes_per_device']} | {row['bf16']['peak_bytes_per_device']} |")
    mixed_precision(a, work)
    if FAILED:
        print("\n".join(FAILED[:40]))
        sys.exit(f"FAILED: {len(FAILED)} byte figures do not scale with the element size")
    print(f"all byte figures of {len(graphs)} plans scale exactly with the element size")


if __name__ == "__main__":
    main()
