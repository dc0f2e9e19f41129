// The one whole-plan cost: a Plan priced under every model at once (SPEC 3 and 3.1).
// A step of M micro-batches (planner/graph/micro_batches.h) is priced per step: a node
// run per micro-batch counts its kernel calls and repartitions M times, its partial
// results' aggregation M times (once for an accumulated node); the totals split into one
// micro-batch's figures and the rest, run once per step (total = M x one + once).
// Reports, the planner's final comparisons between candidate plans and the code
// generator's predicted bytes all come from costPlan, so they cannot disagree.
//   paper    join + agg of every node plus the repartition of every node-to-node edge
//            (elements; SPEC 3 as written);
//   traffic  bytes that cross between ranks: the repartition into each operand a node
//            reads from another node, and the aggregation of its partial results; a
//            node's traffic is what the emitted program's counters measure for it;
//   time     with a machine: the phases of time_model.h, summed;
//   links    on a cluster machine (SPEC 9), each traffic figure's bytes between nodes;
//   memory   each rank's peak (memory.h), the program's measured high-water mark.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "planner/cost/machine.h"
#include "planner/cost/memory.h"
#include "planner/cost/objective.h"
#include "planner/cost/traffic.h"
#include "planner/graph/graph.h"
#include "planner/graph/graph_index.h"
#include "planner/graph/tensor_types.h"
#include "planner/placement/plan.h"

