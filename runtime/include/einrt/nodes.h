// Which node of a cluster a rank runs on (SPEC 9), the one rule the planner's traffic and
// time models and the emitted program's byte counters share: mpirun's default block
// mapping, ranks k*ranksPerNode .. (k+1)*ranksPerNode - 1 on node k. A byte between two
// ranks of one node crosses the intra-node link (NVLink, shared memory), any other byte
// the inter-node network. Header-only and dependency-free (the planner includes it too).
#pragma once

#include <cstdint>

namespace einrt {

struct RankNodes {
  int64_t ranksPerNode = 0;  // 0: one node holds every rank

  int64_t nodeOf(int64_t rank) const { return ranksPerNode > 0 ? rank / ranksPerNode : 0; }
  bool sameNode(int64_t a, int64_t b) const { return nodeOf(a) == nodeOf(b); }
  // Whether some pair of `ranks` ranks sits on different nodes.
  bool spansNodes(int64_t ranks) const { return ranksPerNode > 0 && ranks > ranksPerNode; }
};

}  // namespace einrt
