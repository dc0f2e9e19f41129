#!/usr/bin/python3
"""Training steps of micro-batches (issue "Training steps as large runs are configured"),
and the data-parallel hand strategy's bytes against its closed form.

1. Plans (no program): for the FFNN and LLaMA AdamW steps (tiny dims) with M = 2 and 4 at
   p = 2, 4, 6: the report's step traffic is M x its per-micro-batch traffic plus what runs
   once per step, and the sum of its nodes'; its FLOPs are `einplan check`'s step FLOPs.
2. Programs, one per row of CASES: the step of M micro-batches planned, emitted, built and
   run with --check: every node's bytes sent equal the plan's, every rank's measured peak
   equals the plan's, and every output equals `einplan eval` of the same step without
   micro-batches (the one-pass graph, from the same generated inputs: an independent run of
   the reference evaluator, which never slices a batch), within f32 rounding or, for a
   bf16 step with f32 master weights, bf16's; the data strategy's plan file runs so too, and
   megatron's with --recompute layers (every layer's activations computed again), also
   with `partials_on_owners: true` added (read back: every partial aggregated onto its
   owners, none reduced at read).
3. `einplan gen llama --train --strategy data` and `zero3` (f32, p = 2 and 4, with and without
   micro-batches) moves what data parallelism moves and nothing else: each gradient's
   partial results to its owner, (p - 1) x its bytes, once per step (per micro-batch where
   it is not accumulated); the gradient from its owner to each of its R readers' calls,
   R (p - 1) / p x its bytes (or, where the update reads it within a few nodes or it is
   accumulated, one reduce-scatter of (p - 1) x its bytes: partials reduced at read); the optimizer's and the loss's scalars (the loss of each
   micro-batch summed over its rows); no activation. zero3 moves data's bytes and, per
   copy of a weight gathered before a reader, (p - 1) x the weight's bytes per run. With
   --master f32 (M = 2, p = 2 and 4), each bf16 weight gradient is reduce-scattered into its
   f32 cast in each micro-batch: M (p - 1) x its bf16 bytes; with
   --gradient-accumulation-fusion (M = 4) each f32 gradient is reduce-scattered once per
   step, (p - 1) x its f32 bytes, and the plan moves the distributed optimizer's closed
   form plus the step's scalars; under megatron --tensor-parallel 2 at p = 4 across the
   groups, (p / T - 1) x its f32 bytes.

A failure prints the command and its output.
4. The issue's configuration (GPT 1.7B, batch 512, 16 micro-batches, p = 32 on
   bench/clusters/dgx-a100.yaml, --objective time): plans under --mem-limit 80GiB, and is
   estimated no slower than the Megatron TP8 plan file of the same step.

usage: micro_batches.py --einplan E --eincodegen C --work DIR --machine bench/clusters/dgx-a100.yaml [--quick]
       (--quick: without step 4, for the sanitizer build)
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checked_run import require, run  # noqa: E402
from emitted_build import make_command  # noqa: E402


FFNN = ["ffnn", "--batch", 16, "--features", 24, "--hidden", "32,32", "--classes", 10, "--optimizer", "adamw"]
LLAMA = ["llama", "--layers", 1, "--dim", 32, "--heads", 4, "--ffn", 48, "--vocab", 40, "--seq", 8, "--batch", 4, "--train",
         "--optimizer", "adamw", "--no-grad-outputs"]
BF16 = ["--dtype", "bf16", "--master", "f32"]
# Megatron's gradient accumulation fusion: each weight gradient's bf16 GEMM writes f32.
FUSED = ["--gradient-accumulation-fusion"]
# Data parallelism cuts each micro-batch's sequences p ways: batch 8 at M = 2, p = 4.
LLAMA_DATA = [8 if prev == "--batch" else x for prev, x in zip([None] + LLAMA, LLAMA)]

# Among a hand strategy's options: append `partials_on_owners: true` to its plan file.
OWNERS = "partials_on_owners"

# (name, family options, micro-batches, ranks, relative tolerance against the one-pass
# step, hand strategy's gen options or None: eindecomp's plan)
CASES = [
    ("ffnn_f32_m4", FFNN, 4, 2, 1e-5, None),
    # Master weights at M = 4: the casts run once, their copies kept through the middle
    # micro-batches (the memory walk's middle pass) and released after the last.
    ("llama_master_m4", LLAMA + BF16, 4, 2, 3e-2, None),
    ("llama_bf16_m2", LLAMA + BF16, 2, 4, 3e-2, None),
    ("llama_f32_m4", LLAMA, 4, 6, 1e-5, None),
    ("llama_data_m2", LLAMA_DATA, 2, 4, 1e-5, ["--strategy", "data"]),
    # bf16 with f32 master weights, data-parallel: each bf16 cast is gathered in the first
    # micro-batch only and its copies kept for the second (invariants run once); each bf16
    # gradient reduce-scattered into its cast back in every micro-batch.
    ("llama_master_data_m2", LLAMA_DATA + BF16, 2, 4, 3e-2, ["--strategy", "data", "--no-gradient-fusion"]),
    # The data plan file as written, which fuses those casts (fused_gradient_casts, applied
    # to the graph by eincodegen): the f32 gradients' partial sums accumulate over the
    # micro-batches and are reduce-scattered into the update once per step (oneDNN's
    # bf16 x bf16 -> f32 matmul).
    ("llama_master_data_fused_m2", LLAMA_DATA + BF16, 2, 4, 3e-2, ["--strategy", "data"]),
    # Megatron's plan file of that step (tensor parallelism 2 in 2 groups), the casts fused
    # too: each f32 gradient the heads or feed-forward width cut is reduce-scattered across
    # the groups once per step (what the planner returns for the 3.6B step and larger).
    ("llama_master_megatron_m2", LLAMA_DATA + BF16, 2, 4, 3e-2, ["--strategy", "megatron", "--tensor-parallel", 2]),
    # Megatron's 2-way tensor parallelism in 2 groups, with every layer's activations
    # computed again before its backward (--recompute layers: the plan carries the copies).
    ("llama_megatron_recompute_m2", LLAMA_DATA, 2, 4, 1e-5,
     ["--strategy", "megatron", "--tensor-parallel", 2, "--recompute", "layers"]),
    # The same plan file with `partials_on_owners: true` (what --mem-limit writes where
    # reducing at read would not fit): every partial aggregated onto its owners first.
    ("llama_megatron_owners_m2", LLAMA_DATA, 2, 4, 1e-5,
     ["--strategy", "megatron", "--tensor-parallel", 2, "--recompute", "layers", OWNERS]),
    ("shared_weight_m3", "SHARED_WEIGHT", 3, 2, 1e-5, None),
]

# A node of graph inputs alone (Wd) read by the body and by a node run once per step: it
# runs per micro-batch and keeps its blocks to the end of the step (a review found the
# plan counting them once per micro-batch, and --check's reference without them).
SHARED_WEIGHT = """name: shared_weight
dtype: f32
inputs:
  - {name: X, shape: [12, 6]}
  - {name: W, shape: [6, 4]}
