#!/usr/bin/python3
"""Training graphs (issue 23) against torch.autograd and through emitted programs.

1. `einplan gen llama --train` (2 layers, small dims, f64): the gradient of the mean
   cross-entropy with respect to every weight, from `einplan eval --inputs`, against
   torch.autograd over an independent torch interpreter of the graph's forward nodes
   (graph_torch.py), on random weights and one-hot targets; the updated weights
   W_next = W - lr * grad_W against the same.
2. `einplan gen ffnn`: its hand-written backward pass and SGD update (W*_new) against
   `einplan grad` of its forward pass (the mean of the per-sample loss) with the same
   learning rate (W*_next), on the same inputs.
3. The LLaMA training step in f32 planned, emitted and run with --check at the given
   device counts (tests/codegen/run_programs.py: bytes and memory equal to the plan,
   outputs equal to einplan eval).

    training_steps.py --einplan E --eincodegen C --work DIR [--ranks 1,2,3,4]
"""
import argparse
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import torch
import yaml

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import graph_torch  # noqa: E402

LLAMA = ["--layers", "2", "--dim", "32", "--heads", "2", "--ffn", "48", "--vocab", "40", "--seq", "8", "--batch", "2"]


def run(cmd, what):
    p = subprocess.run([str(c) for c in cmd], text=True, capture_output=True)
    if p.returncode != 0:
        print(p.stdout, p.stderr)
        sys.exit(f"FAILED: {what}")
    return p


def llama_against_torch(a, work):
    graph = work / "llama_train.yaml"
    run([a.einplan, "gen", "llama", *LLAMA, "--train", "--lr", "0.05", "--dtype", "f64", "-o", graph], "gen llama --train")
    g = graph_torch.load(graph)
    rng = np.random.default_rng(5)
    ins = work / "llama_in"
    ins.mkdir()
    values = {}
    for t in g["inputs"]:
        shape = t["shape"]
        if t["name"] == "targets":
            v = np.zeros(shape)
            idx = rng.integers(0, shape[-1], size=shape[:-1])
            np.put_along_axis(v, idx[..., None], 1.0, axis=-1)
        elif t["name"] == "mask":
            v = np.triu(np.full(shape, -1e4), 1)
        else:
            v = rng.uniform(-1, 1, shape) * (0.3 if t["name"].startswith(("L", "output")) else 1)
        values[t["name"]] = v
        np.save(ins / f"{t['name']}.npy", v)
    out = work / "llama_out"
    run([a.einplan, "eval", graph, "--inputs", ins, "--outputs", out], "einplan eval of the training step")
    forward_end = [n["name"] for n in g["nodes"]].index("loss") + 1
    forward = dict(g, nodes=g["nodes"][:forward_end])
    tin = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in values.items()}
    loss = graph_torch.evaluate(forward, tin)["loss"]
    weights = [n[len("grad_"):] for n in g["outputs"] if n.startswith("grad_")]
    if len(weights) != 2 * 9 + 2:
        sys.exit(f"FAILED: expected a gradient for each of the 20 weights, got {weights}")
    grads = torch.autograd.grad(loss, [tin[w] for w in weights])
    worst = 0.0
    for w, want in zip(weights, grads):
        got = np.load(out / f"grad_{w}.npy")
        err = np.abs(got - want.numpy()).max() / max(np.abs(want.numpy()).max(), 1e-12)
        nxt = np.load(out / f"{w}_next.npy")
        err_next = np.abs(nxt - (values[w] - 0.05 * want.numpy())).max()
        worst = max(worst, err)
        if err > 1e-9 or err_next > 1e-12:
            sys.exit(f"FAILED: grad_{w} differs from torch.autograd: max rel err {err:.3g} (update {err_next:.3g})")
    print(f"LLaMA training step (2 layers): loss {float(loss):.6f}, 20 weight gradients equal torch.autograd's "
          f"(max rel err {worst:.2g}), and so do the SGD updates")


def ffnn_hand_backward(a, work):
    graph = work / "ffnn.yaml"
    run([a.einplan, "gen", "ffnn", "--batch", "8", "--features", "12", "--hidden", "10,6", "--classes", "5", "--lr", "0.1",
         "--dtype", "f64", "-o", graph], "gen ffnn")
    g = yaml.safe_load(graph.read_text())
    names = [n["name"] for n in g["nodes"]]
    forward = g["nodes"][:names.index("dL")]
    forward.append({"name": "mean_loss", "einsum": "b->", "join": "x * 0.125", "inputs": ["loss"]})
    fwd = dict(g, nodes=forward, outputs=["mean_loss"])
    fwd_path = work / "ffnn_forward.yaml"
    fwd_path.write_text(yaml.safe_dump(fwd, sort_keys=False))
    weights = [t["name"] for t in g["inputs"] if t["name"].startswith("W")]
    train = work / "ffnn_grad.yaml"
    run([a.einplan, "grad", fwd_path, "--loss", "mean_loss", "--wrt", ",".join(weights), "--update", "sgd", "--lr", "0.1",
         "-o", train], "einplan grad of ffnn's forward pass")
    # One-hot targets: the hand-written dL = (P - Y) / batch is the gradient only where
    # every row of Y sums to 1.
    rng = np.random.default_rng(3)
    ins = work / "ffnn_in"
    ins.mkdir()
    for t in g["inputs"]:
        if t["name"] == "Y":
            v = np.eye(t["shape"][1])[rng.integers(0, t["shape"][1], t["shape"][0])]
        else:
            v = rng.uniform(-1, 1, t["shape"])
        np.save(ins / f"{t['name']}.npy", v)
    hand, auto = work / "ffnn_hand", work / "ffnn_auto"
    run([a.einplan, "eval", graph, "--inputs", ins, "--outputs", hand], "eval ffnn")
    run([a.einplan, "eval", train, "--inputs", ins, "--outputs", auto], "eval the derived training step")
    for w in weights:
        want, got = np.load(hand / f"{w}_new.npy"), np.load(auto / f"{w}_next.npy")
        err = np.abs(got - want).max()
        if err > 1e-12:
            sys.exit(f"FAILED: ffnn: {w}_new (hand-written backward) and {w}_next (einplan grad) differ by {err:.3g}")
    print(f"ffnn: the hand-written backward pass and einplan grad give the same updated weights ({', '.join(weights)})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--einplan", required=True)
    ap.add_argument("--eincodegen", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--ranks", default="1,2,3,4")
    a = ap.parse_args()
    work = pathlib.Path(a.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    llama_against_torch(a, work)
    ffnn_hand_backward(a, work)
    graph = work / "llama_train_f32.yaml"
    run([a.einplan, "gen", "llama", *LLAMA, "--train", "-o", graph], "gen llama --train (f32)")
    p = subprocess.run([sys.executable, HERE.parent / "codegen" / "run_programs.py", "--einplan", a.einplan, "--eincodegen",
                        a.eincodegen, "--graph", graph, "--work", work / "programs", "--ranks", a.ranks])
    if p.returncode != 0:
        sys.exit("FAILED: the emitted training step")
    print("all training-step checks passed")


if __name__ == "__main__":
    main()
