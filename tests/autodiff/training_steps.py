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
3. AdamW (`einplan grad --update adamw`, `gen llama --train --optimizer adamw`): three
   steps of the FFNN (f64) and of the LLaMA (f64, and f32 within 1 % of a step), each fed
   its outputs back, against torch.optim.AdamW over the same forward computation; and the
   mixed-precision step (--dtype bf16 --master f32) against torch's bf16/f32 arithmetic.
4. The LLaMA AdamW training step in f32, and in bf16 with f32 master weights, planned,
   emitted and run with --check at the given device counts (tests/codegen/run_programs.py:
   bytes and memory equal to the plan, outputs equal to einplan eval).

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

FFNN = ["--batch", "8", "--features", "12", "--hidden", "10,6", "--classes", "5"]
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
    run([a.einplan, "gen", "ffnn", *FFNN, "--lr", "0.1", "--dtype", "f64", "-o", graph], "gen ffnn")
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
    return fwd_path, weights, ins


def adamw_steps(a, work, tag, graph, forward, loss_name, values, dtype, steps=3):
    """`steps` AdamW steps through `einplan eval` of the training graph, each feeding its
    X_next, X_m_next, X_v_next and step + 1 back in, against torch.optim.AdamW on the same
    start (torch's defaults but lr, which the graph was made with) and the same forward
    computation (graph_torch). Returns the worst errors, relative to each tensor's largest
    value, of the weights and of the state, and the largest weight difference as a share of
    the learning rate."""
    g = graph_torch.load(graph)
    names = {t["name"] for t in g["inputs"]}
    weights = [n[len("grad_"):] for n in g["outputs"] if n.startswith("grad_")]
    for w in weights:
        if not {f"{w}_m", f"{w}_v"} <= names or not {f"{w}_next", f"{w}_m_next", f"{w}_v_next"} <= set(g["outputs"]):
            sys.exit(f"FAILED: {tag}: AdamW state of {w} missing from the graph's inputs or outputs")
    if "step" not in names:
        sys.exit(f"FAILED: {tag}: no step input")
    lr = 1e-3
    npy = np.float32 if dtype == torch.float32 else np.float64
    state = dict(values)
    for w in weights:
        state[f"{w}_m"] = np.zeros_like(values[w])
        state[f"{w}_v"] = np.zeros_like(values[w])
    params = {w: torch.tensor(values[w], dtype=dtype, requires_grad=True) for w in weights}
    fixed = {k: torch.tensor(v, dtype=dtype) for k, v in values.items() if k not in params}
    opt = torch.optim.AdamW([params[w] for w in weights], lr=lr)
    worst_w = worst_state = worst_step = 0.0
    for step in range(1, steps + 1):
        ins, out = work / f"{tag}_in{step}", work / f"{tag}_out{step}"
        ins.mkdir()
        state["step"] = np.array(step, npy)
        for k, v in state.items():
            np.save(ins / f"{k}.npy", np.asarray(v, npy))
        run([a.einplan, "eval", graph, "--inputs", ins, "--outputs", out], f"{tag}: einplan eval of AdamW step {step}")
        opt.zero_grad()
        graph_torch.evaluate(forward, {**fixed, **params})[loss_name].backward()
        opt.step()
        for w in weights:
            torch_state = opt.state[params[w]]
            for mine, theirs, is_weight in ((f"{w}_next", params[w], True), (f"{w}_m_next", torch_state["exp_avg"], False),
                                            (f"{w}_v_next", torch_state["exp_avg_sq"], False)):
                got, want = np.load(out / f"{mine}.npy"), theirs.detach().numpy()
                err = float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))
                if is_weight:
                    worst_w = max(worst_w, err)
                    worst_step = max(worst_step, float(np.abs(got - want).max()) / lr)
                else:
                    worst_state = max(worst_state, err)
            state[w], state[f"{w}_m"], state[f"{w}_v"] = (np.load(out / f"{w}_next.npy"), np.load(out / f"{w}_m_next.npy"),
                                                          np.load(out / f"{w}_v_next.npy"))
    return weights, worst_w, worst_state, worst_step


