#!/usr/bin/env python3
"""Every `einplan gen` family, small, evaluated by `einplan eval` against NumPy.

For each case this script generates the graph with `einplan gen`, makes the inputs
itself (random, seeded, written as NAME.npy), runs `einplan eval --inputs --outputs`,
and compares every output with a NumPy computation of the same workload written here
from its textbook definition (np.einsum for the tensor networks; matrix products,
softmax, backpropagation, RMSNorm, rotary embedding and SwiGLU for the others), not
from the generated graph. Prints one line per case and 'N passed, N failed'.

usage: numpy_oracle.py EINPLAN WORKDIR
"""
import os
import subprocess
import sys

import numpy as np

SEED = 20251122
EINPLAN, WORKDIR = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(SEED)


def rand(*shape):
    return rng.uniform(-1.0, 1.0, size=shape)


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def matrix_chain(shape, s):
    t, ten = (s // 10, s * 10) if shape == "skewed" else (s, s)
    A, B, C, D, E = rand(s, t), rand(t, s), rand(s, t), rand(t, ten), rand(ten, s)
    return ({"A": A, "B": B, "C": C, "D": D, "E": E}, {"Z": A @ B + C @ (D @ E)})


def ffnn(batch, features, hidden, classes, loss, lr):
    dims = [features] + hidden + [classes]
    X = rand(batch, features)
    Y = np.eye(classes)[rng.integers(0, classes, size=batch)]
    W = [rand(dims[i], dims[i + 1]) for i in range(len(dims) - 1)]
    acts, pres = [X], []
    for i, w in enumerate(W):
        z = acts[-1] @ w
        pres.append(z)
        if i + 1 < len(W):
            acts.append(np.maximum(z, 0))
    logits = pres[-1]
    if loss == "xent":
        P = softmax(logits, 1)
        per_example = -(Y * np.log(P)).sum(axis=1)
        g = (P - Y) / batch
    else:
        per_example = 0.5 * ((logits - Y) ** 2).sum(axis=1)
        g = (logits - Y) / batch
    grads = [None] * len(W)
    for i in reversed(range(len(W))):
        grads[i] = acts[i].T @ g
        if i > 0:
            g = (g @ W[i].T) * (pres[i - 1] > 0)
    inputs = {"X": X, "Y": Y}
    expected = {"loss": per_example}
    for i, w in enumerate(W):
        inputs[f"W{i + 1}"] = w
        expected[f"W{i + 1}_new"] = w - lr * grads[i]
    return inputs, expected


def attention(b, s, a, h):
    d = a // h
    Q, K, V = rand(b, s, a), rand(b, s, a), rand(b, s, a)
    WQ, WK, WV, WO = rand(a, h, d), rand(a, h, d), rand(a, h, d), rand(a, h, d)
    out = np.zeros((b, s, a))
    for n in range(b):
        heads = []
        for i in range(h):
            q, k, v = Q[n] @ WQ[:, i, :], K[n] @ WK[:, i, :], V[n] @ WV[:, i, :]
            heads.append(softmax(q @ k.T / np.sqrt(d), 1) @ v)
        concat = np.concatenate(heads, axis=1)  # s x (h d)
        out[n] = concat @ WO.reshape(a, h * d).T
    return ({"Q": Q, "K": K, "V": V, "WQ": WQ, "WK": WK, "WV": WV, "WO": WO}, {"Y": out})


def llama(layers, dim, heads, ffn, vocab, seq, batch, eps=1e-6):
    hd = dim // heads
    half = hd // 2
    inv_freq = 1.0 / (10000 ** (np.arange(half) / half))
    angles = np.outer(np.arange(seq), inv_freq)  # seq x half
    cos, sin = np.cos(angles), np.sin(angles)
    mask = np.triu(np.full((seq, seq), -1e9), k=1)
    x = rand(batch, seq, dim)
    inputs = {"embeddings": x, "rope_cos": cos, "rope_sin": sin,
              "rope_rot": np.array([[0.0, -1.0], [1.0, 0.0]]), "mask": mask}

    def rmsnorm(v, w):
        return v / np.sqrt((v * v).mean(axis=-1, keepdims=True) + eps) * w

    def rotary(t):  # t: batch seq heads hd, halves [x1, x2] -> x*cos + rotate_half(x)*sin
        c = np.concatenate([cos, cos], axis=1)[None, :, None, :]
        s = np.concatenate([sin, sin], axis=1)[None, :, None, :]
        rot = np.concatenate([-t[..., half:], t[..., :half]], axis=-1)
        return t * c + rot * s

    h = x
    for l in range(layers):
        p = f"L{l}"
        wq, wk, wv, wo = rand(dim, dim), rand(dim, dim), rand(dim, dim), rand(dim, dim)
        an, fn = rand(dim), rand(dim)
        w1, w3, w2 = rand(dim, ffn), rand(dim, ffn), rand(ffn, dim)
        inputs.update({p + "_attn_norm": an, p + "_ffn_norm": fn, p + "_w1": w1, p + "_w3": w3, p + "_w2": w2,
                       p + "_wq": wq.reshape(dim, heads, 2, half), p + "_wk": wk.reshape(dim, heads, 2, half),
                       p + "_wv": wv.reshape(dim, heads, hd), p + "_wo": wo.reshape(heads, hd, dim)})
        xn = rmsnorm(h, an)
        q = rotary((xn @ wq).reshape(batch, seq, heads, hd))
        k = rotary((xn @ wk).reshape(batch, seq, heads, hd))
        v = (xn @ wv).reshape(batch, seq, heads, hd)
        scores = np.einsum("bshd,bthd->bhst", q, k) / np.sqrt(hd) + mask
        attn = np.einsum("bhst,bthd->bshd", softmax(scores, 3), v).reshape(batch, seq, dim)
        h = h + attn @ wo
        hn = rmsnorm(h, fn)
        g = hn @ w1
        h = h + ((g / (1 + np.exp(-g))) * (hn @ w3)) @ w2
    norm, out = rand(dim), rand(dim, vocab)
    inputs.update({"norm": norm, "output": out})
    return inputs, {"logits": rmsnorm(h, norm) @ out}


NETWORKS = {
    "syn": ("iaje,bf,dcba,cigj,dh->hgfei", [24, 48, 12, 56, 32, 64, 8, 84, 8, 72]),
    "tt": ("af,fbg,gch,hdi,ie->abcde", [100, 72, 128, 128, 3, 71, 305, 32, 3]),
    "fctn": ("aefg,behi,cfhj,dgij->abcd", [60, 60, 20, 20, 8, 8, 8, 8, 8, 8]),
    "tw": ("aefi,bfgj,cghk,dhel,ijkl->abcd", [40, 40, 20, 20, 6, 6, 6, 6, 4, 4, 4, 4]),
    "getd": ("aib,bjc,ckd,dle,ema->ijklm", [40, 40, 40, 40, 40, 25, 25, 25, 25, 25]),
    "trn": ("Babcd,aij,bik,ckl,dlm,ejp,fop,gno,hmn->Befgh",
            [128, 4, 7, 4, 7, 3, 4, 5, 5, 50, 50, 50, 50, 50, 50, 50, 50]),
}


def network(net, scale):
    eq, sizes = NETWORKS[net]
    labels = sorted(set(eq.replace(",", "").replace("->", "")))  # ASCII: upper case first
    size = {c: max(1, s // scale) for c, s in zip(labels, sizes)}
    operands = eq.split("->")[0].split(",")
    tensors = [rand(*[size[c] for c in op]) for op in operands]
    inputs = {f"T{i}": t for i, t in enumerate(tensors)}
    return inputs, {net: np.einsum(eq, *tensors, optimize=True)}


CASES = [
    ("matrix-chain square", ["matrix-chain", "--shape", "square", "--scale", "8"], lambda: matrix_chain("square", 8)),
    ("matrix-chain skewed", ["matrix-chain", "--shape", "skewed", "--scale", "20"], lambda: matrix_chain("skewed", 20)),
    ("ffnn xent", ["ffnn", "--batch", "4", "--features", "6", "--hidden", "5,3", "--classes", "4", "--lr", "0.1"],
     lambda: ffnn(4, 6, [5, 3], 4, "xent", 0.1)),
    ("ffnn squared", ["ffnn", "--batch", "3", "--features", "5", "--hidden", "7", "--classes", "2", "--loss",
                      "squared", "--lr", "0.5"], lambda: ffnn(3, 5, [7], 2, "squared", 0.5)),
    ("attention", ["attention", "--batch", "2", "--seq", "3", "--dim", "8", "--heads", "2"],
     lambda: attention(2, 3, 8, 2)),
    ("llama", ["llama", "--preset", "7b", "--layers", "2", "--dim", "16", "--heads", "2", "--ffn", "24",
               "--vocab", "11", "--seq", "5", "--batch", "2"], lambda: llama(2, 16, 2, 24, 11, 5, 2)),
] + [(f"{net} (scale {scale})", [net, "--scale", str(scale)], (lambda n=net, s=scale: network(n, s)))
     for net, scale in [("syn", 8), ("tt", 16), ("fctn", 4), ("tw", 4), ("getd", 8), ("trn", 10)]] + [
    # The same networks split into binary steps by the contraction-path optimizer.
    (f"{net} (scale {scale}, --split)", [net, "--scale", str(scale), "--split"], (lambda n=net, s=scale: network(n, s)))
    for net, scale in [("syn", 8), ("tt", 16), ("fctn", 4), ("tw", 4), ("getd", 8), ("trn", 4)]]


def run_case(index, title, gen_args, make):
    where = os.path.join(WORKDIR, f"case{index}")
    inputs_dir, outputs_dir = os.path.join(where, "inputs"), os.path.join(where, "outputs")
    os.makedirs(inputs_dir, exist_ok=True)
    os.makedirs(outputs_dir, exist_ok=True)
    graph = os.path.join(where, "graph.yaml")
    subprocess.run([EINPLAN, "gen"] + gen_args + ["--dtype", "f64", "-o", graph], check=True, capture_output=True)
    inputs, expected = make()
    for name, value in inputs.items():
        np.save(os.path.join(inputs_dir, name + ".npy"), np.ascontiguousarray(value, dtype=np.float64))
    subprocess.run([EINPLAN, "eval", graph, "--inputs", inputs_dir, "--outputs", outputs_dir],
                   check=True, capture_output=True)
    worst = 0.0
    for name, want in expected.items():
        got = np.load(os.path.join(outputs_dir, name + ".npy"))
        if got.shape != want.shape:
            return False, f"{name}: shape {got.shape}, expected {want.shape}"
        err = np.max(np.abs(got - want) / (np.abs(want) + 1e-6)) if want.size else 0.0
        worst = max(worst, float(err))
        if not np.allclose(got, want, rtol=1e-9, atol=1e-9):
            return False, f"{name}: max relative error {err:.3g}"
    return True, f"{len(expected)} outputs, max relative error {worst:.3g}"


def main():
    print(f"numpy oracle for einplan gen: seed {SEED}")
    passed = failed = 0
    for index, (title, gen_args, make) in enumerate(CASES):
        try:
            ok, detail = run_case(index, title, gen_args, make)
        except subprocess.CalledProcessError as e:
            ok, detail = False, f"{' '.join(e.cmd[1:3])} exited {e.returncode}: {e.stderr.decode().strip()}"
        print(f"{'PASS' if ok else 'FAIL'} {title}: {detail}")
        passed, failed = passed + ok, failed + (not ok)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
