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
// megatron with a tensor-parallel degree T < p (Megatron-LM's layout on a cluster: tensor
// parallelism inside a node of T ranks, data parallelism across nodes): each node's T
// inner parts go as above (h, f or v; the norms and residuals by sequence), the p/T outer
// parts to the batch, then the sequence; call c runs on rank outer(c) * T + inner(c), so
// the T ranks of a tensor-parallel group are consecutive: one node under mpirun's block
// mapping. The plan carries that placement.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "planner/graph/graph.h"
#include "planner/partition/partition.h"
#include "planner/placement/plan.h"

namespace eindecomp {

const std::vector<std::string>& strategyNames();  // megatron, sequence, heads

struct StrategyPlan {
  std::map<std::string, Parts> partitions;  // node name -> partition over iterationLabels(node)
  PinnedPlacements placements;              // megatron with a tensor-parallel degree: the groups' ranks
};

// InputError (exit 2) for an unknown strategy, a graph without the labels the strategy
// cuts, or a tensor-parallel degree that is not a divisor of p (or given to another strategy).
// tensorParallel 0: none (megatron over all p ranks).
StrategyPlan strategyPlan(const std::string& strategy, const Graph& g, int64_t devices, int64_t tensorParallel = 0);

}  // namespace eindecomp
