#!/usr/bin/python3
"""torch.nn's Transformer layers as their authors write them, through `einplan import`
(issue "Whole models as people export them"): nn.TransformerEncoderLayer with a causal
mask made in forward by torch.triu, and nn.TransformerDecoderLayer with
nn.Transformer.generate_square_subsequent_mask — both export the mask as Trilu of
constants, which the importer folds — each at opsets 14 and 17.

Every export: import, and `einplan eval` equal to torch (relative 1e-5, float32, the same
inputs). And 2-byte models: an MLP exported after `.to(torch.bfloat16)`, and the same MLP
in float32 with every float tensor of its ONNX file turned into float16 (as model.half()
writes it; torch on CPUs cannot run half layers to export them): each imports into a bf16
or f16 graph whose `einplan eval` is torch's within the type's tolerance. And a BERT layer
as Hugging Face writes it (int64 input_ids and token_type_ids through embeddings, an int64
attention_mask made additive in forward) at opsets 14 and 17, equal to torch, its program
at p = 3 fed the int64 .npy files. Masks computed in forward (torch.tril of scores,
masked_fill of a comparison, ==, ~, &, |, ^) at opsets 14 and 17, the program at p = 4. The encoder at opset 17 is also emitted and run at p = 2, 3 and 4 with --check,
its output equal to torch's and its bytes and peaks equal to its plan's. A failure prints
the command and its output.

usage: torch_layers.py EINPLAN EINCODEGEN WORK
"""
import math
import os
import pathlib
import shutil
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from model_checks import close, program_matches, run  # noqa: E402

B, S, M, D, H, F = 2, 8, 6, 32, 4, 64
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OPENBLAS_NUM_THREADS="1")


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.TransformerEncoderLayer(D, H, F, dropout=0.0, batch_first=True)

    def forward(self, x):
        n = x.shape[1]
        mask = torch.triu(torch.full((n, n), float("-inf")), diagonal=1)
        return self.layer(x, src_mask=mask)


class Decoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.TransformerDecoderLayer(D, H, F, dropout=0.0, batch_first=True)

    def forward(self, x, memory):
        mask = torch.nn.Transformer.generate_square_subsequent_mask(x.shape[1])
        return self.layer(x, memory, tgt_mask=mask)


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = torch.nn.Linear(D, F), torch.nn.Linear(F, D)

    def forward(self, x):
        return self.fc2(torch.nn.functional.gelu(self.fc1(x)))


class BertLayer(torch.nn.Module):
    """A BERT embedding and encoder layer as Hugging Face writes it: word, position and
    token-type embeddings from int64 ids, and an int64 attention mask input turned into an
    additive mask in forward ((1 - mask) * finfo.min)."""

    def __init__(self, vocab=50, types=2):
        super().__init__()
        self.word, self.pos, self.typ = torch.nn.Embedding(vocab, D), torch.nn.Embedding(S, D), torch.nn.Embedding(types, D)
        self.ln0, self.ln1, self.ln2 = torch.nn.LayerNorm(D), torch.nn.LayerNorm(D), torch.nn.LayerNorm(D)
        self.q, self.k, self.v, self.o = (torch.nn.Linear(D, D) for _ in range(4))
        self.f1, self.f2 = torch.nn.Linear(D, F), torch.nn.Linear(F, D)

    def forward(self, input_ids, token_type_ids, attention_mask):
        b, s = input_ids.shape
        x = self.ln0(self.word(input_ids) + self.pos(torch.arange(s).unsqueeze(0)) + self.typ(token_type_ids))
        extended = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        heads = lambda t: t.view(b, s, H, D // H).transpose(1, 2)
        q, k, v = heads(self.q(x)), heads(self.k(x)), heads(self.v(x))
        a = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(D // H) + extended, dim=-1)
        x = self.ln1(x + self.o((a @ v).transpose(1, 2).reshape(b, s, D)))
        return self.ln2(x + self.f2(torch.nn.functional.gelu(self.f1(x))))


class ComputedMasks(torch.nn.Module):
    """Masks made in forward from computed values: torch.tril/triu of scores, masked_fill of
    a comparison, an arg-max mask from ==, and the logic operators on comparisons."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(D, D)

    def forward(self, x):
        h = self.fc(x)
        s = torch.tril(h @ h.transpose(-1, -2))
        s = s.masked_fill(s < 0, 0.5)
        top = (h == h.amax(-1, keepdim=True)).float()
        keep = (h >= -0.5) & ~(h > 0.5)
        either = (h <= -1) | (h >= 1)
        odd = (h > 0) ^ (x > 0)
        y = torch.where(keep, h, top) + either.float() + odd.float() * 0.25
        return torch.triu(s, diagonal=-1) @ y


def at_both_opsets_and_run(einplan, eincodegen, work, what, stem, model, inputs, ps):
    """MODEL on INPUTS exported at opsets 14 and 17, each imported and evaluated against
    torch; the opset-17 graph's program run at each p of PS. Whether all agree."""
    ok = True
    with torch.no_grad():
        want = model(*inputs.values()).numpy()
    for opset in (14, 17):
        print(f"{what}, opset {opset}:")
        base = os.path.join(work, f"{stem}{opset}")
        ok &= imported_and_evaluated(einplan, model, inputs, want, base, opset)
    for p in ps:
        ok &= program_matches(eincodegen, base + ".yaml", base + ".weights", want, p, base + ".prog", base + f".out{p}", ENV)
    return ok


def computed_masks(einplan, eincodegen, work):
    """Trilu, Less/Greater/Equal(OrEqual), Not/And/Or/Xor, a Cast to bool and Where of
    computed tensors (scalar functions lt le gt ge eq and where) at opsets 14 and 17, equal
    to torch; the opset-17 program at p = 4."""
    return at_both_opsets_and_run(einplan, eincodegen, work, "masks computed in forward", "masks", ComputedMasks().eval(),
                                  {"x": torch.randn(B, S, D)}, (4,))


def bert_layer(einplan, eincodegen, work):
    """The BERT layer at opsets 14 and 17: ids through gathers, the int64 mask a float input
    read from its int64 .npy; eval equal to torch, and the opset-17 program at p = 3."""
    mask = torch.ones(B, S, dtype=torch.int64)
    mask[1, 5:] = 0  # the second sequence is padded
    inputs = {"input_ids": torch.randint(0, 50, (B, S)), "token_type_ids": torch.randint(0, 2, (B, S)),
              "attention_mask": mask}
    return at_both_opsets_and_run(einplan, eincodegen, work, "BERT layer (int64 ids, token types and attention mask)",
                                  "bert", BertLayer().eval(), inputs, (3,))


def imported_and_evaluated(einplan, model, inputs, want, base, opset):
    """Exports MODEL on INPUTS (name -> tensor) at OPSET, imports it, evaluates it on the same
    inputs; whether its output y is torch's WANT."""
    torch.onnx.export(model, tuple(inputs.values()), base + ".onnx", input_names=list(inputs), output_names=["y"],
                      opset_version=opset)
    run([einplan, "import", base + ".onnx", "-o", base + ".yaml"])
    for name, value in inputs.items():
        np.save(os.path.join(base + ".weights", f"{name}.npy"), value.numpy())
    run([einplan, "eval", base + ".yaml", "--inputs", base + ".weights", "--outputs", base + ".eval"])
    return close(np.load(os.path.join(base + ".eval", "y.npy")), want, "einplan eval vs torch")


def to_float16(path):
    """Every float32 tensor of an ONNX file as float16: initializers, Constant nodes, inputs
    and outputs (what model.half() exports)."""
    import onnx
    from onnx import TensorProto, numpy_helper
    m = onnx.load(path)
    def half(t):
        if t.data_type == TensorProto.FLOAT:
            t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float16), t.name))
    for t in m.graph.initializer:
        half(t)
    for n in m.graph.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.TENSOR:
                half(a.t)
    for v in list(m.graph.input) + list(m.graph.output):
        if v.type.tensor_type.elem_type == TensorProto.FLOAT:
            v.type.tensor_type.elem_type = TensorProto.FLOAT16
    onnx.save(m, path)


