// The time estimate (SPEC 3 `--machine`, `--objective time`), formula by formula: the
// alpha-beta model of the tensor-relational-algebra paper (4.3) applied to the plan's
// real traffic, per rank. A node runs as phases, one after another (as the emitted
// program runs them): the repartition of each operand another node produced, its kernel
// calls, the aggregation of partial results. Its time is the sum of
//   phase(t)  = link(intra-node load, latency, bandwidth)
//             + link(inter-node load, inter_node_latency, inter_node_bandwidth)
//   link(l, a, b) = a * l.busiestMessages + l.busiestElements * dtype bytes / b
//               (0 when nothing crosses that link; on one node everything is intra-node)
//   compute   = calls on the busiest rank * per call:
//               FLOPs / flops (flops_f64 for f64)            for GEMM kernels,
//               (|X| + |Y| + |Z| blocks) bytes / memory_bandwidth  for the others
//               (FLOPs / flops when the machine gives no memory bandwidth)
// and a plan's time is the sum over its nodes. Every term is rounded to whole
// picoseconds, so the planner's search adds exactly the numbers reports print.
#pragma once

#include <cstdint>

#include "planner/cost/machine.h"
#include "planner/cost/traffic.h"
#include "planner/graph/graph.h"
#include "planner/partition/partition.h"

namespace eindecomp {

int64_t phasePicoseconds(const Machine& m, const Traffic& t, int64_t elementBytes);

// What one kernel call of a node does under a partition.
struct CallWork {
  int64_t flops = 0;
  int64_t elements = 0;  // of the operand and output blocks it touches
  bool gemm = false;  // runsAsGemm(node)
};

CallWork callWork(const Node& n, const NodeSpace& space, const Parts& parts, bool gemm);

int64_t computePicoseconds(const Machine& m, const CallWork& work, int64_t callsOnBusiestRank, DType dtype);

inline double picosecondsToSeconds(int64_t ps) { return static_cast<double>(ps) * 1e-12; }

}  // namespace eindecomp
