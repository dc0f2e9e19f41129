// Hand strategies (SPEC 4): the EinDecomp paper's experiment-3 baselines for the LLaMA
// graphs `einplan gen llama` writes, as partitions chosen by label name (b batch, s/t
// sequence, h heads, f feed-forward, v vocabulary — frontends/gen/llama.cpp):
//   megatron  tensor parallelism: every node with a head label split by heads (Q/K/V
//             column-parallel, attention by heads, O row-parallel: its partial sums are
//             reduced), every node with f split by f (W1/W3 column-parallel, W2
//             row-parallel), the vocabulary projection by v, and the norms and residuals
//             between them by batch and sequence (as Megatron's sequence parallelism does
//             where tensor parallelism would replicate them);
//   sequence  every node split along the sequence (s, else t), then the batch;
//   heads     attention split by heads; every other node keeps its weights whole on
//             every rank, as replication does, and runs data-parallel over batch and
//             sequence (every node runs p kernel calls, SPEC 2, so "replicated" work is
//             shared out rather than repeated: the memory is the replicated one).
// A label gets the largest divisor of the parts still to give that divides its size, in
// the order above; a node that cannot use p parts that way keeps fewer calls (the plan
// says so). The partitions are then placed and priced like any plan (algorithm "fixed").
//
// For training steps (`einplan gen llama --train`), two more:
//   data      every node split along the batch, then the sequence, then its other labels
//             in order: the forward and backward run data-parallel, each weight gradient's
//             partial sums are aggregated, and each update (which has no batch label) is
//             split along the weight's own dimensions — so the optimizer state and the
//             update are sharded, as ZeRO-1 and ZeRO-2 shard them: in a plan every node's
//             calls are spread over the p ranks, and no update is repeated on every rank;
//   zero3     data, with every trained weight (an input a graph output reads pointwise:
//             its update, X_next) sharded at rest (planner/graph/shard_at_rest.h): gathered by a copy
//             node before each use, as ZeRO-3 and FSDP do. The plan carries the entries.
//
// A training step's gradient and update nodes (einplan grad names their labels a, b, c, ...)
// are cut by the forward names of their labels: those of the tensor a node is the gradient
// of (`d_T`, `d_T_N`: T's; `grad_W`: W's), else of the operand dimensions it reads. So
// megatron cuts the backward of attention by heads, each weight gradient as its forward
// GEMM, and each update along its weight (inside a group, then across the groups: the
// optimizer state sharded over the data-parallel groups, as ZeRO-1 does).
// Every node gets the calls the plan reader expects (p, or SPEC 2's largest feasible
// count): after a strategy's labels come the node's others, and where divisors dealt in
// that order still fall short, the node takes the first partition that runs them.
//
// megatron with a tensor-parallel degree T < p (Megatron-LM's layout on a cluster: tensor
// parallelism inside a node of T ranks, data parallelism across nodes): each node's T
// inner parts go as above (h, f or v; the norms and residuals by sequence), the p/T outer
// parts to the batch, then the sequence; call c runs on rank outer(c) * T + inner(c), so
// the T ranks of a tensor-parallel group are consecutive: one node under mpirun's block
// mapping. A label cut both ways (a weight's update cut by heads inside and across the
// groups) numbers its blocks with the tensor-parallel part coarse on h, f and v (each
// group's shard on one place of every group) and the data-parallel part coarse on the
// others (a group's chunk contiguous). The plan carries that placement.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "planner/graph/graph.h"
#include "planner/graph/recompute.h"
#include "planner/graph/shard_at_rest.h"
#include "planner/partition/partition.h"
#include "planner/placement/plan.h"

namespace eindecomp {

const std::vector<std::string>& strategyNames();  // megatron, sequence, heads, data, zero3

struct StrategyPlan {
  std::map<std::string, Parts> partitions;  // node name -> partition over iterationLabels(node)
  PinnedPlacements placements;              // megatron with a tensor-parallel degree: the groups' ranks
  // data and megatron on a step of micro-batches: every gradient cast that can be fused
  // (gradientCastsToFuse), applied first (the partitions name the widened contractions).
  std::vector<FusedGradientCast> fusedGradientCasts;
  std::vector<ShardAtRest> shardAtRest;      // zero3: the inputs sharded at rest (the partitions name their copies)
  std::vector<Recompute> recompute;          // --recompute layers: applied after shardAtRest (the partitions name the copies)
  bool invariantsPerMicroBatch = false;      // zero3: every weight's fetched copy again for each use (plan.h)
};

// InputError (exit 2) for an unknown strategy, zero3 for a graph without trained weights, a graph without the labels the strategy
// cuts, or a tensor-parallel degree that is not a divisor of p (or given to another strategy).
// tensorParallel 0: none (megatron over all p ranks).
// `recomputeLayers`: with every layer's activations computed again before its backward
// (planner/graph/recompute.h layerRecompute), the copies cut as the nodes they copy.
// `fuseGradientCasts` false: data and megatron keep g's gradient casts (the planner's
// candidates on the graph as written, planning.h).
StrategyPlan strategyPlan(const std::string& strategy, const Graph& g, int64_t devices, int64_t tensorParallel = 0,
                          bool recomputeLayers = false, bool fuseGradientCasts = true);

// The gradient casts of g that gradient accumulation fusion can fold into their
// contractions (fusibleGradientCasts, and the contraction's labels make a GEMM: the
// planner's one label classifier, runsAsGemm), in node order. On a step of M > 1
// micro-batches each then accumulates in f32 on its ranks and is reduced once per step,
// not once per micro-batch: data and megatron fuse them all, as DDP and Megatron-LM do;
// zero3 does not (FSDP reduce-scatters each micro-batch's gradients, holding 1/p of them).
std::vector<FusedGradientCast> gradientCastsToFuse(const Graph& g);

// InputError (exit 2) at the entry whose widened contraction in `fused` (the plan's graph,
// withPlanRewrites) makes no GEMM: a widening contraction runs as one.
void requireGemmWidening(const Graph& fused, const std::vector<FusedGradientCast>& entries);

// The bytes of a training step's gradients of its inputs (the nodes einplan grad names
// grad_X, at their types): what data parallelism reduces once per step. A ring all-reduce
// of them over p ranks moves 2 (p - 1) / p of it from every rank.
int64_t inputGradientBytes(const Graph& g);

// The bytes of a mixed-precision step's casts of its master weights (einplan grad --master:
// the bf16 copies of f32 inputs), at their types: what a distributed optimizer (Megatron's,
// DDP with ZeRO-1) all-gathers once per step after its sharded update. 0 without.
int64_t masterCastBytes(const Graph& g);

}  // namespace eindecomp
