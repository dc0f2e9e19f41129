#!/usr/bin/python3
"""bench/kernels: the emitted programs' kernels against this machine and against NumPy and
torch, measured in one run (issue 12, item 3).

1. Memory bandwidth: a STREAM-like triad (triad.c) on 1 and 2 threads.
2. Kernel classes, one rank, one thread: per class a one-node graph (a fused softmax is
   five nodes) at 4096 x 4096 f32; the emitted program's node time, the bytes it must
   move (operands read once, output written once), that as a share of the 1-thread triad,
   and NumPy doing the same operation (ufuncs with out=, preallocated) on the same thread
   count. Target: every non-GEMM class >= 50 % of the triad.
3. The LLaMA layer (`einplan gen llama --layers 1 --dim 2048 --heads 16 --ffn 5504
   --seq 512`) at p = 2 (two ranks, one thread each) against torch and NumPy on two
   threads, written the usual way (matmuls, softmax, rsqrt) for the graph's exact
   computation — checked against `einplan eval` on a small instance before timing.
   Target: >= 1.25x torch.
5. bf16 (issue 22), same inputs, same threads, against torch in bf16 (torch's CPU bf16 runs
   through oneDNN, as ours): a 4096^3 GEMM at p = 1 on one thread; the kernel classes of
   section 2 in bf16; the LLaMA layer of section 3 in bf16 at p = 2 (one thread per rank)
   against torch bf16 on two threads, checked against `einplan eval` on a small bf16
   instance first. torch's times swing here: its runs are interleaved with the program's
   (--rounds rounds, each a program run of --iters iterations and --reps torch runs), and
   the table gives the medians and the spread (min-max of the rounds).
4. The tensor networks (`einplan gen tt|fctn|tw|getd|trn --scale 1|2`), one rank, one
   thread, against numpy.einsum on one thread with the better of two paths, each computed
   once before timing: NumPy's own ('optimal' with no memory limit, or 'greedy' with none
   when optimal does not finish in --path-timeout seconds) and the path eindecomp chose.
   Target: >= 1.0x NumPy at both scales.

Threads are pinned in this process: OpenBLAS (shared by NumPy and torch here) through its
own openblas_set_num_threads, checked with openblas_get_num_threads; torch through
torch.set_num_threads. Every time is a median of --reps runs (the programs: --iters timed
iterations after a warm-up); the load average is printed before and after.

usage: bench/kernels/run.py [--build build] [--reps 7] [--sections bandwidth,classes,llama,networks,bf16]
"""
import argparse
import ctypes
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before NumPy loads OpenBLAS; raised below where a section needs 2
os.environ["OMP_NUM_THREADS"] = "1"
import numpy as np  # noqa: E402
import yaml  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import path_networks as pn  # noqa: E402
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OPENBLAS_NUM_THREADS="1",
           OMP_NUM_THREADS="1")


# --- threads -----------------------------------------------------------------------------

def openblas():
    for line in open("/proc/self/maps"):
        m = re.search(r"(/\S*libopenblas\S*\.so\S*)", line)
        if m:
            return ctypes.CDLL(m.group(1))
    return None


def pin_threads(n, torch=None):
    """Pins OpenBLAS (NumPy's and torch's BLAS here) and torch to n threads, in-process."""
    lib = openblas()
    if lib is None:
        sys.exit("could not find the OpenBLAS NumPy loaded; cannot pin its threads")
    lib.openblas_set_num_threads(n)
    if lib.openblas_get_num_threads() != n:
        sys.exit(f"OpenBLAS did not take {n} threads")
    if torch is not None:
        torch.set_num_threads(n)
        if torch.get_num_threads() != n:
            sys.exit(f"torch did not take {n} threads")


# --- helpers -----------------------------------------------------------------------------

def sh(cmd, env=ENV, timeout=None):
    p = subprocess.run([str(c) for c in cmd], text=True, capture_output=True, env=env, timeout=timeout)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return p.stdout


def load():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def median_time(fn, reps):
    fn()  # warm-up
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


