#!/usr/bin/python3
"""A Hugging Face-style LLaMA decoder block as its authors write it (RMSNorm, rotary
embeddings with rotate_half and cos/sin from torch.arange in forward, a causal mask from
torch.triu, SwiGLU), exported from torch, imported with `einplan import`, emitted for p
ranks and built as a user builds it (the project's Release, -O3); its program against torch
f32 on the same inputs (issue "Whole models as people export them": at dim 1024, 16
heads, seq 512, batch 2, the program at p = 2 with 1 thread per rank against torch on 2
threads).

Fairness: both sides use 2 threads of this machine (the program 2 ranks x 1 thread,
OPENBLAS_NUM_THREADS=1; torch.set_num_threads(2) in-process), the same inputs and weights,
f32, one warm-up each, medians of --iters iterations per round; the rounds interleave the
two sides, and the table reports every round, the medians, the spread of the ratio and the
load average before and after. The program's output is checked against torch's once.

With `--model resnet18`: torchvision's resnet18 as written (eval mode, 1000 classes), its
images of `--batch` x 3 x `--image` x `--image` (issue "Convolutions": batch 8, 224 x 224),
through the same steps and the same comparison.

usage: bench/imported_blocks/run.py --build build [--rounds 5] [--iters 5] [--ranks 2]
       [--model llama|resnet18] [--batch N] [--image N]
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np
import torch


class RMSNorm(torch.nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class LlamaDecoderBlock(torch.nn.Module):
    def __init__(self, dim, heads, ffn):
        super().__init__()
        lin = lambda i, o: torch.nn.Linear(i, o, bias=False)
        self.dim, self.heads = dim, heads
        self.q_proj, self.k_proj, self.v_proj, self.o_proj = lin(dim, dim), lin(dim, dim), lin(dim, dim), lin(dim, dim)
        self.gate_proj, self.up_proj, self.down_proj = lin(dim, ffn), lin(dim, ffn), lin(ffn, dim)
        self.input_layernorm, self.post_attention_layernorm = RMSNorm(dim), RMSNorm(dim)

    def forward(self, x):
        b, s, _ = x.shape
        hd = self.dim // self.heads
        h = self.input_layernorm(x)
        q = self.q_proj(h).view(b, s, self.heads, hd).transpose(1, 2)
        k = self.k_proj(h).view(b, s, self.heads, hd).transpose(1, 2)
        v = self.v_proj(h).view(b, s, self.heads, hd).transpose(1, 2)
        inv_freq = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        freqs = torch.outer(torch.arange(s).float(), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        scores = q @ k.transpose(2, 3) / math.sqrt(hd)
        mask = torch.triu(torch.full((s, s), float("-inf")), diagonal=1)
        attn = torch.softmax(scores + mask, dim=-1)
        x = x + self.o_proj((attn @ v).transpose(1, 2).reshape(b, s, self.dim))
        h = self.post_attention_layernorm(x)
        return x + self.down_proj(torch.nn.functional.silu(self.gate_proj(h)) * self.up_proj(h))


def run(cmd, **kw):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit(f"FAILED (exit {p.returncode}): {' '.join(map(str, cmd))}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return p


def torch_time(model, x, iters):
    with torch.no_grad():
        model(x)  # warm-up
        times = []
        for _ in range(iters):
            t = time.perf_counter()
            model(x)
            times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--dim", type=int, default=1024)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--ffn", type=int, default=2816)
    ap.add_argument("--model", choices=["llama", "resnet18"], default="llama")
    ap.add_argument("--image", type=int, default=224, help="--model resnet18: the images' height and width")
    ap.add_argument("--work", default="/tmp/eindecomp-bench-imported-blocks")
    args = ap.parse_args()
    einplan, eincodegen = os.path.join(args.build, "bin", "einplan"), os.path.join(args.build, "bin", "eincodegen")
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    torch.manual_seed(0)
    torch.set_num_threads(2)
    if args.model == "resnet18":
        import torchvision
        model = torchvision.models.resnet18().eval()
        x = torch.randn(args.batch, 3, args.image, args.image)
        what = f"torchvision resnet18, batch {args.batch}, 3 x {args.image} x {args.image}"
    else:
        model = LlamaDecoderBlock(args.dim, args.heads, args.ffn).eval()
        x = torch.randn(args.batch, args.seq, args.dim)
        what = f"HF-style LLaMA block, dim {args.dim}, {args.heads} heads, seq {args.seq}, batch {args.batch}, ffn {args.ffn}"
    base = os.path.join(args.work, "block")
    torch.onnx.export(model, (x,), base + ".onnx", opset_version=17, input_names=["x"], output_names=["y"])
    run([einplan, "import", base + ".onnx", "-o", base + ".yaml"])
    np.save(os.path.join(base + ".weights", "x.npy"), x.numpy())
    run([einplan, "plan", base + ".yaml", "-p", 1, "-o", base + ".plan1.json"])
    plan = json.load(open(base + ".plan1.json"))
    prog = base + ".prog"
    run([eincodegen, base + ".yaml", "-p", args.ranks, "-o", prog])
    run(["make", "-C", prog, "-j2"])
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1")
    cmd = ["mpirun", "--oversubscribe", "-np", args.ranks, os.path.join(prog, "torch_jit"), "--inputs", base + ".weights",
           "--threads", 1]
    # The program's output against torch's, once.
    run(cmd + ["--outputs", base + ".out"], env=env, timeout=600)
    with torch.no_grad():
        want = model(x).numpy()
    got = np.load(os.path.join(base + ".out", "y.npy"))
    err = float(np.max(np.abs(got - want)) / np.max(np.abs(want)))
    load_before = os.getloadavg()
    rows = []
    for r in range(args.rounds):
        report = base + f".report{r}.json"
        run(cmd + ["--iters", args.iters, "--warmup", 1, "--report", report], env=env, timeout=600)
        ours = json.load(open(report))["time_s"]
        theirs = torch_time(model, x, args.iters)
        rows.append((ours, theirs))
    load_after = os.getloadavg()
    ratios = [t / o for o, t in rows]
    print(f"{what}; {plan['total_flops'] / 1e9:.2f} GFLOP planned; program output vs torch: max relative error {err:.1e}")
    print(f"program: p = {args.ranks} x 1 thread (-O3); torch {torch.__version__} f32 on 2 threads; "
          f"load {' '.join(f'{v:.2f}' for v in load_before)} before, {' '.join(f'{v:.2f}' for v in load_after)} after")
    print("| round | program ms | torch ms | torch / program |")
    print("|---|---|---|---|")
    for i, (o, t) in enumerate(rows):
        print(f"| {i + 1} | {o * 1e3:.1f} | {t * 1e3:.1f} | {t / o:.2f} |")
    o_med, t_med = statistics.median(o for o, _ in rows), statistics.median(t for _, t in rows)
    print(f"| median | {o_med * 1e3:.1f} | {t_med * 1e3:.1f} | {t_med / o_med:.2f}x torch (rounds {min(ratios):.2f}-{max(ratios):.2f}) |")


if __name__ == "__main__":
    main()