nodes:
  - {name: Wd, einsum: "io,io->io", inputs: [W, W], join: "x + y"}
  - {name: Y, einsum: "bi,io->bo", inputs: [X, Wd]}
  - {name: G, einsum: "bi,bo->io", inputs: [X, Y]}
  - {name: W_next, einsum: "io,io->io", inputs: [Wd, G], join: "x - 0.1 * y"}
outputs: [W_next]
"""


def gen(a, family, path, micro_batches=1, extra=()):
    run([a.einplan, "gen", *family, *(["--micro-batches", micro_batches] if micro_batches > 1 else []), *extra, "-o", path])


def plan_report(a, graph, p, work, extra=()):
    out = work / f"plan_{graph.stem}_{p}.json"
    run([a.einplan, "plan", graph, "-p", p, *extra, "--format", "json", "-o", out])
    return json.loads(out.read_text())


def step_plans(a, work):
    print("1. step traffic = M x per micro-batch + once per step")
    for family, name in ((FFNN, "ffnn"), (LLAMA, "llama")):
        for m in (2, 4):
            graph = work / f"{name}_m{m}.yaml"
            gen(a, family, graph, m)
            summary = json.loads(run([a.einplan, "check", graph, "--format", "json"]).stdout)["micro_batches"]
            for p in (2, 4, 6):
                r = plan_report(a, graph, p, work)
                mb = r.get("micro_batches", {})
                total = r["total_traffic_bytes"]
                split = m * mb.get("per_micro_batch_traffic_bytes", -1) + mb.get("once_per_step_traffic_bytes", -1)
                nodes = sum(n["traffic_bytes"] for n in r["nodes"])
                require(r["total_flops"] == summary["step_flops"] and summary["count"] == m,
                        f"{name} M={m} p={p}: the plan's FLOPs {r['total_flops']} = einplan check's step FLOPs {summary['step_flops']}")
                require(mb.get("count") == m and total == split == nodes,
                        f"{name} M={m} p={p}: {total} = {m} x {mb.get('per_micro_batch_traffic_bytes')} + "
                        f"{mb.get('once_per_step_traffic_bytes')} = nodes' {nodes}")


def compare_outputs(ours, reference, tolerance, what):
    worst = 0.0
    for f in sorted(reference.iterdir()):
        mine = ours / f.name
        if not mine.exists() and f.name == "loss.npy":
            mine = ours / "loss_step.npy"  # the micro-batched LLaMA step's loss (gen llama: loss_step)
        want, got = np.load(f).astype(np.float64), np.load(mine).astype(np.float64)
        if want.shape != got.shape:
            if want.size == got.size * want.shape[0] and f.name == "loss.npy":
                want = np.array(want.mean())  # the FFNN's one-pass loss is per row; the step's, their mean
            else:
                require(False, f"{what}: {f.name} has shape {got.shape}, the one-pass step's {want.shape}")
        same_nan = np.array_equal(np.isnan(want), np.isnan(got))
        scale = np.nanmax(np.abs(want)) if np.isfinite(want).any() else 1.0
        err = float(np.nanmax(np.abs(want - got)) / max(scale, 1e-30)) if want.size else 0.0
        worst = max(worst, err)
        if not same_nan or err > tolerance:
            require(False, f"{what}: {f.name} differs from the one-pass step's by {err:.3g} (tolerance {tolerance})")
    require(True, f"{what}: every output equals the one-pass step's (worst {worst:.2g} relative, tolerance {tolerance})")


def programs(a, work):
    print("2. programs of micro-batches: bytes and peaks as planned, outputs as the one-pass step's")
    for name, family, m, p, tolerance, strategy in CASES:
        graph, one_pass = work / f"{name}.yaml", work / f"{name}_one_pass.yaml"
        if family == "SHARED_WEIGHT":
            one_pass.write_text(SHARED_WEIGHT)
            graph.write_text(SHARED_WEIGHT + f"micro_batches: {{count: {m}, split: {{X: 0}}, accumulate: [G]}}\n")
        else:
            gen(a, family, graph, m)
            gen(a, family, one_pass)
        plan = []
        if strategy:
            plan_file = work / f"{name}_plan.yaml"
            gen(a, family, plan_file, m, [*[x for x in strategy if x != OWNERS], "-p", p])
            plan = ["--plan", plan_file]
        if OWNERS in (strategy or []):
            reduced = plan_report(a, graph, p, work, plan)
            plan_file.write_text(plan_file.read_text() + "partials_on_owners: true\n")
        planned = plan_report(a, graph, p, work, plan)
        if OWNERS in (strategy or []):
            # Read back: no partials reduced at read, and more bytes than reducing them.
            require(planned.get("partials_on_owners") is True and not any(n.get("reduced_at_read_by") for n in planned["nodes"]) and
                    planned["total_traffic_bytes"] > reduced["total_traffic_bytes"] and
                    any(n.get("reduced_at_read_by") for n in reduced["nodes"]),
                    f"{name}: partials_on_owners read back: {planned['total_traffic_bytes']} B, every partial aggregated onto its owners "
                    f"(reduced at read: {reduced['total_traffic_bytes']} B)")
        project = work / f"project_{name}"
        shutil.rmtree(project, ignore_errors=True)
        run([a.eincodegen, graph, "-p", p, *plan, "-o", project])
        run(make_command(project, "-j2", opt="O0"))  # a few hundred tiny nodes: compiling is the cost
        binary = next(f for f in project.iterdir() if f.is_file() and os.access(f, os.X_OK) and f.suffix == "")
        out, report, reference = work / f"out_{name}", work / f"report_{name}.json", work / f"reference_{name}"
        for d in (out, reference):
            shutil.rmtree(d, ignore_errors=True)
        run(["mpirun", "--oversubscribe", "-np", p, binary, "--check", "--seed", 7, "--outputs", out, "--report", report])
        run([a.einplan, "eval", one_pass, "--seed", 7, "--outputs", reference])
        r = json.loads(report.read_text())
        require(r["check"]["passed"], f"{name} (M={m}, p={p}): --check passed")
        wrong = [n["name"] for n in r["nodes"] if n["bytes_sent"] != n["bytes_predicted"]]
        require(not wrong and r["bytes_sent"] == r["bytes_predicted"] == planned["total_traffic_bytes"],
                f"{name}: bytes sent {r['bytes_sent']} = predicted {planned['total_traffic_bytes']}, node by node {wrong[:3]}")
        require(r["peak_bytes_per_rank"] == r["peak_bytes_predicted_per_rank"] == planned["peak_bytes_per_rank"],
                f"{name}: peaks {r['peak_bytes_per_rank']} = planned {planned['peak_bytes_per_rank']}")
        compare_outputs(out, reference, tolerance, name)


def weight_elements(graph_text):
    """The trained weights' element counts: the inputs X with an update X_next and a gradient grad_X."""
    import yaml
    g = yaml.safe_load(graph_text)
    outputs, nodes = set(g["outputs"]), {n["name"] for n in g["nodes"]}
    return {i["name"]: int(np.prod(i["shape"])) for i in g["inputs"]
            if i["name"] + "_next" in outputs and "grad_" + i["name"] in nodes}


