#!/usr/bin/python3
"""Where a vocabulary-parallel embedding appears (issue "Whole models as people export
them"): a GPT-2 language model as its authors write it (tests/import/torch_language_model.py:
token and position embeddings, one block, a final LayerNorm, the lm_head tied to the token
table), at GPT-2 small's sizes with the 50,304-entry vocabulary GPT-2 is trained with (50,257
padded to a multiple of 64, as nanoGPT and Megatron pad it: 50,257 = 29 x 1,733 has no cut
by 8). Exported by torch, imported, differentiated (`einplan grad --loss logits --update sgd`),
and planned at p = 8 three ways: free, under a memory limit, and with the lookup and its
gradient pinned to the vocabulary cut. The table prints, per plan, how the lookup
(`wte_Gather_output_0`: labels a = batch, b = sequence, c = vocabulary, d = embedding), the
tied lm_head (`logits`: d = vocabulary) and its weight gradient are cut, the plan's traffic
and its peak per rank. Only plans are made (no program runs); the numbers are the planner's,
which the programs pay exactly (tests/codegen/pinned/vocab_parallel.yaml checks the
vocabulary cut's bytes and peaks at p = 2, 3, 4).

usage: bench/vocab_parallel/run.py [--build build] [--batch 8] [--seq 1024] [--mem-limit 2GiB]
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "tests" / "import"))
import torch_language_model as lm  # noqa: E402

LOOKUP, LM_HEAD, LM_HEAD_GRAD, SCATTER = "wte_Gather_output_0", "logits", "d_wte_weight_logits", "d_wte_weight_wte_Gather_output_0"


def plan(einplan, graph, extra):
    out = subprocess.run([einplan, "plan", graph, "-p", "8", "--format", "json", *extra], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"einplan plan {' '.join(extra)} failed:\n{out.stderr}")
    r = json.loads(out.stdout)
    nodes = {n["name"]: n for n in r["nodes"]}

    def cut(name):
        return " ".join(f"{k}:{v}" for k, v in nodes[name]["partition"].items() if v > 1) or "-"
    return [cut(LOOKUP), cut(LM_HEAD), cut(LM_HEAD_GRAD), cut(SCATTER), r["total_traffic_bytes"] / 2**30,
            r["peak_bytes_per_device"] / 2**30]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=1024)
    ap.add_argument("--mem-limit", default="2GiB")
    a = ap.parse_args()
    einplan = os.path.join(a.build, "bin", "einplan")
    lm.V, lm.D, lm.H, lm.S, lm.B = 50304, 768, 12, a.seq, a.batch
    with tempfile.TemporaryDirectory() as work:
        torch.manual_seed(0)
        model = lm.GPT2().eval()
        ids = torch.randint(0, lm.V, (lm.B, lm.S))
        onnx = os.path.join(work, "gpt2.onnx")
        torch.onnx.export(model, (ids,), onnx, input_names=["input_ids"], output_names=["logits"], opset_version=17)
        graph, train = os.path.join(work, "gpt2.yaml"), os.path.join(work, "train.yaml")
        subprocess.run([einplan, "import", onnx, "-o", graph], check=True, capture_output=True)
        subprocess.run([einplan, "grad", graph, "--loss", "logits", "--update", "sgd", "--lr", "0.01", "-o", train], check=True,
                       capture_output=True)
        rows = [("free", plan(einplan, train, [])),
                (f"--mem-limit {a.mem_limit}", plan(einplan, train, ["--mem-limit", a.mem_limit])),
                (f"--mem-limit {a.mem_limit}, lookup pinned to the vocabulary",
                 plan(einplan, train, ["--mem-limit", a.mem_limit, "--fix", f"{LOOKUP}=c:8", "--fix", f"{SCATTER}=d:8"]))]
    print(f"GPT-2 training step (1 block, vocabulary 50304, dim 768, batch {a.batch}, seq {a.seq}), p = 8, traffic objective")
    print(f"{'plan':<52} {'lookup':<8} {'lm_head':<8} {'lm_head dW':<10} {'lookup dW':<9} {'traffic GiB':>11} {'peak GiB':>9}")
    for name, (lookup, head, headGrad, scatter, traffic, peak) in rows:
        print(f"{name:<52} {lookup:<8} {head:<8} {headGrad:<10} {scatter:<9} {traffic:>11.2f} {peak:>9.2f}")


if __name__ == "__main__":
    main()
