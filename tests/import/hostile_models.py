#!/usr/bin/python3
"""Hostile and broken ONNX models through `einplan import`: each a clear answer, nothing half-written.

A table of cases (CASES), each a model written with onnx.helper or as raw bytes into a
folder of its own, imported with `einplan import MODEL -o out/graph.yaml` (weights in the
default out/graph.weights/, or --weights), run with the case folder as working directory:

- refused cases (a truncated protobuf, files that are not ONNX, a node cycle, huge or
  overflowing dimensions, external data outside the model's folder, operators outside the
  supported set, a symbolic dimension without --dim, opsets outside the importer's range, ...)
  must exit 2 with a message on stderr (containing the words the case names: the operator
  type and the node, the dimension, ...), and the graph file, the weights folder and any
  other file must not exist afterwards: the case folder holds exactly what it held before;
- accepted cases (names with shell and C++ metacharacters, path separators, quotes,
  newlines and other control characters, non-ASCII letters, names that collide once made
  valid; external data inside the folder; a symbolic dimension fixed with --dim) must exit
  0; the graph must load (PyYAML) with valid, unique identifiers, a `# names: {...}`
  comment mapping exactly the ONNX names that changed, only NAME.npy files with valid NAMEs
  in the weights folder, no other file anywhere, no raw hostile name outside the names
  comment; and `einplan eval` with the model's inputs put into the weights folder (under
  their graph names) must give the outputs NumPy computes. With --eincodegen the graph is
  also emitted as a project (not built) whose sources must not contain a raw hostile name.

Opsets: SPEC 5 names 13 to 17; the importer also reads 11 and 12 (docs/import.md), so the
opset cases use 10 and 18, outside both.

    cd /work/main && /usr/bin/python3 tests/import/hostile_models.py --einplan build/bin/einplan
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import yaml
from onnx import TensorProto, helper, numpy_helper

IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
NPY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}\.npy$")


# --- building models -------------------------------------------------------------------

def model(nodes, inputs, outputs, initializers=(), opset=14, **graph_kw):
    g = helper.make_graph(nodes, "hostile", inputs, outputs, list(initializers), **graph_kw)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="hostile_models")
    m.ir_version = 8
    return m


def vi(name, shape, kind=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, kind, shape)


def relu_model(shape=(2, 3), opset=14):
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", list(shape))],
                 [vi("y", list(shape))], opset=opset)


def save(m, folder, name="model.onnx"):
    path = os.path.join(folder, name)
    with open(path, "wb") as f:
        f.write(m.SerializeToString())
    return path


def write_bytes(folder, data, name="model.onnx"):
    path = os.path.join(folder, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def big_model():
    """A valid model with a 4096-element weight (most of the file)."""
    w = numpy_helper.from_array(np.arange(64 * 64, dtype=np.float32).reshape(64, 64) / 4096, "w")
    return model([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], [vi("x", [2, 64])], [vi("y", [2, 64])], [w])


def truncated(folder):
    data = big_model().SerializeToString()
    cut = data[: len(data) // 2]
    try:  # the cut must fall inside a length-delimited field, where protobuf itself fails
        onnx.load_model_from_string(cut)
        raise AssertionError("the truncated model still parses: cut elsewhere")
    except Exception as e:
        if isinstance(e, AssertionError):
            raise
    return write_bytes(folder, cut)


def truncated_tail(folder):
    """Cut inside the weight's raw bytes near the end of the file."""
    data = big_model().SerializeToString()
    return write_bytes(folder, data[: len(data) - 1000])


def cycle(folder):
    nodes = [helper.make_node("Add", ["x", "b"], ["a"], name="first"),
             helper.make_node("Relu", ["a"], ["b"], name="second"),
             helper.make_node("Neg", ["a"], ["y"], name="third")]
    return save(model(nodes, [vi("x", [2, 2])], [vi("y", [2, 2])]), folder)


def self_loop(folder):
    nodes = [helper.make_node("Add", ["x", "a"], ["a"], name="loop"), helper.make_node("Relu", ["a"], ["y"], name="r")]
    return save(model(nodes, [vi("x", [2, 2])], [vi("y", [2, 2])]), folder)