def data_strategy(a, work):
    print("3. --strategy data moves the gradients' closed form")
    for m in (1, 2):
        graph = work / f"llama_data_m{m}.yaml"
        gen(a, LLAMA_DATA, graph, m)
        weights = weight_elements(graph.read_text())
        for p in (2, 4):
            plan = work / f"data_m{m}_p{p}.yaml"
            gen(a, LLAMA_DATA, plan, m, ["--strategy", "data", "-p", p])
            cost = work / f"data_m{m}_p{p}.json"
            run([a.einplan, "cost", graph, "-p", p, "--plan", plan, "--format", "json", "-o", cost])
            r = json.loads(cost.read_text())
            nodes = {n["name"]: n for n in r["nodes"]}
            calls = {n["name"]: n["kernel_calls"] for n in r["nodes"]}
            expected, moved_elsewhere = 0, []
            for w, elements in weights.items():
                grad = nodes[f"grad_{w}"]
                readers = [e for e in r["edges"] if e["from"] == f"grad_{w}"]
                # The updates of one weight (m_next, v_next, ...) cut it alike: one copy.
                copies = [e for e in readers if "reads_copy_of" not in e]
                require(all(e["traffic_bytes"] == 0 for e in readers if "reads_copy_of" in e),
                        f"M={m} p={p} grad_{w}: a reader of another's copy moves nothing")
                want_agg = (p - 1) * elements * 4  # accumulated (M > 1): once per step
                want_reads = len(copies) * (p - 1) * elements * 4 // p
                if grad.get("reduced_at_read_by"):
                    # Reduced at read (a gradient its update reads within a few nodes, or an
                    # accumulated one, read once per step after the last micro-batch): one
                    # reduce-scatter, each rank's 1/p from the p - 1 others' partials.
                    require(len(copies) == 1, f"M={m} p={p} grad_{w}: reduced at read, one copy")
                    want_agg, want_reads = 0, (p - 1) * elements * 4
                require(grad["traffic_agg_bytes"] == want_agg and sum(e["traffic_bytes"] for e in readers) == want_reads,
                        f"M={m} p={p} grad_{w}: aggregation {grad['traffic_agg_bytes']} = {want_agg}, "
                        f"to its {len(readers)} readers {sum(e['traffic_bytes'] for e in readers)} = {want_reads}")
                expected += want_agg + want_reads
            # Besides the gradients only scalars move: a one-call node's value to a reader's
            # other calls, and the loss's sum over the batch (once per step).
            for e in r["edges"]:
                if e["from"].startswith("grad_") and e["from"][5:] in weights:
                    continue
                if calls[e["from"]] == 1:
                    # A scalar to the reader's other calls, once per run of the reader (or
                    # nothing, read from a nearby reader's copy).
                    once = 0 if "reads_copy_of" in e else (calls[e["to"]] - 1) * 4
                    if e["traffic_bytes"] not in (once, m * once):
                        moved_elsewhere.append(f"{e['from']}->{e['to']} {e['traffic_bytes']} (a scalar: {once} per run)")
                    expected += e["traffic_bytes"]
                elif e["traffic_bytes"]:
                    moved_elsewhere.append(f"{e['from']}->{e['to']} {e['traffic_bytes']}")
            # The loss of each micro-batch summed over its rows (gen llama's loss_step adds them up).
            loss = nodes["loss"]
            expected += loss["traffic_agg_bytes"]
            require(loss["traffic_agg_bytes"] == m * (p - 1) * 4, f"M={m} p={p}: the loss's sum over the batch moves {m} x {(p - 1) * 4} bytes")
            others = [n["name"] for n in r["nodes"] if n["traffic_agg_bytes"] and not n["name"].startswith("grad_")
                      and n["name"] not in ("loss", "loss_step")]
            require(not moved_elsewhere and not others, f"M={m} p={p}: no activation moves ({moved_elsewhere[:3]} {others[:3]})")
            require(r["total_traffic_bytes"] == expected, f"M={m} p={p}: total {r['total_traffic_bytes']} = closed form {expected}")
            zero3_moves_data_and_gathers(a, work, m, p, graph, weights, r)


