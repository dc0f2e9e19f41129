#include "einrt/model/program_model.h"

#include "einrt/model/exchange_load.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <memory>
#include <stdexcept>
#include <unordered_map>
#include <utility>

namespace einrt::model {

namespace {

// The in-place rule: the producer writes the same grid, the operand is not read through a
// window, and every block read sits on the only rank that reads it (its owner).
bool readsInPlace(const CallGeometry& producer, const NodeTable& producerTable, const BlockGrid& grid,
                  const std::vector<RankBlock>& reads) {
  if (producer.outputGrid.parts != grid.parts || grid.windowed()) return false;
  for (const auto& [rank, block] : reads)
    if (producerTable.blockOwner[static_cast<std::size_t>(block)] != rank) return false;
  return true;
}

// The aggregation rule: some output block has several writers, or its owner writes none.
// (One pass over the distinct pairs: a block's owner writes it where the pair
// (owner, block) is among them. A search per block was most of building the model:
// LLaMA-65B at p = 16,384, 1.2 s of a plan's memory pricing, now 0.06 s.)
bool aggregatesPartials(const NodeTable& n, const std::vector<RankBlock>& writes) {
  std::vector<int> writers(n.blockOwner.size(), 0);
  std::vector<char> ownerWrites(n.blockOwner.size(), 0);
  for (const auto& [rank, block] : writes) {
    const auto b = static_cast<std::size_t>(block);
    ++writers[b];
    if (n.blockOwner[b] == rank) ownerWrites[b] = 1;
  }
  for (std::size_t b = 0; b < n.blockOwner.size(); ++b)
    if (writers[b] != 1 || !ownerWrites[b]) return true;
  return false;
}

// Bytes of the GEMM's permutation scratch: one block per tensor the mapping permutes, of
// that tensor's type.
int64_t gemmScratch(const ProgramTables& t, const NodeTable& n, const CallGeometry& g, std::size_t elementSize) {
  if (!n.gemm) return 0;
  auto bytes = [&](int tensor, int64_t elements) {
    return elements * static_cast<int64_t>(t.tensors[static_cast<std::size_t>(tensor)].elementBytes(elementSize));
  };
  int64_t total = 0;
  if (!n.gemm->permX.empty()) total += bytes(n.operandTensor[0], g.operandGrid[0].blockElements());
  if (!n.gemm->permY.empty()) total += bytes(n.operandTensor[1], g.operandGrid[1].blockElements());
  if (!n.gemm->permZ.empty()) total += bytes(n.outputTensor, g.outputGrid.blockElements());
  return total;
}

// Fused groups: consecutive nodes of one group number form a step; their scratch outputs
// and their geometry.
void formSteps(const ProgramTables& t, std::size_t elementSize, ProgramModel& m) {
  std::vector<bool> isOutput(t.nodes.size(), false);
  for (int o : t.outputs) {
    const int producer = t.tensors[static_cast<std::size_t>(o)].producer;
    if (producer >= 0) isOutput[static_cast<std::size_t>(producer)] = true;
  }
  std::vector<bool> scratch(t.nodes.size(), false);
  for (std::size_t i = 0; i < t.nodes.size();) {
    const int g = m.fused ? t.nodes[i].fusion.group : -1;
    std::size_t j = i;
    while (g >= 0 && j + 1 < t.nodes.size() && t.nodes[j + 1].fusion.group == g) ++j;
    StepModel step{static_cast<int>(i), static_cast<int>(j), {}, {}};
    if (j > i) {
      for (std::size_t k = i; k <= j; ++k) {
        scratch[k] = m.lastReader[k] <= static_cast<int>(j) && !isOutput[k];
        m.nodes[k].scratch = scratch[k];
        m.nodes[k].group = static_cast<int>(m.groups.size());
      }
      m.groups.push_back(fusedGroupGeometry(t, scratch, static_cast<int>(i), static_cast<int>(j), elementSize, 1));
    }
    for (std::size_t k = i; k <= j; ++k) m.nodes[k].step = static_cast<int>(m.steps.size());
    m.steps.push_back(std::move(step));
    i = j + 1;
  }
  for (std::size_t i = 0; i < t.nodes.size(); ++i)
    for (std::size_t k = 0; k < m.nodes[i].copyKeptUntil.size(); ++k) {
      if (m.nodes[i].copyKept[k]) {  // run once: kept to the end of the last micro-batch
        m.bodyEndCopyReleases.push_back({static_cast<int>(i), static_cast<int>(k)});
        continue;
      }
      const int step = m.nodes[static_cast<std::size_t>(m.nodes[i].copyKeptUntil[k])].step;
      if (step != m.nodes[i].step) m.steps[static_cast<std::size_t>(step)].copyReleases.push_back({static_cast<int>(i), static_cast<int>(k)});
    }
  const auto body = static_cast<int>(t.microBatches > 1 ? bodyEnd(t) : 0);
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    if (isOutput[i]) continue;
    if (t.nodes[i].runsOnce && m.lastReader[i] < body) m.bodyEndReleases.push_back(static_cast<int>(i));
    else m.steps[static_cast<std::size_t>(m.nodes[static_cast<std::size_t>(m.lastReader[i])].step)].releases.push_back(static_cast<int>(i));
  }
  // A step runs in the first micro-batch only where all of its nodes run once.
  for (const StepModel& s : m.steps)
    for (int i = s.first + 1; i <= s.last; ++i)
      if (t.nodes[static_cast<std::size_t>(i)].runsOnce != t.nodes[static_cast<std::size_t>(s.first)].runsOnce)
        throw std::logic_error("einrt: fused node " + t.nodes[static_cast<std::size_t>(i)].name +
                               " runs once per step with members that run per micro-batch, or the other way round");
}

// The input-copy rule: operands reading the same graph input through equal grids, none
// of them a window, share one copy of its blocks (the union of what their calls read).
void shareInputCopies(const ProgramTables& t, ProgramModel& m) {
  std::vector<std::vector<int>> copiesOf(t.tensors.size());  // per tensor: its copies
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    NodeModel& nm = m.nodes[i];
    nm.inputCopy.assign(nm.reads.size(), -1);
    for (std::size_t k = 0; k < nm.reads.size(); ++k) {
      const int tensor = t.nodes[i].operandTensor[k];
      const BlockGrid& grid = nm.geometry->operandGrid[k];
      if (t.tensors[static_cast<std::size_t>(tensor)].producer >= 0 || grid.windowed()) continue;
      int shared = -1;
      for (int c : copiesOf[static_cast<std::size_t>(tensor)]) {
        const InputCopy& copy = m.inputCopies[static_cast<std::size_t>(c)];
        if (m.nodes[static_cast<std::size_t>(copy.node)].geometry->operandGrid[static_cast<std::size_t>(copy.operand)].parts == grid.parts)
          shared = c;
      }
      if (shared < 0) {
        shared = static_cast<int>(m.inputCopies.size());
        m.inputCopies.push_back({tensor, static_cast<int>(i), static_cast<int>(k), {}});
        copiesOf[static_cast<std::size_t>(tensor)].push_back(shared);
      }
      std::vector<RankBlock>& reads = m.inputCopies[static_cast<std::size_t>(shared)].reads;
      std::vector<RankBlock> both;
      const std::vector<RankBlock>& mine = *nm.reads[k];
      both.reserve(reads.size() + mine.size());
      std::set_union(reads.begin(), reads.end(), mine.begin(), mine.end(), std::back_inserter(both));
      reads = std::move(both);
      nm.inputCopy[k] = shared;
    }
  }
}

}  // namespace

