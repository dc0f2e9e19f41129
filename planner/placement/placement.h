// Placement (SPEC 3.1): which rank (0..p-1) runs each kernel call of a node, and which
// rank owns each block of its output (where partial results are combined). Calls are
// numbered row-major over the node's partition grid; output blocks row-major over the
// output dimensions (call_geometry.h). Both rules below put a node's calls on distinct
// ranks; a plan written by hand may give one rank several calls (it runs them in turn).
//
// Two rules, both deterministic:
//  - canonical: the call writing output block b with aggregation coordinate a runs on
//    rank a * blocks + b, so block b of every tensor lives on rank b whatever the node's
//    label order. It depends on the node's partition alone, which is what keeps the
//    planner's dynamic program exact under the traffic and time objectives: the traffic
//    of an edge is then a function of the two partitions it joins. On a cluster (ranks on
//    several nodes) it runs that call on rank b * aggParts + a instead: the partial sums of
//    a block sit on consecutive ranks, inside a node where they fit, and are reduced there
//    (Megatron's row-parallel layers reduce inside a node this way); block b then lives on
//    rank b * aggParts, a function of the partition still.
//  - matched: given where the producers' output blocks live, the calls are assigned to
//    ranks so that as little operand data as possible has to be received (the
//    assignment problem: exact up to kExactAssignmentCalls calls, greedy beyond), ties
//    broken towards the canonical rank. On a cluster an element received from another
//    node weighs `interNodeWeight` elements from the rank's own node (the ratio of the
//    two links' bandwidths), so heavy exchanges stay inside nodes where they can.
// In both, each output block is owned by the rank of its call with the lowest aggregation
// coordinate, so a block never travels when nothing is aggregated.
// This unit places; it neither searches partitions nor computes costs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <einrt/block_grid.h>
#include <einrt/nodes.h>

#include "planner/partition/call_geometry.h"

namespace eindecomp {

// The largest device count the planner takes (docs/hardening.md, "Limits"): planning
// keeps per-rank tables (placement, traffic, memory), so time and memory grow with p; at
// 2^20 the example matrix chain plans in 7 s within 750 MB here. MPI itself addresses
// 2^31 - 1 ranks.
inline constexpr int64_t kMaxDevices = int64_t{1} << 20;

struct Placement {
  std::vector<int> callRank;    // per kernel call
  std::vector<int> blockOwner;  // per output block
};

enum class PlacementRule { Canonical, Matched };

const char* placementRuleName(PlacementRule rule);  // "canonical" | "matched"

// The matched rule solves the assignment problem exactly up to this many calls per node.
inline constexpr int64_t kExactAssignmentCalls = 256;

// `onCluster`: the ranks span several nodes (the partial sums of a block go to
// consecutive ranks).
Placement canonicalPlacement(const CallGeometry& geometry, bool onCluster = false);

// The rank owning output block `block` under the canonical rule (aggParts: the node's
// aggregation parts).
inline int64_t canonicalOwner(int64_t block, int64_t aggParts, bool onCluster) { return onCluster ? block * aggParts : block; }

// Owners from call ranks: each output block goes to the rank of its call with the lowest
// aggregation coordinate.
std::vector<int> ownersOfBlocks(const CallGeometry& geometry, const std::vector<int>& callRank);

// Where an operand's producer keeps its output blocks (absent for graph inputs, which
// every rank makes where it needs them).
struct ProducerBlocks {
  einrt::BlockGrid grid;
  std::vector<int> owner;  // per block
};

// The matched rule's view of the machine: its nodes and how many intra-node elements one
// inter-node element is worth (1 on one node).
struct LinkWeights {
  einrt::RankNodes nodes;
  int64_t interNodeWeight = 1;
};

Placement matchedPlacement(const CallGeometry& geometry, const std::vector<std::optional<ProducerBlocks>>& producers,
                           int64_t devices, const LinkWeights& links = {});

// Checks a placement written by hand (a plan file): one rank per call, each in
// [0, devices). Returns "" or what is wrong.
std::string placementProblem(const std::vector<int64_t>& callRank, int64_t calls, int64_t devices);

}  // namespace eindecomp
