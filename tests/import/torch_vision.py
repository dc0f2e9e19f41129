#!/usr/bin/python3
"""Vision models through `einplan import` (issue "Convolutions"): convolutions and pooling
whose windows tile the image become a reshape and one EinSum each, no windows needed.

- torchvision's VisionTransformer as written (image 32, patch 8, 2 layers; its patchify
  Conv2d has kernel = stride), its parameters drawn at random (torchvision starts the head
  at zeros), exported at opsets 14 and 17: import, and `einplan eval` equal to torch
  (relative 1e-5). At opset 17 it is emitted and run at p = 2, 3 and 4 with --check: the
  output equal to torch's, bytes and peaks equal to the plan's.
- A small CNN of tiling windows (Conv2d of kernel = stride, ReLU, MaxPool2d(2),
  AvgPool2d(2), a Conv1d over rows, AdaptiveAvgPool2d(1) = GlobalAveragePool, Linear) at
  batch 1 on a 64x64 image: eval equal to torch, a plan at p = 4 that cuts a spatial label
  of the first convolution, and that plan's program equal to torch and to its plan.
- torchvision's resnet18 (eval mode): refused with exit 2, naming both operator types it
  needs windows for (overlapping or padded Conv and MaxPool) and writing nothing.

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
from emitted_build import make_command  # noqa: E402
from model_checks import close, run  # noqa: E402

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OPENBLAS_NUM_THREADS="1")


class TilingCNN(torch.nn.Module):
    """Every window tiles its input: nothing overlaps, nothing pads."""

    def __init__(self):
        super().__init__()
        self.patch = torch.nn.Conv2d(3, 8, kernel_size=4, stride=4)
        self.mix = torch.nn.Conv2d(8, 16, kernel_size=2, stride=2)
        self.rows = torch.nn.Conv1d(16, 16, kernel_size=2, stride=2)
        self.head = torch.nn.Linear(16, 10)

    def forward(self, x):
        y = torch.nn.functional.max_pool2d(torch.relu(self.patch(x)), 2)    # 1x8x8x8
        y = torch.nn.functional.avg_pool2d(torch.relu(self.mix(y)), 2)      # 1x16x2x2
        z = self.rows(y.flatten(2))                                         # 1x16x2
        g = torch.nn.functional.adaptive_avg_pool2d(y, 1).flatten(1)        # 1x16
        return self.head(g + z.mean(-1))


def export(model, x, base, opset):
    torch.onnx.export(model, (x,), base + ".onnx", input_names=["images"], output_names=["logits"], opset_version=opset)


def program_matches(einplan, eincodegen, graph, weights, want, p, prog, out, fixed_plan=None):
    """Emits GRAPH (or its plan FIXED_PLAN) for p ranks, builds and runs it with --check;
    whether its output is torch's and its bytes and peaks are the plan's."""
    source = ["--plan", fixed_plan] if fixed_plan else ["-p", p]
    run([eincodegen, graph, *source, "-o", prog, "--force"])
    run(make_command(prog, "-j2"), env=ENV)
    report = out + ".report.json"
    run(["mpirun", "--oversubscribe", "-np", p, os.path.join(prog, "torch_jit"), "--inputs", weights, "--outputs", out,
         "--check", "--iters", 1, "--report", report], env=ENV, timeout=300)
    ok = close(np.load(os.path.join(out, "logits.npy")), want, f"mpirun -np {p} program vs torch")
    r = json.load(open(report))
    same = r["bytes_sent"] == r["bytes_predicted"] and r["peak_bytes_per_rank"] == r["peak_bytes_predicted_per_rank"]
    print(f"  bytes {r['bytes_sent']} / {r['bytes_predicted']} planned, peaks {r['peak_bytes_per_rank']} / "
          f"{r['peak_bytes_predicted_per_rank']} planned  {'ok' if same else 'WRONG'}")
    return ok and same


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
                ok &= program_matches(einplan, eincodegen, base + ".yaml", base + ".weights", want, p, base + ".prog",
                                      base + f".out{p}")
    return ok


def spatial_cut(plan, graph):
    """Whether the plan cuts a spatial label (output dimension 2 or 3) of the first Conv."""
    import yaml
    nodes = yaml.safe_load(open(graph))["nodes"]
    conv = next(n for n in nodes if "patch_Conv" in n["name"])
    out_labels = conv["einsum"].split("->")[1]
    cuts = next(n for n in plan["nodes"] if n["name"] == conv["name"])["partition"]
    print(f"  first convolution {conv['einsum']}: partition {cuts}")
    return any(cuts[label] > 1 for label in out_labels[2:])


def tiling_cnn(einplan, eincodegen, work):
    print("a CNN of tiling windows (Conv2d, MaxPool2d, AvgPool2d, Conv1d, GlobalAveragePool), opset 17:")
    model = TilingCNN().eval()
    x = torch.randn(1, 3, 64, 64)
    base = os.path.join(work, "cnn")
    want, ok = imported_and_evaluated(einplan, model, x, base, 17)
    run([einplan, "plan", base + ".yaml", "-p", 4, "-o", base + ".plan.json"])
    cut = spatial_cut(json.load(open(base + ".plan.json")), base + ".yaml")
    print(f"  the plan at p = 4 cuts a spatial label: {'ok' if cut else 'WRONG'}")
    ok &= cut
    ok &= program_matches(einplan, eincodegen, base + ".yaml", base + ".weights", want, 4, base + ".prog", base + ".out4",
                          fixed_plan=base + ".plan.json")
    return ok


def resnet_refused(einplan, work):
    import torchvision
    print("torchvision resnet18 (windows that overlap and pad):")
    base = os.path.join(work, "resnet18")
    export(torchvision.models.resnet18(num_classes=10).eval(), torch.randn(2, 3, 32, 32), base, 17)
    p = subprocess.run([einplan, "import", base + ".onnx", "-o", base + ".yaml"], capture_output=True, text=True)
    named = all(f"'{op} with overlapping or padded windows'" in p.stderr for op in ("Conv", "MaxPool"))
    nothing = not os.path.exists(base + ".yaml") and not os.path.exists(base + ".weights")
    ok = p.returncode == 2 and named and nothing
    print(f"  exit {p.returncode}, both operator types named, nothing written  {'ok' if ok else 'WRONG'}"
          + ("" if ok else f"\n{p.stderr}"))
    return ok


def main():
    einplan, eincodegen, work = sys.argv[1], sys.argv[2], sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    torch.manual_seed(0)
    ok = vision_transformer(einplan, eincodegen, work)
    ok &= tiling_cnn(einplan, eincodegen, work)
    ok &= resnet_refused(einplan, work)
    if not ok:
        sys.exit("a vision model differs from torch or from its plan, or was not refused as it should be")


if __name__ == "__main__":
    main()
