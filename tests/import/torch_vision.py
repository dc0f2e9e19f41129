#!/usr/bin/python3
"""Vision models through `einplan import` (issue "Convolutions"): windows that tile the
image are a reshape; other convolutions (groups and depthwise too) and pools a sum (or
max) over their taps, each a window of the input or, with a stride, of one of its phases (a
gather) (docs/import.md).

- torchvision's VisionTransformer as written (image 32, patch 8, 2 layers; its patchify
  Conv2d has kernel = stride), its parameters drawn at random (torchvision starts the head
  at zeros), at opsets 14 and 17: import, and `einplan eval` equal to torch (relative
  1e-5); at opset 17 emitted and run at p = 2, 3 and 4 with --check: the output equal to
  torch's, bytes and peaks equal to the plan's.
- torchvision's resnet18 (num_classes 10, eval mode, its batch norms given random
  statistics; input 2x3x32x32: 7x7 stride-2 and 3x3 padded convolutions, 1x1 stride-2
  downsampling, a padded 3x3 max pool), the same checks (--check at p = 3 only: seconds),
  and `einplan grad` of its logits' sum with respect to the images equal to torch.autograd.
- A small CNN of the other windows (kernel = stride, depthwise with groups, dilation,
  ceil_mode, ConvTranspose2d with output_padding, AvgPool2d with its Pad, Conv1d,
  GlobalAveragePool) and a BatchNorm2d the export cannot fold (after a ReLU) at batch 1 on a 64x64
  image: eval equal to torch, `einplan grad` of its weights equal to torch.autograd (max
  pooling's arg-max, ceil_mode's padded places included), a plan at p = 4 with both spatial labels of the first
  convolution cut (pinned: the dynamic program prefers its channels), and that plan's
  program equal to torch and to its plan.
- An average pooling whose divisor varies by position (count_include_pad=False with
  padding), and a 2x2 max pool after two padded convolutions (taps, not a reshape, as the
  convolutions' windows cannot follow a split) with a Gather of constant columns: eval
  and `einplan grad` of the first convolution's weight equal to torch; the same for Pad in
  modes reflect and edge (F.pad's reflect and replicate) around a convolution. MaxPool's Indices output (return_indices=True): refused
  with exit 2 naming the node, nothing written.

A failure prints the command and its output.
usage: torch_vision.py EINPLAN EINCODEGEN WORK
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from model_checks import close, program_matches, run  # noqa: E402

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OPENBLAS_NUM_THREADS="1")


class SmallCNN(torch.nn.Module):
    """The windows resnet18 and the ViT leave out."""

    def __init__(self):
        super().__init__()
        self.patch = torch.nn.Conv2d(3, 8, kernel_size=4, stride=4)
        self.depthwise = torch.nn.Conv2d(8, 8, kernel_size=3, padding=1, groups=8)
        self.dilated = torch.nn.Conv2d(8, 16, kernel_size=3, padding=2, dilation=2)
        self.up = torch.nn.ConvTranspose2d(16, 16, kernel_size=3, stride=2, padding=1, output_padding=1)
        self.norm = torch.nn.BatchNorm2d(8)  # after a ReLU: the export cannot fold it into a convolution
        with torch.no_grad():
            self.norm.running_mean.normal_(0, 0.1)
            self.norm.running_var.uniform_(0.5, 1.5)
            self.norm.weight.normal_(1, 0.1)
            self.norm.bias.normal_(0, 0.1)
        self.rows = torch.nn.Conv1d(16, 16, kernel_size=2, stride=2)
        self.head = torch.nn.Linear(16, 10)

    def forward(self, x):
        y = self.norm(torch.relu(self.depthwise(self.patch(x))))                         # 1x8x16x16
        y = torch.nn.functional.max_pool2d(y, 3, stride=2, ceil_mode=True)              # 1x8x8x8
        y = self.up(torch.relu(self.dilated(y)))                                         # 1x16x16x16
        y = torch.nn.functional.avg_pool2d(y, 4)                                        # 1x16x4x4
        z = self.rows(y.flatten(2))                                                     # 1x16x8
        g = torch.nn.functional.adaptive_avg_pool2d(y, 1).flatten(1)                    # 1x16
        return self.head(g + z.mean(-1))


class VaryingAverage(torch.nn.Module):
    """An average whose divisor varies by position (padding left out of it)."""

    def forward(self, x):
        return torch.nn.functional.avg_pool2d(x, 3, stride=1, padding=1, count_include_pad=False)


class PoolAfterTaps(torch.nn.Module):
    """A 2x2 max pool (windows that tile) of a convolution's output whose own taps read the
    convolution before it through shifted windows: the pool's split of the rows cannot reach
    those windows, so the pool is taps too; and a strided Gather of computed values."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(2, 3, 3, padding=1)
        self.c2 = torch.nn.Conv2d(3, 3, 3, padding=1)

    def forward(self, x):
        y = torch.nn.functional.max_pool2d(torch.relu(self.c2(torch.relu(self.c1(x)))), 2)
        return y[:, :, :, torch.tensor([3, 0, 2])]