def undefined_value(folder):
    nodes = [helper.make_node("Add", ["x", "nowhere"], ["y"], name="add")]
    return save(model(nodes, [vi("x", [2, 2])], [vi("y", [2, 2])]), folder)


def raw_initializer(name, dims, raw=b"", kind=TensorProto.FLOAT):
    t = TensorProto()
    t.name, t.data_type = name, kind
    t.dims.extend(dims)
    if raw:
        t.raw_data = raw
    return t


def huge_initializer(dims):
    def build(folder):
        w = raw_initializer("w", dims)
        nodes = [helper.make_node("Add", ["x", "w"], ["y"], name="add")]
        return save(model(nodes, [vi("x", [1])], [vi("y", list(dims))], [w]), folder)
    return build


def huge_input(shape):
    def build(folder):
        return save(relu_model(shape), folder)
    return build


def short_initializer(folder):
    """dims say 64 floats, raw_data holds 3."""
    w = raw_initializer("w", [64], raw=np.ones(3, np.float32).tobytes())
    nodes = [helper.make_node("Add", ["x", "w"], ["y"], name="add")]
    return save(model(nodes, [vi("x", [64])], [vi("y", [64])], [w]), folder)


def external(location, make_files, offset=0, length=16):
    """An initializer whose 4 floats are external data at `location`; make_files(folder)
    lays out the files first."""
    def build(folder):
        make_files(folder)
        w = raw_initializer("w", [4])
        w.data_location = TensorProto.EXTERNAL
        loc = location(folder) if callable(location) else location
        for k, v in (("location", loc), ("offset", str(offset)), ("length", str(length))):
            entry = w.external_data.add()
            entry.key, entry.value = k, v
        nodes = [helper.make_node("Add", ["x", "w"], ["y"], name="add")]
        os.makedirs(os.path.join(folder, "m"), exist_ok=True)
        return save(model(nodes, [vi("x", [4])], [vi("y", [4])], [w]), os.path.join(folder, "m"))
    return build


SECRET = np.array([1, 2, 3, 4], np.float32)


def secret_outside(folder):
    SECRET.tofile(os.path.join(folder, "secret.bin"))


def secret_inside(folder):
    os.makedirs(os.path.join(folder, "m"), exist_ok=True)
    SECRET.tofile(os.path.join(folder, "m", "weights.bin"))


def link_outside(folder):
    secret_outside(folder)
    os.makedirs(os.path.join(folder, "m"), exist_ok=True)
    os.symlink(os.path.join(folder, "secret.bin"), os.path.join(folder, "m", "link.bin"))


def op_model(op, node_name, inputs, attrs=None, domain=None, out_shape=(1, 1, 2, 2)):
    def build(folder):
        kw = dict(attrs or {})
        if domain:
            kw["domain"] = domain
        nodes = [helper.make_node(op, [n for n, _ in inputs], ["y"], name=node_name, **kw)]
        return save(model(nodes, [vi(n, s) for n, s in inputs], [vi("y", list(out_shape))]), folder)
    return build


def several_unmapped(folder):
    """Two Convs of stride 0, a MaxPool of kernel 0 and a Round of a computed tensor (Round
    folds on constants only): all named in one refusal (windows that exist import)."""
    k = numpy_helper.from_array(np.ones((1, 1, 1, 1), np.float32), "k")
    nodes = [helper.make_node("Conv", ["x", "k"], ["c1"], name="conv_a", strides=[0, 0]),
             helper.make_node("Conv", ["c1", "k"], ["c2"], name="conv_b", strides=[0, 0]),
             helper.make_node("MaxPool", ["c2"], ["p"], name="pool", kernel_shape=[0, 0]),
             helper.make_node("Round", ["p"], ["y"], name="round")]
    return save(model(nodes, [vi("x", [1, 1, 4, 4])], [vi("y", [1, 1, 4, 4])], [k]), folder)


def lstm(folder):
    w = numpy_helper.from_array(np.zeros((1, 8, 3), np.float32), "W")
    r = numpy_helper.from_array(np.zeros((1, 8, 2), np.float32), "R")
    nodes = [helper.make_node("LSTM", ["x", "W", "R"], ["y"], name="lstm_layer_0", hidden_size=2)]
    return save(model(nodes, [vi("x", [5, 1, 3])], [vi("y", [5, 1, 1, 2])], [w, r]), folder)


