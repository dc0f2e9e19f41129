#!/usr/bin/python3
"""The NumPy cross-check of the reference evaluator: every graph below is written to a
temporary directory (JSON, some as YAML), its inputs are made by NumPy (random, seed
printed) and saved as .npy (format versions 1.0, 2.0 and 3.0 in turn), the built
`einplan eval` runs it, and every output it writes is compared with a NumPy oracle
written independently of the evaluator (np.einsum, broadcasting, np.max ...), in f64
and f32 with a tolerance by dtype. Then `einplan eval --seed 7` (and the default seed 0)
is compared bit for bit with the NumPy reimplementation of the input generator.

Prints one line per case and a final 'N passed, M failed' line; exits 1 on any failure.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import input_generator_numpy  # noqa: E402

# (rtol, atol) relative to max(1, max |expected|): f32 graphs round every node output
# to float32, the oracle works in float64 on the same float32 inputs.
TOLERANCE = {"f64": (1e-12, 1e-12), "f32": (2e-5, 2e-5)}

CASES = []


def case(name, inputs, nodes, oracle, outputs=None, sizes=None, ranges=None, as_yaml=False, map_inputs=False):
    """Registers a graph: `inputs` {name: shape}, `nodes` a list of node dicts,
    `oracle(arrays) -> {output: array}` over float64 arrays, `ranges` {input: (lo, hi)}
    for inputs that must be positive etc."""
    CASES.append(dict(name=name, inputs=inputs, nodes=nodes, oracle=oracle, outputs=outputs, sizes=sizes,
                      ranges=ranges or {}, as_yaml=as_yaml, map_inputs=map_inputs))


def node(name, einsum, inputs, join=None, agg=None):
    n = {"name": name, "einsum": einsum, "inputs": inputs}
    if join is not None:
        n["join"] = join
    if agg is not None:
        n["agg"] = agg
    return n


ein = np.einsum


def softmax_last(t):
    e = np.exp(t - t.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def sigmoid(t):
    return 1.0 / (1.0 + np.exp(-t))


# ---- contractions -------------------------------------------------------------------
case("matmul", {"A": [5, 4], "B": [4, 3]}, [node("C", "ij,jk->ik", ["A", "B"])],
     lambda a: {"C": a["A"] @ a["B"]})
case("matmul square 8", {"A": [8, 8], "B": [8, 8]}, [node("C", "ij,jk->ik", ["A", "B"], join="mul", agg="sum")],
     lambda a: {"C": a["A"] @ a["B"]})
case("batched matmul", {"A": [3, 4, 5], "B": [3, 5, 2]}, [node("C", "bij,bjk->bik", ["A", "B"])],
     lambda a: {"C": np.matmul(a["A"], a["B"])})
case("left operand transposed", {"A": [4, 5], "B": [4, 3]}, [node("C", "ji,jk->ik", ["A", "B"])],
     lambda a: {"C": a["A"].T @ a["B"]})
case("right operand transposed", {"A": [5, 4], "B": [3, 4]}, [node("C", "ij,kj->ik", ["A", "B"])],
     lambda a: {"C": a["A"] @ a["B"].T})
case("all transposed", {"A": [4, 5], "B": [3, 4]}, [node("C", "ji,kj->ki", ["A", "B"])],
     lambda a: {"C": (a["A"].T @ a["B"].T).T})
case("matrix-vector", {"M": [6, 4], "v": [4]}, [node("y", "ij,j->i", ["M", "v"])],
     lambda a: {"y": a["M"] @ a["v"]})
case("dot product", {"u": [7], "v": [7]}, [node("d", "i,i->", ["u", "v"])],
     lambda a: {"d": np.array(np.dot(a["u"], a["v"]))})
case("outer product", {"u": [4], "v": [3]}, [node("O", "i,j->ij", ["u", "v"])],
     lambda a: {"O": np.outer(a["u"], a["v"])})
case("matrix-vector outer product", {"M": [2, 3], "v": [4]}, [node("O", "ij,k->ijk", ["M", "v"])],
     lambda a: {"O": a["M"][:, :, None] * a["v"][None, None, :]})
case("batched outer product", {"X": [3, 4], "Y": [3, 2]}, [node("O", "bi,bj->bij", ["X", "Y"])],
     lambda a: {"O": a["X"][:, :, None] * a["Y"][:, None, :]})
case("paper's two-label contraction ijb,jbk->ik", {"X": [3, 5, 2], "Y": [5, 2, 4]},
     [node("Z", "ijb,jbk->ik", ["X", "Y"])],
     lambda a: {"Z": np.tensordot(a["X"], a["Y"], axes=([1, 2], [0, 1]))})
case("hadamard product", {"A": [3, 4], "B": [3, 4]}, [node("H", "ij,ij->ij", ["A", "B"])],
     lambda a: {"H": a["A"] * a["B"]})
case("full contraction abc,cba->", {"X": [2, 3, 4], "Y": [4, 3, 2]}, [node("s", "abc,cba->", ["X", "Y"])],
     lambda a: {"s": np.array((a["X"] * a["Y"].transpose(2, 1, 0)).sum())})

# ---- aggregations -------------------------------------------------------------------
case("sum rows", {"X": [4, 6]}, [node("s", "ij->i", ["X"])], lambda a: {"s": a["X"].sum(axis=1)})
case("max columns", {"X": [4, 6]}, [node("m", "ij->j", ["X"], agg="max")], lambda a: {"m": a["X"].max(axis=0)})
case("min middle axis", {"X": [3, 5, 2]}, [node("m", "ijk->ik", ["X"], join="x", agg="min")],
     lambda a: {"m": a["X"].min(axis=1)})
case("prod rows", {"X": [3, 5]}, [node("p", "ij->i", ["X"], agg="prod")], lambda a: {"p": a["X"].prod(axis=1)},
     ranges={"X": (0.5, 1.5)})
case("full sum", {"X": [4, 5]}, [node("s", "ij->", ["X"])], lambda a: {"s": np.array(a["X"].sum())})
case("min-plus (tropical) matmul", {"A": [4, 5], "B": [5, 3]}, [node("C", "ij,jk->ik", ["A", "B"], join="add", agg="min")],
     lambda a: {"C": (a["A"][:, :, None] + a["B"][None, :, :]).min(axis=1)})
case("max-times", {"A": [4, 5], "B": [5, 3]}, [node("C", "ij,jk->ik", ["A", "B"], agg="max")],
     lambda a: {"C": (a["A"][:, :, None] * a["B"][None, :, :]).max(axis=1)})
case("prod of sums", {"A": [3, 4], "B": [3, 4]}, [node("p", "ij,ij->i", ["A", "B"], join="add", agg="prod")],
     lambda a: {"p": (a["A"] + a["B"]).prod(axis=1)})

# ---- broadcasts ---------------------------------------------------------------------
case("broadcast vector to matrix", {"v": [4]}, [node("M", "i->ij", ["v"])],
     lambda a: {"M": np.broadcast_to(a["v"][:, None], (4, 3))}, sizes={"j": 3})
case("broadcast new last axis", {"X": [2, 3]}, [node("T", "ij->ijk", ["X"])],
     lambda a: {"T": np.broadcast_to(a["X"][:, :, None], (2, 3, 5))}, sizes={"k": 5})
case("outer sum with broadcast in front", {"u": [3], "v": [2]}, [node("T", "i,j->kij", ["u", "v"], join="add")],
     lambda a: {"T": np.broadcast_to(a["u"][:, None] + a["v"][None, :], (4, 3, 2))}, sizes={"k": 4})
case("aggregate and broadcast", {"X": [3, 4]}, [node("T", "ij->ik", ["X"])],
     lambda a: {"T": np.broadcast_to(a["X"].sum(axis=1)[:, None], (3, 2))}, sizes={"k": 2})

# ---- every named join ---------------------------------------------------------------
case("join add", {"A": [3, 4], "B": [4, 3]}, [node("Z", "ij,ji->ij", ["A", "B"], join="add")],
     lambda a: {"Z": a["A"] + a["B"].T})
case("join sub", {"A": [3, 4], "B": [3, 4]}, [node("Z", "ij,ij->ij", ["A", "B"], join="sub")],
     lambda a: {"Z": a["A"] - a["B"]})
case("join div", {"A": [3, 4], "b": [4]}, [node("Z", "ij,j->ij", ["A", "b"], join="div")],
     lambda a: {"Z": a["A"] / a["b"][None, :]}, ranges={"b": (0.5, 2.0)})
case("join max", {"A": [3, 4], "b": [3]}, [node("Z", "ij,i->ij", ["A", "b"], join="max")],
     lambda a: {"Z": np.maximum(a["A"], a["b"][:, None])})
case("join min", {"A": [3, 4], "B": [3, 4]}, [node("Z", "ij,ij->ij", ["A", "B"], join="min")],
     lambda a: {"Z": np.minimum(a["A"], a["B"])})
case("join sqdiff", {"A": [3, 4], "B": [3, 4]}, [node("Z", "ij,ij->ij", ["A", "B"], join="sqdiff")],
     lambda a: {"Z": (a["A"] - a["B"]) ** 2})
case("join absdiff", {"A": [3, 4], "b": [4]}, [node("Z", "ij,j->ij", ["A", "b"], join="absdiff")],
     lambda a: {"Z": np.abs(a["A"] - a["b"][None, :])})
case("join mul scaling columns", {"A": [3, 4], "b": [4]}, [node("Z", "ij,j->ij", ["A", "b"], join="mul")],
     lambda a: {"Z": a["A"] * a["b"][None, :]})

# ---- scalar expressions -------------------------------------------------------------
case("expr unary exp and relu", {"X": [3, 4]}, [node("Z", "ij->ij", ["X"], join="exp(x) * 0.5 + relu(x)")],
     lambda a: {"Z": np.exp(a["X"]) * 0.5 + np.maximum(a["X"], 0)})
case("expr sigmoid times tanh", {"A": [3, 4], "B": [3, 4]},
     [node("Z", "ij,ij->ij", ["A", "B"], join="sigmoid(x) * tanh(y)")],
     lambda a: {"Z": sigmoid(a["A"]) * np.tanh(a["B"])})
case("expr pow and sqrt, summed", {"A": [3, 4], "B": [4, 2]},
     [node("Z", "ij,jk->ik", ["A", "B"], join="pow(x, 2) + sqrt(y)")],
     lambda a: {"Z": (a["A"][:, :, None] ** 2 + np.sqrt(a["B"])[None, :, :]).sum(axis=1)},
     ranges={"B": (0.1, 2.0)})
case("expr log and rsqrt", {"A": [3, 4], "B": [3, 4]}, [node("Z", "ij,ij->ij", ["A", "B"], join="log(x) - rsqrt(y)")],
     lambda a: {"Z": np.log(a["A"]) - 1.0 / np.sqrt(a["B"])}, ranges={"A": (0.1, 3.0), "B": (0.1, 3.0)})
case("expr max min abs", {"A": [3, 4], "B": [3, 4]},
     [node("Z", "ij,ij->ij", ["A", "B"], join="max(x, y) - min(x, -y) / 3 + abs(x)")],
     lambda a: {"Z": np.maximum(a["A"], a["B"]) - np.minimum(a["A"], -a["B"]) / 3 + np.abs(a["A"])})
case("expr where masks erf with -inf, max-aggregated", {"A": [3, 8], "B": [3, 8]},
     [node("Z", "ij,ij->i", ["A", "B"], join="where(relu(y), erf(x), -inf)", agg="max")],
     lambda a: {"Z": np.where(a["B"] > 0, np.vectorize(math.erf)(a["A"]), -np.inf).max(axis=1)},
     ranges={"B": (-0.5, 2.0)})
case("expr comparisons: a mask from values, and the values at the row maximum", {"A": [3, 8], "B": [3, 8]},
     [node("M", "ij,ij->ij", ["A", "B"], join="where(lt(x, y), x, 0.5) + le(x, 0) - gt(y, 1) * ge(x, y)"),
      node("R", "ij->i", ["M"], agg="max"),
      node("Z", "ij,i->ij", ["M", "R"], join="eq(x, y) * x")],
     lambda a: (lambda m: {"M": m, "R": m.max(axis=1), "Z": (m == m.max(axis=1, keepdims=True)) * m})(
         np.where(a["A"] < a["B"], a["A"], 0.5) + (a["A"] <= 0) - (a["B"] > 1) * (a["A"] >= a["B"])),
     outputs=["M", "R", "Z"], ranges={"A": (-2.0, 2.0), "B": (-2.0, 2.0)})
case("expr rotary: x * cos(a) + y * sin(a) over positions", {"A": [3, 4], "B": [3, 4], "T": [3, 4]},
     [node("C", "ij,ij->ij", ["A", "T"], join="x * cos(y)"), node("S", "ij,ij->ij", ["B", "T"], join="x * sin(y)"),
      node("Z", "ij,ij->ij", ["C", "S"], join="add")],
     lambda a: {"Z": a["A"] * np.cos(a["T"]) + a["B"] * np.sin(a["T"])}, ranges={"T": (-500.0, 500.0)})
case("expr unary minus, max-aggregated", {"X": [3, 4]}, [node("Z", "ij->j", ["X"], join="-x * 2 + 1", agg="max")],
     lambda a: {"Z": (-a["X"] * 2 + 1).max(axis=0)})

# ---- windows (SPEC 8.1): operands read at label + offset, the fill outside -----------
def windowed(n, windows, sizes, fill=None):
    n = dict(n, windows=windows, sizes=sizes)
    if fill is not None:
        n["fill"] = fill
    return n


def padded(t, before, after, value):
    return np.pad(t, [(b, e) for b, e in zip(before, after)], constant_values=value)


case("window: a slice of a computed tensor and a slice feeding a matmul", {"A": [6, 10], "B": [10, 4]},
     [node("P", "ij,jk->ik", ["A", "B"]),
      windowed(node("S", "ik->ik", ["P"]), [{"i": 2, "k": 1}], {"i": 3, "k": 2}),
      windowed(node("M", "ij,jk->ik", ["A", "B"]), [{"j": 3}, {"j": 5}], {"j": 4})],
     lambda a: {"S": (a["A"] @ a["B"])[2:5, 1:3], "M": a["A"][:, 3:7] @ a["B"][5:9, :]}, outputs=["S", "M"])
case("window: rotate_half, cat(-x[..., 4:], x[..., :4]), as one node of two padded reads", {"X": [3, 8]},
     [windowed(node("R", "sj,sj->sj", ["X", "X"], join="y - x"), [{"j": 4}, {"j": -4}], {"j": 8})],
     lambda a: {"R": np.concatenate([-a["X"][:, 4:], a["X"][:, :4]], axis=1)})
case("window: a concatenation of two tensors of different widths", {"A": [3, 5], "B": [3, 2]},
     [windowed(node("C", "sj,sj->sj", ["A", "B"], join="add"), [{"j": 0}, {"j": -5}], {"j": 7})],
     lambda a: {"C": np.concatenate([a["A"], a["B"]], axis=1)})
case("window: padding with a fill on both sides", {"X": [4, 3]},
     [windowed(node("Z", "ij->ij", ["X"]), [{"i": -2, "j": -1}], {"i": 7, "j": 6}, fill=0.25)],
     lambda a: {"Z": padded(a["X"], [2, 1], [1, 2], 0.25)})
case("window: a max pool of 3 with padding -inf, max over two shifted reads", {"X": [2, 9]},
     [windowed(node("N", "bi,bi->bi", ["X", "X"], join="max"), [{"i": -1}, {"i": 1}], {"i": 9}, fill="-inf"),
      node("Z", "bi,bi->bi", ["N", "X"], join="max")],
     lambda a: {"Z": np.maximum(np.maximum(padded(a["X"], [0, 1], [0, 0], -np.inf)[:, :9],
                                           padded(a["X"], [0, 0], [0, 1], -np.inf)[:, 1:]), a["X"])})

# ---- the EinDecomp paper, section 3 -------------------------------------------------
SOFTMAX_NODES = [
    node("C", "ij->i", ["X"], join="x", agg="max"),
    node("E", "ij,i->ij", ["X", "C"], join="exp(x - y)"),
    node("S", "ij->i", ["E"], agg="sum"),
    node("Y", "ij,i->ij", ["E", "S"], join="x / y"),
]
case("softmax (paper)", {"X": [4, 6]}, SOFTMAX_NODES, lambda a: {"Y": softmax_last(a["X"])}, as_yaml=True)
case("softmax over the last of three axes", {"X": [2, 3, 5]}, [
    node("C", "hij->hi", ["X"], agg="max"),
    node("E", "hij,hi->hij", ["X", "C"], join="exp(x - y)"),
    node("S", "hij->hi", ["E"]),
    node("Y", "hij,hi->hij", ["E", "S"], join="div"),
], lambda a: {"Y": softmax_last(a["X"])})

DK = 4
case("attention (paper)", {"Q": [5, DK], "K": [6, DK], "V": [6, 3]}, [
    node("T1", "ij,kj->ik", ["Q", "K"]),
    node("T2", "ik->ik", ["T1"], join=f"x * {1 / np.sqrt(DK)!r}"),
    node("C", "ik->i", ["T2"], agg="max"),
    node("E", "ik,i->ik", ["T2", "C"], join="exp(x - y)"),
    node("S", "ik->i", ["E"]),
    node("T3", "ik,i->ik", ["E", "S"], join="x / y"),
    node("Y", "ik,kl->il", ["T3", "V"]),
], lambda a: {"Y": softmax_last(a["Q"] @ a["K"].T / np.sqrt(DK)) @ a["V"]})


def multihead_oracle(a):
    qh = ein("sa,ahd->shd", a["Q"], a["WQ"])
    kh = ein("sa,ahd->shd", a["K"], a["WK"])
    vh = ein("sa,ahd->shd", a["V"], a["WV"])
    t = ein("shd,thd->hst", qh, kh) / np.sqrt(a["WK"].shape[2])
    o = ein("hst,thd->shd", softmax_last(t), vh)
    return {"Y": ein("shd,ahd->sa", o, a["WO"])}


S_LEN, ATTR, HEADS, DHEAD = 5, 6, 2, 3
case("multi-head attention (paper), multi-character labels",
     {"Q": [S_LEN, ATTR], "K": [S_LEN, ATTR], "V": [S_LEN, ATTR], "WQ": [ATTR, HEADS, DHEAD],
      "WK": [ATTR, HEADS, DHEAD], "WV": [ATTR, HEADS, DHEAD], "WO": [ATTR, HEADS, DHEAD]}, [
         node("QH", "s a, a h d -> s h d", ["Q", "WQ"]),
         node("KH", "s a, a h d -> s h d", ["K", "WK"]),
         node("VH", "s a, a h d -> s h d", ["V", "WV"]),
         node("T1", "s h d, s2 h d -> h s s2", ["QH", "KH"]),
         node("T2", "h s s2 -> h s s2", ["T1"], join=f"x / {np.sqrt(DHEAD)!r}"),
         node("C", "h s s2 -> h s", ["T2"], agg="max"),
         node("E", "h s s2, h s -> h s s2", ["T2", "C"], join="exp(x - y)"),
         node("Ssum", "h s s2 -> h s", ["E"]),
         node("T3", "h s s2, h s -> h s s2", ["E", "Ssum"], join="div"),
         node("O", "h s s2, s2 h d -> s h d", ["T3", "VH"]),
         node("Y", "s h d, a h d -> s a", ["O", "WO"]),
     ], multihead_oracle, as_yaml=True)
case("L2 distance (paper)", {"X": [4, 5], "Y": [5, 3]}, [
    node("Z2", "ij,jk->ik", ["X", "Y"], join="sqdiff"),
    node("Z", "ik->ik", ["Z2"], join="sqrt(x)"),
], lambda a: {"Z": np.sqrt(((a["X"][:, :, None] - a["Y"][None, :, :]) ** 2).sum(axis=1))})
case("L-infinity distance (paper)", {"X": [4, 5], "Y": [5, 3]},
     [node("Z", "ij,jk->ik", ["X", "Y"], join="absdiff", agg="max")],
     lambda a: {"Z": np.abs(a["X"][:, :, None] - a["Y"][None, :, :]).max(axis=1)})

# ---- n-ary contractions, evaluated directly -----------------------------------------
case("3-input chain", {"A": [3, 4], "B": [4, 5], "C": [5, 2]}, [node("Z", "ij,jk,kl->il", ["A", "B", "C"])],
     lambda a: {"Z": a["A"] @ a["B"] @ a["C"]})
case("4-input chain", {"A": [2, 3], "B": [3, 4], "C": [4, 3], "D": [3, 2]},
     [node("Z", "ab,bc,cd,de->ae", ["A", "B", "C", "D"])],
     lambda a: {"Z": a["A"] @ a["B"] @ a["C"] @ a["D"]})
case("5-input ring (trace)", {"A": [2, 3], "B": [3, 2], "C": [2, 4], "D": [4, 3], "E": [3, 2]},
     [node("t", "ij,jk,kl,lm,mi->", ["A", "B", "C", "D", "E"])],
     lambda a: {"t": np.array(np.trace(a["A"] @ a["B"] @ a["C"] @ a["D"] @ a["E"]))})
case("3-input batched", {"X": [2, 3, 4], "Y": [2, 4, 5], "w": [2, 5]}, [node("Z", "bij,bjk,bk->bi", ["X", "Y", "w"])],
     lambda a: {"Z": ein("bij,bjk,bk->bi", a["X"], a["Y"], a["w"], optimize=False)})
case("4-input star", {"A": [2, 5], "B": [3, 5], "C": [2, 5], "d": [5]},
     [node("Z", "ai,bi,ci,i->abc", ["A", "B", "C", "d"])],
     lambda a: {"Z": (a["A"][:, None, None, :] * a["B"][None, :, None, :] * a["C"][None, None, :, :] *
                      a["d"]).sum(axis=3)})
case("5-input tensor network", {"A": [2, 3], "B": [3, 4, 2], "C": [2, 3], "D": [3, 2], "E": [2, 2]},
     [node("Z", "ab,bcd,de,ef,fa->c", ["A", "B", "C", "D", "E"])],
     lambda a: {"Z": ein("ab,bcd,de,ef,fa->c", a["A"], a["B"], a["C"], a["D"], a["E"], optimize=False)})

# ---- multi-character labels ---------------------------------------------------------
case("multi-character matmul", {"X": [3, 4], "W": [4, 2]}, [node("Y", "row col, col head -> row head", ["X", "W"])],
     lambda a: {"Y": a["X"] @ a["W"]})
case("multi-character max", {"T": [2, 3, 4]}, [node("M", "batch seq dim -> batch dim", ["T"], agg="max")],
     lambda a: {"M": a["T"].max(axis=1)})
case("multi-character broadcast", {"v": [3]}, [node("M", "seq -> seq hidden", ["v"])],
     lambda a: {"M": np.broadcast_to(a["v"][:, None], (3, 4))}, sizes={"hidden": 4})

# ---- graphs -------------------------------------------------------------------------
case("matrix chain (A*B)+(C*(D*E))", {"A": [4, 3], "B": [3, 5], "C": [4, 2], "D": [2, 6], "E": [6, 5]}, [
    node("AB", "ij,jk->ik", ["A", "B"]),
    node("DE", "lm,mk->lk", ["D", "E"]),
    node("CDE", "il,lk->ik", ["C", "DE"]),
    node("Z", "ik,ik->ik", ["AB", "CDE"], join="add"),
], lambda a: {"Z": a["A"] @ a["B"] + a["C"] @ (a["D"] @ a["E"])}, as_yaml=True)
case("intermediate used twice: G = X^T X, Z = G + G^T", {"X": [5, 3]}, [
    node("G", "ki,kj->ij", ["X", "X"]),
    node("Z", "ij,ji->ij", ["G", "G"], join="add"),
], lambda a: {"Z": 2 * a["X"].T @ a["X"]})
case("explicit outputs, map-form inputs", {"A": [3, 4], "B": [4, 2]}, [
    node("AB", "ij,jk->ik", ["A", "B"]),
    node("R", "ik->ik", ["AB"], join="relu(x)"),
    node("N", "ik->i", ["AB"], join="abs(x)", agg="max"),
], lambda a: {"AB": a["A"] @ a["B"], "N": np.abs(a["A"] @ a["B"]).max(axis=1)}, outputs=["AB", "N"],
    map_inputs=True)
case("two sinks are the default outputs", {"X": [3, 4]}, [
    node("S", "ij->i", ["X"]),
    node("M", "ij->j", ["X"], agg="min"),
], lambda a: {"S": a["X"].sum(axis=1), "M": a["X"].min(axis=0)})


# ---- random single-node EinSums against a generic broadcasting oracle ---------------
RANDOM_GRAPH_SEED = 4242
RANDOM_GRAPHS = 24
NUMPY_JOINS = {"mul": np.multiply, "add": np.add, "sub": np.subtract, "div": np.divide, "max": np.maximum,
               "min": np.minimum, "sqdiff": lambda x, y: (x - y) ** 2, "absdiff": lambda x, y: np.abs(x - y)}
NUMPY_AGGS = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}


def broadcasting_oracle(names, operand_labels, output_labels, sizes, join, agg):
    """Z by NumPy broadcasting: every operand is laid out over the whole iteration space
    (its labels transposed into place, size-1 axes for the others), joined, reduced over
    the labels not in the output and transposed into the output's order."""
    space = []
    for labels in operand_labels + [output_labels]:
        space += [l for l in labels if l not in space]

    def align(array, labels):
        moved = array.transpose(sorted(range(len(labels)), key=lambda d: space.index(labels[d])))
        return moved.reshape([sizes[l] if l in labels else 1 for l in space])

    def oracle(a):
        values = align(a[names[0]], operand_labels[0])
        if len(names) == 2:
            values = NUMPY_JOINS[join](values, align(a[names[1]], operand_labels[1]))
        values = np.broadcast_to(values, [sizes[l] for l in space])
        reduced = tuple(d for d, l in enumerate(space) if l not in output_labels)
        if reduced:
            values = NUMPY_AGGS[agg](values, axis=reduced)
        kept = [l for l in space if l in output_labels]
        # np.array, not np.ascontiguousarray: the latter turns a 0-d result into shape (1,).
        return {"Z": np.array(np.asarray(values).transpose([kept.index(l) for l in output_labels]))}
    return oracle