// With a call per rank (what the placement rules give) each pair goes to its rank's
// place, with no sort (the planner builds this model, and counts traffic, for every plan it
// prices).
std::vector<RankBlock> distinctPairs(const BlockNumbers& callBlock, const std::vector<int>& callRank) {
  std::vector<RankBlock> pairs;
  pairs.reserve(callBlock.size());
  const int ranks = callRank.empty() ? 0 : *std::max_element(callRank.begin(), callRank.end()) + 1;
  std::vector<int> callOfRank(static_cast<std::size_t>(ranks), -1);
  bool oneCallPerRank = true;
  for (std::size_t c = 0; c < callRank.size() && oneCallPerRank; ++c)
    oneCallPerRank = std::exchange(callOfRank[static_cast<std::size_t>(callRank[c])], static_cast<int>(c)) < 0;
  if (oneCallPerRank) {
    for (std::size_t r = 0; r < callOfRank.size(); ++r)
      if (const int c = callOfRank[r]; c >= 0) pairs.emplace_back(static_cast<int>(r), callBlock[static_cast<std::size_t>(c)]);
    return pairs;
  }
  for (std::size_t c = 0; c < callBlock.size(); ++c) pairs.emplace_back(callRank[c], callBlock[c]);
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}


std::vector<int> lastReaders(const ProgramTables& t) {
  std::vector<int> last(t.nodes.size());
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    last[i] = static_cast<int>(i);
    for (int tensor : t.nodes[i].operandTensor) {
      const int producer = t.tensors[static_cast<std::size_t>(tensor)].producer;
      if (producer >= 0) last[static_cast<std::size_t>(producer)] = static_cast<int>(i);
    }
  }
  return last;
}