class ReflectAndEdgePads(torch.nn.Module):
    """F.pad in modes reflect and replicate (ONNX's Pad reflect and edge: gathers)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)

    def forward(self, x):
        y = self.conv(torch.nn.functional.pad(x, (1, 2, 2, 1), mode="reflect"))
        return torch.nn.functional.pad(torch.relu(y), (2, 0, 1, 3), mode="replicate")


class TiedPool(torch.nn.Module):
    """A 3x3 max pool of stride 2 (taps over phases) of an input of few distinct values:
    windows with several maximal taps, whose gradient torch gives to the first."""

    def forward(self, x):
        return torch.nn.functional.max_pool2d(x, 3, stride=2, padding=1)


class PoolWithIndices(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.max_pool2d(x, 2, return_indices=True)[1].float()


def export(model, x, base, opset):
    torch.onnx.export(model, (x,), base + ".onnx", input_names=["images"], output_names=["logits"], opset_version=opset)


def imported_and_evaluated(einplan, model, x, base, opset):
    """Exports, imports and evaluates; returns whether eval equals torch."""
    with torch.no_grad():
        want = model(x).numpy()
    export(model, x, base, opset)
    run([einplan, "import", base + ".onnx", "-o", base + ".yaml"])
    np.save(os.path.join(base + ".weights", "images.npy"), x.numpy())
    run([einplan, "eval", base + ".yaml", "--inputs", base + ".weights", "--outputs", base + ".eval"])
    return want, close(np.load(os.path.join(base + ".eval", "logits.npy")), want, "einplan eval vs torch")


def vision_transformer(einplan, eincodegen, work):
    import torchvision
    model = torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=4, hidden_dim=64,
                                                 mlp_dim=128, num_classes=10).eval()
    with torch.no_grad():
        for param in model.parameters():
            param.normal_(0, 0.2)
    x = torch.randn(2, 3, 32, 32)
    ok = True
    for opset in (14, 17):
        print(f"torchvision VisionTransformer, opset {opset}:")
        base = os.path.join(work, f"vit{opset}")
        want, good = imported_and_evaluated(einplan, model, x, base, opset)
        ok &= good
        if opset == 17:
            for p in (2, 3, 4):
                ok &= program_matches(eincodegen, base + ".yaml", base + ".weights", want, p, base + ".prog",
                                      base + f".out{p}", ENV, output="logits")
    return ok


def resnet18(einplan, eincodegen, work):
    import torchvision
    model = torchvision.models.resnet18(num_classes=10).eval()
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.normal_(0, 0.1)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.normal_(1, 0.1)
                m.bias.normal_(0, 0.1)
    x = torch.randn(2, 3, 32, 32)
    ok = True
    for opset in (14, 17):
        print(f"torchvision resnet18, opset {opset}:")
        base = os.path.join(work, f"resnet{opset}")
        want, good = imported_and_evaluated(einplan, model, x, base, opset)
        ok &= good
        if opset == 17:
            for p in (2, 3, 4):
                ok &= program_matches(eincodegen, base + ".yaml", base + ".weights", want, p, base + ".prog",
                                      base + f".out{p}", ENV, output="logits", check=p == 3, opt="O1")
    # The export folds each batch norm into its convolution's weights, so the weights'
    # gradients are not torch's; the images' gradient is the same function's.
    images = x.clone().requires_grad_(True)
    model(images).sum().backward()
    ok &= gradients_match(einplan, os.path.join(work, "resnet17"), {"images": images.grad.numpy()})
    return ok


def evaluated_and_differentiated(einplan, model, x, base, weights):
    """Imports MODEL at opset 17 and evaluates it (equal to torch), then `einplan grad` of
    sum(logits) with respect to WEIGHTS (graph input name -> parameter) equal to
    torch.autograd's gradients."""
    ok = imported_and_evaluated(einplan, model, x, base, 17)[1]
    model.zero_grad()
    model(x).sum().backward()
    return ok & gradients_match(einplan, base, {name: p.grad.numpy() for name, p in weights.items()})


def gradients_match(einplan, base, want):
    """`einplan grad` of sum(logits) with respect to WANT's inputs, evaluated, equal to
    torch.autograd's gradients (WANT: input name -> gradient)."""
    run([einplan, "grad", base + ".yaml", "--loss", "logits", "--wrt", ",".join(want), "-o", base + ".grad.yaml"])
    run([einplan, "eval", base + ".grad.yaml", "--inputs", base + ".weights", "--outputs", base + ".grad"])
    ok = True
    for name, g in want.items():
        ok &= close(np.load(os.path.join(base + ".grad", f"grad_{name}.npy")), g, f"einplan grad of {name} vs torch.autograd")
    return ok


def first_conv(graph):
    """The first convolution's node: its name and its output's spatial labels."""
    import yaml
    conv = next(n for n in yaml.safe_load(open(graph))["nodes"] if "patch_Conv" in n["name"])
    return conv["name"], conv["einsum"].split("->")[1][2:]


