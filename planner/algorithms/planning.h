// Planning: every algorithm of SPEC 4 is a function Graph x PlanOptions -> Plan.
//   eindecomp  the EinDecomp dynamic program (exact on in-trees; DAGs: see eindecomp.cpp)
//   uniform    the paper's "SQRT" baseline: p's prime factors dealt round-robin over labels
//   balanced   size-aware: smallest prime factor to the label with the largest block extent
//   data       the first output label gets the largest divisor of p dividing its size
//   brute      exhaustive search (refuses above kBruteForceLimit combinations, exit 2)
//   fixed      every node pinned (from --plan), only costed
// Nodes must have 1 or 2 operands (n-ary nodes are split before planning); others are
// rejected with an InputError. --mem-limit removes partitions that do not fit (exit 3
// when a node has none left); pinned nodes keep exactly their pinned partition.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "planner/algorithms/plan.h"
#include "planner/graph/graph.h"
#include "planner/partition/partition.h"

namespace eindecomp {

// brute refuses search spaces with more combinations of node partitions than this.
inline constexpr double kBruteForceLimit = 2e6;

struct PlanOptions {
  int64_t devices = 1;
  std::optional<int64_t> memLimitBytes;   // per-device peak (bytes_per_device) allowed
  std::map<std::string, Parts> pinned;    // node name -> partition over iterationLabels (validated)
  std::size_t partitionLimit = kDefaultPartitionLimit;
  double bruteLimit = kBruteForceLimit;
  // eindecomp enumerates the output layouts of multi-consumer nodes exactly while
  // (combinations x work of one DP) stays within this budget; 0 forces the heuristic.
  double exactWorkBudget = 3e8;
};

// The algorithm names accepted by planGraph, in the order `compare` shows them.
const std::vector<std::string>& algorithmNames();

// Dispatches on `algorithm`; an unknown name is an InputError (exit 2).
Plan planGraph(const std::string& algorithm, const Graph& g, const PlanOptions& options);

Plan planEindecomp(const Graph& g, const PlanOptions& options);
Plan planUniform(const Graph& g, const PlanOptions& options);
Plan planBalanced(const Graph& g, const PlanOptions& options);
Plan planData(const Graph& g, const PlanOptions& options);
Plan planBrute(const Graph& g, const PlanOptions& options);
Plan planFixed(const Graph& g, const PlanOptions& options);

// The per-node rules of the baselines (SPEC 4), over a node's label sizes in label order.
Parts uniformPartition(const std::vector<int64_t>& sizes, int64_t p);
Parts balancedPartition(const std::vector<int64_t>& sizes, int64_t p);
Parts dataPartition(const NodeSpace& space, int64_t p);

}  // namespace eindecomp