namespace {

// The distinct (rank, block) pairs of a node's reads and writes, shared between nodes of
// one geometry whose calls run on the same ranks (a model's repeated layers, placed alike):
// each is p pairs per operand.
class SharedPairs {
 public:
  struct Pairs {
    std::vector<std::shared_ptr<const std::vector<RankBlock>>> reads;
    std::shared_ptr<const std::vector<RankBlock>> writes;
  };
  const Pairs& of(const std::shared_ptr<const CallGeometry>& geometry, const std::vector<int>& callRank) {
    std::vector<Kept>& kept = byGeometry_[geometry.get()];
    for (const Kept& k : kept)
      if (*k.callRank == callRank) return k.pairs;
    Pairs p;
    for (const BlockNumbers& blocks : geometry->operandBlock)
      p.reads.push_back(std::make_shared<const std::vector<RankBlock>>(distinctPairs(blocks, callRank)));
    p.writes = std::make_shared<const std::vector<RankBlock>>(distinctPairs(geometry->outputBlock, callRank));
    kept.push_back({&callRank, std::move(p)});
    return kept.back().pairs;
  }

 private:
  struct Kept {
    const std::vector<int>* callRank;  // the first node's, in the tables
    Pairs pairs;
  };
  std::unordered_map<const CallGeometry*, std::vector<Kept>> byGeometry_;
};

}  // namespace

std::size_t bodyEnd(const ProgramTables& t) {
  std::size_t end = 0;
  while (end < t.nodes.size() && !t.nodes[end].oncePerStep) ++end;
  return end;
}

