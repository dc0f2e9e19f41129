// The memory model (SPEC 3.2): the bytes each rank of the emitted program holds, predicted
// exactly — equal, byte for byte, to the high-water mark of the rank's einrt MemoryCounter
// (einrt/memory_counter.h) — by following the executor's schedule (the plan's node order,
// a fused group as one step) and its buffer rules (runtime/src/program/distributed.h):
//
//   resident, for the whole run:
//     graph inputs     every block of an input that a rank's calls read, per operand;
//     graph outputs    the finished blocks a rank holds (owned blocks when aggregating);
//     tile workspace   the largest fused group's scratch tiles the rank runs (one thread;
//                      each further thread adds as much again: fused_tiles.h);
//     staging          the pack buffers the plan budgets the rank (below);
//   per step, allocated when it begins:
//     operand copies   every block a rank's calls read of another node's output, unless
//                      read in place (same grid, each block only on its owner);
//     partials         the output blocks a rank's calls write (none for scratch members);
//     owned blocks     of an aggregating node, on their owners;
//     GEMM scratch     one block per operand a GEMM mapping permutes, on ranks with calls;
//   when the step ends, copies, aggregated partials and scratch go, and so does every
//   node output (not a graph output) whose last reader ran in the step.
//
// Staging is a budget, not a guess of einrt's transport: per rank, the largest over the
// program's collectives of what its pack buffers can need — send: the bytes it sends to
// other ranks (plus, in an aggregation, the partial blocks it keeps for itself); receive:
// the bytes it receives plus those it sends (an allgather stages its own contribution)
// plus that kept part. The program reserves exactly this and einrt refuses to grow past it.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/fusion/fusion.h"
#include "planner/graph/graph.h"
#include "planner/placement/plan.h"

namespace eindecomp {

struct MemoryPlan {
  std::vector<int64_t> peakBytesPerRank;           // with one thread per rank
  std::vector<int64_t> residentBytesPerRank;       // what stays for the whole run
  std::vector<int64_t> tileWorkspaceBytesPerRank;  // per thread
  std::vector<int64_t> stagingSendBytesPerRank, stagingRecvBytesPerRank;
  std::vector<int64_t> nodeLiveBytes;              // per node: live on the busiest rank during its step
  std::vector<int64_t> nodeResidentInputBytes;     // per node: its graph-input blocks on the busiest rank
  int64_t peakBytesPerDevice = 0;                  // max over ranks
};

// Throws InputError on 64-bit overflow.
MemoryPlan memoryPlan(const Graph& g, const Plan& plan, const Fusion& fusion);

}  // namespace eindecomp
