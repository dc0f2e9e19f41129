#include "einrt/model/memory_timeline.h"

#include <algorithm>
#include <stdexcept>

namespace einrt::model {

namespace {

using RankBytes = std::vector<int64_t>;

int64_t add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw std::overflow_error("peak memory overflows 64-bit arithmetic");
  return r;
}

int64_t mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw std::overflow_error("peak memory overflows 64-bit arithmetic");
  return r;
}

void add(RankBytes& v, int rank, int64_t bytes) {
  int64_t& x = v[static_cast<std::size_t>(rank)];
  x = add(x, bytes);
}

// What one node adds to its step on every rank.
struct NodeMemory {
  RankBytes step, transient;                      // allocated at the step's start / released at its end
  std::vector<std::pair<int, int64_t>> finished;  // (rank, bytes) of its output, released after its last reader
};

}  // namespace

MemoryTimeline memoryTimeline(const ProgramTables& t, const ProgramModel& m, int ranks, int64_t elementBytes,
                              const std::vector<int64_t>& extra) {
  const auto P = static_cast<std::size_t>(ranks);
  const int64_t E = elementBytes;
  const std::size_t count = t.nodes.size();
  MemoryTimeline out;
  out.tileWorkspaceBytesPerRank.assign(P, 0);
  out.nodeLiveBytes.assign(count, 0);
  out.nodeResidentInputBytes.assign(count, 0);
  RankBytes resident(P, 0);
  std::vector<NodeMemory> nodes(count);
  for (std::size_t i = 0; i < count; ++i) {
    const NodeTable& n = t.nodes[i];
    const NodeModel& nm = m.nodes[i];
    NodeMemory& mem = nodes[i];
    mem.step.assign(P, 0);
    mem.transient.assign(P, 0);
    for (std::size_t k = 0; k < n.operandTensor.size(); ++k) {
      const TensorTable& tensor = t.tensors[static_cast<std::size_t>(n.operandTensor[k])];
      const int64_t blockBytes =
          mul(nm.geometry->operandGrid[k].blockElements(), static_cast<int64_t>(tensor.elementBytes(static_cast<std::size_t>(E))));
      if (tensor.producer < 0) {
        RankBytes inputs(P, 0);
        for (const auto& [rank, block] : *nm.reads[k]) add(inputs, rank, blockBytes);
        // Held once per input copy (program_model.h): counted at the copy's first reader,
        // for the blocks all of its readers read; a window's blocks are the operand's own.
        const int copy = nm.inputCopy.empty() ? -1 : nm.inputCopy[k];
        if (copy < 0) {
          for (std::size_t r = 0; r < P; ++r) resident[r] = add(resident[r], inputs[r]);
        } else if (const InputCopy& c = m.inputCopies[static_cast<std::size_t>(copy)]; c.node == static_cast<int>(i) &&
                                                                                        c.operand == static_cast<int>(k)) {
          for (const auto& [rank, block] : c.reads) add(resident, rank, blockBytes);
        }
        out.nodeResidentInputBytes[i] = add(out.nodeResidentInputBytes[i], *std::max_element(inputs.begin(), inputs.end()));
        continue;
      }
      if (nm.inPlace[k]) continue;
      for (const auto& [rank, block] : *nm.reads[k]) {
        add(mem.step, rank, blockBytes);
        add(mem.transient, rank, blockBytes);
      }
    }
    // The output: partial blocks where calls write, owned blocks when they aggregate, of
    // the output's element type (which the node's GEMM scratch has too).
    const TensorTable& output = t.tensors[static_cast<std::size_t>(n.outputTensor)];
    const auto outE = static_cast<int64_t>(output.elementBytes(static_cast<std::size_t>(E)));
    const int64_t outBlockBytes = mul(nm.geometry->outputGrid.blockElements(), outE);
    RankBytes partial(P, 0), owned(P, 0);
    if (!nm.scratch)
      for (const auto& [rank, block] : *nm.writes) add(partial, rank, outBlockBytes);
    if (nm.aggregates)
      for (int o : n.blockOwner) add(owned, o, outBlockBytes);
    const RankBytes& finished = nm.aggregates ? owned : partial;
    const bool isOutput = output.isOutput;
    for (std::size_t r = 0; r < P; ++r) {
      if (isOutput) {
        resident[r] = add(resident[r], finished[r]);
      } else {
        mem.step[r] = add(mem.step[r], finished[r]);
        if (finished[r]) mem.finished.emplace_back(static_cast<int>(r), finished[r]);
      }
      if (nm.aggregates) {
        mem.step[r] = add(mem.step[r], partial[r]);
        mem.transient[r] = add(mem.transient[r], partial[r]);
      }
    }
    if (nm.gemmScratchElements) {
      const int64_t scratch = mul(nm.gemmScratchElements, outE);
      std::vector<bool> runs(P, false);
      for (int r : n.callRank) runs[static_cast<std::size_t>(r)] = true;
      for (std::size_t r = 0; r < P; ++r)
        if (runs[r]) {
          add(mem.step, static_cast<int>(r), scratch);
          add(mem.transient, static_cast<int>(r), scratch);
        }
    }
  }
  // Fused groups: one tile workspace per rank, the largest group it runs calls of.
  for (const FusedGroupGeometry& group : m.groups) {
    const int64_t bytes = mul(group.workspaceElements, E);
    for (int r : t.nodes[static_cast<std::size_t>(group.first)].callRank)
      out.tileWorkspaceBytesPerRank[static_cast<std::size_t>(r)] = std::max(out.tileWorkspaceBytesPerRank[static_cast<std::size_t>(r)], bytes);
  }
  for (std::size_t r = 0; r < P; ++r) {
    resident[r] = add(resident[r], out.tileWorkspaceBytesPerRank[r]);
    if (r < extra.size()) resident[r] = add(resident[r], extra[r]);
  }
  out.residentBytesPerRank = resident;

  // The run, step by step.
  RankBytes current = resident;
  RankBytes peak = resident;
  for (const StepModel& step : m.steps) {
    for (int i = step.first; i <= step.last; ++i)
      for (std::size_t r = 0; r < P; ++r) current[r] = add(current[r], nodes[static_cast<std::size_t>(i)].step[r]);
    int64_t live = 0;
    for (std::size_t r = 0; r < P; ++r) {
      peak[r] = std::max(peak[r], current[r]);
      live = std::max(live, current[r]);
    }
    for (int i = step.first; i <= step.last; ++i) {
      out.nodeLiveBytes[static_cast<std::size_t>(i)] = live;
      for (std::size_t r = 0; r < P; ++r) current[r] -= nodes[static_cast<std::size_t>(i)].transient[r];
    }
    for (int dead : step.releases)
      for (const auto& [rank, bytes] : nodes[static_cast<std::size_t>(dead)].finished) current[static_cast<std::size_t>(rank)] -= bytes;
  }
  out.peakBytesPerRank = peak;
  return out;
}

}  // namespace einrt::model