namespace {

// The micro-batch rules the planner guarantees (program_model.h): the body first, no node
// of it reading one run once per step, accumulated nodes in the body.
void checkMicroBatches(const ProgramTables& t) {
  const std::size_t body = bodyEnd(t);
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const NodeTable& n = t.nodes[i];
    if (i >= body && !n.oncePerStep) throw std::logic_error("einrt: node " + n.name + " runs per micro-batch after the step's once-per-step nodes");
    if (n.accumulated && n.oncePerStep) throw std::logic_error("einrt: accumulated node " + n.name + " runs once per step");
    if (n.runsOnce && (n.oncePerStep || n.accumulated))
      throw std::logic_error("einrt: node " + n.name + " runs once in the first micro-batch but is accumulated or run after them");
    for (int k : n.operandTensor) {
      const TensorTable& operand = t.tensors[static_cast<std::size_t>(k)];
      if (n.runsOnce && (operand.splitDimension >= 0 || (operand.producer >= 0 && !t.nodes[static_cast<std::size_t>(operand.producer)].runsOnce)))
        throw std::logic_error("einrt: node " + n.name + " runs once in the first micro-batch but reads " + operand.name +
                               ", which changes with every micro-batch");
    }
    if (i >= body) continue;
    for (int k : n.operandTensor) {
      const int producer = t.tensors[static_cast<std::size_t>(k)].producer;
      if (producer >= 0 && (t.nodes[static_cast<std::size_t>(producer)].oncePerStep || t.nodes[static_cast<std::size_t>(producer)].accumulated))
        throw std::logic_error("einrt: node " + n.name + " runs per micro-batch but reads a once-per-step or accumulated node");
    }
  }
}

}  // namespace

ProgramModel buildProgramModel(const ProgramTables& t, std::size_t elementSize, bool fused,
                               std::vector<std::shared_ptr<const CallGeometry>> geometry, ModelDetail detail) {
  if (t.microBatches > 1) checkMicroBatches(t);
  ProgramModel m;
  m.fused = fused;
  m.lastReader = lastReaders(t);
  m.nodes.resize(t.nodes.size());
  SharedGeometries geometries;
  SharedPairs pairs;
  for (std::size_t i = 0; i < t.nodes.size() && detail == ModelDetail::Full; ++i) {
    const NodeTable& n = t.nodes[i];
    NodeModel& nm = m.nodes[i];
    nm.extent = blockExtent(n.sizes, n.parts);
    nm.geometry = geometry.size() == t.nodes.size() ? std::move(geometry[i]) : geometries.of(n, n.parts, aggregatedLabels(n));
    const SharedPairs::Pairs& shared = pairs.of(nm.geometry, n.callRank);
    nm.reads = shared.reads;
    nm.writes = shared.writes;
    for (std::size_t k = 0; k < n.operandTensor.size(); ++k) {
      const int producer = t.tensors[static_cast<std::size_t>(n.operandTensor[k])].producer;
      nm.inPlace.push_back(producer >= 0 && readsInPlace(*m.nodes[static_cast<std::size_t>(producer)].geometry,
                                                         t.nodes[static_cast<std::size_t>(producer)],
                                                         nm.geometry->operandGrid[k], *nm.reads[k]));
    }
    nm.aggregates = aggregatesPartials(n, *nm.writes);
    if (n.gemm) nm.gemm = gemmCallPlan(*n.gemm, n, nm.extent);
    nm.gemmScratchBytes = gemmScratch(t, n, *nm.geometry, elementSize);
  }
  if (detail == ModelDetail::Full) {
    shareInputCopies(t, m);
    std::vector<std::shared_ptr<const CallGeometry>> geometries;
    for (const NodeModel& nm : m.nodes) geometries.push_back(nm.geometry);
    std::vector<std::vector<OperandCopy>> copies = sharedOutputCopies(t, geometries);
    const std::vector<OperandCopy> reduced = partialsReducedAtRead(t, geometries, copies);
    for (std::size_t i = 0; i < t.nodes.size(); ++i) m.nodes[i].readsPartials.assign(m.nodes[i].reads.size(), false);
    for (std::size_t i = 0; i < t.nodes.size(); ++i)
      if (const OperandCopy& r = reduced[i]; r.node >= 0) {
        m.nodes[i].reducedBy = r;
        m.nodes[static_cast<std::size_t>(r.node)].readsPartials[static_cast<std::size_t>(r.operand)] = true;
      }
    const std::size_t body = t.microBatches > 1 ? bodyEnd(t) : 0;
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
      NodeModel& nm = m.nodes[i];
      nm.sharesCopyOf = std::move(copies[i]);
      nm.copyKeptUntil.assign(nm.reads.size(), static_cast<int>(i));
      nm.copyKept.assign(nm.reads.size(), false);
      for (std::size_t k = 0; k < nm.reads.size() && i < body; ++k) {
        const int producer = t.tensors[static_cast<std::size_t>(t.nodes[i].operandTensor[k])].producer;
        // (A window's copy too: its fill is written when it is first made. A reader run once
        // itself receives its copy once anyway.)
        nm.copyKept[k] = producer >= 0 && t.nodes[static_cast<std::size_t>(producer)].runsOnce && !t.nodes[i].runsOnce &&
                         !nm.inPlace[k] && nm.sharesCopyOf[k].node < 0;
      }
      for (std::size_t k = 0; k < nm.reads.size(); ++k)
        if (const OperandCopy& c = nm.sharesCopyOf[k]; c.node >= 0) {
          nm.inPlace[k] = false;
          m.nodes[static_cast<std::size_t>(c.node)].copyKeptUntil[static_cast<std::size_t>(c.operand)] = static_cast<int>(i);
        }
    }
  }
  const std::size_t body = t.microBatches > 1 ? bodyEnd(t) : 0;
  for (std::size_t i = 0; i < body; ++i)
    m.nodes[i].outlivesMicroBatches = !t.nodes[i].accumulated && (m.lastReader[i] >= static_cast<int>(body) || t.nodes[i].runsOnce);
  formSteps(t, elementSize, m);
  // A fused member reads another member's output in place and aggregates nothing (the
  // planner's fusion rules, planner/fusion/fusion.h): the executor relies on it.
  for (std::size_t i = 0; i < t.nodes.size() && fused && detail == ModelDetail::Full; ++i) {
    const NodeModel& nm = m.nodes[i];
    if (nm.group < 0) continue;
    const StepModel& step = m.steps[static_cast<std::size_t>(nm.step)];
    for (std::size_t k = 0; k < nm.reads.size(); ++k) {
      const int producer = t.tensors[static_cast<std::size_t>(t.nodes[i].operandTensor[k])].producer;
      if (producer >= step.first && producer < static_cast<int>(i) && !nm.inPlace[k])
        throw std::logic_error("einrt: fused node " + t.nodes[i].name + " would need to move " +
                               t.tensors[static_cast<std::size_t>(t.nodes[i].operandTensor[k])].name + " between ranks");
    }
    if (nm.aggregates) throw std::logic_error("einrt: fused node " + t.nodes[i].name + " aggregates between ranks");
  }
  return m;
}

