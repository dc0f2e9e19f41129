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

// A node's output element and block sizes at its type, and whether it is a graph output
// (resident).
struct NodeOutput {
  int64_t elementBytes = 0, blockBytes = 0;
  bool isOutput = false;
};

NodeOutput nodeOutput(const ProgramTables& t, const NodeModel& nm, std::size_t i, int64_t E) {
  const TensorTable& output = t.tensors[static_cast<std::size_t>(t.nodes[i].outputTensor)];
  const auto outE = static_cast<int64_t>(output.elementBytes(static_cast<std::size_t>(E)));
  return {outE, mul(nm.geometry->outputGrid.blockElements(), outE), output.isOutput};
}

// The bytes of one block of node i's operand k, at the operand tensor's type.
int64_t operandBlockBytes(const ProgramTables& t, const NodeModel& nm, std::size_t i, std::size_t k, int64_t E) {
  const TensorTable& tensor = t.tensors[static_cast<std::size_t>(t.nodes[i].operandTensor[k])];
  return mul(nm.geometry->operandGrid[k].blockElements(), static_cast<int64_t>(tensor.elementBytes(static_cast<std::size_t>(E))));
}

// Calls f(rank, bytes) for every finished output block of node i: the owned blocks where
// it aggregates onto owners, else the blocks its calls write (none for scratch members;
// the partials of a node reduced at read).
template <class F>
void forEachFinished(const ProgramTables& t, const NodeModel& nm, std::size_t i, int64_t blockBytes, F&& f) {
  if (nm.aggregatesOntoOwners()) {
    for (int o : t.nodes[i].blockOwner) f(o, blockBytes);
  } else if (!nm.scratch) {
    for (const auto& [rank, block] : *nm.writes) f(rank, blockBytes);
  }
}

// What stays for the whole run: every graph input's blocks (once per input copy), and
// every graph output's finished blocks; also each node's graph-input blocks on its
// busiest rank.
RankBytes residentInputsAndOutputs(const ProgramTables& t, const ProgramModel& m, std::size_t P, int64_t E,
                                   std::vector<int64_t>& nodeResidentInputBytes) {
  RankBytes resident(P, 0), inputs(P, 0);
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const NodeTable& n = t.nodes[i];
    const NodeModel& nm = m.nodes[i];
    for (std::size_t k = 0; k < n.operandTensor.size(); ++k) {
      if (t.tensors[static_cast<std::size_t>(n.operandTensor[k])].producer >= 0) continue;
      // A split input's blocks are held once per micro-batch (program_model.h).
      const bool split = t.tensors[static_cast<std::size_t>(n.operandTensor[k])].splitDimension >= 0;
      const int64_t blockBytes = mul(operandBlockBytes(t, nm, i, k, E), split ? std::max<int64_t>(1, t.microBatches) : 1);
      std::fill(inputs.begin(), inputs.end(), 0);
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
      nodeResidentInputBytes[i] = add(nodeResidentInputBytes[i], *std::max_element(inputs.begin(), inputs.end()));
    }
    const NodeOutput out = nodeOutput(t, nm, i, E);
    if (out.isOutput) forEachFinished(t, nm, i, out.blockBytes, [&](int rank, int64_t bytes) { add(resident, rank, bytes); });
  }
  return resident;
}

// What node i allocates when its step begins (`step`) and, of that, what goes when the
// step ends (`transient`): copies of the operands it reads, its finished output (a graph
// output's is resident instead), its partials where it aggregates, its GEMM scratch. An
// accumulated node's run (`run`, program_model.h's runOfStep) allocates its partials in
// its first run (transient in its last), its owned blocks in its last, and fresh blocks
// for its results in every run after the first; a node that outlives the micro-batches
// makes its finished blocks in the first (`laterMicroBatch`: this is not it). `runs`: P
// zeros, left so.
void addStepAllocations(const ProgramTables& t, const ProgramModel& m, std::size_t i, int64_t E, RunOfStep run,
                        bool laterMicroBatch, RankBytes& step, RankBytes& transient, std::vector<char>& runs) {
  const NodeTable& n = t.nodes[i];
  const NodeModel& nm = m.nodes[i];
  if (n.runsOnce && laterMicroBatch) return;  // run in the first micro-batch only (program_model.h)
  for (std::size_t k = 0; k < n.operandTensor.size(); ++k) {
    if (t.tensors[static_cast<std::size_t>(n.operandTensor[k])].producer < 0 || nm.inPlace[k]) continue;
    if (nm.sharesCopyOf[k].node >= 0) continue;  // an earlier operand's copy (output copies)
    // A kept copy of an invariant run once: received in the first micro-batch, gone after the last.
    if (nm.copyKept[k] && laterMicroBatch) continue;
    // A copy a later step's operand shares goes when that step ends (StepModel::copyReleases).
    const bool goes = !nm.copyKept[k] && m.nodes[static_cast<std::size_t>(nm.copyKeptUntil[k])].step == nm.step;
    const int64_t blockBytes = operandBlockBytes(t, nm, i, k, E);
    for (const auto& [rank, block] : *nm.reads[k]) {
      add(step, rank, blockBytes);
      if (goes) add(transient, rank, blockBytes);
    }
  }
  const NodeOutput out = nodeOutput(t, nm, i, E);
  const bool aggregates = nm.aggregatesOntoOwners();
  if (!out.isOutput && (aggregates ? run.last : run.first) && !(nm.outlivesMicroBatches && laterMicroBatch))
    forEachFinished(t, nm, i, out.blockBytes, [&](int rank, int64_t bytes) { add(step, rank, bytes); });
  // The blocks its calls write: an aggregating node's partials (made in its first run, gone
  // once aggregated in its last), and a later run's fresh blocks (gone when it ends). (A
  // node reduced at read: its partials are its finished blocks, above.)
  const int64_t made = (aggregates && run.first ? 1 : 0) + (run.first ? 0 : 1);
  const int64_t gone = (aggregates && run.last ? 1 : 0) + (run.first ? 0 : 1);
  if (!nm.scratch && (made || gone))
    for (const auto& [rank, block] : *nm.writes) {
      add(step, rank, mul(made, out.blockBytes));
      add(transient, rank, mul(gone, out.blockBytes));
    }
  if (nm.gemmScratchBytes) {
    const int64_t scratch = nm.gemmScratchBytes;
    for (int r : n.callRank) {
      if (runs[static_cast<std::size_t>(r)]) continue;
      runs[static_cast<std::size_t>(r)] = 1;
      add(step, r, scratch);
      add(transient, r, scratch);
    }
    for (int r : n.callRank) runs[static_cast<std::size_t>(r)] = 0;
  }
}

}  // namespace