namespace eindecomp {

// Every figure below is the whole step's (each node's work times its runs).
struct NodePlanCost {
  int64_t join = 0, agg = 0, repartIn = 0, paper = 0;  // elements
  int64_t trafficInBytes = 0;                          // repartition into its operands
  int64_t trafficAggBytes = 0;                         // aggregation of its partial results
  int64_t trafficBytes = 0;                            // the two together
  int64_t interNodeBytes = 0;                          // of those, between nodes (SPEC 9; 0 on one node)
  int64_t timePs = 0;                                  // with a machine: all its phases
  int64_t computePs = 0;                               // with a machine: its kernel calls
  int64_t aggTimePs = 0;                               // with a machine: its aggregation
  int reducedAtReadBy = -1;                            // its partials reduced on the way to this
                                                       // reader node (einrt's program model), else -1
  bool resultFromMemory = false;                       // with a machine: its result's lines come from
                                                       // memory (residency.h)
  int64_t flops = 0;
  int64_t bytesPerDevice = 0;
};

struct EdgePlanCost {
  int64_t paper = 0;         // repartition, elements
  int64_t trafficBytes = 0;
  int64_t interNodeBytes = 0;  // of those, between nodes
  int64_t timePs = 0;        // with a machine
  // The consumer reads the copy an earlier reader received (einrt's output-copy rule,
  // einrt/model/program_model.h): that reader's node, and this edge moves nothing. -1: none.
  int readsCopyOf = -1;
  // The producer's partial results are reduced on the way to this consumer (einrt's
  // reduced-at-read rule): the edge's traffic is that one exchange's, the producer has no
  // aggregation of its own.
  bool reducesPartials = false;
};

struct PlanCost {
  std::vector<NodePlanCost> nodes;  // aligned with the plan's nodes
  std::vector<EdgePlanCost> edges;  // aligned with the plan's edges
  int64_t paper = 0;                // elements
  int64_t paperBytes = 0;           // paper * dtype size
  int64_t trafficBytes = 0;
  int64_t interNodeBytes = 0;       // of those, between nodes (intra-node: the rest)
  int64_t ranksPerNode = 0;         // the machine's nodes (0: one node)
  std::optional<int64_t> timePs;    // with a machine
  int64_t flops = 0;
  int64_t peakBytesPerDevice = 0;  // memory.peakBytesPerDevice
  MemoryPlan memory;
  // Micro-batches: the step's count, and what of trafficBytes and timePs one micro-batch
  // runs (trafficBytes = microBatches x perMicroBatch + oncePerStep; likewise time).
  int64_t microBatches = 1;
  int64_t perMicroBatchTrafficBytes = 0, oncePerStepTrafficBytes = 0;
  int64_t perMicroBatchTimePs = 0, oncePerStepTimePs = 0;  // with a machine
};

// Whether costPlan computes the memory plan (memory.h): a planner choosing between plans
// without --mem-limit compares objectives alone and skips it (the report prices it).
enum class MemoryDetail { Peak, None };

// Throws InputError on 64-bit overflow. `memo`: repartition counts remembered across the
// plans one request prices (traffic.h TrafficMemo); none: counted afresh.
PlanCost costPlan(const Graph& g, const Plan& plan, const std::optional<Machine>& machine,
                  MemoryDetail memory = MemoryDetail::Peak, TrafficMemo* memo = nullptr);

// Whether node `node`'s operand `operand` might read an earlier reader's received copy
// under einrt's output-copy rule (einrt/model/program_model.h) in some placement: an
// earlier operand within kCopyReach nodes reads the same node output through the same
// grid, neither through a window. Such an edge may move nothing, so the floors below count
// it as nothing.
// A copy of an invariant run once (`runs`: nodeRuns) is kept for the whole body, so any
// earlier operand in the body may hold it.
bool mayReadSharedCopy(const Graph& g, const GraphIndex& index, const std::vector<Parts>& parts, const std::vector<NodeRuns>& runs,
                       std::size_t node, std::size_t operand);

// The reader operand (first in node order) that might receive node `node`'s partial
// results reduced under einrt's reduced-at-read rule (einrt/model/program_model.h) in some
// placement, else none: the node's calls are cut along a label it aggregates, its output
// is read and is no graph output. Such a node may have no aggregation of its own, and its
// reader's repartition moves partials instead: the floors count neither the node's
// aggregation time nor that edge's traffic (the traffic floor keeps the aggregation's:
// every reading of H partials moves at least H - 1 of them).
std::optional<Use> mayReduceAtRead(const Graph& g, const GraphIndex& index, const std::vector<Parts>& parts, std::size_t node);

// The least traffic (bytes, each element at its tensor's type) any placement of these partitions can have in which every
// kernel call runs on a rank of its own (the canonical and matched rules: pinned calls may
// share one): a rank then owns at most one block of each node's output, so a call reading
// a block of nC elements receives at least nC - nI of it (nI: the largest overlap of that
// block with one producer block; all of it where the readers outnumber the blocks' holders:
// traffic.h's repartitionFloor), and a node's partial results move exactly (calls - output
// blocks) x block elements. The planner skips pricing partitions whose bound exceeds the
// plan it already has (planning.cpp); the bound reads no placement, so it costs O(nodes).
// In a step of micro-batches every phase's floor counts as often as costPlan counts it.
int64_t trafficLowerBound(const Graph& g, const std::vector<Parts>& parts);
// The same for costPlan's estimated time on machine `m` (picoseconds): every edge's and
// every node's exchange at the floor of its busiest rank's phase (traffic.h's
// repartitionFloor, time_model.h's phaseFloorPicoseconds), and the kernels' at
// time_model.h's computeFloorsByNode (one call each without a kernel model, 0 with one:
// fused groups are priced together). The time objective skips pricing partitions by it.
int64_t timeLowerBound(const Graph& g, const std::vector<Parts>& parts, const Machine& m, int64_t devices);
// timeLowerBound node by node (it is their sum): node i's share is the floor of its
// aggregation, of the repartitions into its operands and of its kernels, at most costPlan's
// nodes[i].timePs under any placement with a rank per call. A placement under way adds the
// nodes still to place at these floors to the ones placed at their exchanges' time
// (exchangePicoseconds) and their kernels' floor.
std::vector<int64_t> timeFloorsByNode(const Graph& g, const std::vector<Parts>& parts, const Machine& m, int64_t devices);

// What a node's placement decides of costPlan's time (picoseconds, on `m`): its partial
// results' aggregation and each operand's repartition from its producer's blocks (graph
// inputs are free) — its nodes[i].timePs less its kernels' time, known as soon as the node
// and its producers are placed; an operand that may read a shared copy (mayReadSharedCopy)
// counts nothing, so that this stays a floor. `placements`: every node's so far (aligned with
// g.nodes); `types`: nodeOutputTypes(g); `runs`: nodeRuns(g, Invariants::OncePerStep). The
// repartitions go through `memo` (costPlan of the finished plan then finds them there).
int64_t exchangePicoseconds(const Graph& g, const GraphIndex& index, std::size_t node, const CallGeometry& geometry,
                            const std::vector<Parts>& parts, const std::vector<Placement>& placements,
                            const std::vector<DType>& types, const std::vector<NodeRuns>& runs, const Machine& m,
                            int64_t devices, TrafficMemo* memo);

}  // namespace eindecomp
