#include "planner/cost/memory.h"

#include <algorithm>
#include <functional>
#include <utility>

#include <einrt/block_grid.h>
#include <einrt/program/fused_tiles.h>

#include "planner/cost/checked_math.h"
#include "planner/cost/traffic.h"
#include "planner/graph/graph_index.h"
#include "planner/partition/call_geometry.h"
#include "planner/paths/gemm_mapping.h"

namespace eindecomp {

namespace {

using RankBytes = std::vector<int64_t>;  // indexed by rank

const char* kWhat = "peak memory";

// Distinct (rank, block) pairs of the calls' reads of one tensor grid.
std::vector<std::pair<int, int64_t>> readsByRank(const std::vector<int64_t>& callBlock, const std::vector<int>& callRank) {
  std::vector<std::pair<int, int64_t>> reads;
  reads.reserve(callBlock.size());
  for (std::size_t c = 0; c < callBlock.size(); ++c) reads.emplace_back(callRank[c], callBlock[c]);
  std::sort(reads.begin(), reads.end());
  reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
  return reads;
}

void add(RankBytes& v, int rank, int64_t bytes) {
  int64_t& x = v[static_cast<std::size_t>(rank)];
  x = checkedAdd(x, bytes, kWhat);
}

// Pack-buffer needs of one collective, folded into the budgets (see memory.h).
void foldStaging(const RankBytes& sent, const RankBytes& received, const RankBytes& kept, MemoryPlan& m) {
  for (std::size_t r = 0; r < sent.size(); ++r) {
    m.stagingSendBytesPerRank[r] = std::max(m.stagingSendBytesPerRank[r], checkedAdd(sent[r], kept[r], kWhat));
    m.stagingRecvBytesPerRank[r] =
        std::max(m.stagingRecvBytesPerRank[r], checkedAdd(checkedAdd(received[r], sent[r], kWhat), kept[r], kWhat));
  }
}

int64_t product(const std::vector<int>& dims, const std::vector<int64_t>& extent) {
  int64_t n = 1;
  for (int d : dims) n *= extent[static_cast<std::size_t>(d)];
  return n;
}

// Per-thread scratch-tile bytes of a fused group on any rank that runs it (fused_tiles.h,
// the executor's FusedGroup computes the same).
int64_t groupWorkspaceBytes(const std::vector<NodeSpace>& spaces, const Plan& plan, const Fusion& fusion, const FusionGroup& group,
                            int64_t elementBytes) {
  auto extentOf = [&](int m) {
    const NodeSpace& s = spaces[static_cast<std::size_t>(m)];
    const Parts& parts = plan.nodes[static_cast<std::size_t>(m)].parts;
    std::vector<int64_t> e;
    for (std::size_t l = 0; l < s.sizes.size(); ++l) e.push_back(s.sizes[l] / parts[l]);
    return e;
  };
  const NodeSpace& lead = spaces[static_cast<std::size_t>(group.first)];
  const int k = fusion.nodes[static_cast<std::size_t>(group.first)].tileDims;
  const std::vector<int64_t> leadExtent = extentOf(group.first);
  std::vector<int64_t> groupExtent;
  int64_t rows = 1;
  for (int q = 0; q < k; ++q) {
    groupExtent.push_back(leadExtent[static_cast<std::size_t>(lead.outputDims[static_cast<std::size_t>(q)])]);
    rows *= groupExtent.back();
  }
  std::vector<int64_t> tensorElements;
  for (int m = group.first; m <= group.last; ++m) {
    const NodeSpace& s = spaces[static_cast<std::size_t>(m)];
    const std::vector<int64_t> extent = extentOf(m);
    tensorElements.push_back(product(s.outputDims, extent));
    for (const auto& op : s.operandDims) tensorElements.push_back(product(op, extent));
  }
  const einrt::program::TileBox box =
      einrt::program::fusedTileBox(groupExtent, einrt::program::fusedRowBytes(tensorElements, static_cast<std::size_t>(elementBytes), rows), 1);
  int64_t elements = 0;
  for (int m = group.first; m <= group.last; ++m) {
    if (!fusion.nodes[static_cast<std::size_t>(m)].scratch) continue;
    const std::vector<int64_t> extent = extentOf(m);
    std::vector<int64_t> outputExtent;
    for (int d : spaces[static_cast<std::size_t>(m)].outputDims) outputExtent.push_back(extent[static_cast<std::size_t>(d)]);
    elements = checkedAdd(elements, einrt::program::fusedTileElements(outputExtent, k, box), kWhat);
  }
  return checkedMul(elements, elementBytes, kWhat);
}

// What one node adds to its step on every rank.
struct NodeMemory {
  RankBytes step, transient;                         // allocated at the step's start / released at its end
  std::vector<std::pair<int, int64_t>> finished;     // (rank, bytes) of its output, released after its last reader
};

}  // namespace

MemoryPlan memoryPlan(const Graph& g, const Plan& plan, const Fusion& fusion) {
  const auto P = static_cast<std::size_t>(plan.devices);
  const int64_t E = static_cast<int64_t>(dtypeSize(g.dtype));
  const GraphIndex index(g);
  const std::size_t count = g.nodes.size();
  MemoryPlan m;
  m.stagingSendBytesPerRank.assign(P, 0);
  m.stagingRecvBytesPerRank.assign(P, 0);
  m.tileWorkspaceBytesPerRank.assign(P, 0);
  m.nodeLiveBytes.assign(count, 0);
  m.nodeResidentInputBytes.assign(count, 0);
  RankBytes resident(P, 0);

  std::vector<bool> isOutput(count, false);
  for (const std::string& o : g.outputs) isOutput[static_cast<std::size_t>(index.nodeIndex(o))] = true;
  std::vector<int> lastReader(count);
  for (std::size_t i = 0; i < count; ++i) lastReader[i] = static_cast<int>(i);

  std::vector<NodeSpace> spaces;
  std::vector<CallGeometry> geometry;
  std::vector<NodeMemory> nodes(count);
  for (std::size_t i = 0; i < count; ++i) {
    const Node& n = g.nodes[i];
    const NodePlan& np = plan.nodes[i];
    const std::vector<int>& callRank = np.placement.callRank;
    spaces.push_back(nodeSpace(n));
    geometry.push_back(callGeometry(spaces.back(), np.parts));
    const CallGeometry& geo = geometry.back();
    NodeMemory& nm = nodes[i];
    nm.step.assign(P, 0);
    nm.transient.assign(P, 0);
    const bool fused = fusion.nodes[i].group >= 0;

    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      const einrt::BlockGrid& grid = geo.operandGrid[k];
      const int64_t blockBytes = checkedMul(grid.blockElements(), E, kWhat);
      const auto reads = readsByRank(geo.operandBlock[k], callRank);
      if (index.findInput(n.inputs[k])) {
        RankBytes inputs(P, 0);
        for (const auto& [rank, block] : reads) add(inputs, rank, blockBytes);
        for (std::size_t r = 0; r < P; ++r) resident[r] = checkedAdd(resident[r], inputs[r], kWhat);
        m.nodeResidentInputBytes[i] = checkedAdd(m.nodeResidentInputBytes[i], *std::max_element(inputs.begin(), inputs.end()), kWhat);
        continue;
      }
      const auto producer = static_cast<std::size_t>(index.nodeIndex(n.inputs[k]));
      lastReader[producer] = static_cast<int>(i);
      const CallGeometry& from = geometry[producer];
      const std::vector<int>& owner = plan.nodes[producer].placement.blockOwner;
      bool inPlace = from.outputGrid.parts == grid.parts;
      for (const auto& [rank, block] : reads) inPlace = inPlace && owner[static_cast<std::size_t>(block)] == rank;
      if (inPlace) continue;
      RankBytes sent(P, 0), received(P, 0);
      const BlockHomes homes(from.outputGrid, owner, plan.devices);
      for (const auto& [rank, block] : reads) {
        add(nm.step, rank, blockBytes);
        add(nm.transient, rank, blockBytes);
        // Received: the block but for the pieces this rank owns itself.
        int64_t local = 0;
        for (const int64_t* o = homes.ownedBegin(rank); o != homes.ownedEnd(rank); ++o)
          local += einrt::overlapElements(grid, block, from.outputGrid, *o);
        add(received, rank, checkedMul(grid.blockElements() - local, E, kWhat));
      }
      // Sent: each piece of a block goes to every rank reading it but its owner. The pieces
      // of a block are found once, however many ranks read it (a replicated operand read by
      // every rank would otherwise cost ranks x blocks overlap tests).
      std::vector<std::pair<int64_t, int>> readers;  // (block, rank), by block
      for (const auto& [rank, block] : reads) readers.emplace_back(block, rank);
      std::sort(readers.begin(), readers.end());
      std::vector<int64_t> readCount(static_cast<std::size_t>(grid.blockCount()), 0);
      for (const auto& [block, rank] : readers) ++readCount[static_cast<std::size_t>(block)];
      const bool uniform = std::adjacent_find(readCount.begin(), readCount.end(), std::not_equal_to<>()) == readCount.end();
      if (uniform) {
        // Every block read by the same number R of ranks: the consumer's blocks tile the
        // tensor, so each producer block o is read R times over, |o| elements each time,
        // less what its owner reads of it itself. O(ranks), where an all-to-all between
        // orthogonal layouts has ranks x ranks pieces.
        const int64_t times = readCount.empty() ? 0 : readCount[0];
        for (const auto& [rank, block] : reads)
          for (const int64_t* o = homes.ownedBegin(rank); o != homes.ownedEnd(rank); ++o)
            add(sent, rank, -checkedMul(einrt::overlapElements(grid, block, from.outputGrid, *o), E, kWhat));
        for (int64_t o = 0; o < from.outputGrid.blockCount(); ++o)
          add(sent, owner[static_cast<std::size_t>(o)], checkedMul(checkedMul(times, from.outputGrid.blockElements(), kWhat), E, kWhat));
        readers.clear();
      }
      for (std::size_t first = 0; first < readers.size();) {
        std::size_t last = first;
        while (last < readers.size() && readers[last].first == readers[first].first) ++last;
        const auto begin = readers.begin() + static_cast<std::ptrdiff_t>(first), end = readers.begin() + static_cast<std::ptrdiff_t>(last);
        const int64_t block = readers[first].first;
        einrt::forEachOverlap(grid, block, from.outputGrid, [&](int64_t o, int64_t elements) {
          const int sender = owner[static_cast<std::size_t>(o)];
          const int64_t receivers = static_cast<int64_t>(last - first) - (std::binary_search(begin, end, std::make_pair(block, sender)) ? 1 : 0);
          add(sent, sender, checkedMul(checkedMul(elements, receivers, kWhat), E, kWhat));
        });
        first = last;
      }
      foldStaging(sent, received, RankBytes(P, 0), m);
    }

    // The output: partial blocks where calls write, owned blocks when they aggregate.
    const int64_t outBlockBytes = checkedMul(geo.outputGrid.blockElements(), E, kWhat);
    const auto writes = readsByRank(geo.outputBlock, callRank);  // (rank, block) contributions
    const std::vector<int>& owner = np.placement.blockOwner;
    std::vector<int> contributors(owner.size(), 0);
    bool aggregates = false;
    for (const auto& [rank, block] : writes) ++contributors[static_cast<std::size_t>(block)];
    for (std::size_t b = 0; b < owner.size(); ++b) {
      const bool ownerWrites = std::binary_search(writes.begin(), writes.end(), std::make_pair(owner[b], static_cast<int64_t>(b)));
      aggregates = aggregates || contributors[b] > 1 || !ownerWrites;
    }
    RankBytes partial(P, 0), owned(P, 0);
    if (!(fused && fusion.nodes[i].scratch))
      for (const auto& [rank, block] : writes) add(partial, rank, outBlockBytes);
    if (aggregates) {
      for (int o : owner) add(owned, o, outBlockBytes);
      RankBytes sent(P, 0), received(P, 0), kept(P, 0);
      for (const auto& [rank, block] : writes) {
        const int o = owner[static_cast<std::size_t>(block)];
        if (rank == o) {
          add(kept, rank, outBlockBytes);
        } else {
          add(sent, rank, outBlockBytes);
          add(received, o, outBlockBytes);
        }
      }
      foldStaging(sent, received, kept, m);
    }
    const RankBytes& finished = aggregates ? owned : partial;
    for (std::size_t r = 0; r < P; ++r) {
      if (isOutput[i]) {
        resident[r] = checkedAdd(resident[r], finished[r], kWhat);
      } else {
        nm.step[r] = checkedAdd(nm.step[r], finished[r], kWhat);
        if (finished[r]) nm.finished.emplace_back(static_cast<int>(r), finished[r]);
      }
      if (aggregates) {
        nm.step[r] = checkedAdd(nm.step[r], partial[r], kWhat);
        nm.transient[r] = checkedAdd(nm.transient[r], partial[r], kWhat);
      }
    }

    // GEMM scratch: one block per permuted tensor, on every rank with calls.
    if (runsAsGemm(n)) {
      std::vector<int64_t> extent;
      for (std::size_t l = 0; l < np.parts.size(); ++l) extent.push_back(spaces.back().sizes[l] / np.parts[l]);
      const std::optional<GemmMapping> gm = mapContractionToGemm(n, extent);
      int64_t scratch = 0;
      if (gm && !gm->permX.empty()) scratch = checkedAdd(scratch, geo.operandGrid[0].blockElements(), kWhat);
      if (gm && !gm->permY.empty()) scratch = checkedAdd(scratch, geo.operandGrid[1].blockElements(), kWhat);
      if (gm && !gm->permZ.empty()) scratch = checkedAdd(scratch, geo.outputGrid.blockElements(), kWhat);
      scratch = checkedMul(scratch, E, kWhat);
      if (scratch) {
        std::vector<bool> runs(P, false);
        for (int r : callRank) runs[static_cast<std::size_t>(r)] = true;
        for (std::size_t r = 0; r < P; ++r)
          if (runs[r]) {
            add(nm.step, static_cast<int>(r), scratch);
            add(nm.transient, static_cast<int>(r), scratch);
          }
      }
    }
  }