# The tensor-parallel GEMMs' inputs of gen llama's one-layer step, and the readers that
# read each one all-gathered (Megatron-SP: one gather for the fused QKV GEMM's inputs, one
# for gate and up, and in the backward one per pair of input- and weight-gradient GEMMs;
# the weight gradients of q, k and v gather the layer input again, as Megatron-SP does
# rather than hold it from the forward).
MEGATRON_GATHERS = [
    ("L0_attn_in", ["L0_q", "L0_k", "L0_v"]),
    ("L0_ffn_in", ["L0_gate", "L0_up"]),
    ("final_norm", ["logits"]),
    ("d_L0_down", ["d_L0_swiglu", "grad_L0_w2"]),
    ("L0_ffn_in", ["grad_L0_w3", "grad_L0_w1"]),
    ("d_L0_attn_out", ["d_L0_attn", "grad_L0_wo"]),
    ("L0_attn_in", ["grad_L0_wv", "grad_L0_wk", "grad_L0_wq"]),
]

# (producer, reader): a row-parallel GEMM's partial sums (and in the backward, the input
# gradient of each column-parallel GEMM) reduce-scattered into the sequence-parallel reader.
MEGATRON_REDUCTIONS = [
    ("L0_attn_out", "L0_h"),
    ("L0_down", "L0_out"),
    ("d_final_norm", "d_final_norm_xn"),
    ("d_L0_ffn_in_L0_up", "d_L0_ffn_in"),
    ("d_L0_ffn_in_L0_gate", "d_L0_ffn_in"),
    ("d_L0_attn_in_L0_v", "d_L0_attn_in_sum"),
    ("d_L0_attn_in_L0_k", "d_L0_attn_in_sum"),
    ("d_L0_attn_in_L0_q", "d_L0_attn_in"),
]