def add_random_cases():
    import random
    rng = random.Random(RANDOM_GRAPH_SEED)
    pool = "ijklmn"
    for k in range(RANDOM_GRAPHS):
        sizes = {l: rng.randint(1, 4) for l in pool}
        names = ["A", "B"][:rng.choice([1, 2, 2, 2])]
        operand_labels = [rng.sample(pool, rng.randint(1, 3)) for _ in names]
        used = sorted({l for labels in operand_labels for l in labels}, key=pool.index)
        output_labels = rng.sample(used, rng.randint(0, len(used)))
        if rng.random() < 0.3:
            output_labels.insert(rng.randint(0, len(output_labels)), rng.choice([l for l in pool if l not in used]))
        broadcast = {l: sizes[l] for l in output_labels if l not in used}
        join = rng.choice(sorted(NUMPY_JOINS)) if len(names) == 2 else "x"
        agg = rng.choice(sorted(NUMPY_AGGS))
        einsum = ",".join("".join(labels) for labels in operand_labels) + "->" + "".join(output_labels)
        inputs = {n: [sizes[l] for l in labels] for n, labels in zip(names, operand_labels)}
        ranges = {"B": (0.5, 2.0)} if join == "div" else None
        case(f"random #{k} {einsum} join {join} agg {agg}", inputs,
             [node("Z", einsum, names, join=join, agg=agg)],
             broadcasting_oracle(names, operand_labels, output_labels, sizes, join, agg),
             sizes=broadcast or None, ranges=ranges)


