"""An EinGraph interpreter in torch (tests/autodiff): every node evaluated by broadcasting its
operands over all of its labels, applying the join as a torch expression and aggregating
with torch's own sum / amax / amin / prod, so that torch.autograd differentiates the
forward computation independently of einplan's gradient rules. amax and amin split the
gradient evenly between ties, as einplan grad's rule does."""
import math

import torch
import yaml

FUNCTIONS = {
    "exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "abs": torch.abs,
    "tanh": torch.tanh, "sigmoid": torch.sigmoid, "relu": torch.relu, "max": torch.maximum, "min": torch.minimum,
    "pow": torch.pow, "erf": torch.erf, "sin": torch.sin, "cos": torch.cos, "where": lambda c, a, b: torch.where(c != 0, a, b), "inf": math.inf,
    "lt": lambda a, b: (a < b).to(a.dtype), "le": lambda a, b: (a <= b).to(a.dtype), "gt": lambda a, b: (a > b).to(a.dtype),
    "ge": lambda a, b: (a >= b).to(a.dtype), "eq": lambda a, b: (a == b).to(a.dtype),
}
NAMED = {"mul": "x * y", "add": "x + y", "sub": "x - y", "div": "x / y", "max": "max(x, y)", "min": "min(x, y)",
         "sqdiff": "(x - y) * (x - y)", "absdiff": "abs(x - y)"}


def labels_of(text):
    text = text.strip()
    return text.split() if any(c.isspace() for c in text) else list(text)


def parse_einsum(einsum):
    lhs, out = einsum.split("->")
    return [labels_of(t) for t in lhs.split(",")] if lhs.strip() else [[]], labels_of(out)


def load(path):
    g = yaml.safe_load(open(path))
    if isinstance(g["inputs"], dict):
        g["inputs"] = [{"name": k, "shape": v} for k, v in g["inputs"].items()]
    return g


TYPES = {"f32": torch.float32, "f64": torch.float64, "bf16": torch.bfloat16, "f16": torch.float16}


def evaluate(g, inputs, compute=None):
    """inputs: name -> torch tensor. Returns name -> tensor for every node. A node's type is
    its `cast`'s, else its first operand's (SPEC 8). With `compute` (torch.float32) a node
    of a narrower type computes in it and rounds its result to its type once, as SPEC 8
    says kernels do."""
    values = dict(inputs)
    for n in g["nodes"]:
        operands, out = parse_einsum(n["einsum"])
        if len(n["inputs"]) == 1 and len(operands) == 1:
            pass
        sizes = dict(g.get("sizes", {}))
        sizes.update(n.get("sizes", {}))
        windows = n.get("windows") or [{} for _ in operands]
        for labels, name, window in zip(operands, n["inputs"], windows):
            for l, s in zip(labels, values[name].shape):
                if l not in window:
                    sizes[l] = s
        everything = []
        for labels in operands + [out]:
            for l in labels:
                if l not in everything:
                    everything.append(l)
        full = [sizes[l] for l in everything]

        def spread(t, labels):
            order = [labels.index(l) for l in everything if l in labels]
            t = t.permute(order) if order else t
            shape = [sizes[l] if l in labels else 1 for l in everything]
            return t.reshape(shape)

        def through_window(t, labels, window):
            """SPEC 8.1 by torch's own pad and narrow: element i of a windowed dimension is
            the operand's at i + offset, the node's fill outside it."""
            fill = float(n.get("fill", 0))
            for d, l in enumerate(labels):
                if l not in window:
                    continue
                offset, extent, size = window[l], sizes[l], t.shape[d]
                before, after = max(0, -offset), max(0, offset + extent - size)
                pad = [0, 0] * (t.dim() - 1 - d) + [before, after]
                t = torch.nn.functional.pad(t, pad, value=fill) if before or after else t
                t = t.narrow(d, offset + before, extent)
            return t

        args = [spread(through_window(values[name], labels, window), labels)
                for labels, name, window in zip(operands, n["inputs"], windows)]
        node_type = TYPES[n["cast"]] if "cast" in n else args[0].dtype
        if compute is not None:
            args = [a.to(compute) for a in args]
        join = n.get("join", "mul" if len(args) > 1 else "x")
        join = NAMED.get(join, join)
        if len(args) > 2:
            v = args[0]
            for a in args[1:]:
                v = v * a
        else:
            env = dict(FUNCTIONS, x=args[0], y=args[1] if len(args) > 1 else None)
            v = eval(join, {"__builtins__": {}}, env)
        dtype = args[0].dtype
        v = torch.as_tensor(v, dtype=dtype) + torch.zeros(full, dtype=dtype)
        reduced = [i for i, l in enumerate(everything) if l not in out]
        agg = n.get("agg", "sum")
        if reduced:
            if agg == "sum":
                v = v.sum(reduced)
            elif agg == "max":
                v = v.amax(reduced)
            elif agg == "min":
                v = v.amin(reduced)
            else:
                for d in sorted(reduced, reverse=True):
                    v = v.prod(d)
        kept = [l for l in everything if l in out]
        v = v.permute([kept.index(l) for l in out]) if out else v
        values[n["name"]] = v.to(node_type)
    return values