def two_byte_models(einplan, work):
    """An MLP in bfloat16 and in float16, each against torch within its type's tolerance."""
    ok = True
    model = MLP().eval()
    x = torch.randn(B, S, D)
    for dtype, tolerance in (("bf16", 0.05), ("f16", 0.01)):
        print(f"MLP in {dtype}:")
        base = os.path.join(work, f"mlp_{dtype}")
        if dtype == "bf16":
            m, xin = MLP().eval(), x.to(torch.bfloat16)
            m.load_state_dict(model.state_dict())
            m = m.to(torch.bfloat16)
            with torch.no_grad():
                want = m(xin).float().numpy()
            torch.onnx.export(m, (xin,), base + ".onnx", input_names=["x"], output_names=["y"], opset_version=17)
            x_npy = xin.float().numpy()  # NumPy has no bf16: bf16 inputs are read from f32
        else:
            # torch's reference: float32 from the weights and input rounded to float16
            m = MLP().eval()
            m.load_state_dict({k: v.half().float() for k, v in model.state_dict().items()})
            xin = x.half().float()
            with torch.no_grad():
                want = m(xin).numpy()
            torch.onnx.export(model, (x,), base + ".onnx", input_names=["x"], output_names=["y"], opset_version=17)
            to_float16(base + ".onnx")
            x_npy = x.half().numpy()
        run([einplan, "import", base + ".onnx", "-o", base + ".yaml"])
        dt = next(line for line in open(base + ".yaml") if line.startswith("dtype:")).split()[1]
        np.save(os.path.join(base + ".weights", "x.npy"), x_npy)
        run([einplan, "eval", base + ".yaml", "--inputs", base + ".weights", "--outputs", base + ".eval"])
        got = np.load(os.path.join(base + ".eval", "y.npy")).astype(np.float32)
        err = float(np.max(np.abs(got - want))) / float(np.max(np.abs(want)))
        good = dt == dtype and err <= tolerance
        print(f"  graph dtype {dt}, einplan eval vs torch: max relative error {err:.1e} (bound {tolerance})  "
              f"{'ok' if good else 'WRONG'}")
        ok &= good
    return ok


def main():
    einplan, eincodegen, work = sys.argv[1], sys.argv[2], sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    torch.manual_seed(0)
    ok = True
    ok &= at_both_opsets_and_run(einplan, eincodegen, work, "encoder", "encoder", Encoder().eval(),
                                 {"x": torch.randn(B, S, D)}, (2, 3, 4))
    ok &= at_both_opsets_and_run(einplan, eincodegen, work, "decoder", "decoder", Decoder().eval(),
                                 {"x": torch.randn(B, S, D), "memory": torch.randn(B, M, D)}, ())
    ok &= two_byte_models(einplan, work)
    ok &= bert_layer(einplan, eincodegen, work)
    ok &= computed_masks(einplan, eincodegen, work)
    if not ok:
        sys.exit("a layer differs from torch or from its plan")


if __name__ == "__main__":
    main()