def symbolic(folder):
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    return save(model(nodes, [vi("x", ["batch_size", 4])], [vi("y", ["batch_size", 4])]), folder)


def opset(version):
    def build(folder):
        return save(relu_model(opset=version), folder)
    return build


def foreign_domain(folder):
    m = model([helper.make_node("FusedMatMul", ["x", "x"], ["y"], name="fused", domain="com.microsoft")],
              [vi("x", [2, 2])], [vi("y", [2, 2])])
    m.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return save(m, folder)


def integer_input(folder):
    """An int64 input read as values (cast to float, an attention mask) and, through a
    Reshape, as a Gather's indices: it cannot be both a float and an index input."""
    table = numpy_helper.from_array(np.ones((5, 2), np.float32), "table")
    shape = numpy_helper.from_array(np.array([3], np.int64), "shape")
    nodes = [helper.make_node("Cast", ["i"], ["f"], name="cast", to=TensorProto.FLOAT),
             helper.make_node("Reshape", ["i", "shape"], ["r"], name="flat"),
             helper.make_node("Gather", ["table", "r"], ["g"], name="lookup"),
             helper.make_node("ReduceSum", ["g"], ["s"], name="sum", keepdims=0),
             helper.make_node("Mul", ["f", "s"], ["y"], name="mul")]
    return save(model(nodes, [vi("i", [3], TensorProto.INT64)], [vi("y", [3])], [table, shape]), folder)


def integer_values(folder):
    """An int64 mask cast to float: a float input, read from an int64 .npy."""
    nodes = [helper.make_node("Cast", ["i"], ["f"], name="cast", to=TensorProto.FLOAT),
             helper.make_node("Sub", ["one", "f"], ["y"], name="invert")]
    one = numpy_helper.from_array(np.ones((3,), np.float32), "one")
    i = np.array([1, 0, 1], np.int64)
    return save(model(nodes, [vi("i", [3], TensorProto.INT64)], [vi("y", [3])], [one]), folder), {"i": i}, {"y": 1.0 - i}


def short_float_data(folder):
    """dims say 4 floats, float_data holds 2."""
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4], float_data=[1.0, 2.0])
    nodes = [helper.make_node("Add", ["x", "w"], ["y"], name="add")]
    return save(model(nodes, [vi("x", [4])], [vi("y", [4])], [w]), folder)


def computed_where(folder):
    """A condition computed from values (Greater: the join function gt) picking between two
    computed branches: the elementwise maximum."""
    nodes = [helper.make_node("Greater", ["x", "z"], ["c"], name="cmp"),
             helper.make_node("Where", ["c", "x", "z"], ["y"], name="where")]
    x = np.array([[1.0, -2.0], [3.5, 0.25]], np.float32)
    z = np.array([[0.5, -1.0], [4.0, -0.25]], np.float32)
    return (save(model(nodes, [vi("x", [2, 2]), vi("z", [2, 2])], [vi("y", [2, 2])]), folder), {"x": x, "z": z},
            {"y": np.where(x > z, x, z)})


