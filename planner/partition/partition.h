// Partitions of a node's iteration space (SPEC 2, the EinDecomp paper 4.4 and 8.1).
// A partition gives every iteration label of a node (iterationLabels(node): order of
// first appearance in the operands, then the output) a number of parts dividing the
// label's size; the node then runs as prod(parts) kernel calls. This unit describes a
// node's iteration space in positional form (label sizes, and for every operand and the
// output which iteration label each tensor dimension is: planner/graph/node_space.h) and enumerates the viable
// partitions for a device count p: every assignment whose product is exactly p, or,
// where none exists, the largest achievable count below p (the SPEC 2 fallback). It
// computes no costs (that is planner/cost).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "planner/graph/graph.h"
#include "planner/graph/node_space.h"

namespace eindecomp {

// Parts per iteration label, aligned with NodeSpace::labels.
using Parts = std::vector<int64_t>;


// Parts of a tensor's dimensions under a node partition: dims[k] -> parts[dims[k]].
Parts projectParts(const Parts& nodeParts, const std::vector<int>& dims);

// Enumeration stops after this many partitions per node (see docs/planner.md): with
// D labels and p = 2^N there are C(N+D-1, D-1) assignments, e.g. 3003 for N = 10,
// D = 6, so the bound only bites for many labels at very large p.
inline constexpr std::size_t kDefaultPartitionLimit = 50000;

struct ViablePartitions {
  int64_t devices = 1;        // the p asked for
  int64_t kernelCalls = 1;    // p, or the SPEC 2 fallback count when no partition reaches p
  bool fallback = false;      // kernelCalls < devices
  bool truncated = false;     // more partitions exist than `limit`; the list holds the first ones
  std::vector<Parts> partitions;  // lexicographic order of the parts vectors
};

// Every assignment of parts to labels with product exactly `count`, each part dividing
// its label's size, at most `limit` of them (lexicographic order).
std::vector<Parts> partitionsWithCount(const std::vector<int64_t>& sizes, int64_t count,
                                       std::size_t limit, bool* truncated = nullptr);

// The largest product of per-label divisors that does not exceed p (1 when p >= 1).
int64_t largestFeasibleCount(const std::vector<int64_t>& sizes, int64_t p);

// SPEC 2: the partitions with exactly p kernel calls, or with the largest feasible
// count below p when there are none. p must be positive.
ViablePartitions viablePartitions(const std::vector<int64_t>& sizes, int64_t p,
                                  std::size_t limit = kDefaultPartitionLimit);

// The prime factors of n in ascending order, with multiplicity (n >= 1).
std::vector<int64_t> primeFactors(int64_t n);

}  // namespace eindecomp