add_random_cases()

def graph_document(c, dtype):
    doc = {"name": "crosscheck", "dtype": dtype}
    if c["sizes"]:
        doc["sizes"] = c["sizes"]
    if c["map_inputs"]:
        doc["inputs"] = {n: s for n, s in c["inputs"].items()}
    else:
        doc["inputs"] = [{"name": n, "shape": s} for n, s in c["inputs"].items()]
    doc["nodes"] = c["nodes"]
    if c["outputs"]:
        doc["outputs"] = c["outputs"]
    return doc


def save_npy(path, array, version):
    with open(path, "wb") as f:
        np.lib.format.write_array(f, np.ascontiguousarray(array), version=version)


def run_case(einplan, c, dtype, workdir, rng, npy_version):
    os.makedirs(workdir)
    doc = graph_document(c, dtype)
    graph_path = os.path.join(workdir, "graph.yaml" if c["as_yaml"] else "graph.json")
    with open(graph_path, "w") as f:
        if c["as_yaml"]:
            yaml.safe_dump(doc, f, sort_keys=False)
        else:
            json.dump(doc, f, indent=1)
    np_dtype = np.float32 if dtype == "f32" else np.float64
    in_dir, out_dir = os.path.join(workdir, "in"), os.path.join(workdir, "out")
    os.makedirs(in_dir)
    arrays = {}
    for name, shape in c["inputs"].items():
        lo, hi = c["ranges"].get(name, (-1.0, 1.0))
        values = rng.uniform(lo, hi, size=shape).astype(np_dtype)
        save_npy(os.path.join(in_dir, name + ".npy"), values, npy_version)
        arrays[name] = values.astype(np.float64)
    proc = subprocess.run([einplan, "eval", graph_path, "--inputs", in_dir, "--outputs", out_dir],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        return False, f"einplan exited {proc.returncode}: {proc.stderr.strip()}"
    expected = c["oracle"](arrays)
    written = sorted(os.listdir(out_dir))
    if written != sorted(n + ".npy" for n in expected):
        return False, f"wrote {written}, expected {sorted(expected)}"
    rtol, atol = TOLERANCE[dtype]
    worst = 0.0
    for name, want in expected.items():
        got = np.load(os.path.join(out_dir, name + ".npy"))
        if got.dtype != np_dtype:
            return False, f"{name}: dtype {got.dtype}, expected {np.dtype(np_dtype)}"
        if got.shape != want.shape:
            return False, f"{name}: shape {got.shape}, expected {want.shape}"
        scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
        err = np.abs(got.astype(np.float64) - want)
        bound = atol * scale + rtol * np.abs(want)
        if not np.all(err <= bound):
            at = np.unravel_index(np.argmax(err - bound), err.shape)
            return False, f"{name}{list(at)}: got {got[at]!r}, expected {want[at]!r} (|err| {err[at]:.3g})"
        worst = max(worst, float(np.max(err / scale)) if err.size else 0.0)
    return True, f"max scaled error {worst:.2g}"


def run_generator_case(einplan, workdir, dtype, seed):
    """`einplan eval --seed S` on identity nodes must reproduce the NumPy generator."""
    os.makedirs(workdir)
    shapes = {"A": [3, 4], "weights_1": [2, 3, 2], "X": [7]}
    labels = {"A": "ab", "weights_1": "cde", "X": "f"}  # distinct labels, one per dimension
    doc = {"name": "gen", "dtype": dtype, "inputs": [{"name": n, "shape": s} for n, s in shapes.items()],
           "nodes": [node("copy_" + n, labels[n] + "->" + labels[n], [n], join="x") for n in shapes]}
    graph_path = os.path.join(workdir, "graph.json")
    with open(graph_path, "w") as f:
        json.dump(doc, f)
    out_dir = os.path.join(workdir, "out")
    cmd = [einplan, "eval", graph_path, "--outputs", out_dir] + ([] if seed is None else ["--seed", str(seed)])
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return False, f"einplan exited {proc.returncode}: {proc.stderr.strip()}"
    np_dtype = np.float32 if dtype == "f32" else np.float64
    for name, shape in shapes.items():
        got = np.load(os.path.join(out_dir, "copy_" + name + ".npy"))
        want = input_generator_numpy.generate(0 if seed is None else seed, name, tuple(shape), np_dtype)
        if got.dtype != want.dtype or not np.array_equal(got.view(np.uint8), want.view(np.uint8)):
            return False, f"{name}: generated values differ from the NumPy reimplementation"
    return True, "bit-identical"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--einplan", required=True)
    parser.add_argument("--seed", type=int, default=20261122, help="seed of the NumPy inputs")
    parser.add_argument("--keep", help="keep the cases' files in this directory")
    args = parser.parse_args()
    print(f"numpy_crosscheck: {len(CASES)} graphs ({RANDOM_GRAPHS} random, graph seed {RANDOM_GRAPH_SEED}), "
          f"input seed {args.seed}")
    rng = np.random.default_rng(args.seed)
    versions = [(1, 0), (2, 0), (3, 0)]
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="eval_crosscheck_") as tmp:
        root = args.keep or tmp
        k = 0
        for c in CASES:
            for dtype in ("f64", "f32"):
                version = versions[k % len(versions)]
                ok, detail = run_case(args.einplan, c, dtype, os.path.join(root, f"case{k:03d}"), rng, version)
                k += 1
                print(f"{'PASS' if ok else 'FAIL'}  {c['name']} [{dtype}, npy v{version[0]}]  {detail}")
                passed, failed = passed + ok, failed + (not ok)
        for dtype in ("f64", "f32"):
            for seed in (7, None):
                ok, detail = run_generator_case(args.einplan, os.path.join(root, f"gen{k:03d}"), dtype, seed)
                k += 1
                label = "--seed 7" if seed is not None else "default seed 0"
                print(f"{'PASS' if ok else 'FAIL'}  einplan eval {label} equals the NumPy generator [{dtype}]  {detail}")
                passed, failed = passed + ok, failed + (not ok)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