def reordering_reshape(folder):
    s = numpy_helper.from_array(np.array([6, 4], np.int64), "s")
    nodes = [helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape_rs")]
    return save(model(nodes, [vi("x", [4, 6])], [vi("y", [6, 4])], [s]), folder)


def double_definition(folder):
    """Two nodes write the same value (ONNX graphs are single-assignment)."""
    nodes = [helper.make_node("Relu", ["x"], ["t"], name="one"), helper.make_node("Neg", ["x"], ["t"], name="two"),
             helper.make_node("Tanh", ["t"], ["y"], name="three")]
    return save(model(nodes, [vi("x", [2, 2])], [vi("y", [2, 2])]), folder)


def output_is_input(folder):
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    return save(model(nodes, [vi("x", [2, 2])], [vi("y", [2, 2]), vi("x", [2, 2])]), folder)


def deep_chain(n):
    def build(folder):
        nodes = [helper.make_node("Neg", ["x" if k == 0 else f"v{k - 1}"], [f"v{k}" if k < n - 1 else "y"],
                                  name=f"neg{k}") for k in range(n)]
        return save(model(nodes, [vi("x", [2, 2])], [vi("y", [2, 2])]), folder)
    return build


# Hostile names: shell and C++ metacharacters, path separators, quotes, control characters,
# non-ASCII, leading digits, long names, names that collide once made valid.
HOSTILE = {
    "in1": "a;rm -rf x",
    "in2": 'x"y',
    "in3": "a.b",
    "in4": "a_b",  # valid, but "a.b" made valid would be this
    "in5": "1st input",
    "w1": "../../etc",
    "w2": "$(touch pwned)`touch pwned2`",
    "w3": "w\nnext line",
    "w4": "#include <cstdlib>\n*/ std::system(\"x\"); /*",
    "w5": "é" * 40 + "\u2028\x85\r",
    "w6": "L" * 200,
    "out1": "out\nput; echo owned > owned",
    "out2": "/tmp/abs'path\\",
    "out3": "valid_output",
}


def hostile_names_model():
    n = HOSTILE
    shape = [2, 3]
    rng = np.random.default_rng(1)
    weights = {n[k]: rng.standard_normal(shape).astype(np.float32) for k in ("w1", "w2", "w3", "w4", "w5", "w6")}
    inits = [numpy_helper.from_array(v, k) for k, v in weights.items()]
    nodes = [
        helper.make_node("Add", [n["in1"], n["in2"]], ["t 1"], name="node; reboot"),
        helper.make_node("Mul", ["t 1", n["w1"]], ["t/2"], name='n"2'),
        helper.make_node("Sub", ["t/2", n["w2"]], ["t\n3"], name="n\n3"),
        helper.make_node("Add", ["t\n3", n["w3"]], ["t4"], name=""),
        helper.make_node("Mul", ["t4", n["w4"]], ["t5"], name="t5"),
        helper.make_node("Add", ["t5", n["in3"]], ["t6"]),
        helper.make_node("Sub", ["t6", n["in4"]], ["t7"]),
        helper.make_node("Add", ["t7", n["w5"]], ["t8"]),
        helper.make_node("Mul", ["t8", n["in5"]], ["t9"]),
        helper.make_node("Add", ["t9", n["w6"]], [n["out1"]]),
        helper.make_node("Tanh", [n["out1"]], [n["out2"]]),
        helper.make_node("Neg", [n["out2"]], [n["out3"]]),
    ]
    inputs = [vi(n[k], shape) for k in ("in1", "in2", "in3", "in4", "in5")]
    outputs = [vi(n[k], shape) for k in ("out1", "out2", "out3")]
    feeds = {n[k]: rng.standard_normal(shape).astype(np.float32) for k in ("in1", "in2", "in3", "in4", "in5")}
    v = weights
    o1 = ((((feeds[n["in1"]] + feeds[n["in2"]]) * v[n["w1"]] - v[n["w2"]] + v[n["w3"]]) * v[n["w4"]]
           + feeds[n["in3"]] - feeds[n["in4"]] + v[n["w5"]]) * feeds[n["in5"]] + v[n["w6"]])
    expected = {n["out1"]: o1, n["out2"]: np.tanh(o1), n["out3"]: -np.tanh(o1)}
    return model(nodes, inputs, outputs, inits), feeds, expected


def hostile_names(folder):
    m, feeds, expected = hostile_names_model()
    return save(m, folder), feeds, expected


def hostile_names_files(folder):
    """A model file and folder whose own names are hostile, too."""
    sub = os.path.join(folder, "dir; touch pwned3 $(id)")
    os.makedirs(sub)
    m, feeds, expected = hostile_names_model()
    return save(m, sub, "m'o\"d$el.onnx"), feeds, expected


def external_inside(folder):
    path = external("weights.bin", secret_inside)(folder)
    return path, {"x": np.array([10, 20, 30, 40], np.float32)}, {"y": np.array([11, 22, 33, 44], np.float32)}


def symbolic_fixed(folder):
    x = np.array([[-1, 2, -3, 4], [5, -6, 7, -8], [0, 1, -1, 0]], np.float32)
    return symbolic(folder), {"x": x}, {"y": np.maximum(x, 0)}


def conv_fixed(folder):
    """A 2x2 window of stride 1 (taps, docs/import.md) with its weight a model input."""
    x = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3) - 4
    k = np.array([[[[1, -2], [3, 0.5]]]], np.float32)
    y = np.array([[[[np.sum(x[0, 0, i:i + 2, j:j + 2] * k[0, 0]) for j in range(2)] for i in range(2)]]], np.float32)
    return op_model("Conv", "conv_layer_7", [("x", [1, 1, 3, 3]), ("k", [1, 1, 2, 2])])(folder), {"x": x, "k": k}, {"y": y}