namespace {

// An open output copy (sharedOutputCopies): its holder and its last reader so far.
struct OpenCopy {
  OperandCopy holder;
  int lastReader = 0;
  int inPlace = -1;  // whether the holder reads in place (then there is no copy): -1 not yet known
};

}  // namespace

std::vector<std::vector<OperandCopy>> sharedOutputCopies(const ProgramTables& t,
                                                         const std::vector<std::shared_ptr<const CallGeometry>>& geometry) {
  std::vector<std::vector<OperandCopy>> shares(t.nodes.size());
  std::vector<std::vector<OpenCopy>> open(t.tensors.size());  // per tensor, oldest first
  auto pairsOf = [&](const OperandCopy& o) {
    return distinctPairs(geometry[static_cast<std::size_t>(o.node)]->operandBlock[static_cast<std::size_t>(o.operand)],
                         t.nodes[static_cast<std::size_t>(o.node)].callRank);
  };
  // The same (rank, block) pairs: equal call by call, or as sets.
  auto sameReads = [&](const OperandCopy& a, const OperandCopy& b) {
    const auto& ga = geometry[static_cast<std::size_t>(a.node)]->operandBlock[static_cast<std::size_t>(a.operand)];
    const auto& gb = geometry[static_cast<std::size_t>(b.node)]->operandBlock[static_cast<std::size_t>(b.operand)];
    const auto& ra = t.nodes[static_cast<std::size_t>(a.node)].callRank;
    const auto& rb = t.nodes[static_cast<std::size_t>(b.node)].callRank;
    return (ga == gb && ra == rb) || pairsOf(a) == pairsOf(b);
  };
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const NodeTable& n = t.nodes[i];
    shares[i].assign(n.operandTensor.size(), {});
    for (std::size_t k = 0; k < n.operandTensor.size(); ++k) {
      const auto tensor = static_cast<std::size_t>(n.operandTensor[k]);
      const int producer = t.tensors[tensor].producer;
      const BlockGrid& grid = geometry[i]->operandGrid[k];
      if (producer < 0 || grid.windowed()) continue;
      const OperandCopy me{static_cast<int>(i), static_cast<int>(k)};
      std::vector<OpenCopy>& copies = open[tensor];
      // A body copy of an invariant run once is kept to the end of the last micro-batch:
      // shared at any distance (run once, program_model.h).
      const bool kept = t.microBatches > 1 && t.nodes[static_cast<std::size_t>(producer)].runsOnce;
      copies.erase(std::remove_if(copies.begin(), copies.end(),
                                  [&](const OpenCopy& c) {
                                    return !(kept && !t.nodes[static_cast<std::size_t>(c.holder.node)].oncePerStep) &&
                                           static_cast<int>(i) - c.lastReader > kCopyReach;
                                  }),
                   copies.end());
      bool shared = false;
      for (auto c = copies.rbegin(); c != copies.rend() && !shared; ++c) {
        const auto holder = static_cast<std::size_t>(c->holder.node);
        if (t.nodes[holder].oncePerStep != n.oncePerStep ||
            geometry[holder]->operandGrid[static_cast<std::size_t>(c->holder.operand)].parts != grid.parts || !sameReads(c->holder, me))
          continue;
        if (c->inPlace < 0) {
          const auto p = static_cast<std::size_t>(producer);
          c->inPlace = readsInPlace(*geometry[p], t.nodes[p], grid, pairsOf(c->holder)) ? 1 : 0;
        }
        shared = true;  // in place: so is this one, with nothing to share
        if (c->inPlace) break;
        shares[i][k] = c->holder;
        c->lastReader = static_cast<int>(i);
      }
      if (!shared) copies.push_back({me, static_cast<int>(i), -1});
    }
  }
  return shares;
}

