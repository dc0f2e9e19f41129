#!/usr/bin/python3
"""A GPT-2 language model as its authors write it, through `einplan import` and `einplan
grad` (issue "Whole models as people export them"): token embeddings looked up from int64
ids (nn.Embedding), position embeddings from torch.arange made in forward, a causal mask
from torch.tril with torch.where, attention whose q, k and v are split from one projection,
a GELU MLP, and the lm_head tied to the token embedding (F.linear with wte.weight: the
exporter writes the table's transpose as a second initializer, which the import reads as
the table transposed — one weight).

At opsets 14 and 17: import as written, `einplan eval` equal to torch (relative 1e-5,
float32, the same ids). At opset 17 the forward program at p = 2 and 4 and the training
step's program at p = 3 run with --check, their outputs equal to torch's and their bytes and
peaks equal to their plans'. The training step (`einplan grad --loss logits`, the gradient
of sum(logits)) equals torch.autograd's for every parameter: a parameter the exporter
folded into several weights (the tied embedding: the table and its transpose in the
lm_head) gets the sum of their gradients. A failure prints the command and its output.

usage: torch_language_model.py EINPLAN EINCODEGEN WORK
"""
import json
import math
import os
import pathlib
import shutil
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from emitted_build import make_command  # noqa: E402
from model_checks import close, run  # noqa: E402

