// The one objective model (SPEC 3.1 `--objective`, 3.2 `--mem-limit`): per objective, the
// two terms the search adds up — a node's local term and an edge's repartition term, both
// under the canonical placement (search_space.h) — the whole plan's total, and the key that
// orders candidate plans: fitting the memory limit first, then the objective, then traffic.
// The search, costPlan's consumers (planGraph's final choice between candidate plans,
// compare's "best", explain's candidate table) all read it here, so they cannot disagree
// (as cotengra's Objective owns both its local score and its whole-tree score).
//   paper    node = join + agg                     edge = repart(dP, dC)       elements
//   traffic  node = aggregation traffic            edge = repartition traffic  bytes
//   time     node = compute + aggregation phase    edge = repartition phase    picoseconds
// On a cluster (SPEC 9) the time objective prices each link on its own (time_model.h).
// Memory is a constraint, not a term: a plan whose peak (memory.h) exceeds the limit loses
// to every plan that fits, whatever its objective.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <einrt/block_grid.h>

#include "planner/cost/machine.h"
#include "planner/cost/objective.h"
#include "planner/cost/plan_cost.h"
#include "planner/cost/traffic.h"
#include "planner/graph/graph.h"
#include "planner/graph/micro_batches.h"
#include "planner/partition/call_geometry.h"
#include "planner/placement/placement.h"

namespace eindecomp {

struct ObjectiveModel {
  Objective objective = Objective::Traffic;
  std::optional<Machine> machine;        // required by Objective::Time
  int64_t devices = 1;
  DType dtype = DType::F32;
  std::optional<int64_t> memLimitBytes;  // every rank's whole-program peak

  // The machine's nodes (none: one node), which the time objective prices link by link.
  einrt::RankNodes nodes() const { return rankNodesOf(machine); }

  // Every term below prices the elements it moves at the bytes of the tensor moved
  // (`elementBytes`: SPEC 8's per-tensor types, planner/graph/tensor_types.h); `dtype`
  // is the graph's, every tensor's default.

  // A node's local term for one partition (its calls placed by `placement`), the node
  // writing `type` and computing in `computeType` (its operands' for a widening
  // contraction, tensor_types.h), its kernels run `runs.calls` times per step and its
  // aggregation `runs.aggregation` times (micro-batches, planner/graph/micro_batches.h).
  // An edge's term is the consumer's: the search multiplies it by the consumer's calls.
  int64_t nodeTerm(const Node& n, const NodeSpace& space, const Parts& parts, const CallGeometry& geometry,
                   const Placement& placement, DType type, DType computeType, NodeRuns runs = {}) const;
  // The repartition of a tensor of `bounds` written in `producerParts` blocks (placed by
  // `producer`; may be null under the paper objective, which needs no placement) into the
  // blocks `callBlock[c]` that call c, on rank callRank[c], reads of `consumer`
  // (consumerParts: its layout).
  int64_t edgeTerm(const std::vector<int64_t>& bounds, const Parts& producerParts, const Parts& consumerParts,
                   const BlockHomes* producer, const einrt::BlockGrid& consumer, const einrt::model::BlockNumbers& callBlock,
                   const std::vector<int>& callRank, int64_t elementBytes) const;
  // Whether the edge term needs the consumer's reads and the producer's homes (not paper).
  bool edgeNeedsPlacement() const { return objective != Objective::Paper; }
  // The traffic and time objectives' edge term under the canonical placement, from the
  // block coordinates each rank owns and reads (traffic.h): equal to edgeTerm with the
  // canonical homes, without enumerating pieces (the search's fast path).
  bool hasCanonicalEdgeTerm() const { return objective != Objective::Paper; }
  int64_t canonicalEdgeTerm(const einrt::BlockGrid& producer, const RankBlockCoordinates& owned,
                            const einrt::BlockGrid& consumer, const RankBlockCoordinates& read, int64_t elementBytes) const;
  // A floor under canonicalEdgeTerm from the two layouts alone (traffic.h's
  // repartitionFloor): what the search compares before it prices a pair.
  int64_t canonicalEdgeFloor(const std::vector<int64_t>& bounds, const Parts& producerParts, int64_t ownerStride,
                             const Parts& consumerParts, int64_t readers, int64_t elementBytes) const;
  // A tighter floor where the objective has one: under the time objective the phase of the
  // first group of ranks' loads (traffic.h's firstGroupRepartitionTraffic), in O(ranks per
  // node x dims); else canonicalEdgeFloor's.
  int64_t canonicalEdgeGroupFloor(const std::vector<int64_t>& bounds, const Parts& producerParts, int64_t ownerStride,
                                  const Parts& consumerParts, const einrt::model::BlockNumbers& readByRank,
                                  int64_t elementBytes) const;

  // The whole plan: what the objective minimizes (its unit above).
  int64_t total(const PlanCost& c) const;
  bool fits(const PlanCost& c) const;
  // (over the limit, total, bytes between nodes, traffic): of two plans equal under the
  // objective, the one that sends less over the network wins.
  using Key = std::tuple<bool, int64_t, int64_t, int64_t>;
  Key key(const PlanCost& c) const;
  // "123 bytes of traffic", "456 (paper cost, elements)", "789 ps estimated".
  std::string totalText(const PlanCost& c) const;
};

}  // namespace eindecomp