def llama_input(name, shape, rng):
    """A LLaMA step's input: one-hot targets, the causal mask, else uniform values (the
    weights scaled down)."""
    if name == "targets":
        v = np.zeros(shape)
        np.put_along_axis(v, rng.integers(0, shape[-1], size=shape[:-1])[..., None], 1.0, axis=-1)
        return v
    if name == "mask":
        return np.triu(np.full(shape, -1e4), 1)
    return rng.uniform(-1, 1, shape) * (0.3 if name.startswith(("L", "output")) else 1)


def llama_adamw(a, work, dtype):
    """gen llama --train --optimizer adamw: three steps equal torch.optim.AdamW's. In f64 to
    the last digits; in f32 the weights within 1 % of a step (lr): Adam divides each
    gradient by its own root mean square, so an element whose gradient is near eps turns
    two f32 forward computations' last-bit differences into a visible share of its step."""
    tag = f"llama_adamw_{dtype}"
    graph = work / f"{tag}.yaml"
    run([a.einplan, "gen", "llama", *LLAMA, "--train", "--optimizer", "adamw", "--lr", "1e-3", "--dtype", dtype, "-o", graph],
        "gen llama --train --optimizer adamw")
    g = graph_torch.load(graph)
    rng = np.random.default_rng(11)
    npy = np.float32 if dtype == "f32" else np.float64
    values = {}
    for t in g["inputs"]:
        shape, name = t["shape"], t["name"]
        if name == "step" or name.endswith(("_m", "_v")):
            continue
        values[name] = llama_input(name, shape, rng).astype(npy)
    forward = dict(g, nodes=g["nodes"][:[n["name"] for n in g["nodes"]].index("loss") + 1])
    weights, worst_w, worst_state, worst_step = adamw_steps(a, work, tag, graph, forward, "loss", values,
                                                            torch.float32 if dtype == "f32" else torch.float64)
    if (dtype == "f64" and (worst_w > 1e-12 or worst_state > 1e-9)) or (dtype == "f32" and worst_step > 1e-2):
        sys.exit(f"FAILED: LLaMA AdamW ({dtype}): max rel err {worst_w:.3g} in the weights, {worst_state:.3g} in the "
                 f"state, largest weight difference {worst_step:.3g} of a step")
    print(f"LLaMA AdamW step ({dtype}, 2 layers): 3 steps of {len(weights)} weights equal torch.optim.AdamW's "
          f"(max rel err {worst_w:.2g} in the weights, {worst_state:.2g} in m and v; largest weight difference "
          f"{worst_step:.2g} of a step)")
    return graph, values