# --- the table -------------------------------------------------------------------------
# (name, build, extra arguments, expectation): "refuse" with words stderr must contain
# (case-insensitive), or "accept" (build returns (path, feeds, expected outputs)), or
# "either" (exit 0 or 2; 0 must give a graph `einplan check` accepts).
CASES = [
    ("truncated protobuf", truncated, [], ("refuse", ["ONNX"])),
    ("truncated inside a weight", truncated_tail, [], ("refuse", ["ONNX"])),
    ("empty file", lambda d: write_bytes(d, b""), [], ("refuse", [])),
    ("text file", lambda d: write_bytes(d, b"hello, I am not a model\n"), [], ("refuse", [])),
    ("PNG file", lambda d: write_bytes(d, b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4), [], ("refuse", [])),
    ("EinGraph YAML given as a model",
     lambda d: write_bytes(d, b"inputs: {A: [2, 2]}\nnodes:\n  - {name: B, einsum: 'ij->ji', inputs: [A]}\n"), [],
     ("refuse", [])),
    ("random bytes", lambda d: write_bytes(d, np.random.default_rng(3).bytes(4096)), [], ("refuse", [])),
    ("a folder as the model", lambda d: os.makedirs(os.path.join(d, "dir.onnx")) or os.path.join(d, "dir.onnx"), [],
     ("refuse", [])),
    ("missing file", lambda d: os.path.join(d, "nowhere.onnx"), [], ("refuse", [])),
    ("node cycle", cycle, [], ("refuse", ["cycle"])),
    ("node reading its own output", self_loop, [], ("refuse", ["loop"])),
    ("value no node defines", undefined_value, [], ("refuse", ["nowhere"])),
    ("initializer dims [2^40]", huge_initializer([2 ** 40]), [], ("refuse", ["'w'"])),
    ("initializer dims [2^20, 2^20], no data", huge_initializer([2 ** 20, 2 ** 20]), [], ("refuse", ["'w'"])),
    ("initializer dims overflowing 64 bits", huge_initializer([2 ** 31 - 1] * 3), [], ("refuse", ["'w'"])),
    ("initializer dims [-4]", huge_initializer([-4]), [], ("refuse", [])),
    ("initializer shorter than its dims", short_initializer, [], ("refuse", ["'w'"])),
    ("float_data shorter than its dims", short_float_data, [], ("refuse", ["'w'"])),
    ("input shape [2^40]", huge_input([2 ** 40]), [], ("refuse", ["'x'"])),
    ("input shape [2^21, 2^21]", huge_input([2 ** 21, 2 ** 21]), [], ("refuse", ["'x'"])),
    ("input shape with dimension 0", huge_input([0, 3]), [], ("refuse", [])),
    ("input shape with dimension -1", huge_input([-1, 3]), [], ("refuse", ["'x'"])),
    ("external data ../secret.bin", external("../secret.bin", secret_outside), [], ("refuse", ["external data"])),
    ("external data at an absolute path", external(lambda d: os.path.join(d, "secret.bin"), secret_outside), [],
     ("refuse", ["external data"])),
    ("external data sub/../../secret.bin", external("sub/../../secret.bin", secret_outside), [], ("refuse", ["external data"])),
    ("external data through a link leaving the folder", external("link.bin", link_outside), [], ("refuse", ["external data"])),
    ("external data /dev/zero", external("/dev/zero", lambda d: None), [], ("refuse", ["external data"])),
    ("external data past the end of its file", external("weights.bin", secret_inside, offset=8), [], ("refuse", ["external data"])),
    ("external data file missing", external("missing.bin", lambda d: None), [], ("refuse", ["external data"])),
    ("GridSample", op_model("GridSample", "sample_layer_7", [("x", [1, 1, 3, 3]), ("grid", [1, 2, 2, 2])]), [],
     ("refuse", ["GridSample", "sample_layer_7"])),
    ("GridSample, --weights given", op_model("GridSample", "sample_layer_7", [("x", [1, 1, 3, 3]), ("grid", [1, 2, 2, 2])]),
     ["--weights", "weights dir"], ("refuse", ["GridSample", "sample_layer_7"])),
    ("Conv (a 2x2 window of stride 1)", conv_fixed, [], ("accept", None)),
    ("LSTM", lstm, [], ("refuse", ["LSTM", "lstm_layer_0"])),
    ("several unmapped operators, listed at once", several_unmapped, [],
     ("refuse", ["3 operator types", "'Conv with a window it cannot import' (2 nodes, the first node 'conv_a'",
                 "'MaxPool with a window it cannot import' (1 node", "'Round'"])),
    ("operator of another domain", foreign_domain, [], ("refuse", ["FusedMatMul"])),
    ("integer model input read as ids and as values", integer_input, [], ("refuse", ["'i'", "INT64", "both"])),
    ("integer model input read as values (a mask)", integer_values, [], ("accept", None)),
    ("symbolic dimension without --dim", symbolic, [], ("refuse", ["batch_size", "--dim"])),
    ("--dim for a dimension the model lacks", symbolic, ["--dim", "batch_size=3", "--dim", "nosuch=2"],
     ("refuse", ["nosuch"])),
    ("--dim batch_size=0", symbolic, ["--dim", "batch_size=0"], ("refuse", [])),
    ("--dim batch_size=-3", symbolic, ["--dim", "batch_size=-3"], ("refuse", [])),
    ("--dim batch_size=2^40", symbolic, ["--dim", f"batch_size={2 ** 40}"], ("refuse", [])),
    ("opset 10", opset(10), [], ("refuse", ["opset", "10"])),
    ("opset 18", opset(18), [], ("refuse", ["opset", "18"])),
    ("symbolic dimension with --dim", symbolic_fixed, ["--dim", "batch_size=3"], ("accept", None)),
    ("hostile names", hostile_names, [], ("accept", None)),
    ("hostile names, hostile model path", hostile_names_files, [], ("accept", None)),
    ("external data inside the model's folder", external_inside, [], ("accept", None)),
    ("two nodes writing one value", double_definition, [], ("refuse", [])),
    ("Where with a computed condition", computed_where, [], ("accept", None)),
    ("Reshape that reorders elements", reordering_reshape, [], ("refuse", ["Reshape", "reshape_rs"])),
    ("a model input that is also an output", output_is_input, [], ("either", None)),
    ("chain of 2000 nodes", deep_chain(2000), [], ("either", None)),
]


