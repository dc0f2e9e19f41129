// The memory model (SPEC 3.2): the bytes each rank of the emitted program holds, predicted
// exactly — equal, byte for byte, to the high-water mark of the rank's einrt MemoryCounter
// (einrt/memory_counter.h). The buffer rules and the walk over the program's steps are
// einrt's (einrt/model/memory_timeline.h, on the program model the executor follows);
// this adds what only the plan knows, the staging budget:
//
// Staging is a budget, not a guess of einrt's transport: per rank, the largest over the
// program's collectives of what its pack buffers can need — send: the bytes it sends to
// other ranks (plus, in an aggregation, the partial blocks it keeps for itself); receive:
// the bytes it receives plus those it sends (an allgather stages its own contribution)
// plus that kept part. The program reserves exactly this and einrt refuses to grow past it.
// Staging is resident for the whole run.
#pragma once

#include <cstdint>
#include <vector>

#include <einrt/model/program_model.h>

#include "planner/graph/graph.h"

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

// A floor under every plan's peak on p ranks, known before any search: every element of a
// graph input some node reads, and of every graph output, is held by some rank for the
// whole run, so the busiest rank holds at least their bytes over p. Saturates instead of
// overflowing.
int64_t peakLowerBound(const Graph& g, int64_t devices);

// `model`: buildProgramModel(t, elementBytes, true) — the host program, fused groups as
// steps. Throws InputError on 64-bit overflow.
MemoryPlan memoryPlan(const einrt::model::ProgramTables& t, const einrt::model::ProgramModel& model, int devices,
                      int64_t elementBytes);

}  // namespace eindecomp
