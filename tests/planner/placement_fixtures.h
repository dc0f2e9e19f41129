// Fixtures shared by the placement and traffic tests and the time-floor tests: two small
// graphs (a chain with a reduction and a broadcast, and a batched contraction in f64),
// random partitions of a graph's nodes into at most p calls, and a cluster machine whose
// links differ in latency and bandwidth.
#pragma once

#include <random>
#include <vector>

#include "planner/cost/machine.h"
#include "planner/graph/graph.h"
#include "planner/partition/partition.h"

namespace eindecomp::testing {

inline const char* kChain = R"(
name: chain
inputs: {A: [12, 8], B: [8, 6], C: [6, 12]}
nodes:
  - {name: AB, einsum: "ij,jk->ik", inputs: [A, B]}
  - {name: ABC, einsum: "ik,kl->il", inputs: [AB, C]}
  - {name: M, einsum: "il->l", agg: max, inputs: [ABC]}
  - {name: D, einsum: "il,l->il", join: "x - y", inputs: [ABC, M]}
  - {name: T, einsum: "il,ik->lk", inputs: [D, AB]}
)";

inline const char* kBatched = R"(
name: batched
dtype: f64
inputs: {Q: [4, 6, 2], K: [4, 6, 2]}
nodes:
  - {name: S, einsum: "b q d, b k d -> b q k", inputs: [Q, K]}
  - {name: P, einsum: "b q k -> q b", agg: sum, inputs: [S]}
)";

// A partition of every node into at most `devices` calls, each part a divisor of its label.
inline std::vector<Parts> randomPartitions(const Graph& g, int64_t devices, std::mt19937& rng) {
  std::vector<Parts> parts;
  for (const Node& node : g.nodes) {
    Parts d;
    int64_t calls = 1;
    for (const int64_t size : iterationSizes(node)) {
      std::vector<int64_t> options;
      for (int64_t x = 1; x <= size; ++x)
        if (size % x == 0 && calls * x <= devices) options.push_back(x);
      d.push_back(options[rng() % options.size()]);
      calls *= d.back();
    }
    parts.push_back(d);
  }
  return parts;
}

// A cluster whose links differ (latency and bandwidth both), or one node.
inline Machine floorMachine(const einrt::RankNodes& nodes) {
  Machine m;
  m.latencySeconds = 3e-6, m.bandwidthBytesPerSecond = 300e9, m.flopsPerSecond = 1e12;
  if (nodes.ranksPerNode > 0) m.ranksPerNode = nodes.ranksPerNode;
  m.interNodeLatencySeconds = 6e-6, m.interNodeBandwidthBytesPerSecond = 25e9;
  return m;
}

}  // namespace eindecomp::testing