def llama_mixed_precision(a, work):
    """gen llama --train --optimizer adamw --dtype bf16 --master f32 (SPEC 8): the forward
    and backward in bf16 from f32 master weights through casts, the update in f32. Against
    torch doing the same arithmetic (graph_torch: each node in f32, rounded to its type
    once; the casts as torch's .to, whose gradient autograd casts back): the gradients
    within bf16's tolerance, and torch.optim.AdamW given these gradients the same f32
    update (1e-6): the update is not computed in bf16."""
    graph = work / "llama_mixed.yaml"
    run([a.einplan, "gen", "llama", *LLAMA, "--train", "--optimizer", "adamw", "--lr", "1e-3", "--dtype", "bf16",
         "--master", "f32", "-o", graph], "gen llama --train --dtype bf16 --master f32")
    g = graph_torch.load(graph)
    types = {t["name"]: t.get("dtype", g["dtype"]) for t in g["inputs"]}
    weights = [n[len("grad_"):] for n in g["outputs"] if n.startswith("grad_")]
    if not weights or any(types[w] != "f32" for w in weights) or g["dtype"] != "bf16":
        sys.exit(f"FAILED: the mixed-precision step's trained inputs are not f32 master weights in a bf16 graph: {types}")
    rng = np.random.default_rng(17)
    ins, out = work / "mixed_in", work / "mixed_out"
    ins.mkdir()
    values = {}
    for t in g["inputs"]:
        shape, name = t["shape"], t["name"]
        if name == "step":
            v = np.array(1.0)
        elif name.endswith(("_m", "_v")) and name[:-2] in weights:
            v = np.zeros(shape)
        else:
            v = llama_input(name, shape, rng)
        # bf16 inputs are read from f32 files, rounded (SPEC 8): give torch the rounded values.
        v = torch.tensor(v, dtype=torch.float32)
        values[name] = v.to(torch.bfloat16).float() if types[name] == "bf16" else v
        np.save(ins / f"{name}.npy", values[name].numpy())
    run([a.einplan, "eval", graph, "--inputs", ins, "--outputs", out], "einplan eval of the mixed-precision step")
    forward = dict(g, nodes=g["nodes"][:[n["name"] for n in g["nodes"]].index("loss") + 1])
    params = {w: values[w].clone().requires_grad_(True) for w in weights}
    fixed = {k: (v.to(torch.bfloat16) if types[k] == "bf16" else v) for k, v in values.items() if k not in params}
    graph_torch.evaluate(forward, {**fixed, **params}, compute=torch.float32)["loss"].float().backward()
    worst_grad = 0.0
    for w in weights:
        got = np.load(out / f"grad_{w}.npy")
        for name in (f"grad_{w}", f"{w}_next", f"{w}_m_next", f"{w}_v_next"):
            if np.load(out / f"{name}.npy").dtype != np.float32:
                sys.exit(f"FAILED: {name} is not written as f32")
        want = params[w].grad.numpy()
        worst_grad = max(worst_grad, float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30)))
        params[w].grad = torch.tensor(got)  # torch's AdamW from our gradients: the f32 update
    opt = torch.optim.AdamW([params[w] for w in weights], lr=1e-3)
    opt.step()
    worst_update = 0.0
    for w in weights:
        st = opt.state[params[w]]
        for mine, theirs in ((f"{w}_next", params[w]), (f"{w}_m_next", st["exp_avg"]), (f"{w}_v_next", st["exp_avg_sq"])):
            want, got = theirs.detach().numpy(), np.load(out / f"{mine}.npy")
            worst_update = max(worst_update, float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30)))
    # bf16 keeps 8 bits: 2^-8 = 3.9e-3 a rounding; the two computations round at different
    # places (their backward passes are different graphs), a few roundings apart.
    if worst_grad > 3e-2 or worst_update > 1e-6:
        sys.exit(f"FAILED: mixed-precision LLaMA step: gradients max rel err {worst_grad:.3g} (bf16 tolerance 3e-2), "
                 f"the f32 update's {worst_update:.3g} (1e-6)")
    print(f"LLaMA AdamW step, bf16 with f32 master weights: {len(weights)} gradients equal torch's bf16 arithmetic "
          f"(max rel err {worst_grad:.2g}), and the update torch.optim.AdamW's in f32 (max rel err {worst_update:.2g})")
    return graph, {k: v.numpy() for k, v in values.items()}