namespace {

// Whether node a's partials are better reduced on the way into the reader's grid `read`
// (its distinct pairs `reads`) than aggregated onto their owners (`writes`: the calls'
// distinct pairs) and then repartitioned: fewer elements in all, and on each link a
// busiest rank's elements and messages at most those of the two phases' busiest ranks
// together, so that the exchange takes no longer than the two at any latency and
// bandwidth (the time model prices a phase by its busiest rank on each link).
bool reducedReadIsBetter(const ProgramTables& t, const NodeTable& a, const CallGeometry& ga, const std::vector<RankBlock>& writes,
                         const NodeTable& reader, const BlockGrid& read, const std::vector<RankBlock>& reads) {
  const BlockGrid& out = ga.outputGrid;
  const std::vector<std::vector<int>> holders = holdersByBlock(writes, out.blockCount());
  // The totals first: most candidates lose there (a reader of many blocks, each from
  // several holders), before any rank's load is kept.
  int64_t separate = 0, reducedTotal = 0;  // elements
  for (const auto& [rank, block] : writes)
    if (a.blockOwner[static_cast<std::size_t>(block)] != rank) separate += out.blockElements();
  forEachReducedPiece(read, reads, out, holders, [&](int rank, int64_t o, int64_t n, const std::vector<int>& h) {
    if (a.blockOwner[static_cast<std::size_t>(o)] != rank) separate += n;
    reducedTotal += n * (static_cast<int64_t>(h.size()) - (std::binary_search(h.begin(), h.end(), rank) ? 1 : 0));
  });
  if (reducedTotal >= separate) return false;
  int ranks = 0;
  for (int r : a.callRank) ranks = std::max(ranks, r + 1);
  for (int r : a.blockOwner) ranks = std::max(ranks, r + 1);
  for (int r : reader.callRank) ranks = std::max(ranks, r + 1);
  using G = ExchangeLoad::GroupedBy;
  const RankNodes nodes{t.ranksPerNode};
  ExchangeLoad aggregation(ranks, nodes, G::Sender), repartition(ranks, nodes, G::Receiver), reduced(ranks, nodes, G::Receiver);
  for (const auto& [rank, block] : writes)  // sorted by rank: grouped by sender
    if (const int owner = a.blockOwner[static_cast<std::size_t>(block)]; owner != rank) aggregation.add(rank, owner, out.blockElements());
  // `reads` are sorted by rank: grouped by receiver.
  forEachReducedPiece(read, reads, out, holders, [&](int rank, int64_t o, int64_t n, const std::vector<int>& h) {
    if (const int owner = a.blockOwner[static_cast<std::size_t>(o)]; owner != rank) repartition.add(owner, rank, n);
    for (int holder : h)
      if (holder != rank) reduced.add(holder, rank, n);
  });
  for (int link = 0; link < 2; ++link) {
    const ExchangeLoad::Busiest r = reduced.busiest(link), x = aggregation.busiest(link), y = repartition.busiest(link);
    if (r.elements > x.elements + y.elements || r.messages > x.messages + y.messages) return false;
  }
  return true;
}

// Whether every block of `read` lies inside one block of `partials` (its parts a multiple
// of theirs along every dimension): the reader's blocks split the holders' blocks, as a
// reduce-scatter's do, and each read meets one partial block (the rule stays O(ranks)).
bool nestedIn(const BlockGrid& read, const BlockGrid& partials) {
  for (std::size_t d = 0; d < read.dims(); ++d)
    if (read.parts[d] % partials.parts[d] != 0) return false;
  return true;
}

// The rule's answers, kept for nodes of one geometry, placement and reader alike (a
// model's repeated layers): the comparison walks every rank's pieces.
class ReducedReadChoices {
 public:
  template <class Decide>
  bool of(const CallGeometry* producer, const NodeTable& a, const CallGeometry* readerGeometry, const NodeTable& reader, int operand,
          Decide&& decide) {
    std::vector<Kept>& kept = byGeometry_[{producer, readerGeometry}];
    for (const Kept& k : kept)
      if (k.operand == operand && *k.a == a.callRank && *k.owner == a.blockOwner && *k.reader == reader.callRank) return k.better;
    kept.push_back({operand, &a.callRank, &a.blockOwner, &reader.callRank, decide()});
    return kept.back().better;
  }