# --- running ---------------------------------------------------------------------------

def tree(folder):
    """Every path under folder (links not followed) with its kind."""
    found = set()
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            found.add((os.path.relpath(path, folder), "link" if os.path.islink(path) else
                       "dir" if os.path.isdir(path) else "file"))
    return found


def first_line(text):
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[0].strip() if lines else ""


def raw_names(hostile):
    """The hostile names that must not appear raw in written files (the valid ones may)."""
    return [s for s in hostile if not IDENT.match(s) or len(s) > 64]


def check_accepted(path, feeds, expected, a, folder, before):
    problems = []
    graph = os.path.join(folder, "out", "graph.yaml")
    weights = os.path.join(folder, "out", "graph.weights")
    if not os.path.isfile(graph):
        return ["no graph file written"]
    text = open(graph, encoding="utf-8").read()
    names = {}
    for line in text.splitlines():
        if line.startswith("# names: "):
            names = json.loads(line[len("# names: "):])
    g = yaml.safe_load(text)
    inputs = g["inputs"]
    inputs = [t["name"] for t in inputs] if isinstance(inputs, list) else list(inputs)
    nodes = [n["name"] for n in g["nodes"]]
    outputs = g.get("outputs") or []
    for name in inputs + nodes + outputs:
        if not IDENT.match(name) or len(name) > 64:
            problems.append(f"graph name {name!r} is not a valid identifier")
    if len(set(inputs + nodes)) != len(inputs + nodes):
        problems.append("graph names are not unique")
    model = onnx.load(path, load_external_data=False)
    onnx_names = ([i.name for i in model.graph.input] + [o.name for o in model.graph.output]
                  + [t.name for t in model.graph.initializer])
    changed = {n for n in onnx_names if not IDENT.match(n) or len(n) > 64}
    # import's marker (cli/common/owned_folder.h) beside the weights
    kept_weights = set(os.listdir(weights)) - {".einplan-import"} if os.path.isdir(weights) else set()
    missing = {n for n in changed if n not in names}
    if missing:
        # an initializer the importer dropped (unused) needs no entry; inputs and outputs do
        must = {i.name for i in model.graph.input} | {o.name for o in model.graph.output}
        missing = {n for n in missing if n in must}
        if missing:
            problems.append(f"the names comment lacks {sorted(missing)!r}")
    for onnx_name, graph_name in names.items():
        if not IDENT.match(graph_name) or len(graph_name) > 64:
            problems.append(f"names maps {onnx_name!r} to the invalid {graph_name!r}")
        if IDENT.match(onnx_name) and len(onnx_name) <= 64:
            problems.append(f"names maps the valid name {onnx_name!r} (valid names are kept)")
    for n in [i.name for i in model.graph.input] + [o.name for o in model.graph.output]:
        if n not in changed and n not in inputs + outputs:
            problems.append(f"the valid name {n!r} was not kept")
    for f in kept_weights:
        if not NPY.match(f):
            problems.append(f"weights folder holds {f!r}")
    # Nothing raw outside the names comment (and the provenance's command line).
    body = "\n".join(line for line in text.splitlines() if not line.startswith("# "))
    for s in raw_names(HOSTILE.values()):
        for piece in [s] + [p for p in re.split(r"[\n\r\u2028\x85]", s) if len(p) > 3]:
            if piece in body:
                problems.append(f"the raw text {piece!r} is in the graph")
                break
    after = tree(folder)
    allowed = {("out/graph.yaml", "file"), ("out/graph.weights", "dir"), ("out/graph.weights/.einplan-import", "file")} | {
        (f"out/graph.weights/{f}", "file") for f in kept_weights if NPY.match(f)}
    extra = sorted(p for p, _ in after - before - allowed)
    if extra:
        problems.append(f"unexpected files: {extra}")
    if problems:
        return problems
    # Run it: the model's inputs into the weights folder under their graph names (a model
    # without initializers may have no weights folder).
    os.makedirs(weights, exist_ok=True)
    for name, value in feeds.items():
        np.save(os.path.join(weights, names.get(name, name) + ".npy"), value)
    out = os.path.join(folder, "eval")
    e = subprocess.run([a.einplan, "eval", graph, "--inputs", weights, "--outputs", out],
                       capture_output=True, text=True, timeout=60)
    if e.returncode != 0:
        return [f"einplan eval exits {e.returncode}: {first_line(e.stderr)}"]
    for name, want in expected.items():
        f = os.path.join(out, names.get(name, name) + ".npy")
        if not os.path.isfile(f):
            problems.append(f"eval wrote no output for {name!r}")
            continue
        got = np.load(f)
        if got.shape != want.shape or not np.allclose(got, want, rtol=1e-5, atol=1e-6):
            problems.append(f"output {name!r} differs from NumPy's")
    if a.eincodegen and not problems:
        project = os.path.join(folder, "project")
        c = subprocess.run([a.eincodegen, graph, "-p", "2", "-o", project], capture_output=True, text=True, timeout=120)
        if c.returncode != 0:
            problems.append(f"eincodegen exits {c.returncode}: {first_line(c.stderr)}")
        else:
            for root, _, files in os.walk(project):
                for fn in files:
                    if not fn.endswith((".cpp", ".h", ".cu", ".txt", "Makefile", ".json", ".md")):
                        continue
                    src = open(os.path.join(root, fn), encoding="utf-8", errors="replace").read()
                    for s in raw_names(HOSTILE.values()):
                        if len(s) >= 5 and s in src:
                            problems.append(f"emitted {fn} holds the raw name {s!r}")
    return problems


