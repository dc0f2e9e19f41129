#include "planner/cost/memory.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <utility>

#include <einrt/block_grid.h>
#include <einrt/model/memory_timeline.h>

#include "planner/cost/checked_math.h"
#include "planner/cost/traffic.h"
#include "planner/graph/graph_index.h"
#include "planner/graph/tensor_types.h"

namespace eindecomp {

namespace {

using RankBytes = std::vector<int64_t>;  // indexed by rank
using einrt::model::RankBlock;

const char* kWhat = "peak memory";

void add(RankBytes& v, int rank, int64_t bytes) {
  int64_t& x = v[static_cast<std::size_t>(rank)];
  x = checkedAdd(x, bytes, kWhat);
}

// What one collective sends, receives and keeps per rank: P zeros between collectives,
// held once for all of them (three fresh tables of P per edge were a second of page
// faults at p = 16,384).
struct CollectiveBytes {
  explicit CollectiveBytes(std::size_t P) : sent(P, 0), received(P, 0), kept(P, 0) {}
  RankBytes sent, received, kept;
};

// Pack-buffer needs of one collective, folded into the budgets (see memory.h); the
// tables are left zero.
void foldStaging(CollectiveBytes& c, MemoryPlan& m) {
  for (std::size_t r = 0; r < c.sent.size(); ++r) {
    m.stagingSendBytesPerRank[r] = std::max(m.stagingSendBytesPerRank[r], checkedAdd(c.sent[r], c.kept[r], kWhat));
    m.stagingRecvBytesPerRank[r] =
        std::max(m.stagingRecvBytesPerRank[r], checkedAdd(checkedAdd(c.received[r], c.sent[r], kWhat), c.kept[r], kWhat));
    c.sent[r] = c.received[r] = c.kept[r] = 0;
  }
}

// The repartition of a producer's finished blocks (`from`, owned by `owner`) into the
// blocks `reads` (distinct (rank, block) of `grid`): what each rank sends and receives.
void repartitionStaging(const einrt::BlockGrid& grid, const std::vector<RankBlock>& reads, const einrt::BlockGrid& from,
                        const std::vector<int>& owner, int devices, int64_t E, CollectiveBytes& c, MemoryPlan& m) {
  RankBytes &sent = c.sent, &received = c.received;
  const BlockHomes homes(from, owner, devices);
  // Received: the block but for the pieces this rank owns itself (`kept`, per read).
  std::vector<int64_t> kept;
  kept.reserve(reads.size());
  for (const auto& [rank, block] : reads) {
    int64_t local = 0;
    for (const int64_t* o = homes.ownedBegin(rank); o != homes.ownedEnd(rank); ++o)
      local += einrt::overlapElements(grid, block, from, *o);
    kept.push_back(local);
    add(received, rank, checkedMul(grid.readElements(block) - local, E, kWhat));  // a window's fill is not received
  }
  // Sent: each piece of a block goes to every rank reading it but its owner. The pieces
  // of a block are found once, however many ranks read it (a replicated operand read by
  // every rank would otherwise cost ranks x blocks overlap tests).
  std::vector<int64_t> readCount(static_cast<std::size_t>(grid.blockCount()), 0);
  for (const auto& [rank, block] : reads) ++readCount[static_cast<std::size_t>(block)];
  const bool uniform = !grid.windowed() && std::adjacent_find(readCount.begin(), readCount.end(), std::not_equal_to<>()) == readCount.end();
  std::vector<std::pair<int64_t, int>> readers;  // (block, rank), by block: where the blocks are not read alike
  if (!uniform) {
    for (const auto& [rank, block] : reads) readers.emplace_back(block, rank);
    std::sort(readers.begin(), readers.end());
  } else {
    // Every block read by the same number R of ranks: the consumer's blocks tile the
    // tensor, so each producer block o is read R times over, |o| elements each time,
    // less what its owner reads of it itself (what the reads kept). O(ranks), where an
    // all-to-all between orthogonal layouts has ranks x ranks pieces.
    const int64_t times = readCount.empty() ? 0 : readCount[0];
    for (std::size_t i = 0; i < reads.size(); ++i) add(sent, reads[i].first, -checkedMul(kept[i], E, kWhat));
    for (int64_t o = 0; o < from.blockCount(); ++o)
      add(sent, owner[static_cast<std::size_t>(o)], checkedMul(checkedMul(times, from.blockElements(), kWhat), E, kWhat));
  }
  for (std::size_t first = 0; first < readers.size();) {
    std::size_t last = first;
    while (last < readers.size() && readers[last].first == readers[first].first) ++last;
    const auto begin = readers.begin() + static_cast<std::ptrdiff_t>(first), end = readers.begin() + static_cast<std::ptrdiff_t>(last);
    const int64_t block = readers[first].first;
    einrt::forEachOverlap(grid, block, from, [&](int64_t o, int64_t elements) {
      const int sender = owner[static_cast<std::size_t>(o)];
      const int64_t receivers = static_cast<int64_t>(last - first) - (std::binary_search(begin, end, std::make_pair(block, sender)) ? 1 : 0);
      add(sent, sender, checkedMul(checkedMul(elements, receivers, kWhat), E, kWhat));
    });
    first = last;
  }
  foldStaging(c, m);
}

// `bytes` of partial results from rank `from` to rank `to`: kept where they are the same
// rank (summed in place), else sent by one and received by the other.
void transfer(CollectiveBytes& c, int from, int to, int64_t bytes) {
  if (from == to) {
    add(c.kept, to, bytes);
  } else {
    add(c.sent, from, bytes);
    add(c.received, to, bytes);
  }
}

// The repartition of a producer's partial blocks reduced at read (einrt's program model):
// each holder of a block sends its partial of every piece a reading rank needs, the
// reader's own partial kept (as in an aggregation).
void reducedReadStaging(const einrt::BlockGrid& grid, const std::vector<RankBlock>& reads, const einrt::BlockGrid& from,
                        const std::vector<std::vector<int>>& holders, int64_t E, CollectiveBytes& c, MemoryPlan& m) {
  einrt::model::forEachReducedPiece(grid, reads, from, holders, [&](int rank, int64_t, int64_t elements, const std::vector<int>& pieceHolders) {
    const int64_t bytes = checkedMul(elements, E, kWhat);
    for (int h : pieceHolders) transfer(c, h, rank, bytes);
  });
  foldStaging(c, m);
}

// The aggregation of a node's partial blocks onto their owners.
void aggregationStaging(const einrt::model::NodeTable& n, const einrt::model::NodeModel& nm, int64_t E, CollectiveBytes& c,
                        MemoryPlan& m) {
  const int64_t outBlockBytes = checkedMul(nm.geometry->outputGrid.blockElements(), E, kWhat);
  for (const auto& [rank, block] : *nm.writes) transfer(c, rank, n.blockOwner[static_cast<std::size_t>(block)], outBlockBytes);
  foldStaging(c, m);
}

}  // namespace

int64_t peakLowerBound(const Graph& g, int64_t devices) {
  const GraphIndex index(g);
  const std::vector<DType> types = nodeOutputTypes(g);
  double bytes = 0;  // in double: a sum of 63-bit figures
  auto add = [&](const std::vector<int64_t>& shape, double bytesPerElement) {
    double elements = 1;
    for (int64_t e : shape) elements *= static_cast<double>(e);
    bytes += elements * bytesPerElement;
  };
  for (const InputTensor& in : g.inputs)
    if (!index.consumers(in.name).empty()) add(in.shape, static_cast<double>(dtypeSize(inputType(g, in))));
  for (const std::string& o : g.outputs)
    add(index.tensorShape(o), static_cast<double>(dtypeSize(types[static_cast<std::size_t>(index.nodeIndex(o))])));
  const double perRank = std::ceil(bytes / static_cast<double>(std::max<int64_t>(1, devices)));
  return perRank >= 9.2e18 ? INT64_MAX : static_cast<int64_t>(perRank);
}

MemoryPlan memoryPlan(const einrt::model::ProgramTables& t, const einrt::model::ProgramModel& model, int devices,
                      int64_t elementBytes) {
  const auto P = static_cast<std::size_t>(devices);
  MemoryPlan m;
  m.stagingSendBytesPerRank.assign(P, 0);
  m.stagingRecvBytesPerRank.assign(P, 0);
  CollectiveBytes collective(P);
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const einrt::model::NodeTable& n = t.nodes[i];
    const einrt::model::NodeModel& nm = model.nodes[i];
    // Staging holds the elements moved at their tensor's type (einrt's TensorTable::elementBytes).
    auto bytesOf = [&](int tensor) {
      return static_cast<int64_t>(t.tensors[static_cast<std::size_t>(tensor)].elementBytes(static_cast<std::size_t>(elementBytes)));
    };
    for (std::size_t k = 0; k < n.operandTensor.size(); ++k) {
      const int producer = t.tensors[static_cast<std::size_t>(n.operandTensor[k])].producer;
      if (producer < 0 || nm.inPlace[k] || nm.sharesCopyOf[k].node >= 0) continue;  // (a shared copy: no repartition)
      const einrt::model::NodeModel& from = model.nodes[static_cast<std::size_t>(producer)];
      if (nm.readsPartials[k]) {
        const einrt::BlockGrid& partials = from.geometry->outputGrid;
        reducedReadStaging(nm.geometry->operandGrid[k], *nm.reads[k], partials,
                           einrt::model::holdersByBlock(*from.writes, partials.blockCount()), bytesOf(n.operandTensor[k]), collective, m);
        continue;
      }
      repartitionStaging(nm.geometry->operandGrid[k], *nm.reads[k], model.nodes[static_cast<std::size_t>(producer)].geometry->outputGrid,
                         t.nodes[static_cast<std::size_t>(producer)].blockOwner, devices, bytesOf(n.operandTensor[k]), collective, m);
    }
    if (nm.aggregatesOntoOwners()) aggregationStaging(n, nm, bytesOf(n.outputTensor), collective, m);
  }
  RankBytes staging(P, 0);
  for (std::size_t r = 0; r < P; ++r) staging[r] = checkedAdd(m.stagingSendBytesPerRank[r], m.stagingRecvBytesPerRank[r], kWhat);
  einrt::model::MemoryTimeline timeline;
  try {
    timeline = einrt::model::memoryTimeline(t, model, devices, elementBytes, staging);
  } catch (const std::overflow_error&) {
    throwCostOverflow(kWhat);
  }
  m.peakBytesPerRank = std::move(timeline.peakBytesPerRank);
  m.residentBytesPerRank = std::move(timeline.residentBytesPerRank);
  m.tileWorkspaceBytesPerRank = std::move(timeline.tileWorkspaceBytesPerRank);
  m.nodeLiveBytes = std::move(timeline.nodeLiveBytes);
  m.nodeResidentInputBytes = std::move(timeline.nodeResidentInputBytes);
  m.peakBytesPerDevice = *std::max_element(m.peakBytesPerRank.begin(), m.peakBytesPerRank.end());
  return m;
}

}  // namespace eindecomp