class Programs:
    """Generates, builds and runs emitted programs; returns their reports."""

    def __init__(self, build, work, iters):
        self.build, self.work, self.iters = build, work, iters

    def run(self, graph, ranks, threads=1, name=None, rebuild=True):
        proj = self.work / f"{graph.stem}_p{ranks}"
        if rebuild or not proj.exists():
            shutil.rmtree(proj, ignore_errors=True)
            sh([self.build / "bin/eincodegen", graph, "-p", ranks, "-o", proj])
            sh(["make", "-C", proj, "JOBS=2"])
        name = name or yaml.safe_load(graph.read_text())["name"]
        report = proj / "report.json"
        # A rank with several threads needs as many cores (mpirun binds a rank to one by default).
        binding = ["--map-by", f"slot:PE={threads}"] if threads > 1 else []
        sh(["mpirun", "--oversubscribe", *binding, "-np", ranks, proj / name, "--iters", self.iters, "--warmup", 1,
            "--threads", threads, "--report", report])
        return json.loads(report.read_text())


def write_graph(path, name, inputs, nodes, outputs, dtype="f32"):
    # A JSON round trip first: shared lists would become YAML aliases, which graph files refuse.
    doc = json.loads(json.dumps({"name": name, "dtype": dtype, "inputs": inputs, "nodes": nodes, "outputs": outputs}))
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


# --- 1. bandwidth ------------------------------------------------------------------------

def triad(work):
    exe = work / "triad"
    sh(["gcc", "-O3", "-march=native", "-fopenmp", HERE / "triad.c", "-o", exe])
    return {t: float(sh([exe, 1 << 25, 10], env=dict(ENV, OMP_NUM_THREADS=str(t))).split()[0]) for t in (1, 2)}


# --- 2. kernel classes -------------------------------------------------------------------

N = 4096


def kernel_classes():
    """(class, graph inputs, nodes, bytes moved, numpy setup -> callable)."""
    big = [N, N]
    f = 4

    def arrays(*shapes):
        rng = np.random.default_rng(1)
        return [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]

    def add():
        x, y, z = arrays(big, big, big)
        return lambda: np.add(x, y, out=z)

    def bcast():
        x, w, z = arrays(big, [N], big)
        return lambda: np.multiply(x, w, out=z)

    def exp():
        x, z = arrays(big, big)
        return lambda: np.exp(x, out=z)

    def rowsum():
        x, r = arrays(big, [N])
        return lambda: np.sum(x, axis=1, out=r)

    def colmax():
        x, r = arrays(big, [N])
        return lambda: np.max(x, axis=0, out=r)

    def transpose():
        x, z = arrays(big, big)
        return lambda: np.copyto(z, x.T)

    def permute3():
        x, z = arrays([256, 256, 256], [256, 256, 256])
        return lambda: np.copyto(z, x.transpose(2, 0, 1))

    def softmax():
        x, mask, z = arrays(big, big, big)
        m = np.empty((N, 1), np.float32)
        s = np.empty((N, 1), np.float32)

        def run():
            np.multiply(x, np.float32(0.125), out=z)
            np.add(z, mask, out=z)
            np.max(z, axis=1, keepdims=True, out=m)
            np.subtract(z, m, out=z)
            np.exp(z, out=z)
            np.sum(z, axis=1, keepdims=True, out=s)
            np.divide(z, s, out=z)
        return run

    def gemm():
        x, y, z = arrays([2048, 2048], [2048, 2048], [2048, 2048])
        return lambda: np.matmul(x, y, out=z)

    X = {"name": "X", "shape": big}
    Y = {"name": "Y", "shape": big}
    return [
        ("elementwise add", [X, Y], [{"name": "Z", "einsum": "ij,ij->ij", "join": "add", "inputs": ["X", "Y"]}],
         3 * N * N * f, add),
        ("broadcast multiply", [X, {"name": "W", "shape": [N]}],
         [{"name": "Z", "einsum": "ij,j->ij", "inputs": ["X", "W"]}], 2 * N * N * f, bcast),
        ("unary exp", [X], [{"name": "Z", "einsum": "ij->ij", "join": "exp(x)", "inputs": ["X"]}], 2 * N * N * f, exp),
        ("row sum", [X], [{"name": "Z", "einsum": "ij->i", "inputs": ["X"]}], N * N * f, rowsum),
        ("column max", [X], [{"name": "Z", "einsum": "ij->j", "agg": "max", "inputs": ["X"]}], N * N * f, colmax),
        ("transpose", [X], [{"name": "Z", "einsum": "ij->ji", "join": "x", "inputs": ["X"]}], 2 * N * N * f, transpose),
        ("3-d permutation", [{"name": "X", "shape": [256, 256, 256]}],
         [{"name": "Z", "einsum": "abc->cab", "join": "x", "inputs": ["X"]}], 2 * 256 ** 3 * f, permute3),
        ("fused softmax (5 nodes)", [X, {"name": "M", "shape": big}],
         [{"name": "masked", "einsum": "ij,ij->ij", "join": "x * 0.125 + y", "inputs": ["X", "M"]},
          {"name": "smax", "einsum": "ij->i", "agg": "max", "inputs": ["masked"]},
          {"name": "sexp", "einsum": "ij,i->ij", "join": "exp(x - y)", "inputs": ["masked", "smax"]},
          {"name": "ssum", "einsum": "ij->i", "inputs": ["sexp"]},
          {"name": "Z", "einsum": "ij,i->ij", "join": "x / y", "inputs": ["sexp", "ssum"]}], 3 * N * N * f, softmax),
        ("GEMM 2048^3 (GFLOP/s)", [{"name": "X", "shape": [2048, 2048]}, {"name": "Y", "shape": [2048, 2048]}],
         [{"name": "Z", "einsum": "ij,jk->ik", "inputs": ["X", "Y"]}], None, gemm),
    ]