def megatron_gathers(a, work):
    """--strategy megatron --tensor-parallel T: each all-gather before a column-parallel GEMM
    moves (T - 1) x the tensor's bytes over the step's ranks (each rank of a group receives
    the other T - 1 shards of its data-parallel slice), once for the readers that share it:
    the first reader pays, the others read its copy (reads_copy_of) and move nothing. Each
    reduce-scatter after a row-parallel GEMM (and of a column-parallel GEMM's input gradient)
    moves (T - 1) x the tensor's bytes too, in one exchange: the partial sums reduced on the
    way to the sequence-parallel reader (reduces_partials), none aggregated onto owners."""
    print("3b. --strategy megatron: one all-gather per group of tensor-parallel GEMMs, one reduce-scatter per row-parallel one")
    graph = work / "llama_megatron.yaml"
    gen(a, LLAMA_DATA, graph)
    def option(flag):
        return LLAMA_DATA[LLAMA_DATA.index(flag) + 1]
    activation = option("--batch") * option("--seq") * option("--dim") * 4  # [b, s, dim] f32
    for p, t in ((2, 2), (4, 2)):
        plan, cost = work / f"megatron_p{p}.yaml", work / f"megatron_p{p}.json"
        gen(a, LLAMA_DATA, plan, 1, ["--strategy", "megatron", "--tensor-parallel", t, "-p", p])
        run([a.einplan, "cost", graph, "-p", p, "--plan", plan, "--format", "json", "-o", cost])
        report = json.loads(cost.read_text())
        edges = {(e["from"], e["to"]): e for e in report["edges"]}
        nodes = {n["name"]: n for n in report["nodes"]}
        for producer, reader in MEGATRON_REDUCTIONS:
            e, n = edges[(producer, reader)], nodes[producer]
            want = (t - 1) * activation
            require(e["traffic_bytes"] == want and e.get("reduces_partials") and n["traffic_agg_bytes"] == 0 and
                    n.get("reduced_at_read_by") == reader,
                    f"p={p} T={t}: {producer} -> {reader} reduce-scatters {e['traffic_bytes']} B = (T - 1) x {activation} B in one "
                    f"exchange (reduces_partials {e.get('reduces_partials')}, its own aggregation {n['traffic_agg_bytes']} B)")
        for tensor, readers in MEGATRON_GATHERS:
            first, rest = edges[(tensor, readers[0])], [edges[(tensor, r)] for r in readers[1:]]
            want = (t - 1) * activation
            require(first["traffic_bytes"] == want and "reads_copy_of" not in first,
                    f"p={p} T={t}: {tensor} -> {readers[0]} all-gathers {first['traffic_bytes']} B = (T - 1) x {activation} B")
            require(all(e["traffic_bytes"] == 0 and e.get("reads_copy_of") == readers[0] for e in rest),
                    f"p={p} T={t}: {readers[1:]} read {readers[0]}'s copy of {tensor}: "
                    f"{[(e['to'], e['traffic_bytes'], e.get('reads_copy_of')) for e in rest]}")


