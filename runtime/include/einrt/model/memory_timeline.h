// What each rank of a program holds, step by step (SPEC 3.2): the buffer rules of the
// executor (runtime/src/program/distributed.h) applied to a program model, in bytes. The
// planner's memory model (planner/cost/memory.h) reports these figures, and the emitted
// program's allocator counter measures them; both read the same rules, here.
//
//   resident, for the whole run:
//     graph inputs     every block of an input that a rank's calls read, once per input
//                      copy (program_model.h: the operands reading it in one grid share);
//     graph outputs    the finished blocks a rank holds (owned blocks when aggregating);
//     tile workspace   the largest fused group's scratch tiles among the groups the rank
//                      runs calls of (one thread; each further thread adds as much again);
//     `extra`          what the caller adds per rank (the planner: the staging budget);
//   per step, allocated when it begins:
//     operand copies   every block a rank's calls read of another node's output, unless
//                      read in place;
//     partials         the output blocks a rank's calls write (none for scratch members);
//     owned blocks     of an aggregating node, on their owners;
//     GEMM scratch     one block per tensor the mapping permutes, on ranks with calls;
//   when the step ends, copies, aggregated partials and scratch go, and so does every
//   node output (not a graph output) whose last reader ran in the step;
//   micro-batches (program_model.h): a split input's blocks are resident once per
//   micro-batch; the body's steps run once per micro-batch, an accumulated node's
//   partials staying from its first run to its last (its later runs' fresh blocks go
//   when their step ends), an invariant run once only in the first, it and its kept
//   copies staying to the end of the last; then the once-per-step steps.
#pragma once

#include <cstdint>
#include <vector>

#include "einrt/model/program_model.h"

namespace einrt::model {

struct MemoryTimeline {
  std::vector<int64_t> peakBytesPerRank;           // with one thread per rank
  std::vector<int64_t> residentBytesPerRank;       // what stays for the whole run (extra included)
  std::vector<int64_t> tileWorkspaceBytesPerRank;  // per thread
  std::vector<int64_t> nodeLiveBytes;              // per node: live on the busiest rank during its step
  std::vector<int64_t> nodeResidentInputBytes;     // per node: its graph-input blocks on the busiest rank
};

// Throws std::overflow_error when a figure passes 64 bits.
MemoryTimeline memoryTimeline(const ProgramTables& t, const ProgramModel& m, int ranks, int64_t elementBytes,
                              const std::vector<int64_t>& extra);

}  // namespace einrt::model