def section_classes(programs, work, bandwidth, reps):
    pin_threads(1)
    print(f"\n## Kernel classes: one rank, one thread and two (load {load()})\n")
    print(f"Triad bandwidth: {bandwidth[1] / 1e9:.1f} GB/s on 1 thread, {bandwidth[2] / 1e9:.1f} GB/s on 2. NumPy's "
          "ufuncs run on one thread: the speedup compares one thread with one.\n")
    print("| class | einsum | emitted time_s | emitted GB/s | % of triad | numpy time_s | speedup vs numpy "
          "| 2 threads time_s | 2 threads % of 2-thread triad |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for i, (label, inputs, nodes, nbytes, numpy_fn) in enumerate(kernel_classes()):
        graph = write_graph(work / f"class{i}.yaml", f"class{i}", inputs, nodes, [nodes[-1]["name"]])
        r = programs.run(graph, 1)
        t = r["time_s"]
        t2 = programs.run(graph, 1, threads=2, rebuild=False)["time_s"]
        t_np = median_time(numpy_fn(), reps)
        einsum = ", ".join(n["einsum"] for n in nodes) if len(nodes) < 3 else "masked..probs"
        if nbytes is None:
            flops = 2 * 2048 ** 3
            print(f"| {label} | `{einsum}` | {t:.4g} | {flops / t / 1e9:.1f} GFLOP/s | - | {t_np:.4g} "
                  f"({flops / t_np / 1e9:.1f} GFLOP/s) | {t_np / t:.2f} | {t2:.4g} ({flops / t2 / 1e9:.1f} GFLOP/s) | - |")
        else:
            gbs = nbytes / t / 1e9
            print(f"| {label} | `{einsum}` | {t:.4g} | {gbs:.1f} | {100 * nbytes / t / bandwidth[1]:.0f} % | {t_np:.4g} "
                  f"| {t_np / t:.2f} | {t2:.4g} | {100 * nbytes / t2 / bandwidth[2]:.0f} % |")
        kernels = {n["kernel"] for n in r["nodes"]}
        print(f"|  | kernel: {', '.join(sorted(kernels))} | | | | | | | |")


# --- 3. LLaMA layer ----------------------------------------------------------------------

def llama_reference(xp, inp, dim, heads):
    """The LLaMA layer of `einplan gen llama --layers 1` written the usual way. xp: numpy or
    torch (with matmul, exp, rsqrt or 1/sqrt, sigmoid). Returns the logits."""
    torch_like = xp.__name__ == "torch"

    def rsqrt(v):
        return xp.rsqrt(v) if torch_like else 1.0 / np.sqrt(v)

    def rms(h, w):
        return h * rsqrt((h * h).sum(-1, keepdims=True) / dim + 1e-6) * w

    x = inp["embeddings"]  # b s a
    b, s, a = x.shape
    e = inp["rope_cos"].shape[1]
    d = inp["L0_wv"].shape[2]

    def rope(q):  # q: b s h 2 e; q_rot[r] = sum_u rot[r,u] q[u]
        rot = inp["rope_rot"]
        q_rot = rot[0, 0] * q[:, :, :, 0:1] + rot[0, 1] * q[:, :, :, 1:2]
        q_rot2 = rot[1, 0] * q[:, :, :, 0:1] + rot[1, 1] * q[:, :, :, 1:2]
        cos = inp["rope_cos"][None, :, None, None, :]
        sin = inp["rope_sin"][None, :, None, None, :]
        return q * cos + (xp.cat if torch_like else np.concatenate)([q_rot, q_rot2], 3) * sin

    h0 = rms(x, inp["L0_attn_norm"])
    flat = h0.reshape(b * s, a)
    q = rope((flat @ inp["L0_wq"].reshape(a, -1)).reshape(b, s, heads, 2, e)).reshape(b, s, heads, 2 * e)
    k = rope((flat @ inp["L0_wk"].reshape(a, -1)).reshape(b, s, heads, 2, e)).reshape(b, s, heads, 2 * e)
    v = (flat @ inp["L0_wv"].reshape(a, -1)).reshape(b, s, heads, d)
    qh = q.transpose(1, 2) if torch_like else q.transpose(0, 2, 1, 3)
    kh = k.permute(0, 2, 3, 1) if torch_like else k.transpose(0, 2, 3, 1)
    vh = v.transpose(1, 2) if torch_like else v.transpose(0, 2, 1, 3)
    scores = (qh @ kh) * 0.125 + inp["mask"]
    if torch_like:
        probs = xp.softmax(scores, -1)
    else:
        m = scores.max(-1, keepdims=True)
        ex = np.exp(scores - m)
        probs = ex / ex.sum(-1, keepdims=True)
    attn = probs @ vh  # b h s d
    attn = (attn.transpose(1, 2) if torch_like else attn.transpose(0, 2, 1, 3)).reshape(b * s, heads * d)
    h1 = x + (attn @ inp["L0_wo"].reshape(heads * d, a)).reshape(b, s, a)
    f = rms(h1, inp["L0_ffn_norm"]).reshape(b * s, a)
    g = f @ inp["L0_w1"]
    up = f @ inp["L0_w3"]
    sig = xp.sigmoid(g) if torch_like else 1.0 / (1.0 + np.exp(-g))
    out = h1 + ((g * sig * up) @ inp["L0_w2"]).reshape(b, s, a)
    return rms(out, inp["norm"]).reshape(b * s, a) @ inp["output"]


def llama_inputs(graph, seed=3):
    g = yaml.safe_load(graph.read_text())
    rng = np.random.default_rng(seed)
    return {t["name"]: (rng.uniform(-1, 1, t["shape"]) * (0.05 if t["name"].startswith(("L0_w", "output")) else 1))
            .astype(np.float32) for t in g["inputs"]}


def small_llama_eval(build, work, dtype):
    """A small LLaMA layer in `dtype`, its inputs and einplan eval's logits (b*s, v): what
    the hand-written references are checked against before anything is timed."""
    small = work / f"llama_small_{dtype}.yaml"
    sh([build / "bin/einplan", "gen", "llama", "--layers", 1, "--dim", 256, "--heads", 4, "--ffn", 512, "--seq", 64,
        "--dtype", dtype, "-o", small])
    inp = llama_inputs(small)
    ind, outd = work / f"llama_small_{dtype}_in", work / f"llama_small_{dtype}_out"
    ind.mkdir(exist_ok=True)
    for k, v in inp.items():
        np.save(ind / f"{k}.npy", v)
    sh([build / "bin/einplan", "eval", small, "--inputs", ind, "--outputs", outd])
    return inp, np.load(outd / "logits.npy").reshape(-1, inp["output"].shape[1])


def section_llama(programs, build, work, reps):
    import torch
    torch.set_grad_enabled(False)
    # The reference implementations against einplan eval, on a small layer.
    inp, want = small_llama_eval(build, work, "f32")
    for label, got in [("numpy", llama_reference(np, inp, 256, 4)),
                       ("torch", llama_reference(torch, {k: torch.from_numpy(v) for k, v in inp.items()}, 256, 4).numpy())]:
        err = np.abs(got - want).max() / np.abs(want).max()
        if err > 1e-3:
            sys.exit(f"the {label} LLaMA layer differs from einplan eval: max rel err {err:.3g}")

    graph = work / "llama.yaml"
    sh([build / "bin/einplan", "gen", "llama", "--layers", 1, "--dim", 2048, "--heads", 16, "--ffn", 5504, "--seq", 512,
        "-o", graph])
    print(f"\n## LLaMA layer, p = 2 against torch and NumPy on 2 threads (load {load()})\n")
    r = programs.run(graph, 2)
    inp = llama_inputs(graph)
    pin_threads(2, torch)
    tin = {k: torch.from_numpy(v) for k, v in inp.items()}
    t_torch = median_time(lambda: llama_reference(torch, tin, 2048, 16), reps)
    t_numpy = median_time(lambda: llama_reference(np, inp, 2048, 16), reps)
    pin_threads(1, torch)
    # Per-node medians (each what the node adds to an iteration) need not add up to the median total.
    gemm = sum(n["time_s"] for n in r["nodes"] if "GEMM" in n["kernel"])
    others = sum(n["time_s"] for n in r["nodes"] if "GEMM" not in n["kernel"])
    print("| implementation | time_s | speedup of the emitted program |")
    print("|---|---:|---:|")
    print(f"| emitted program, 2 ranks x 1 thread | {r['time_s']:.4g} (node medians: GEMM {gemm:.4g}, others "
          f"{others:.4g}) | 1.00 |")
    print(f"| torch {torch.__version__}, 2 threads | {t_torch:.4g} | {t_torch / r['time_s']:.2f} |")
    print(f"| numpy {np.__version__}, 2 BLAS threads | {t_numpy:.4g} | {t_numpy / r['time_s']:.2f} |")
    print("\nThe emitted program's non-GEMM nodes (median time_s, kernel):\n")
    for n in r["nodes"]:
        if "GEMM" not in n["kernel"] and n["time_s"] > 1e-5:
            print(f"- {n['name']}: {n['time_s']:.4g} s, {n['kernel']}")


# --- 5. bf16 ------------------------------------------------------------------------------

def interleaved(programs, graph, ranks, torch_fn, rounds, reps, threads_torch, torch):
    """Rounds of (one program run, `reps` torch runs): per side the median over rounds of
    each round's median, and the min-max spread of the rounds."""
    ours, theirs, report = [], [], None
    for i in range(rounds):
        report = programs.run(graph, ranks, rebuild=(i == 0))
        ours.append(report["time_s"])
        pin_threads(threads_torch, torch)
        theirs.append(median_time(torch_fn, reps))
        pin_threads(1, torch)
    return report, ours, theirs


def spread(v):
    return f"{np.median(v):.4g} ({min(v):.4g}-{max(v):.4g})"


def section_bf16(programs, build, work, reps, rounds):
    import torch
    torch.set_grad_enabled(False)
    bf = torch.bfloat16
    print(f"\n## bf16 against torch {torch.__version__} in bf16 (load {load()})\n")
    print(f"Each row: {rounds} rounds, each one emitted-program run (median of its {programs.iters} iterations) and "
          f"{reps} torch runs (their median); medians over the rounds, min-max in parentheses.\n")
    # GEMM at p = 1, one thread.
    n = 4096
    graph = write_graph(work / "bf16_gemm.yaml", "bf16_gemm", [{"name": "X", "shape": [n, n]}, {"name": "Y", "shape": [n, n]}],
                        [{"name": "Z", "einsum": "ij,jk->ik", "inputs": ["X", "Y"]}], ["Z"], dtype="bf16")
    x, y = (torch.rand(n, n).to(bf) for _ in range(2))
    z = torch.empty(n, n, dtype=bf)
    r, ours, theirs = interleaved(programs, graph, 1, lambda: torch.matmul(x, y, out=z), rounds, reps, 1, torch)
    flops = 2 * n ** 3
    print("| workload | emitted time_s | torch bf16 time_s | emitted / torch speed |")
    print("|---|---:|---:|---:|")
    print(f"| GEMM {n}^3, p = 1, 1 thread ({r['gemm_path']}: {flops / np.median(ours) / 1e9:.0f} GFLOP/s; torch "
          f"{flops / np.median(theirs) / 1e9:.0f}) | {spread(ours)} | {spread(theirs)} | "
          f"{np.median(theirs) / np.median(ours):.2f} |")
    # Kernel classes in bf16 against the same torch operation in bf16, one thread.
    N = 4096
    X = torch.rand(N, N).to(bf)
    Y = torch.rand(N, N).to(bf)
    W = torch.rand(N).to(bf)
    Z = torch.empty(N, N, dtype=bf)
    torch_ops = {
        "elementwise add": lambda: torch.add(X, Y, out=Z),
        "broadcast multiply": lambda: torch.mul(X, W, out=Z),
        "unary exp": lambda: torch.exp(X, out=Z),
        "row sum": lambda: X.sum(1),
        "column max": lambda: X.amax(0),
        "transpose": lambda: Z.copy_(X.t()),
        "fused softmax (5 nodes)": lambda: torch.softmax(X * 0.125 + Y, 1),
    }
    for i, (label, inputs, nodes, nbytes, _) in enumerate(kernel_classes()):
        if label not in torch_ops:
            continue
        g = write_graph(work / f"bf16_class{i}.yaml", f"bf16_class{i}", inputs, nodes, [nodes[-1]["name"]], dtype="bf16")
        r, ours, theirs = interleaved(programs, g, 1, torch_ops[label], rounds, reps, 1, torch)
        print(f"| {label} {N}x{N}, 1 thread ({nbytes // 2 / np.median(ours) / 1e9:.1f} GB/s) | {spread(ours)} | "
              f"{spread(theirs)} | {np.median(theirs) / np.median(ours):.2f} |")
    # The LLaMA layer: checked on a small instance, then timed.
    inp, want = small_llama_eval(build, work, "bf16")
    got = llama_reference(torch, {k: torch.from_numpy(v).to(bf) for k, v in inp.items()}, 256, 4).float().numpy()
    err = np.abs(got - want).max() / np.abs(want).max()
    if err > 5e-2:
        sys.exit(f"the torch bf16 LLaMA layer differs from einplan eval (bf16): max rel err {err:.3g}")
    graph = work / "llama_bf16.yaml"
    sh([build / "bin/einplan", "gen", "llama", "--layers", 1, "--dim", 2048, "--heads", 16, "--ffn", 5504, "--seq", 512,
        "--vocab", 8000, "--dtype", "bf16", "-o", graph])
    tin = {k: torch.from_numpy(v).to(bf) for k, v in llama_inputs(graph).items()}
    r, ours, theirs = interleaved(programs, graph, 2, lambda: llama_reference(torch, tin, 2048, 16), rounds, reps, 2, torch)
    gemm = sum(n["time_s"] for n in r["nodes"] if "GEMM" in n["kernel"])
    print(f"| LLaMA layer (dim 2048, ffn 5504, vocab 8000, seq 512), p = 2 x 1 thread vs torch on 2 threads "
          f"(GEMM nodes {gemm:.4g} s, {r['gemm_path']}; torch vs einplan eval: max rel err {err:.2g}) | {spread(ours)} | "
          f"{spread(theirs)} | {np.median(theirs) / np.median(ours):.2f} |")


# --- 4. tensor networks ------------------------------------------------------------------

def network_einsum(graph, check_json):
    """NumPy's einsum string for the graph's one n-ary node, its operand names, and
    eindecomp's path for it in NumPy's form."""
    g = yaml.safe_load(graph.read_text())
    (node,) = g["nodes"]
    expr = pn.numpy_einsum(node)
    (info,) = [p for p in check_json["paths"] if p["node"] == node["name"]]
    return expr, node["inputs"], ["einsum_path"] + [tuple(step) for step in info["path"]]


NUMPY_PATH = """
import sys, numpy as np
expr, kind = sys.argv[1], sys.argv[2]
shapes = [tuple(int(x) for x in s.split('x')) for s in sys.argv[3:]]
ops = [np.broadcast_to(np.float32(0), s) for s in shapes]
print(repr(np.einsum_path(expr, *ops, optimize=(kind, 2**62))[0]))
"""


def numpy_path(expr, shapes, timeout):
    """NumPy's own path, computed once with no memory limit: 'optimal', else 'greedy'."""
    args = [expr] + ["x".join(map(str, s)) for s in shapes]
    for kind in ("optimal", "greedy"):
        try:
            out = subprocess.run([sys.executable, "-c", NUMPY_PATH, args[0], kind] + args[1:], text=True,
                                 capture_output=True, timeout=timeout if kind == "optimal" else None, env=ENV)
        except subprocess.TimeoutExpired:
            continue
        if out.returncode == 0:
            return kind, eval(out.stdout)  # a list of tuples NumPy printed
    sys.exit(f"numpy.einsum_path failed for {expr}")


def section_networks(programs, build, work, reps, scales, timeout):
    pin_threads(1)
    for scale in scales:
        print(f"\n## Tensor networks at --scale {scale}: one rank, one thread (load {load()})\n")
        print("| network | einsum | emitted time_s | numpy path | numpy time_s | numpy with eindecomp's path time_s "
              "| speedup vs the better numpy |")
        print("|---|---|---:|---|---:|---:|---:|")
        for net in ["tt", "fctn", "tw", "getd", "trn"]:
            graph = work / f"{net}_s{scale}.yaml"
            sh([build / "bin/einplan", "gen", net, "--scale", scale, "-o", graph])
            check = json.loads(sh([build / "bin/einplan", "check", graph, "--format", "json"]))
            expr, names, ours = network_einsum(graph, check)
            g = yaml.safe_load(graph.read_text())
            shapes = {t["name"]: t["shape"] for t in g["inputs"]}
            rng = np.random.default_rng(0)
            arrays = [rng.uniform(-1, 1, shapes[n]).astype(np.float32) for n in names]
            kind, path = numpy_path(expr, [shapes[n] for n in names], timeout)
            t_np = median_time(lambda: np.einsum(expr, *arrays, optimize=path), reps)
            t_ours = median_time(lambda: np.einsum(expr, *arrays, optimize=ours), reps)
            r = programs.run(graph, 1)
            print(f"| {net} | `{expr}` | {r['time_s']:.4g} | {kind}, no memory limit | {t_np:.4g} | {t_ours:.4g} "
                  f"| {min(t_np, t_ours) / r['time_s']:.2f} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--iters", type=int, default=7)
    ap.add_argument("--sections", default="bandwidth,classes,llama,networks,bf16")
    ap.add_argument("--scales", default="1,2")
    ap.add_argument("--path-timeout", type=float, default=120)
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds of the bf16 section")
    a = ap.parse_args()
    build = pathlib.Path(a.build).resolve()
    work = pathlib.Path(tempfile.mkdtemp(prefix="bench_kernels_"))
    programs = Programs(build, work, a.iters)
    sections = a.sections.split(",")
    print(f"# bench/kernels ({time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, load {load()})")
    bandwidth = triad(work)
    print(f"\nTriad (triad.c): {bandwidth[1] / 1e9:.1f} GB/s on 1 thread, {bandwidth[2] / 1e9:.1f} GB/s on 2.")
    if "classes" in sections:
        section_classes(programs, work, bandwidth, a.reps)
    if "llama" in sections:
        section_llama(programs, build, work, a.reps)
    if "networks" in sections:
        section_networks(programs, build, work, a.reps, [int(s) for s in a.scales.split(",")], a.path_timeout)
    if "bf16" in sections:
        section_bf16(programs, build, work, a.reps, a.rounds)
    print(f"\nload average at the end: {load()}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