def run_case(case, build, extra, expect, a, scratch):
    kind, words = expect
    folder = os.path.join(scratch, re.sub(r"[^A-Za-z0-9]+", "_", case))
    os.makedirs(folder)
    os.makedirs(os.path.join(folder, "out"))
    built = build(folder)
    path, feeds, expected = built if isinstance(built, tuple) else (built, None, None)
    before = tree(folder)
    cmd = [a.einplan, "import", path, "-o", os.path.join(folder, "out", "graph.yaml")] + extra
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=120, cwd=folder)
    except subprocess.TimeoutExpired:
        return "FAIL", "ran over 120 s"
    message = first_line(r.stderr).replace(folder + "/", "")
    if r.returncode < 0:
        return "FAIL", f"killed by signal {-r.returncode}: {message}"
    if r.returncode not in (0, 2):
        return "FAIL", f"exit {r.returncode}: {message}"
    if r.returncode == 2:
        after = tree(folder)
        if after != before:
            return "FAIL", f"exit 2 but left {sorted(p for p, _ in after ^ before)}"
        if not r.stderr.strip():
            return "FAIL", "exit 2 without a message"
        if len(r.stderr) > 4000:
            return "FAIL", f"a message of {len(r.stderr)} characters (one paragraph expected)"
        if kind == "accept":
            return "FAIL", f"refused: {message}"
        lost = [w for w in words if w.lower() not in r.stderr.lower()]
        if lost:
            return "FAIL", f"the message does not name {lost}: {message}"
        return "ok", f"refused: {message}"
    # exit 0
    if kind == "refuse":
        return "FAIL", "imported (exit 0); expected exit 2"
    if kind == "either":
        c = subprocess.run([a.einplan, "check", os.path.join(folder, "out", "graph.yaml")], capture_output=True,
                           text=True, timeout=120)
        if c.returncode != 0:
            return "FAIL", f"imported, but einplan check exits {c.returncode}: {first_line(c.stderr)}"
        return "ok", "imported"
    problems = check_accepted(path, feeds, expected, a, folder, before)
    if problems:
        return "FAIL", "; ".join(problems)
    return "ok", "imported, eval matches NumPy"


