#!/usr/bin/python3
"""Hostile and broken ONNX models through `einplan import` (issue 21): each refused case
must exit 2 with a message naming what is wrong and write nothing (neither the graph nor
the weights folder); names with shell and C++ metacharacters must import as safe names
that evaluate to NumPy's result.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def model(nodes, inputs, outputs, inits=(), opset=17):
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def relu_model(opset=17, shape=(2, 3)):
    return model([helper.make_node("Relu", ["x"], ["y"], name="r")],
                 [helper.make_tensor_value_info("x", F, list(shape))],
                 [helper.make_tensor_value_info("y", F, None)], opset=opset)


def external(location):
    t = onnx.TensorProto(name="w", data_type=F, dims=[2, 3], data_location=TensorProto.EXTERNAL)
    e = t.external_data.add()
    e.key, e.value = "location", location
    return model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                 [helper.make_tensor_value_info("x", F, [2, 3])],
                 [helper.make_tensor_value_info("y", F, None)], inits=[t])


def cases():
    valid = relu_model().SerializeToString()
    c = []  # (name, bytes, extra args, words the message must hold)
    c.append(("truncated", valid[: len(valid) // 2], [], ["not an ONNX model"]))
    c.append(("not_onnx", b"name: g\nnodes: []\n", [], ["not an ONNX model"]))
    c.append(("empty", b"", [], ["not an ONNX model"]))
    c.append(("cycle", model([helper.make_node("Relu", ["b"], ["a"], name="first"),
                              helper.make_node("Relu", ["a"], ["b"], name="second")],
                             [helper.make_tensor_value_info("x", F, [2])],
                             [helper.make_tensor_value_info("a", F, None)]).SerializeToString(), [], ["cycle"]))
    c.append(("huge_input_dim", relu_model(shape=(1 << 40,)).SerializeToString(), [], ["dimension", "2^31"]))
    huge = onnx.TensorProto(name="w", data_type=F, dims=[1 << 33])
    c.append(("huge_initializer", model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                                        [helper.make_tensor_value_info("x", F, [2])],
                                        [helper.make_tensor_value_info("y", F, None)], inits=[huge]).SerializeToString(),
              [], ["initializer 'w'", "dimension"]))
    c.append(("short_initializer", model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                                         [helper.make_tensor_value_info("x", F, [4])],
                                         [helper.make_tensor_value_info("y", F, None)],
                                         inits=[onnx.TensorProto(name="w", data_type=F, dims=[4], float_data=[1.0, 2.0])]).SerializeToString(),
              [], ["initializer 'w'", "2 values for 4 elements"]))
    c.append(("external_parent", external("../secret.bin").SerializeToString(), [], ["external data", "leaves the model's folder"]))
    c.append(("external_absolute", external("/etc/passwd").SerializeToString(), [], ["external data", "absolute path"]))
    c.append(("unsupported_op", model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv1")],
                                      [helper.make_tensor_value_info("x", F, [1, 1, 4, 4]),
                                       helper.make_tensor_value_info("w", F, [1, 1, 3, 3])],
                                      [helper.make_tensor_value_info("y", F, None)]).SerializeToString(),
              [], ["'conv1'", "'Conv'", "not supported"]))
    symbolic = relu_model(shape=("batch", 3)).SerializeToString()
    c.append(("symbolic_dim", symbolic, [], ["'batch'", "--dim"]))
    c.append(("unknown_dim_option", symbolic, ["--dim", "batch=2", "--dim", "seq=4"], ["--dim 'seq'"]))
    c.append(("bad_dim_option", symbolic, ["--dim", "batch=-1"], ["--dim", "NAME=SIZE"]))
    c.append(("opset_9", relu_model(opset=9).SerializeToString(), [], ["opset is 9"]))
    c.append(("integer_input", model([helper.make_node("Relu", ["x"], ["y"], name="r")],
                                     [helper.make_tensor_value_info("x", TensorProto.INT64, [2])],
                                     [helper.make_tensor_value_info("y", TensorProto.INT64, None)]).SerializeToString(),
              [], ["model input 'x'", "INT64"]))
    c.append(("computed_where", model([helper.make_node("Greater", ["x", "x"], ["c"], name="cmp"),
                                       helper.make_node("Where", ["c", "x", "x"], ["y"], name="w")],
                                      [helper.make_tensor_value_info("x", F, [2])],
                                      [helper.make_tensor_value_info("y", F, None)]).SerializeToString(),
              [], ["'cmp'", "'Greater'"]))
    c.append(("reordering_reshape", model([helper.make_node("Reshape", ["x", "s"], ["y"], name="rs")],
                                          [helper.make_tensor_value_info("x", F, [4, 6])],
                                          [helper.make_tensor_value_info("y", F, None)],
                                          inits=[helper.make_tensor("s", TensorProto.INT64, [2], [6, 4])]).SerializeToString(),
              [], ["'rs'", "reorders elements"]))
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--einplan", required=True)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="hostile-models-")
    failures = []
    try:
        # A file the external-data cases must never read.
        with open(os.path.join(work, "secret.bin"), "wb") as f:
            f.write(b"\0" * 24)
        for name, data, extra, words in cases():
            folder = os.path.join(work, name)
            os.makedirs(folder)
            path = os.path.join(folder, "model.onnx")
            with open(path, "wb") as f:
                f.write(data)
            graph, weights = os.path.join(folder, "g.yaml"), os.path.join(folder, "w")
            r = subprocess.run([args.einplan, "import", path, "-o", graph, "--weights", weights] + extra,
                               capture_output=True, text=True, timeout=60)
            problems = []
            if r.returncode != 2:
                problems.append(f"exit {r.returncode}, expected 2")
            problems += [f"message lacks {w!r}" for w in words if w not in r.stderr]
            if os.path.exists(graph) or os.path.exists(weights):
                problems.append("files were written")
            print(f"{'ok ' if not problems else 'BAD'} {name:<22} {r.stderr.strip()[:150]}")
            if problems:
                failures.append(f"{name}: {'; '.join(problems)}\n  stderr: {r.stderr.strip()}")

        # Hostile names import as safe, unique names and compute the right thing.
        names = {"x": "a;rm -rf x", "w": "../../etc/w\n\"", "y": 'y"); system("id'}
        m = model([helper.make_node("Add", [names["x"], names["w"]], [names["y"]], name="n\";")],
                  [helper.make_tensor_value_info(names["x"], F, [2, 3])],
                  [helper.make_tensor_value_info(names["y"], F, None)],
                  inits=[helper.make_tensor(names["w"], F, [2, 3], list(np.arange(6.0)))])
        folder = os.path.join(work, "names")
        os.makedirs(folder)
        path, graph, weights = (os.path.join(folder, p) for p in ("m.onnx", "g.yaml", "w"))
        onnx.save(m, path)
        r = subprocess.run([args.einplan, "import", path, "-o", graph, "--weights", weights], capture_output=True, text=True)
        ok = r.returncode == 0
        if ok:
            mapping = {}
            with open(graph) as f:
                for line in f:
                    if line.startswith("# names: "):
                        mapping = json.loads(line[len("# names: "):])
            files = os.listdir(weights)
            safe = all(n.replace("_", "a").replace(".npy", "").isalnum() for n in files) and len(files) == 1
            ok = safe and set(mapping) == set(names.values())
            x = np.random.default_rng(1).standard_normal((2, 3)).astype(np.float32)
            np.save(os.path.join(weights, mapping[names["x"]] + ".npy"), x)
            out = os.path.join(folder, "out")
            e = subprocess.run([args.einplan, "eval", graph, "--inputs", weights, "--outputs", out], capture_output=True, text=True)
            ok = ok and e.returncode == 0 and np.allclose(np.load(os.path.join(out, mapping[names["y"]] + ".npy")),
                                                          x + np.arange(6.0).reshape(2, 3))
        print(f"{'ok ' if ok else 'BAD'} hostile_names          {sorted(os.listdir(weights)) if os.path.isdir(weights) else r.stderr}")
        if not ok:
            failures.append(f"hostile names: {r.stderr}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        sys.exit("\n".join(failures))


if __name__ == "__main__":
    main()
