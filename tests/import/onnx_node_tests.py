#!/usr/bin/python3
"""ONNX's own node tests (Debian's libonnx-testdata) for the operator families of
`einplan import` (issue 21): each test's model is imported, evaluated with
`einplan eval` on the test's inputs, and its outputs are compared with the expected ones.

Outcomes: pass; refused (exit 2 with a reason: the importer said what it cannot
express); WRONG (exit 0 but other numbers or shapes) and error (any other exit, a crash)
fail the suite, as does a pass rate below --min-pass over the float tests.

Which tests count: those whose name starts with a family's prefix (the table below,
`_expanded` variants included). A test is a *float* test when every output is a float
type (float32, float64, float16, bfloat16); the others (integer or string outputs,
sequences) are listed as "not float" and not counted. Integer and bool *inputs* of a
float test are shapes, axes, split sizes, slice bounds or Where's condition, which the
importer needs as constants: the harness rewrites the model to hold them as
initializers with the test's values (ONNX ships them as inputs so that a runtime can
feed them), which is what an exporter writes.

Gather's tests run twice: with the indices an initializer (as above), and as "TEST [ids]"
with the indices left a model input (token ids: the importer's gather node, fed the test's
ids as an int64 .npy file); ONNX's negative indices are out of range for a gather node,
which `einplan eval` refuses (exit 2, counted as refused).

--table writes the Markdown table kept as docs/onnx-node-tests.md.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper, TensorProto

NODE_DIR = "/usr/share/libonnx-testdata/data/node"

# family -> regular expression over the test name
FAMILIES = [
    ("MatMul", r"^test_matmul_\dd"),
    ("Gemm", r"^test_gemm_"),
    ("Einsum", r"^test_einsum_"),
    ("Add", r"^test_add(_|$)"),
    ("Sub", r"^test_sub(_|$)"),
    ("Mul", r"^test_mul(_|$)"),
    ("Div", r"^test_div(_|$)"),
    ("Pow", r"^test_pow(_|$)"),
    ("Sqrt", r"^test_sqrt(_|$)"),
    ("Reciprocal", r"^test_reciprocal(_|$)"),
    ("Neg", r"^test_neg(_|$)"),
    ("Abs", r"^test_abs$"),
    ("Exp", r"^test_exp(_example)?$"),
    ("Log", r"^test_log(_example)?$"),
    ("Tanh", r"^test_tanh(_|$)"),
    ("Sigmoid", r"^test_sigmoid(_|$)"),
    ("Relu", r"^test_relu$"),
    ("Erf", r"^test_erf$"),
    ("ReduceSum", r"^test_reduce_sum_(?!square)"),
    ("ReduceMean", r"^test_reduce_mean_"),
    ("ReduceMax", r"^test_reduce_max_"),
    ("ReduceMin", r"^test_reduce_min_"),
    ("ReduceProd", r"^test_reduce_prod_"),
    ("Softmax", r"^test_softmax_"),
    ("LogSoftmax", r"^test_logsoftmax_"),
    ("LayerNormalization", r"^test_layer_normalization_"),
    ("Transpose", r"^test_transpose_"),
    ("Reshape", r"^test_reshape_"),
    ("Flatten", r"^test_flatten_"),
    ("Squeeze", r"^test_squeeze(_|$)"),
    ("Unsqueeze", r"^test_unsqueeze_"),
    ("Split", r"^test_split_"),
    ("Slice", r"^test_slice(_|$)"),
    ("Concat", r"^test_concat_"),
    ("Identity", r"^test_identity(_|$)"),
    ("Constant", r"^test_constant$"),
    ("Cast", r"^test_cast_"),
    ("Where", r"^test_where_"),
    # Beyond issue 21's list: operators torch exports around the ones above.
    ("Expand", r"^test_expand_"),
    ("Gather", r"^test_gather_(\d|2d|negative)"),
    ("Clip", r"^test_clip"),
    ("LeakyRelu", r"^test_leakyrelu"),
    # Windows (issue "Convolutions"): a reshape where they tile the input, else taps (an unfold for groups).
    ("Conv", r"^test_(basic_)?conv_with"),
    ("ConvTranspose", r"^test_convtranspose"),
    ("MaxPool", r"^test_maxpool_(?!with_argmax)"),
    ("AveragePool", r"^test_averagepool_"),
    ("GlobalAveragePool", r"^test_globalaveragepool"),
    ("GlobalMaxPool", r"^test_globalmaxpool"),
    ("Pad", r"^test_(constant|edge|reflect)_pad$"),
    ("BatchNormalization", r"^test_batchnorm_"),
    # Operators folded at import where every input is a constant (a mask or positions made
    # in forward): their tests run with every input an initializer.
    ("CumSum", r"^test_cumsum_"),
    ("Range", r"^test_range_"),
    ("Trilu", r"^test_tri[lu]"),
    ("Equal", r"^test_equal"),
    ("Less", r"^test_less"),
    ("Greater", r"^test_greater"),
]
# Families whose tests hold every input as an initializer (folded at import).
CONSTANT_FAMILIES = {"CumSum", "Range", "Trilu", "Equal", "Less", "Greater"}
FLOATS = {TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16, TensorProto.BFLOAT16}
CONSTANT_KINDS = {TensorProto.INT64, TensorProto.INT32, TensorProto.BOOL}


IDS_SUFFIX = " [ids]"


def family_of(test):
    test = test.removesuffix(IDS_SUFFIX)
    for family, pattern in FAMILIES:
        if re.search(pattern, test):
            return family
    return None


def elem_type(value_info):
    t = value_info.type
    return t.tensor_type.elem_type if t.HasField("tensor_type") else None


def to_array(tensor, declared):
    """A TensorProto's values; bfloat16 ones (which NumPy lacks: the test data hold their bits
    as uint16) as float32, the form einplan reads and writes them in."""
    a = numpy_helper.to_array(tensor)
    if declared == TensorProto.BFLOAT16:
        a = (a.astype(np.uint32) << 16).view(np.float32)
    return a


def run_test(test, einplan, scratch):
    """Returns (outcome, reason)."""
    folded = family_of(test) in CONSTANT_FAMILIES
    ids = test.endswith(IDS_SUFFIX)  # Gather's indices stay a model input
    test = test.removesuffix(IDS_SUFFIX)
    d = os.path.join(NODE_DIR, test)
    model = onnx.load(os.path.join(d, "model.onnx"))
    inits = {i.name for i in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in inits]
    outputs = list(model.graph.output)
    if any(elem_type(o) not in FLOATS for o in outputs):
        return "not float", "an output is not a float tensor"
    if any(elem_type(i) not in FLOATS | CONSTANT_KINDS for i in inputs):
        return "not float", "an input is neither float nor a constant's type"
    data = os.path.join(d, "test_data_set_0")
    values = {}
    for k, i in enumerate(inputs):
        tensor = onnx.load_tensor(os.path.join(data, f"input_{k}.pb"))
        values[i.name] = (tensor, elem_type(i))
    work = os.path.join(scratch, test + ("_ids" if ids else ""))
    os.makedirs(work)
    for name, (tensor, kind) in values.items():
        if (kind in CONSTANT_KINDS and not (ids and kind in (TensorProto.INT64, TensorProto.INT32))) or folded:
            vi = next(i for i in model.graph.input if i.name == name)
            model.graph.input.remove(vi)
            tensor.name = name
            model.graph.initializer.append(tensor)
    onnx.save(model, os.path.join(work, "model.onnx"))
    graph, weights, out = (os.path.join(work, p) for p in ("graph.yaml", "weights", "out"))
    r = subprocess.run([einplan, "import", os.path.join(work, "model.onnx"), "-o", graph, "--weights", weights],
                       capture_output=True, text=True, timeout=120)
    if r.returncode == 2:
        if os.path.exists(graph) or os.path.exists(weights):
            return "error", "refused but wrote files"
        first = r.stderr.strip().splitlines()[0] if r.stderr.strip() else "(no message)"
        return "refused", re.sub(r"^\S*model\.onnx: error: ", "", first)
    if r.returncode != 0:
        return "error", f"import exit {r.returncode}: {r.stderr.strip()[:200]}"
    names = {}
    with open(graph) as f:
        for line in f:
            if line.startswith("# names: "):
                names = json.loads(line[len("# names: "):])
    os.makedirs(weights, exist_ok=True)
    for name, (tensor, kind) in values.items():
        if (kind not in CONSTANT_KINDS or ids) and not folded:
            np.save(os.path.join(weights, names.get(name, name) + ".npy"), to_array(tensor, kind))
    r = subprocess.run([einplan, "eval", graph, "--inputs", weights, "--outputs", out],
                       capture_output=True, text=True, timeout=120)
    if r.returncode == 2 and ids and "is outside [0, " in r.stderr:
        return "refused", re.sub(r"^\S*: error: ", "", r.stderr.strip().splitlines()[0])
    if r.returncode != 0:
        return "error", f"eval exit {r.returncode}: {r.stderr.strip()[:200]}"
    for k, o in enumerate(outputs):
        expected = to_array(onnx.load_tensor(os.path.join(data, f"output_{k}.pb")), elem_type(o))
        got = np.load(os.path.join(out, names.get(o.name, o.name) + ".npy"))
        if got.shape != expected.shape:
            return "WRONG", f"output {o.name}: shape {got.shape}, expected {expected.shape}"
        tight = expected.dtype == np.float64
        # 2-byte outputs within one unit in the last place (ONNX's test data round bfloat16
        # by truncation, einplan to nearest even, SPEC 8).
        rtol = {TensorProto.BFLOAT16: 2 ** -7, TensorProto.FLOAT16: 2 ** -10}.get(elem_type(o), 1e-7 if tight else 1e-4)
        if not np.allclose(got, expected, rtol=rtol, atol=1e-10 if tight else 1e-5, equal_nan=True):
            diff = np.nanmax(np.abs(got.astype(np.float64) - expected.astype(np.float64)))
            return "WRONG", f"output {o.name}: max difference {diff:g}"
    return "pass", ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--einplan", required=True)
    ap.add_argument("--table", help="write the Markdown table here")
    ap.add_argument("--min-pass", type=float, default=0.85)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--expect-table", help="fail unless the table written equals this file (docs/onnx-node-tests.md)")
    args = ap.parse_args()
    if not os.path.isdir(NODE_DIR):
        sys.exit(f"{NODE_DIR} is missing: install Debian's libonnx-testdata")
    tests = sorted(t for t in os.listdir(NODE_DIR) if family_of(t))
    tests = sorted(tests + [t + IDS_SUFFIX for t in tests if family_of(t) == "Gather"])
    scratch = tempfile.mkdtemp(prefix="onnx-node-tests-")
    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = dict(zip(tests, pool.map(lambda t: run_test(t, args.einplan, scratch), tests)))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    counted = {t: r for t, r in results.items() if r[0] != "not float"}
    passed = sum(1 for r in counted.values() if r[0] == "pass")
    bad = {t: r for t, r in counted.items() if r[0] in ("WRONG", "error")}
    rate = passed / len(counted) if counted else 0.0
    by_family = {}
    for t, (outcome, _) in counted.items():
        by_family.setdefault(family_of(t), {}).setdefault(outcome, 0)
        by_family[family_of(t)][outcome] += 1
    summary = (f"{passed} of {len(counted)} float node tests pass ({100 * rate:.1f} %), "
               f"{sum(1 for r in counted.values() if r[0] == 'refused')} refused by name, {len(bad)} wrong or failed; "
               f"{len(results) - len(counted)} tests of these families are not float tests")
    print(summary)
    for family, _ in FAMILIES:
        if family in by_family:
            print(f"  {family:<20} " + ", ".join(f"{k} {v}" for k, v in sorted(by_family[family].items())))
    if args.table:
        lines = ["# ONNX node tests", "",
                 "Written by `tests/import/onnx_node_tests.py --table docs/onnx-node-tests.md` (ctest",
                 "`import_onnx_node_tests` runs it and fails on a wrong answer or a pass rate below",
                 "85 %). The tests are ONNX 1.12's node tests from Debian's libonnx-testdata for the",
                 "operator families of docs/import.md; each is imported, evaluated with `einplan eval`",
                 "and compared with its expected outputs.", "", summary + ".", "",
                 "| test | family | outcome | reason |", "|---|---|---|---|"]
        for t in tests:
            outcome, reason = results[t]
            lines.append(f"| {t} | {family_of(t)} | {outcome} | {reason.replace('|', '/')} |")
        with open(args.table, "w") as f:
            f.write("\n".join(lines) + "\n")
        if args.expect_table:
            with open(args.expect_table) as f:
                if f.read() != "\n".join(lines) + "\n":
                    bad["docs"] = ("error", f"{args.expect_table} differs from this run's table {args.table}: "
                                            "regenerate it (tests/import/onnx_node_tests.py --table)")
    for t, (outcome, reason) in bad.items():
        print(f"{outcome}: {t}: {reason}")
    if bad:
        sys.exit(1)
    if rate < args.min_pass:
        sys.exit(f"pass rate {rate:.3f} is below {args.min_pass}")


if __name__ == "__main__":
    main()
