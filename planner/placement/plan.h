// The Plan: what every planning algorithm returns, what the cost models price and what
// the code generator lowers. Plain data: for every node (aligned with Graph::nodes) the
// partition over iterationLabels(node) — order of first appearance in the operands,
// then the output — its kernel calls, output layout and placement (the rank of every
// call, the owner of every output block); for every node-to-node edge the tensor's
// bounds and its layout on each side (parts per tensor dimension). Graph inputs have no
// layout of their own: each consumer's ranks make the blocks they read (SPEC 3, 3.1).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <einrt/program/gemm.h>

#include "planner/graph/graph.h"
#include "planner/graph/micro_batches.h"
#include "planner/graph/recompute.h"
#include "planner/graph/shard_at_rest.h"
#include "planner/partition/partition.h"
#include "planner/placement/placement.h"

namespace eindecomp {

struct NodePlan {
  std::string name;
  Labels labels;            // iterationLabels(node)
  Parts parts;              // parts per label, aligned with `labels`
  int64_t kernelCalls = 1;  // prod(parts)
  bool fallback = false;    // no partition reaches the device count: kernelCalls is the largest feasible count below it
  int64_t fullCalls = 1;    // the device count, or the largest feasible count below it: what a node "using every device" runs
  Labels outputLabels;
  Parts outputParts;        // parts per output dimension
  Placement placement;
  // The GEMM path the program runs the node's calls on (a plan file's gemm_path, else the
  // kernel model's faster one, time_model.h plannedGemmPath); Rule: einrt's own rule.
  einrt::program::GemmPlanned gemmPath = einrt::program::GemmPlanned::Rule;
};

struct PlanEdge {
  std::string from;              // producer node
  std::string to;                // consumer node
  int fromNode = 0, toNode = 0;  // indices into Graph::nodes
  int operand = 0;               // operand position in the consumer
  std::vector<int64_t> bounds;   // the tensor's shape
  Parts producerParts;           // parts per dimension as the producer writes it
  Parts consumerParts;           // parts per dimension as the consumer reads it
};

struct Plan {
  int64_t devices = 1;
  std::string algorithm;
  std::vector<NodePlan> nodes;       // aligned with Graph::nodes
  std::vector<PlanEdge> edges;       // every node-to-node edge, consumers in node order
  std::vector<std::string> notes;    // fallbacks, truncated enumerations, the search's guarantee
  bool optimal = false;              // proven optimal under the objective over the partitions considered
  int64_t ranksPerNode = 0;          // the cluster it was made for (SPEC 9; 0: one node), which prices its links
  double searchSeconds = 0;
  // Nodes computed again for their later uses (planner/graph/recompute.h): the graph the
  // plan's nodes belong to is withRecompute(the user's graph, recompute).
  std::vector<Recompute> recompute;
  // Inputs sharded at rest (planner/graph/shard_at_rest.h), applied before `recompute`:
  // the plan's graph is withPlanRewrites(the user's graph, fusedGradientCasts,
  // shardAtRest, recompute).
  std::vector<ShardAtRest> shardAtRest;
  // Gradient casts fused into their contractions (planner/graph/gradient_fusion.h),
  // applied first: the data and megatron strategies' choice on a step of micro-batches.
  std::vector<FusedGradientCast> fusedGradientCasts;
  // Every aggregation onto its owners, einrt's reduced-at-read rule off
  // (einrt/model/tables.h): chosen under --mem-limit where partials held for their reader
  // would pass it, or read from a plan file's partials_on_owners.
  bool partialsOnOwners = false;
  // Micro-batches: the invariants (a master weight's cast; planner/graph/micro_batches.h)
  // run again in every micro-batch, read again by each reader (FSDP), instead of once per
  // step with their readers' copies kept: zero3's choice, or a plan file's
  // invariants_per_micro_batch.
  bool invariantsPerMicroBatch = false;
  Invariants invariants() const { return invariantsPerMicroBatch ? Invariants::PerMicroBatch : Invariants::OncePerStep; }
};

// Placements written by hand (plan files): node name -> rank of every kernel call.
using PinnedPlacements = std::map<std::string, std::vector<int>>;

// Told of each node once it is placed (its producers, earlier in order, are too): its
// index, call geometry and every placement so far. Returning false stops the placement
// (a plan priced as it is placed, found to lose before it is whole).
using NodePlaced = std::function<bool(std::size_t node, const CallGeometry& geometry, const std::vector<Placement>& placements)>;

// The placement of every node under `rule`, in topological order (the matched rule looks
// at the producers' placements); nodes in `pinned` keep theirs (owners derived). Where
// `placed` stops it, the placements made so far and the rest empty.
std::vector<Placement> placeNodes(const Graph& g, const std::vector<Parts>& nodeParts, PlacementRule rule,
                                  const PinnedPlacements& pinned, int64_t devices, const LinkWeights& links = {},
                                  const NodePlaced& placed = {});

// True when every node runs its fullCalls (a plan that leaves devices idle moves less by
// doing less; planners and comparisons treat it apart).
bool usesAllDevices(const Plan& plan);

// Builds a Plan from one partition and one placement per node (aligned with g.nodes),
// deriving output layouts, edges and the fallback flags for `devices`. The placements are
// moved in (a node's are p ranks and p owners: copying them at p = 16,384 was a second
// of planning LLaMA-65B, and as much memory again).
Plan makePlan(const Graph& g, int64_t devices, const std::string& algorithm, const std::vector<Parts>& nodeParts,
              std::vector<Placement> placements);

}  // namespace eindecomp