def check_einplan(einplan):
    try:
        r = subprocess.run([einplan, "import", "--help"], capture_output=True, text=True, timeout=30)
    except OSError as e:
        sys.exit(f"FAILED: cannot run {einplan}: {e}")
    if r.returncode != 0 or "onnx" not in (r.stdout + r.stderr).lower():
        sys.exit(f"FAILED: `{einplan} import --help` exits {r.returncode}: this einplan has no `import` subcommand")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--einplan", required=True)
    ap.add_argument("--eincodegen", help="also emit the accepted hostile-name graphs (no build)")
    ap.add_argument("--filter", help="only cases whose name matches this regular expression")
    ap.add_argument("--keep", help="work in this folder and keep it (debugging)")
    a = ap.parse_args()
    # Absolute: each import runs in its case's folder (a name that reached a shell would
    # leave its files there).
    a.einplan = os.path.abspath(a.einplan)
    a.eincodegen = a.eincodegen and os.path.abspath(a.eincodegen)
    check_einplan(a.einplan)
    if a.keep:
        shutil.rmtree(a.keep, ignore_errors=True)
        os.makedirs(a.keep)
    scratch = os.path.realpath(a.keep or tempfile.mkdtemp(prefix="hostile-models-"))
    failures = 0
    try:
        for case, build, extra, expect in CASES:
            if a.filter and not re.search(a.filter, case):
                continue
            try:
                outcome, note = run_case(case, build, extra, expect, a, scratch)
            except Exception as e:  # a harness error names the case
                outcome, note = "FAIL", f"harness: {type(e).__name__}: {e}"
            failures += outcome != "ok"
            print(f"{outcome:<4} {case:<48} {note[:160]}")
    finally:
        if not a.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    if failures:
        sys.exit(f"FAILED: {failures} case(s)")
    print("all hostile models answered as expected")


if __name__ == "__main__":
    main()
