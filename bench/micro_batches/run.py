#!/usr/bin/python3
"""GPT training steps as their authors configured them (the weak-scaling table of
Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
Megatron-LM", 2021, Table 1: vocabulary 51,200, sequence 2048, A100-80GB nodes of 8),
written by `einplan gen llama --train --optimizer adamw --dtype bf16 --master f32
--no-grad-outputs --micro-batches M` (SwiGLU feed-forward of width 8h/3, as the issue's
1.7B command), planned by eindecomp on bench/clusters/dgx-a100.yaml under --objective time
--mem-limit 80GiB, and priced beside the Megatron plan file of the paper's tensor-parallel
degree (`--strategy megatron --tensor-parallel T`; the paper's pipeline stages are not
expressible yet) and the data-parallel one where it fits.

Prints one row per configuration: planning wall time and peak RSS of einplan, the plan's
peak per rank, estimated step time, traffic and bytes between nodes; the same for the
hand plans; and the ratio of eindecomp's estimate to Megatron's (lower is better). The
estimates are the cost model's (issue "Cost reports you can trust on GPU clusters" is
what makes them comparable to published step times): compare ratios only.

The graph is written with each bf16 weight gradient cast back to f32; the data and megatron
plan files fuse those casts (Megatron's gradient accumulation fusion: the gradients
accumulate in f32 and are reduced once per step; `fused_gradient_casts`), and so may the
planner. With --fusion every graph is written fused instead (`gen llama
--gradient-accumulation-fusion`): the same plans, to the byte. With --no-gradient-fusion no
plan fuses them (each bf16 gradient reduced in every micro-batch).

usage: run.py --einplan build/bin/einplan [--configs 1.7b,3.6b] [--work DIR] [--data] [--fusion | --no-gradient-fusion]
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
MACHINE = ROOT / "bench" / "clusters" / "dgx-a100.yaml"

# name: (layers, hidden, heads, ffn, gpus, global batch, tensor parallel, micro-batches)
CONFIGS = {
    "1.7b": (24, 2304, 24, 6144, 32, 512, 1, 16),
    "3.6b": (30, 3072, 32, 8192, 64, 512, 2, 8),
    "7.5b": (36, 4096, 32, 11008, 128, 512, 4, 4),
    "18.4b": (40, 6144, 48, 16384, 256, 1024, 8, 4),
    "39.1b": (48, 8192, 64, 21760, 512, 1536, 8, 12),  # M = 3: fits only by recomputing 2191 nodes, 750 s
}


def run(cmd):
    """(exit status, wall seconds, peak RSS in GiB) of cmd, timed by /usr/bin/time."""
    cmd = [str(c) for c in cmd]
    start = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "RSS_KB %M", *cmd], capture_output=True, text=True)
    seconds = time.monotonic() - start
    if p.returncode not in (0, 3):
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
    rss = [line for line in p.stderr.splitlines() if line.startswith("RSS_KB ")]
    return p.returncode, seconds, int(rss[-1].split()[1]) / 2**20 if rss else 0.0


def gib(b):
    return f"{b / 2**30:.1f} GiB"


def tib(b):
    return f"{b / 2**40:.2f} TiB" if b >= 2**40 else f"{b / 2**30:.0f} GiB"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--einplan", required=True)
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--work", default="/tmp/bench_micro_batches")
    ap.add_argument("--data", action="store_true", help="price the data-parallel plan file too")
    ap.add_argument("--fusion", action="store_true",
                    help="graphs with --gradient-accumulation-fusion (each weight gradient's bf16 GEMM writes f32, as "
                         "Megatron-LM runs): every plan priced on that graph")
    ap.add_argument("--no-gradient-fusion", action="store_true",
                    help="no plan fuses the gradient casts (einplan plan and gen --strategy --no-gradient-fusion)")
    a = ap.parse_args()
    work = pathlib.Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    header = ["config", "p", "M", "plan s", "einplan RSS", "peak", "estimate", "traffic", "inter-node",
              "megatron TP", "its peak", "its estimate", "its inter-node", "ratio"]
    if a.data:
        header += ["data estimate", "data inter-node"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name in a.configs.split(","):
        layers, hidden, heads, ffn, p, batch, tp, m = CONFIGS[name]
        family = ["llama", "--layers", layers, "--dim", hidden, "--heads", heads, "--ffn", ffn, "--vocab", 51200, "--seq", 2048,
                  "--batch", batch, "--train", "--optimizer", "adamw", "--dtype", "bf16", "--master", "f32", "--no-grad-outputs",
                  "--micro-batches", m, *(["--gradient-accumulation-fusion"] if a.fusion else [])]
        graph = work / f"gpt_{name}.yaml"
        run([a.einplan, "gen", *family, "-o", graph])
        machine = ["--machine", MACHINE, "--objective", "time"]
        planned = work / f"gpt_{name}.plan.json"
        kept = ["--no-gradient-fusion"] if a.no_gradient_fusion else []
        status, seconds, rss = run([a.einplan, "plan", graph, "-p", p, *machine, "--mem-limit", "80GiB", *kept, "--format", "json",
                                    "-o", planned])
        row = [name, p, m, f"{seconds:.1f}", f"{rss:.2f} GiB"]
        if status == 3:
            row += ["no plan fits (exit 3)", "", "", ""]
        else:
            r = json.loads(planned.read_text())
            row += [gib(r["peak_bytes_per_device"]), f"{r['estimated_time_s']:.2f} s", tib(r["total_traffic_bytes"]),
                    tib(r["inter_node_bytes"])]
        hand = {}
        for strategy, extra in (("megatron", ["--tensor-parallel", tp]), ("data", [])):
            if strategy == "data" and not a.data:
                continue
            plan = work / f"gpt_{name}.{strategy}.yaml"
            run([a.einplan, "gen", *family, "--strategy", strategy, *extra, *kept, "-p", p, "-o", plan])
            cost = work / f"gpt_{name}.{strategy}.json"
            run([a.einplan, "cost", graph, "-p", p, "--plan", plan, *machine, "--format", "json", "-o", cost])
            hand[strategy] = json.loads(cost.read_text())
        mg = hand["megatron"]
        row += [tp, gib(mg["peak_bytes_per_device"]), f"{mg['estimated_time_s']:.2f} s", tib(mg["inter_node_bytes"])]
        row += [f"{r['estimated_time_s'] / mg['estimated_time_s']:.2f}" if status == 0 else ""]
        if a.data:
            d = hand["data"]
            row += [f"{d['estimated_time_s']:.2f} s", tib(d["inter_node_bytes"])]
        print("| " + " | ".join(map(str, row)) + " |", flush=True)


if __name__ == "__main__":
    main()