  // Fused groups: one tile workspace per rank, the largest group it runs calls of.
  for (const FusionGroup& group : fusion.groups) {
    const int64_t bytes = groupWorkspaceBytes(spaces, plan, fusion, group, E);
    for (int r : plan.nodes[static_cast<std::size_t>(group.first)].placement.callRank)
      m.tileWorkspaceBytesPerRank[static_cast<std::size_t>(r)] = std::max(m.tileWorkspaceBytesPerRank[static_cast<std::size_t>(r)], bytes);
  }
  for (std::size_t r = 0; r < P; ++r) {
    resident[r] = checkedAdd(resident[r], m.tileWorkspaceBytesPerRank[r], kWhat);
    resident[r] = checkedAdd(resident[r], checkedAdd(m.stagingSendBytesPerRank[r], m.stagingRecvBytesPerRank[r], kWhat), kWhat);
  }
  m.residentBytesPerRank = resident;

  // The run, step by step.
  std::vector<std::vector<int>> releaseAfter(count);
  for (std::size_t i = 0; i < count; ++i) releaseAfter[static_cast<std::size_t>(lastReader[i])].push_back(static_cast<int>(i));
  RankBytes current = resident;
  RankBytes peak = resident;
  for (std::size_t first = 0; first < count;) {
    std::size_t last = first;
    if (fusion.nodes[first].group >= 0) last = static_cast<std::size_t>(fusion.groups[static_cast<std::size_t>(fusion.nodes[first].group)].last);
    for (std::size_t i = first; i <= last; ++i)
      for (std::size_t r = 0; r < P; ++r) current[r] = checkedAdd(current[r], nodes[i].step[r], kWhat);
    int64_t live = 0;
    for (std::size_t r = 0; r < P; ++r) {
      peak[r] = std::max(peak[r], current[r]);
      live = std::max(live, current[r]);
    }
    for (std::size_t i = first; i <= last; ++i) {
      m.nodeLiveBytes[i] = live;
      for (std::size_t r = 0; r < P; ++r) current[r] -= nodes[i].transient[r];
    }
    for (std::size_t i = first; i <= last; ++i)
      for (int dead : releaseAfter[i])
        for (const auto& [rank, bytes] : nodes[static_cast<std::size_t>(dead)].finished) current[static_cast<std::size_t>(rank)] -= bytes;
    first = last + 1;
  }
  m.peakBytesPerRank = peak;
  m.peakBytesPerDevice = *std::max_element(peak.begin(), peak.end());
  return m;
}

}  // namespace eindecomp