 private:
  struct Kept {
    int operand;
    const std::vector<int>*a, *owner, *reader;  // the first nodes', in the tables
    bool better;
  };
  struct PairHash {
    std::size_t operator()(const std::pair<const CallGeometry*, const CallGeometry*>& k) const {
      return std::hash<const void*>()(k.first) * 31 + std::hash<const void*>()(k.second);
    }
  };
  std::unordered_map<std::pair<const CallGeometry*, const CallGeometry*>, std::vector<Kept>, PairHash> byGeometry_;
};

}  // namespace

std::vector<OperandCopy> partialsReducedAtRead(const ProgramTables& t,
                                               const std::vector<std::shared_ptr<const CallGeometry>>& geometry,
                                               const std::vector<std::vector<OperandCopy>>& copies) {
  std::vector<OperandCopy> reduced(t.nodes.size());
  if (t.partialsOnOwners) return reduced;
  std::vector<bool> isOutput(t.tensors.size(), false);
  for (int o : t.outputs) isOutput[static_cast<std::size_t>(o)] = true;
  std::vector<std::vector<OperandCopy>> readers(t.tensors.size());
  for (std::size_t i = 0; i < t.nodes.size(); ++i)
    for (std::size_t k = 0; k < t.nodes[i].operandTensor.size(); ++k)
      readers[static_cast<std::size_t>(t.nodes[i].operandTensor[k])].push_back({static_cast<int>(i), static_cast<int>(k)});
  const std::vector<int> last = lastReaders(t);
  ReducedReadChoices choices;
  for (std::size_t a = 0; a < t.nodes.size(); ++a) {
    const NodeTable& n = t.nodes[a];
    const CallGeometry& ga = *geometry[a];
    const auto out = static_cast<std::size_t>(n.outputTensor);
    // An accumulated node's sums are read once per step, after the last micro-batch: its
    // partials are held that long anyway, so its readers' distance does not matter.
    const bool accumulated = n.accumulated && t.microBatches > 1;  // (at M = 1 nothing is held to the step's end)
    if (isOutput[out] || readers[out].empty() || (!accumulated && last[a] - static_cast<int>(a) > kCopyReach)) continue;
    // Most nodes write each block once, on its owner: nothing to aggregate (a quick test first).
    bool local = true;
    for (std::size_t c = 0; c < n.callRank.size() && local; ++c)
      local = n.callRank[c] == n.blockOwner[static_cast<std::size_t>(ga.outputBlock[c])];
    if (local) continue;
    const OperandCopy first = readers[out][0];
    auto shares = [&](const OperandCopy& r) {
      const OperandCopy& c = copies[static_cast<std::size_t>(r.node)][static_cast<std::size_t>(r.operand)];
      return c.node == first.node && c.operand == first.operand;
    };
    if (!std::all_of(readers[out].begin() + 1, readers[out].end(), shares)) continue;
    const NodeTable& reader = t.nodes[static_cast<std::size_t>(first.node)];
    const BlockGrid& read = geometry[static_cast<std::size_t>(first.node)]->operandGrid[static_cast<std::size_t>(first.operand)];
    if ((reader.oncePerStep != n.oncePerStep && !accumulated) || read.windowed() || !nestedIn(read, ga.outputGrid)) continue;
    const auto* readerGeometry = geometry[static_cast<std::size_t>(first.node)].get();
    const bool better = choices.of(&ga, n, readerGeometry, reader, first.operand, [&] {
      const std::vector<RankBlock> reads = distinctPairs(readerGeometry->operandBlock[static_cast<std::size_t>(first.operand)], reader.callRank);
      const std::vector<RankBlock> writes = distinctPairs(ga.outputBlock, n.callRank);
      return !readsInPlace(ga, n, read, reads) && aggregatesPartials(n, writes) && reducedReadIsBetter(t, n, ga, writes, reader, read, reads);
    });
    if (better) reduced[a] = first;
  }
  return reduced;
}

std::vector<std::vector<int>> holdersByBlock(const std::vector<RankBlock>& pairs, int64_t blocks) {
  std::vector<std::vector<int>> holders(static_cast<std::size_t>(blocks));
  for (const auto& [rank, block] : pairs) holders[static_cast<std::size_t>(block)].push_back(rank);
  for (auto& h : holders) std::sort(h.begin(), h.end());
  return holders;
}

std::vector<int64_t> blocksOf(const std::vector<RankBlock>& pairs, int rank) {
  std::vector<int64_t> blocks;
  auto it = std::lower_bound(pairs.begin(), pairs.end(), RankBlock{rank, std::numeric_limits<int32_t>::min()});
  for (; it != pairs.end() && it->first == rank; ++it) blocks.push_back(it->second);
  return blocks;
}

std::vector<int64_t> ownedBlocks(const NodeTable& n, int rank) {
  std::vector<int64_t> blocks;
  for (std::size_t b = 0; b < n.blockOwner.size(); ++b)
    if (n.blockOwner[b] == rank) blocks.push_back(static_cast<int64_t>(b));
  return blocks;
}

}  // namespace einrt::model