// Two passes over the nodes, each holding O(ranks): what stays for the whole run, then
// the run step by step, each step's allocations summed as it comes (a table of every
// node's allocations per rank was nodes x ranks: 700 MB for LLaMA-65B at p = 16,384).
MemoryTimeline memoryTimeline(const ProgramTables& t, const ProgramModel& m, int ranks, int64_t elementBytes,
                              const std::vector<int64_t>& extra) {
  const auto P = static_cast<std::size_t>(ranks);
  const int64_t E = elementBytes;
  const std::size_t count = t.nodes.size();
  MemoryTimeline out;
  out.tileWorkspaceBytesPerRank.assign(P, 0);
  out.nodeLiveBytes.assign(count, 0);
  out.nodeResidentInputBytes.assign(count, 0);
  RankBytes resident = residentInputsAndOutputs(t, m, P, E, out.nodeResidentInputBytes);
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

  // The run, step by step: the body once per micro-batch, then the once-per-step nodes
  // (program_model.h). Micro-batches 1 .. M - 2 start from the same holdings and allocate
  // alike, so micro-batch 1 stands for them all: the walk is at most three passes long.
  RankBytes current = std::move(resident);
  RankBytes peak = current;
  RankBytes step(P, 0), transient(P, 0);
  std::vector<char> runs(P, 0);
  // What a step's end (or the last micro-batch's) releases: received copies that later
  // operands shared, and node outputs (not graph outputs) whose last reader ran.
  auto release = [&](const std::vector<OperandCopy>& copies, const std::vector<int>& outputs) {
    for (const OperandCopy& c : copies) {
      const NodeModel& holder = m.nodes[static_cast<std::size_t>(c.node)];
      const auto k = static_cast<std::size_t>(c.operand);
      const int64_t blockBytes = operandBlockBytes(t, holder, static_cast<std::size_t>(c.node), k, E);
      for (const auto& [rank, block] : *holder.reads[k]) current[static_cast<std::size_t>(rank)] -= blockBytes;
    }
    for (int dead : outputs) {
      const auto d = static_cast<std::size_t>(dead);
      const NodeOutput finished = nodeOutput(t, m.nodes[d], d, E);
      if (!finished.isOutput)
        forEachFinished(t, m.nodes[d], d, finished.blockBytes, [&](int rank, int64_t bytes) { current[static_cast<std::size_t>(rank)] -= bytes; });
    }
  };
  auto walk = [&](const StepModel& s, int64_t microBatch) {
    std::fill(step.begin(), step.end(), 0);
    std::fill(transient.begin(), transient.end(), 0);
    for (int i = s.first; i <= s.last; ++i)
      addStepAllocations(t, m, static_cast<std::size_t>(i), E,
                         runOfStep(t, static_cast<std::size_t>(i), microBatch), microBatch > 0, step, transient, runs);
    int64_t live = 0;
    for (std::size_t r = 0; r < P; ++r) {
      current[r] = add(current[r], step[r]);
      peak[r] = std::max(peak[r], current[r]);
      live = std::max(live, current[r]);
      current[r] -= transient[r];
    }
    for (int i = s.first; i <= s.last; ++i)
      out.nodeLiveBytes[static_cast<std::size_t>(i)] = std::max(out.nodeLiveBytes[static_cast<std::size_t>(i)], live);
    release(s.copyReleases, s.releases);
  };
  const auto body = static_cast<int>(bodyEnd(t));
  const int64_t M = std::max<int64_t>(1, t.microBatches);
  std::vector<int64_t> passes{0};
  if (M >= 3) passes.push_back(1);
  if (M >= 2) passes.push_back(M - 1);
  for (int64_t microBatch : passes)
    for (const StepModel& s : m.steps)
      if (s.first < body) walk(s, microBatch);
  // The last micro-batch's end: invariants run once and their kept copies go.
  release(m.bodyEndCopyReleases, m.bodyEndReleases);
  for (const StepModel& s : m.steps)
    if (s.first >= body) walk(s, 0);
  out.peakBytesPerRank = std::move(peak);
  return out;
}

}  // namespace einrt::model