def ffnn_adamw(a, work, fwd_path, weights, ins):
    """einplan grad --update adamw of ffnn's forward pass (f64): three steps against torch."""
    train = work / "ffnn_adamw.yaml"
    run([a.einplan, "grad", fwd_path, "--loss", "mean_loss", "--wrt", ",".join(weights), "--update", "adamw", "--lr",
         "1e-3", "-o", train], "einplan grad --update adamw of ffnn's forward pass")
    fwd = graph_torch.load(fwd_path)
    values = {t["name"]: np.load(ins / f"{t['name']}.npy") for t in fwd["inputs"]}
    _, worst_w, worst_state, _ = adamw_steps(a, work, "ffnn_adamw", train, fwd, "mean_loss", values, torch.float64)
    if worst_w > 1e-12 or worst_state > 1e-10:
        sys.exit(f"FAILED: ffnn AdamW (f64): max rel err {worst_w:.3g} in the weights, {worst_state:.3g} in the state")
    print(f"ffnn AdamW (f64, einplan grad --update adamw): 3 steps equal torch.optim.AdamW's "
          f"(max rel err {worst_w:.2g} in the weights, {worst_state:.2g} in m and v)")
    # gen ffnn --optimizer adamw (its hand-written backward, the same update recipe) gives
    # the third step's outputs from the third step's inputs.
    generated = work / "ffnn_gen_adamw.yaml"
    run([a.einplan, "gen", "ffnn", *FFNN, "--optimizer", "adamw", "--lr", "1e-3", "--dtype", "f64", "-o", generated],
        "gen ffnn --optimizer adamw")
    out = work / "ffnn_gen_adamw_out"
    run([a.einplan, "eval", generated, "--inputs", work / "ffnn_adamw_in3", "--outputs", out], "eval gen ffnn --optimizer adamw")
    for w in weights:
        for name in (f"{w}_next", f"{w}_m_next", f"{w}_v_next"):
            want, got = np.load(work / "ffnn_adamw_out3" / f"{name}.npy"), np.load(out / f"{name}.npy")
            if np.abs(got - want).max() > 1e-12 * max(np.abs(want).max(), 1e-30):
                sys.exit(f"FAILED: gen ffnn --optimizer adamw: {name} differs from einplan grad --update adamw's")
    print("gen ffnn --optimizer adamw: the same step as einplan grad --update adamw of its forward pass")


def adamw_program_inputs(graph, values, folder):
    """Inputs of a step in the middle of training for the emitted programs: the weights,
    small moments, a positive second moment and step 3."""
    g = graph_torch.load(graph)
    rng = np.random.default_rng(13)
    folder.mkdir()
    for t in g["inputs"]:
        name, shape = t["name"], t["shape"]
        if name == "step":
            v = np.array(3.0)
        elif name.endswith("_m") and name[:-2] in values:
            v = rng.uniform(-1e-3, 1e-3, shape)
        elif name.endswith("_v") and name[:-2] in values:
            v = rng.uniform(1e-7, 1e-6, shape)
        else:
            v = values[name]
        np.save(folder / f"{name}.npy", np.asarray(v, np.float32))


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
    ffnn_adamw(a, work, *ffnn_hand_backward(a, work))
    llama_adamw(a, work, "f64")
    mixed, mixed_values = llama_mixed_precision(a, work)
    graph, values = llama_adamw(a, work, "f32")
    # The AdamW training step (forward, backward, update) planned, emitted and run.
    inputs = work / "llama_adamw_program_in"
    adamw_program_inputs(graph, values, inputs)
    p = subprocess.run([sys.executable, HERE.parent / "codegen" / "run_programs.py", "--einplan", a.einplan, "--eincodegen",
                        a.eincodegen, "--graph", graph, "--work", work / "programs", "--ranks", a.ranks, "--inputs", inputs, "--opt", "O0"])
    if p.returncode != 0:
        sys.exit("FAILED: the emitted training step")
    # The mixed-precision step (bf16 with f32 master weights) emitted and run the same way.
    inputs = work / "llama_mixed_program_in"
    adamw_program_inputs(mixed, mixed_values, inputs)
    p = subprocess.run([sys.executable, HERE.parent / "codegen" / "run_programs.py", "--einplan", a.einplan, "--eincodegen",
                        a.eincodegen, "--graph", mixed, "--work", work / "mixed_programs", "--ranks", a.ranks, "--inputs", inputs,
                        "--opt", "O0"])
    if p.returncode != 0:
        sys.exit("FAILED: the emitted mixed-precision training step")
    print("all training-step checks passed")


if __name__ == "__main__":
    main()