def spatial_cut(plan, graph):
    """Whether the plan cuts a spatial label (an output label after batch and channel) of
    the first Conv."""
    name, spatial = first_conv(graph)
    cuts = next(n for n in plan["nodes"] if n["name"] == name)["partition"]
    print(f"  first convolution {name}: partition {cuts}")
    return any(cuts[label] > 1 for label in spatial)


def small_cnn(einplan, eincodegen, work):
    print("a CNN of the other windows (tiling, depthwise, dilated, ceil_mode, transposed, AvgPool2d with Pad, Conv1d), "
          "opset 17:")
    model = SmallCNN().eval()
    x = torch.randn(1, 3, 64, 64)
    base = os.path.join(work, "cnn")
    want, ok = imported_and_evaluated(einplan, model, x, base, 17)
    model.zero_grad()
    model(x).sum().backward()
    ok &= gradients_match(einplan, base, {f"{m}_weight": getattr(model, m).weight.grad.numpy()
                                          for m in ("patch", "depthwise", "dilated", "up", "rows")})
    # The dynamic program cuts the output channels here (the unfolds after it would pay for
    # rows); the spatial cut is pinned, the rest of the plan chosen around it.
    name, spatial = first_conv(base + ".yaml")
    run([einplan, "plan", base + ".yaml", "-p", 4, "--fix", f"{name}={spatial[0]}:2,{spatial[1]}:2",
         "-o", base + ".plan.json"])
    cut = spatial_cut(json.load(open(base + ".plan.json")), base + ".yaml")
    print(f"  the plan at p = 4 cuts the spatial labels: {'ok' if cut else 'WRONG'}")
    ok &= cut
    ok &= program_matches(eincodegen, base + ".yaml", base + ".weights", want, 4, base + ".prog", base + ".out4", ENV,
                          output="logits", fixed_plan=base + ".plan.json", opt="O1")
    return ok


def varying_average(einplan, work):
    print("AvgPool2d(3, stride 1, padding 1, count_include_pad=False), opset 17:")
    return imported_and_evaluated(einplan, VaryingAverage(), torch.randn(1, 2, 6, 6), os.path.join(work, "varying"), 17)[1]


def pool_after_taps(einplan, work):
    print("MaxPool2d(2) after two padded 3x3 convolutions, a Gather of columns 3, 0, 2, opset 17:")
    model = PoolAfterTaps()
    return evaluated_and_differentiated(einplan, model, torch.randn(1, 2, 8, 8), os.path.join(work, "pool_after_taps"),
                                        {"c1_weight": model.c1.weight})


def reflect_and_edge_pads(einplan, work):
    print("F.pad in modes reflect and replicate around a convolution, opset 17:")
    model = ReflectAndEdgePads()
    return evaluated_and_differentiated(einplan, model, torch.randn(2, 3, 9, 7), os.path.join(work, "pads"),
                                        {"conv_weight": model.conv.weight})


def tied_pool(einplan, work):
    print("MaxPool2d(3, stride 2, padding 1) of an input with ties, opset 17:")
    x = torch.round(torch.randn(2, 3, 9, 11) * 1.5)
    base = os.path.join(work, "tied_pool")
    ok = imported_and_evaluated(einplan, TiedPool(), x, base, 17)[1]
    images = x.clone().requires_grad_(True)
    TiedPool()(images).sum().backward()
    return ok & gradients_match(einplan, base, {"images": images.grad.numpy()})


def indices_refused(einplan, work):
    print("MaxPool2d(2, return_indices=True):")
    base = os.path.join(work, "indices")
    export(PoolWithIndices(), torch.randn(1, 2, 4, 4), base, 17)
    p = subprocess.run([einplan, "import", base + ".onnx", "-o", base + ".yaml"], capture_output=True, text=True)
    named = "('MaxPool')" in p.stderr and "Indices" in p.stderr
    nothing = not os.path.exists(base + ".yaml") and not os.path.exists(base + ".weights")
    ok = p.returncode == 2 and named and nothing
    print(f"  exit {p.returncode}, the node and its Indices output named, nothing written  {'ok' if ok else 'WRONG'}"
          + ("" if ok else f"\n{p.stderr}"))
    return ok


def main():
    einplan, eincodegen, work = sys.argv[1], sys.argv[2], sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    torch.manual_seed(0)
    ok = vision_transformer(einplan, eincodegen, work)
    ok &= resnet18(einplan, eincodegen, work)
    ok &= small_cnn(einplan, eincodegen, work)
    ok &= varying_average(einplan, work)
    ok &= pool_after_taps(einplan, work)
    ok &= reflect_and_edge_pads(einplan, work)
    ok &= tied_pool(einplan, work)
    ok &= indices_refused(einplan, work)
    if not ok:
        sys.exit("a vision model differs from torch or from its plan, or was not refused as it should be")


if __name__ == "__main__":
    main()