V, D, H, S, B = 64, 32, 4, 8, 2
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OPENBLAS_NUM_THREADS="1")


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1, self.ln_2 = torch.nn.LayerNorm(D), torch.nn.LayerNorm(D)
        self.c_attn, self.c_proj = torch.nn.Linear(D, 3 * D), torch.nn.Linear(D, D)
        self.c_fc, self.mlp_proj = torch.nn.Linear(D, 4 * D), torch.nn.Linear(4 * D, D)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(D, dim=2)
        q, k, v = [z.view(b, t, H, D // H).transpose(1, 2) for z in (q, k, v)]
        att = (q @ k.transpose(-2, -1)) / math.sqrt(D // H)
        causal = torch.tril(torch.ones(t, t, dtype=torch.bool))
        att = torch.where(causal, att, torch.tensor(torch.finfo(att.dtype).min))
        y = torch.softmax(att, dim=-1) @ v
        x = x + self.c_proj(y.transpose(1, 2).reshape(b, t, D))
        return x + self.mlp_proj(torch.nn.functional.gelu(self.c_fc(self.ln_2(x))))


class GPT2(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.wte, self.wpe = torch.nn.Embedding(V, D), torch.nn.Embedding(S, D)
        self.h, self.ln_f = Block(), torch.nn.LayerNorm(D)

    def forward(self, input_ids):
        pos = torch.arange(input_ids.shape[1])
        h = self.h(self.wte(input_ids) + self.wpe(pos))
        return torch.nn.functional.linear(self.ln_f(h), self.wte.weight)


def program(eincodegen, graph, weights, p, base, name):
    """Builds and runs GRAPH's program at p with --check; its outputs, and whether its
    bytes and peaks were the plan's."""
    prog = base + ".prog"
    run([eincodegen, graph, "-p", p, "-o", prog, "--force"])
    run(make_command(prog, "-j2", opt="O0"), env=ENV)
    out, report = base + f".out{p}", base + f".report{p}.json"
    run(["mpirun", "--oversubscribe", "-np", p, os.path.join(prog, name), "--inputs", weights, "--outputs", out, "--check",
         "--iters", 1, "--report", report], env=ENV, timeout=300)
    r = json.load(open(report))
    same = r["bytes_sent"] == r["bytes_predicted"] and r["peak_bytes_per_rank"] == r["peak_bytes_predicted_per_rank"]
    print(f"  p = {p}: bytes {r['bytes_sent']} / {r['bytes_predicted']} planned, peaks {r['peak_bytes_per_rank']} / "
          f"{r['peak_bytes_predicted_per_rank']} planned  {'ok' if same else 'WRONG'}")
    return out, same


def places(w, value):
    """Where graph weight `w` holds parameter `value`'s elements: (transposed, axis, start,
    stop) for each block of `value` (or of its transpose) along one axis whose elements in C
    order are w's (an exporter's transposed copy, a slice the importer split off a fused
    projection, a reshape into heads)."""
    found = []
    for transposed, q in ((False, value), (True, value.T)) if value.ndim == 2 else ((False, value),):
        for axis in range(q.ndim):
            row = q.size // q.shape[axis]
            if w.size % row or w.size // row > q.shape[axis]:
                continue
            n = w.size // row
            for start in range(0, q.shape[axis] - n + 1, n):
                if np.array_equal(np.take(q, range(start, start + n), axis=axis).ravel(), w.ravel()):
                    found.append((transposed, axis, start, start + n))
        if found:
            return found[:1]
    return []


def gradients_agree(model, weights, grads):
    """torch's gradient of every parameter against the sum of the gradients of the graph
    weights holding its values (as they are, transposed, sliced or reshaped)."""
    ok = True
    files = {f[:-4]: np.load(os.path.join(weights, f)) for f in os.listdir(weights) if f.endswith(".npy")}
    for pname, param in model.named_parameters():
        value = param.detach().numpy()
        total, found = np.zeros_like(value), []
        for wname, w in files.items():
            for transposed, axis, start, stop in places(w, value):
                q = total.T if transposed else total  # a view: adding to it adds to total
                index = [slice(None)] * q.ndim
                index[axis] = slice(start, stop)
                block = q[tuple(index)]
                block += np.load(os.path.join(grads, f"grad_{wname}.npy")).reshape(block.shape)
                found.append(wname + ("^T" if transposed else ""))
        if not found:
            print(f"  {pname}: no graph weight holds its values  WRONG")
            ok = False
            continue
        ok &= close(total, param.grad.numpy(), f"grad {pname} ({' + '.join(found)})", 1e-4)
    return ok


def main():
    einplan, eincodegen, work = sys.argv[1], sys.argv[2], sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    torch.manual_seed(0)
    model = GPT2().eval()
    with torch.no_grad():  # every parameter distinct (LayerNorm's ones and zeros would coincide)
        for p in model.parameters():
            p.normal_(0, 0.5)
    ids = torch.randint(0, V, (B, S))
    logits = model(ids)
    logits.sum().backward()
    want = logits.detach().numpy()
    ok = True
    for opset in (14, 17):
        print(f"GPT-2 language model, opset {opset}:")
        base = os.path.join(work, f"gpt{opset}")
        torch.onnx.export(model, (ids,), base + ".onnx", input_names=["input_ids"], output_names=["logits"],
                          opset_version=opset)
        run([einplan, "import", base + ".onnx", "-o", base + ".yaml"])
        weights = base + ".weights"
        # The tied lm_head reads the table itself: the exporter's transposed copy of it is
        # no second weight (its bytes would be held, and its gradient taken, twice).
        table = model.wte.weight.detach().numpy()
        copies = [f for f in os.listdir(weights) if f.endswith(".npy") and np.load(os.path.join(weights, f)).shape == table.T.shape]
        if copies:
            print(f"  the table's transpose is a weight of its own: {copies}  WRONG")
            ok = False
        np.save(os.path.join(weights, "input_ids.npy"), ids.numpy())
        run([einplan, "eval", base + ".yaml", "--inputs", weights, "--outputs", base + ".eval"])
        ok &= close(np.load(os.path.join(base + ".eval", "logits.npy")), want, "einplan eval vs torch")
        if opset != 17:
            continue
        for p in (2, 4):
            out, same = program(eincodegen, base + ".yaml", weights, p, base, "torch_jit")
            ok &= same and close(np.load(os.path.join(out, "logits.npy")), want, f"mpirun -np {p} program vs torch")
        train = base + ".train.yaml"
        run([einplan, "grad", base + ".yaml", "--loss", "logits", "-o", train])
        run([einplan, "eval", train, "--inputs", weights, "--outputs", base + ".grads"])
        ok &= gradients_agree(model, weights, base + ".grads")
        out, same = program(eincodegen, train, weights, 3, base + ".train", "torch_jit")
        ok &= same
        reference = {f: np.load(os.path.join(base + ".grads", f)) for f in sorted(os.listdir(out))}
        largest = max(float(np.max(np.abs(v))) for v in reference.values())
        for f, want_f in reference.items():
            ok &= close(np.load(os.path.join(out, f)), want_f, f"training step p = 3: {f}", 1e-4, 1e-3 * largest)
    if not ok:
        sys.exit("the language model differs from torch or from its plan")


if __name__ == "__main__":
    main()