def master_weight_gradients(a, work):
    """--master f32: each bf16 weight gradient d_W_bf16 is cast back to f32 (grad_W, the
    accumulated one) right after it is complete, so under the data strategy its partial sums
    are reduce-scattered into the cast (reduced at read) in each micro-batch: M (p - 1) |W|
    bf16 elements, nothing aggregated onto owners. (With every cast written first, the casts
    back came after the whole backward, out of the rule's reach: the partials, full-sized on
    every rank, were held to the end of it and gathered onto one owner each.)"""
    print("3c. --master f32: each weight's bf16 gradient reduce-scattered into its f32 cast")
    m = 2
    graph = work / "llama_master.yaml"
    gen(a, LLAMA_DATA + BF16, graph, m)
    weights = weight_elements(graph.read_text())
    for p in (2, 4):
        plan, cost = work / f"master_data_p{p}.yaml", work / f"master_data_p{p}.json"
        gen(a, LLAMA_DATA + BF16, plan, m, ["--strategy", "data", "--no-gradient-fusion", "-p", p])
        run([a.einplan, "cost", graph, "-p", p, "--plan", plan, "--format", "json", "-o", cost])
        r = json.loads(cost.read_text())
        nodes = {n["name"]: n for n in r["nodes"]}
        edges = {(e["from"], e["to"]): e for e in r["edges"]}
        wrong = []
        for w, elements in weights.items():
            d, e = nodes.get(f"d_{w}_bf16"), edges.get((f"d_{w}_bf16", f"grad_{w}"))
            if d is None or e is None:
                wrong.append(f"no node d_{w}_bf16 or no edge d_{w}_bf16 -> grad_{w}")
                continue
            want = m * (p - 1) * elements * 2
            if not (d.get("reduced_at_read_by") == f"grad_{w}" and d["traffic_agg_bytes"] == 0 and e.get("reduces_partials")
                    and e["traffic_bytes"] == want):
                wrong.append(f"d_{w}_bf16 -> grad_{w}: {e['traffic_bytes']} B (closed form {want}), reduced at read by "
                             f"{d.get('reduced_at_read_by')}, aggregated {d['traffic_agg_bytes']} B")
        require(weights and not wrong, f"p={p}: every bf16 weight gradient reduce-scattered into its cast, "
                f"M (p - 1) |W| x 2 bytes ({len(weights)} weights) {wrong[:3]}")
        # The casts are invariants run once (micro_batches.h): each is gathered once per
        # step, into one copy every reader of the body shares and keeps to the end of the
        # last micro-batch, as DDP with a sharded optimizer (Megatron's distributed
        # optimizer) all-gathers its bf16 weights once per step: (p - 1) |W| x 2 bytes, not
        # M times that and not once per reader.
        wrong = []
        for w, elements in weights.items():
            moved = sum(e["traffic_bytes"] for (src, _), e in edges.items() if src == f"{w}_bf16")
            if moved != (p - 1) * elements * 2:
                wrong.append(f"{w}_bf16: {moved} B to its readers (closed form {(p - 1) * elements * 2})")
        require(weights and not wrong, f"p={p}: every bf16 weight cast gathered once per step, (p - 1) |W| x 2 bytes "
                f"({len(weights)} weights) {wrong[:3]}")
        # The plan file's note: a distributed optimizer's closed form beside the plan's bytes.
        note = re.search(r"all-gathers the .*? once per step, \(p - 1\) x both: ([0-9]+) bytes in all \(.*?\), this plan ([0-9]+) bytes",
                         plan.read_text())
        closed = (p - 1) * sum(weights.values()) * (4 + 2)
        require(note is not None and int(note.group(1)) == closed and int(note.group(2)) == r["total_traffic_bytes"],
                f"p={p}: the plan notes a distributed optimizer's {closed} bytes beside its own {r['total_traffic_bytes']}: "
                f"{note.groups() if note else 'no such note'}")
    # Under --mem-limit, a plan whose kept copies pass the limit is priced gathering them
    # again per micro-batch too (invariants_per_micro_batch: true), as FSDP would: at
    # 120,000 B per rank eindecomp's plan of this step fits only that way (kept: 125,794).
    limited = work / "master_mem_limit.json"
    run([a.einplan, "plan", graph, "-p", 4, "--mem-limit", 120000, "--format", "json", "-o", limited])
    r = json.loads(limited.read_text())
    require(r.get("invariants_per_micro_batch") is True and max(r["peak_bytes_per_rank"]) <= 120000,
            f"--mem-limit 120000: invariants_per_micro_batch {r.get('invariants_per_micro_batch')}, peak "
            f"{max(r['peak_bytes_per_rank'])}")
    # Megatron with its distributed optimizer: a cast of a weight the tensor parallelism
    # cuts (by heads, feed-forward width or vocabulary) is cut so inside a group of T and
    # across the G = p / T groups (ZeRO-1), and each group gathers its shards once per step:
    # (G - 1) |W| x 2 bytes. A norm's weight, which every rank reads whole (Megatron
    # replicates it in the group), is cut over all p ranks (SPEC 2): (p - 1) |W| x 2.
    p, t = 4, 2
    plan, cost = work / "master_megatron_p4.yaml", work / "master_megatron_p4.json"
    gen(a, LLAMA_DATA + BF16, plan, m, ["--strategy", "megatron", "--tensor-parallel", t, "-p", p])
    run([a.einplan, "cost", graph, "-p", p, "--plan", plan, "--format", "json", "-o", cost])
    r = json.loads(cost.read_text())
    label_parts = {n["name"]: n.get("partition", {}) for n in r["nodes"]}
    wrong = []
    for w, elements in weights.items():
        moved = sum(e["traffic_bytes"] for e in r["edges"] if e["from"] == f"{w}_bf16")
        cut = any(label_parts.get(f"{w}_bf16", {}).get(l, 1) > 1 for l in ("h", "f", "v"))
        want = ((p // t - 1) if cut else (p - 1)) * elements * 2
        if moved != want:
            wrong.append(f"{w}_bf16: {moved} B to its readers (closed form {want})")
    require(weights and not wrong, f"megatron T={t} p={p}: every bf16 weight cast gathered across the groups once per step, "
            f"(p / T - 1) |W| x 2 bytes, a norm's (p - 1) |W| x 2 ({len(weights)} weights) {wrong[:3]}")


def fused_gradients(a, work):
    """--gradient-accumulation-fusion: grad_W is the bf16 contraction writing f32 (no cast
    back, no d_W_bf16), the accumulated node; under the data strategy its partial sums are
    reduce-scattered into the update once per step: (p - 1) |W| x 4 bytes whatever M, so the
    plan moves the distributed optimizer's closed form, (p - 1) x (the f32 gradients + the
    bf16 casts), plus the scalars of the loss and the optimizer."""
    print("3d. --gradient-accumulation-fusion: each f32 gradient reduce-scattered once per step")
    m = 4
    # Batch 16: 4 sequences per micro-batch, which data parallelism cuts p = 4 ways.
    family = [16 if prev == "--batch" else x for prev, x in zip([None] + LLAMA, LLAMA)] + BF16 + FUSED
    graph = work / "llama_fused.yaml"
    gen(a, family, graph, m)
    import yaml
    doc = yaml.safe_load(graph.read_text())
    weights = weight_elements(graph.read_text())
    nodes = {n["name"]: n for n in doc["nodes"]}
    wrong = [w for w in weights if nodes.get(f"grad_{w}", {}).get("cast") != "f32" or len(nodes[f"grad_{w}"]["inputs"]) != 2
             or f"d_{w}_bf16" in nodes]
    require(weights and not wrong, f"every weight gradient is one bf16 contraction with `cast: f32` ({len(weights)} weights) {wrong[:3]}")
    for p in (2, 4):
        plan, cost = work / f"fused_data_p{p}.yaml", work / f"fused_data_p{p}.json"
        gen(a, family, plan, m, ["--strategy", "data", "-p", p])
        run([a.einplan, "cost", graph, "-p", p, "--plan", plan, "--format", "json", "-o", cost])
        r = json.loads(cost.read_text())
        report = {n["name"]: n for n in r["nodes"]}
        wrong, weight_bytes = [], 0
        for w, elements in weights.items():
            out = [e for e in r["edges"] if e["from"] == f"grad_{w}"]
            moved = sum(e["traffic_bytes"] for e in out)
            want = (p - 1) * elements * 4
            gathered = sum(e["traffic_bytes"] for e in r["edges"] if e["from"] == f"{w}_bf16")
            weight_bytes += moved + gathered
            if not (report[f"grad_{w}"]["traffic_agg_bytes"] == 0 and moved == want and any(e.get("reduces_partials") for e in out)
                    and gathered == (p - 1) * elements * 2):
                wrong.append(f"grad_{w}: {moved} B (closed form {want}), aggregated {report[f'grad_{w}']['traffic_agg_bytes']} B, "
                             f"cast gathered {gathered} B")
        require(not wrong, f"p={p} M={m}: every f32 gradient reduce-scattered once per step, (p - 1) |W| x 4 bytes {wrong[:3]}")
        closed = (p - 1) * sum(weights.values()) * (4 + 2)
        scalars = r["total_traffic_bytes"] - weight_bytes
        require(weight_bytes == closed and 0 <= scalars <= 64 * m,
                f"p={p} M={m}: the plan moves the distributed optimizer's {closed} bytes and {scalars} bytes of scalars "
                f"({r['total_traffic_bytes']} in all)")
        # The graph as written (each gradient cast back to f32) under its own data plan
        # file, which fuses the casts (fused_gradient_casts): the same plan, to the byte.
        unfused = [x for x in family if x not in FUSED]
        written, written_plan, written_cost = (work / f"unfused_p{p}.yaml", work / f"unfused_data_p{p}.yaml",
                                               work / f"unfused_data_p{p}.json")
        gen(a, unfused, written, m)
        gen(a, unfused, written_plan, m, ["--strategy", "data", "-p", p])
        run([a.einplan, "cost", written, "-p", p, "--plan", written_plan, "--format", "json", "-o", written_cost])
        w = json.loads(written_cost.read_text())
        same = [k for k in ("total_traffic_bytes", "peak_bytes_per_rank", "total_flops") if w[k] != r[k]]
        require(not same and len(w.get("fused_gradient_casts", [])) == len(weights),
                f"p={p} M={m}: the graph as written under its data plan file ({len(w.get('fused_gradient_casts', []))} casts "
                f"fused) costs what the fused graph does: {[(k, w[k], r[k]) for k in same]}")
    # Megatron with its distributed optimizer and the fusion: a gradient the tensor
    # parallelism cuts (heads, feed-forward width, vocabulary) is reduce-scattered across the
    # G = p / T groups once per step, (G - 1) |W| x 4 bytes; a norm's, which every rank
    # computes a partial sum of, over all p ranks, (p - 1) |W| x 4.
    p, t = 4, 2
    plan, cost = work / "fused_megatron_p4.yaml", work / "fused_megatron_p4.json"
    gen(a, family, plan, m, ["--strategy", "megatron", "--tensor-parallel", t, "-p", p])
    run([a.einplan, "cost", graph, "-p", p, "--plan", plan, "--format", "json", "-o", cost])
    r = json.loads(cost.read_text())
    report = {n["name"]: n for n in r["nodes"]}
    wrong = []
    for w, elements in weights.items():
        grad = report[f"grad_{w}"]
        moved = sum(e["traffic_bytes"] for e in r["edges"] if e["from"] == f"grad_{w}")
        cast = report[f"{w}_bf16"].get("partition", {})
        cut = any(cast.get(l, 1) > 1 for l in ("h", "f", "v"))
        want = ((p // t - 1) if cut else (p - 1)) * elements * 4
        if moved != want or grad["traffic_agg_bytes"] or grad.get("reduced_at_read_by") != f"{w}_m_next":
            wrong.append(f"grad_{w}: {moved} B (closed form {want}), aggregated {grad['traffic_agg_bytes']} B, reduced at read by "
                         f"{grad.get('reduced_at_read_by')}")
    require(not wrong, f"megatron T={t} p={p} M={m}: every f32 gradient reduce-scattered across the groups once per step, "
            f"(p / T - 1) |W| x 4 bytes, a norm's (p - 1) |W| x 4 ({len(weights)} weights) {wrong[:3]}")


def cluster_plan(a, work):
    """The issue's configuration: GPT 1.7B at batch 512 on 32 A100s, 16 micro-batches."""
    print("4. GPT 1.7B, 16 micro-batches, p = 32 on the DGX A100 file under 80 GiB")
    graph = work / "gpt_1_7b.yaml"
    family = ["llama", "--layers", 24, "--dim", 2304, "--heads", 24, "--ffn", 6144, "--vocab", 51200, "--seq", 2048, "--batch", 512,
              "--train", "--optimizer", "adamw", "--dtype", "bf16", "--master", "f32", "--no-grad-outputs"]
    gen(a, family, graph, 16)
    machine = ["--machine", a.machine, "--objective", "time"]
    r = plan_report(a, graph, 32, work, machine + ["--mem-limit", "80GiB"])
    require(r["peak_bytes_per_device"] <= 80 * 2**30, f"plans under --mem-limit 80GiB: peak {r['peak_bytes_per_device'] / 2**30:.1f} GiB")
    megatron = work / "gpt_1_7b_megatron.yaml"
    gen(a, family, megatron, 16, ["--strategy", "megatron", "--tensor-parallel", 8, "-p", 32])
    cost = work / "gpt_1_7b_megatron.json"
    run([a.einplan, "cost", graph, "-p", 32, "--plan", megatron, *machine, "--format", "json", "-o", cost])
    m = json.loads(cost.read_text())
    require(r["estimated_time_s"] <= m["estimated_time_s"],
            f"estimated {r['estimated_time_s']:.2f} s, no slower than Megatron TP8's plan file ({m['estimated_time_s']:.2f} s)")


def zero3_moves_data_and_gathers(a, work, m, p, graph, weights, data):
    """--strategy zero3 is data with each weight sharded at rest and gathered whole by a copy
    before each reader (W_fetched, W_fetched_2, ...): data's bytes plus, per copy, (p - 1) x
    the weight's bytes each time its reader runs (per micro-batch: FSDP gathers again)."""
    plan, cost = work / f"zero3_m{m}_p{p}.yaml", work / f"zero3_m{m}_p{p}.json"
    gen(a, LLAMA_DATA, plan, m, ["--strategy", "zero3", "-p", p])
    run([a.einplan, "cost", graph, "-p", p, "--plan", plan, "--format", "json", "-o", cost])
    z = json.loads(cost.read_text())
    gathers, wrong = 0, []
    for e in z["edges"]:
        match = re.fullmatch(r"(.+)_fetched(_[0-9]+)?", e["from"])
        if not match or match.group(1) not in weights:
            continue
        want = (p - 1) * weights[match.group(1)] * 4 * m
        gathers += e["traffic_bytes"]
        if e["traffic_bytes"] != want:
            wrong.append(f"{e['from']}->{e['to']} {e['traffic_bytes']} (closed form {want})")
    require(not wrong and gathers > 0, f"zero3 M={m} p={p}: every copy gathers (p - 1) x its weight per run {wrong[:3]}")
    require(z["total_traffic_bytes"] == data["total_traffic_bytes"] + gathers,
            f"zero3 M={m} p={p}: total {z['total_traffic_bytes']} = data's {data['total_traffic_bytes']} + the gathers {gathers}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--einplan", required=True)
    ap.add_argument("--eincodegen", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--machine", required=True, help="bench/clusters/dgx-a100.yaml")
    ap.add_argument("--quick", action="store_true", help="without step 4 (the sanitizer build: a 5,000-node plan)")
    a = ap.parse_args()
    work = pathlib.Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    only = os.environ.get("MICRO_BATCHES_ONLY", "")
    if only in ("", "1"):
        step_plans(a, work)
    if only in ("", "3"):
        data_strategy(a, work)
        megatron_gathers(a, work)
        master_weight_gradients(a, work)
        fused_gradients(a, work)
    if only in ("", "2"):
        programs(a, work)
    if only in ("", "4") and not a.quick:
        cluster_plan(a, work)
    print("micro_batches: all passed")


if __name__ == "__main__":
    main()
