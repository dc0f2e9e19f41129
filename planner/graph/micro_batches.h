// Micro-batches (gradient accumulation; docs/graph-format.md "Micro-batches"): which nodes
// of a graph with `micro_batches` run once per micro-batch and which once per step, the
// rules the loader checks, and how often each node's work runs. One home for these rules:
// the planner's costs, the program's tables and the evaluator read them here.
//
//   per micro-batch  a node that reads a split input or a node run per micro-batch, and
//                    a node that reads graph inputs and nodes run once only but whose
//                    readers all run per micro-batch (a master weight's cast, a sharded
//                    weight's gathered copy: made again for every micro-batch, as FSDP
//                    gathers a weight again for each); such a node is an invariant (its
//                    value the same in every micro-batch), and a plan says how it runs
//                    (Invariants, below);
//   once per step    a node that reads an accumulated node or a node run once per step,
//                    and a node that reads no node run per micro-batch and whose readers
//                    all run once per step (an optimizer's bias corrections): after the
//                    micro-batches, in node order.
// An accumulated node runs per micro-batch; its results are summed over the micro-batches
// in its own type before its partial results are combined across ranks, so its
// aggregation (the gradient's reduction) runs once per step. Only nodes run once per step
// read it, and it aggregates by sum.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/graph/graph.h"

namespace eindecomp {

enum class StepPhase : uint8_t { PerMicroBatch, OncePerStep };

// The micro-batch count (1 for a graph without micro_batches).
int64_t microBatchCount(const Graph& g);

// The dimension of input `name` cut into micro-batches, or -1.
int splitDimension(const Graph& g, const std::string& name);

// The whole step's shape of input t (its .npy file, its generated values): one
// micro-batch's with the split dimension times the count.
std::vector<int64_t> stepShape(const Graph& g, const InputTensor& t);

// Per node (aligned with g.nodes): whether it is listed under `accumulate`.
std::vector<bool> accumulatedNodes(const Graph& g);

// Per node its phase (every node per micro-batch without micro_batches). Throws
// InputError, at the entry or node concerned, where the graph breaks the rules above.
std::vector<StepPhase> stepPhases(const Graph& g);

// How a plan runs the invariants (above), a choice of the plan (plan.h):
//   OncePerStep    in the first micro-batch only; the invariant's finished blocks and
//                  every copy of them a reader receives are kept to the end of the last
//                  micro-batch (einrt/model/program_model.h), so a master weight's bf16
//                  cast is gathered once per step, as DDP with a sharded optimizer and
//                  Megatron's distributed optimizer gather their bf16 weights;
//   PerMicroBatch  in every micro-batch, each reader receiving it again (FSDP, which
//                  gathers a weight again for each use to hold it only while it is read).
enum class Invariants : uint8_t { OncePerStep, PerMicroBatch };

// How many times per step a node's kernel calls and repartitions run (`calls`), and its
// partial results' aggregation (`aggregation`: once for an accumulated node); `once`: an
// invariant run once per step (Invariants::OncePerStep), whose readers in the body receive
// it once (repartitionRuns).
struct NodeRuns {
  int64_t calls = 1;
  int64_t aggregation = 1;
  bool once = false;
};
std::vector<NodeRuns> nodeRuns(const Graph& g, Invariants invariants);

// How many times per step the repartition of an operand of node `reader` from node
// `producer` (-1: a graph input) runs: before each of the reader's runs, but once where
// the producer runs once.
inline int64_t repartitionRuns(const std::vector<NodeRuns>& runs, std::size_t reader, int producer) {
  return producer >= 0 && runs[static_cast<std::size_t>(producer)].once ? 1 : runs[reader].calls;
}

// The loader's check of g.microBatches against the graph (names, dimensions, divisibility,
// the phase rules), and its nodes reordered stably so that every node run per micro-batch
// comes before every node run once per step (still a topological order). No-op without.
void orderByStepPhase(Graph& g);

// The same graph over one micro-batch of `count`: each `split` input's dimension divided
// by `count` and every label size found again from the shapes (through the loader, whose
// errors say where a size no longer fits: a broadcast label sized by the whole batch).
// The front ends that make a micro-batched step (einplan grad --micro-batches) start here.
Graph slicedForMicroBatches(const Graph& g, int64_t count, const std::vector<MicroBatchSplit>& split);

// `g`, over one micro-batch already, as the step of `mb.count` micro-batches: checked and
// ordered by the loader, as its file would be read.
Graph withMicroBatches(const Graph& g, MicroBatches mb);

}  // namespace eindecomp
