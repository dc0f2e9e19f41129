"""Tensor networks for the contraction-path benchmark (bench/paths_large.py), generated
here: MERA-like ternary trees, grids (PEPS-like), random regular graphs of degree 3 and a
tensor-train language model. A network is (operands, output, sizes): operands and
output are lists of label names ([A-Za-z_][A-Za-z0-9_]*), sizes maps every label to its
size. `to_graph_yaml` writes it as one n-ary einplan node with multi-character labels.
"""
import random


def mera(sites, phys, bonds, open_sites=2):
    """A ternary MERA (disentanglers across block boundaries, then 3-to-1 isometries,
    layer by layer up to one top vector) contracted with its mirror image: physical legs
    of ket and bra joined except `open_sites` in the middle, whose ket and bra legs are
    the output (a reduced density matrix). `bonds[k]` is the bond size above layer k."""
    operands, sizes = [], {}
    counter = [0]

    def fresh(size):
        counter[0] += 1
        name = f"m{counter[0]}"
        sizes[name] = size
        return name

    def layer_stack(physical):
        ops, current, level = [], list(physical), 0
        while len(current) > 1:
            assert len(current) % 3 == 0, "sites must be a power of 3"
            for k in range(len(current) // 3 - 1):  # disentanglers across block boundaries
                a, b = 3 * k + 2, 3 * k + 3
                new_a, new_b = fresh(sizes[current[a]]), fresh(sizes[current[b]])
                ops.append([current[a], current[b], new_a, new_b])
                current[a], current[b] = new_a, new_b
            up = []
            for k in range(len(current) // 3):  # isometries
                u = fresh(bonds[min(level, len(bonds) - 1)])
                ops.append(current[3 * k:3 * k + 3] + [u])
                up.append(u)
            current, level = up, level + 1
        ops.append([current[0]])  # the top vector
        return ops

    ket_phys = [fresh(phys) for _ in range(sites)]
    first_open = (sites - open_sites) // 2
    bra_phys = [ket_phys[i] if not first_open <= i < first_open + open_sites else fresh(phys) for i in range(sites)]
    operands = layer_stack(ket_phys) + layer_stack(bra_phys)
    output = [ket_phys[i] for i in range(first_open, first_open + open_sites)] + \
             [bra_phys[i] for i in range(first_open, first_open + open_sites)]
    return operands, output, sizes


def grid(rows, cols, bond):
    """A closed rows x cols grid (a PEPS-like network): one tensor per site, one bond of
    size `bond` to each neighbour; the result is a scalar."""
    sizes, operands = {}, [[] for _ in range(rows * cols)]
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0)):
                if r + dr < rows and c + dc < cols:
                    name = f"g{r}_{c}_{r + dr}_{c + dc}"
                    sizes[name] = bond
                    operands[r * cols + c].append(name)
                    operands[(r + dr) * cols + c + dc].append(name)
    return operands, [], sizes


def random_regular(n, degree, bond, seed):
    """A closed random regular graph of degree `degree` (n * degree even): tensors are
    vertices, bonds of size `bond` are edges (no self loops, no double edges: the pairing
    is redrawn until it has none)."""
    rng = random.Random(seed)
    while True:
        stubs = [v for v in range(n) for _ in range(degree)]
        rng.shuffle(stubs)
        pairs = [tuple(sorted(stubs[i:i + 2])) for i in range(0, len(stubs), 2)]
        if all(a != b for a, b in pairs) and len(set(pairs)) == len(pairs):
            break
    operands, sizes = [[] for _ in range(n)], {}
    for k, (a, b) in enumerate(pairs):
        name = f"e{k}"
        sizes[name] = bond
        operands[a].append(name)
        operands[b].append(name)
    return operands, [], sizes


def tensor_train_lm(length, bond, phys, vocab):
    """A tensor-train language model: cores A_i[b_{i-1}, p_i, b_i] and per-token
    embeddings E_i[p_i, w_i]; the result is the joint table of the first and the last
    token, w_0 and w_{length-1} (every other token summed out)."""
    sizes, operands = {}, []
    for i in range(length):
        sizes[f"p{i}"] = phys
        sizes[f"w{i}"] = vocab
        if i + 1 < length:
            sizes[f"b{i}"] = bond
    for i in range(length):
        core = ([f"b{i - 1}"] if i > 0 else []) + [f"p{i}"] + ([f"b{i}"] if i + 1 < length else [])
        operands.append(core)
        operands.append([f"p{i}", f"w{i}"])
    return operands, ["w0", f"w{length - 1}"], sizes


def to_graph_yaml(name, operands, output, sizes):
    lines = [f"name: {name}", "dtype: f32", "inputs:"]
    for i, op in enumerate(operands):
        lines.append(f"  - {{name: T{i}, shape: [{', '.join(str(sizes[l]) for l in op)}]}}")
    einsum = ", ".join(" ".join(op) for op in operands) + " -> " + " ".join(output)
    lines += ["nodes:", f"  - name: {name}", f"    einsum: \"{einsum}\"",
              f"    inputs: [{', '.join(f'T{i}' for i in range(len(operands)))}]", f"outputs: [{name}]", ""]
    return "\n".join(lines)


def numpy_einsum(node):
    """NumPy's einsum string for a graph node (a dict as the graph file holds it; labels
    of one character each, or separated by spaces), every label renamed to one letter."""
    letters = {}

    def term(spec):
        labels = spec.split() if " " in spec.strip() else list(spec.strip())
        out = ""
        for label in labels:
            if label not in letters:
                k = len(letters)
                letters[label] = chr(ord("a") + k) if k < 26 else chr(ord("A") + k - 26)
            out += letters[label]
        return out

    lhs, rhs = node["einsum"].split("->")
    return ",".join(term(t) for t in lhs.split(",")) + "->" + term(rhs)
