#!/usr/bin/python3
"""Models exported from PyTorch (torch.onnx.export) through `einplan import`, end to end
(issue 21): an MLP with exact GELU, a GPT-2 style block (LayerNorm, a fused QKV Linear
split into heads, a causal mask from a bool buffer, softmax, GELU MLP, residuals) and a
LLaMA style block (RMSNorm, separate q/k/v projections, rotary position embeddings from a
positions input with HF's rotate_half, causal attention, SwiGLU): its q and k are computed
once (rotate_half's slices are windows of them) and no selection einsum is left.

For each model: import; `einplan eval` with the weights folder as --inputs, compared with
torch's output; eincodegen at every --ranks count, the program built and run under
mpirun with the same folder, compared with torch too. For the two blocks, `einplan
compare -p 8` must rank eindecomp first (never worse than uniform, balanced or data).
The oracle is torch (float32, in-process, the same inputs).
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from emitted_build import make_command  # noqa: E402

B, S, D, H, F = 2, 16, 64, 4, 128


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = torch.nn.Linear(D, F), torch.nn.Linear(F, F), torch.nn.Linear(F, D)

    def forward(self, x):
        return self.fc3(torch.nn.functional.gelu(self.fc2(torch.relu(self.fc1(x)))))


def causal_attention(q, k, v, mask):
    # q, k, v: [B, S, D] -> heads, scores, causal mask, softmax, back to [B, S, D]
    q, k, v = (t.view(B, S, H, D // H).transpose(1, 2) for t in (q, k, v))
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(D // H)
    scores = scores.masked_fill(~mask, float("-inf")).softmax(-1)
    return (scores @ v).transpose(1, 2).reshape(B, S, D)


class GPT2Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = torch.nn.LayerNorm(D), torch.nn.LayerNorm(D)
        with torch.no_grad():  # parameters a trained model would have, not ones and zeros
            for ln in (self.ln1, self.ln2):
                ln.weight.uniform_(0.5, 1.5)
                ln.bias.uniform_(-0.2, 0.2)
        self.qkv, self.proj = torch.nn.Linear(D, 3 * D), torch.nn.Linear(D, D)
        self.fc, self.out = torch.nn.Linear(D, 4 * D), torch.nn.Linear(4 * D, D)
        self.register_buffer("mask", torch.tril(torch.ones(S, S, dtype=torch.bool)))

    def forward(self, x):
        q, k, v = self.qkv(self.ln1(x)).split(D, dim=-1)
        x = x + self.proj(causal_attention(q, k, v, self.mask))
        return x + self.out(torch.nn.functional.gelu(self.fc(self.ln2(x))))


class RMSNorm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.rand(D) + 0.5)

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


def rotate_half(t):
    half = t.shape[-1] // 2
    return torch.cat((-t[..., half:], t[..., :half]), dim=-1)


def rotary(t, pos, inv_freq):
    # LLaMA's rotary position embedding on [B, S, D] by heads: the angles are computed from
    # the positions (a model input, so cos and sin stay in the exported graph)
    angles = pos[:, None] * inv_freq[None, :]
    emb = torch.cat((angles, angles), dim=-1)[None, :, None, :]
    t = t.view(B, S, H, D // H)
    return (t * emb.cos() + rotate_half(t) * emb.sin()).reshape(B, S, D)


class LlamaBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        lin = lambda i, o: torch.nn.Linear(i, o, bias=False)
        self.n1, self.n2 = RMSNorm(), RMSNorm()
        self.q, self.k, self.v, self.o = lin(D, D), lin(D, D), lin(D, D), lin(D, D)
        self.gate, self.up, self.down = lin(D, F), lin(D, F), lin(F, D)
        self.register_buffer("mask", torch.tril(torch.ones(S, S, dtype=torch.bool)))
        self.register_buffer("inv_freq", 10000.0 ** (-torch.arange(0, D // H, 2).float() / (D // H)))

    def extra_inputs(self):
        return {"pos": torch.arange(S).float()}

    def forward(self, x, pos):
        h = self.n1(x)
        q, k = rotary(self.q(h), pos, self.inv_freq), rotary(self.k(h), pos, self.inv_freq)
        x = x + self.o(causal_attention(q, k, self.v(h), self.mask))
        h = self.n2(x)
        return x + self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))


MODELS = {"mlp": MLP, "gpt2": GPT2Block, "llama": LlamaBlock}
# Opsets spread over the range: 14 exports LayerNorm as the ReduceMean/Sub/Pow/Sqrt/Div
# pattern (17 as LayerNormalization, which ONNX's node tests cover).
OPSETS = {"mlp": 17, "gpt2": 14, "llama": 13}


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"FAILED ({r.returncode}): {' '.join(cmd)}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return r


def close(got, want, what):
    diff = float(np.max(np.abs(got - want)))
    ok = got.shape == want.shape and np.allclose(got, want, rtol=1e-4, atol=1e-5)
    print(f"  {what:<34} max |diff| {diff:.2e}  {'ok' if ok else 'WRONG'}")
    return ok


def rotary_costs_a_copy(einplan, graph, work):
    """rotate_half's slices of q and k are read through windows of q and k, which are also
    read whole (SPEC 8.1): no projection is computed again (no weight sliced for one: their
    names end in _START_END) and no selection einsum is left (each slice and each padded
    half of the concatenation is a copy)."""
    import re
    import yaml
    g = yaml.safe_load(open(graph))
    sliced = [i["name"] for i in g["inputs"] if re.search(r"_\d+_\d+$", i["name"])]
    plan = os.path.join(work, "llama.plan.json")
    run([einplan, "plan", graph, "-p", "1", "-o", plan])
    p = json.load(open(plan))
    selecting = {n["name"] for n in g["nodes"] if any(i.endswith("_select") for i in n["inputs"])}
    selection = sum(n["flops"] for n in p["nodes"] if n["name"] in selecting)
    windowed = sum(1 for n in g["nodes"] if "windows" in n)
    good = not sliced and selection == 0 and windowed > 0
    print(f"  rotate_half: weights sliced for a recomputed projection {sliced or 'none'}, selections "
          f"{selection} of {p['total_flops']} FLOPs, {windowed} window nodes  {'ok' if good else 'WRONG'}")
    return good


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--einplan", required=True)
    ap.add_argument("--eincodegen", required=True)
    ap.add_argument("--models", default="mlp,gpt2,llama")
    ap.add_argument("--ranks", default="2,3")
    ap.add_argument("--opset", type=int, help="export every model with this opset (default: mlp 17, gpt2 14, llama 13)")
    ap.add_argument("--keep", help="work in this folder and keep it")
    args = ap.parse_args()
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OPENBLAS_NUM_THREADS="1")
    work = args.keep or tempfile.mkdtemp(prefix="torch-models-")
    os.makedirs(work, exist_ok=True)
    torch.manual_seed(0)
    ok = True
    try:
        for name in args.models.split(","):
            print(f"{name}:")
            model = MODELS[name]().eval()
            x = torch.randn(B, S, D)
            extra = model.extra_inputs() if hasattr(model, "extra_inputs") else {}
            with torch.no_grad():
                want = model(x, *extra.values()).numpy()
            onnx_path, graph = os.path.join(work, f"{name}.onnx"), os.path.join(work, f"{name}.yaml")
            weights = os.path.join(work, f"{name}.weights")
            torch.onnx.export(model, (x, *extra.values()), onnx_path, input_names=["x", *extra], output_names=["y"],
                              opset_version=args.opset or OPSETS[name], do_constant_folding=True)
            shutil.rmtree(weights, ignore_errors=True)
            run([args.einplan, "import", onnx_path, "-o", graph])
            np.save(os.path.join(weights, "x.npy"), x.numpy())
            for input_name, value in extra.items():
                np.save(os.path.join(weights, f"{input_name}.npy"), value.numpy())
            if name == "llama":
                ok &= rotary_costs_a_copy(args.einplan, graph, work)
            out = os.path.join(work, f"{name}.eval")
            run([args.einplan, "eval", graph, "--inputs", weights, "--outputs", out])
            ok &= close(np.load(os.path.join(out, "y.npy")), want, "einplan eval vs torch")
            for p in [int(v) for v in args.ranks.split(",")]:
                # One project folder per model, regenerated for each p: the second build
                # recompiles only what the plan changed.
                prog = os.path.join(work, f"{name}.prog")
                run([args.eincodegen, graph, "-p", str(p), "-o", prog, "--force"])
                run(make_command(prog, "-j2", opt="O0"), env=env)
                exe = os.path.join(prog, "torch_jit")
                outp = os.path.join(work, f"{name}.out{p}")
                run(["mpirun", "--oversubscribe", "-np", str(p), exe, "--inputs", weights, "--outputs", outp, "--check"],
                    env=env, timeout=300)
                ok &= close(np.load(os.path.join(outp, "y.npy")), want, f"mpirun -np {p} program vs torch")
            if name != "mlp":
                r = run([args.einplan, "compare", graph, "-p", "8", "--algorithms", "eindecomp,uniform,balanced,data",
                         "--format", "json"])
                report = json.loads(r.stdout)
                traffic = {a["algorithm"]: a["total_traffic_bytes"] for a in report["algorithms"]}
                first = report["best"] == "eindecomp" and all(
                    traffic["eindecomp"] <= traffic[a] for a in ("uniform", "balanced"))
                print(f"  compare -p 8: best {report['best']}, traffic {traffic}  {'ok' if first else 'WRONG'}")
                ok &= first
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    if not ok:
        sys.exit("some model differs from torch or plans worse than a baseline")


if __name__ == "__main__":
    main()
