#include "distributed.h"

#include <set>
#include <stdexcept>

#include <einrt/input_generator.h>

namespace einrt::program::detail {

namespace {

Reduce reduceOf(Reduce r) { return r; }

std::vector<std::vector<int>> toVectors(const std::vector<std::set<int>>& sets) {
  std::vector<std::vector<int>> out;
  for (const auto& s : sets) out.emplace_back(s.begin(), s.end());
  return out;
}

template <class Buffers>
BlockMap blockMap(const Buffers& buffers) {
  BlockMap m;
  for (const auto& [b, buf] : buffers) m[static_cast<std::size_t>(b)] = buf.data();
  return m;
}

}  // namespace

template <class T>
DistributedProgram<T>::DistributedProgram(const ProgramSpec<T>& spec, Communicator& comm, const DeviceOps* device,
                                          int threads)
    : spec_(spec), comm_(comm), device_(device), threads_(threads) {
  options_.memory = spec.memory;
  options_.device = device;
}

template <class T>
void DistributedProgram<T>::setUp(uint64_t seed, const std::map<int, std::vector<T>>* rootInputs) {
  const int me = comm_.rank();
  const DType dtype = dtypeOf<T>();
  for (const NodeSpec<T>& n : spec_.nodes) {
    NodeState<T> ns;
    // Fused groups run on the host; on a device every member runs as its own node.
    const bool fused = !device_ && n.fusion.group >= 0;
    auto inGroup = [&](int producer) {
      return fused && producer >= 0 && spec_.nodes[static_cast<std::size_t>(producer)].fusion.group == n.fusion.group;
    };
    const int64_t calls = static_cast<int64_t>(n.callRank.size());
    std::vector<std::vector<int64_t>> cells;
    for (int64_t c = 0; c < calls; ++c) {
      cells.push_back(einrt::callCell(n.parts, c));
      if (n.callRank[static_cast<std::size_t>(c)] == me) ns.myCalls.push_back(c);
    }
    ns.outputGrid = einrt::tensorGrid(n.sizes, n.parts, n.outputLabels);
    std::vector<int64_t> extent;
    for (std::size_t l = 0; l < n.sizes.size(); ++l) extent.push_back(n.sizes[l] / n.parts[l]);
    ns.kernel = NodeKernel<T>(n, extent, device_, threads_, spec_.parallelFor, &comm_.memory());

    for (std::size_t k = 0; k < n.operandTensor.size(); ++k) {
      const TensorSpec& t = spec_.tensors[static_cast<std::size_t>(n.operandTensor[k])];
      const einrt::BlockGrid g = einrt::tensorGrid(n.sizes, n.parts, n.operandLabels[k]);
      std::vector<std::set<int>> holders(static_cast<std::size_t>(g.blockCount()));
      for (int64_t c = 0; c < calls; ++c)
        holders[static_cast<std::size_t>(einrt::blockOfCell(n.parts, n.operandLabels[k], cells[static_cast<std::size_t>(c)]))]
            .insert(n.callRank[static_cast<std::size_t>(c)]);
      // Read in place: the producer writes the same blocks and each already sits on the
      // only rank that reads it (decided from the tables alone, so every rank agrees).
      bool inPlace = false;
      if (t.producer >= 0) {
        const NodeState<T>& producer = nodes_[static_cast<std::size_t>(t.producer)];
        const NodeSpec<T>& ps = spec_.nodes[static_cast<std::size_t>(t.producer)];
        inPlace = producer.outputGrid.parts == g.parts;
        for (std::size_t b = 0; inPlace && b < holders.size(); ++b)
          inPlace = holders[b].empty() || (holders[b].size() == 1 && *holders[b].begin() == ps.blockOwner[b]);
      }
      if (inGroup(t.producer) && !inPlace)
        throw std::logic_error("einrt: fused node " + n.name + " would need to move " + t.name + " between ranks");
      std::map<int64_t, Buffer<T>> blocks;
      std::vector<int64_t> needed;
      std::unique_ptr<RedistributePlan> plan;
      if (!inPlace) {
        for (int64_t b = 0; b < g.blockCount(); ++b)
          if (holders[static_cast<std::size_t>(b)].count(me)) needed.push_back(b);
        // Graph inputs are made once and stay; copies of node outputs exist during the step.
        if (t.producer < 0)
          for (int64_t b : needed) blocks.emplace(b, block(static_cast<std::size_t>(g.blockElements())));
        const einrt::Layout need = einrt::Layout::grid(g.shape, g.parts, toVectors(holders));
        if (t.producer >= 0) {
          plan = std::make_unique<RedistributePlan>(planRedistribute(
              comm_, t.name, nodes_[static_cast<std::size_t>(t.producer)].outputLayout, need, dtype, options_));
        } else if (rootInputs) {
          RedistributePlan scatter = planScatter(comm_, t.name, 0, need, dtype, options_);
          Buffer<T> whole;
          BlockMap src;
          if (me == 0) {
            const std::vector<T>& host = rootInputs->at(n.operandTensor[k]);
            whole = Buffer<T>(host.size(), device_, nullptr);  // --inputs I/O, before the measured run
            whole.fromHost(host.data());
            src[0] = whole.data();
          }
          scatter.execute(src, blockMap(blocks));
        } else {
          std::vector<T> host(static_cast<std::size_t>(g.blockElements()));
          for (auto& [b, buf] : blocks) {
            einrt::fillInputBlock<T>(seed, t.name, g.shape, g.offset(b), g.blockShape(), host.data());
            buf.fromHost(host.data());
          }
        }
      }
      ns.operandGrid.push_back(g);
      ns.operandBlocks.push_back(std::move(blocks));
      ns.operandNeed.push_back(t.producer >= 0 ? needed : std::vector<int64_t>{});
      ns.inPlace.push_back(inPlace);
      ns.repartition.push_back(std::move(plan));
    }

    std::vector<std::set<int>> contributors(static_cast<std::size_t>(ns.outputGrid.blockCount()));
    for (int64_t c = 0; c < calls; ++c)
      contributors[static_cast<std::size_t>(einrt::blockOfCell(n.parts, n.outputLabels, cells[static_cast<std::size_t>(c)]))]
          .insert(n.callRank[static_cast<std::size_t>(c)]);
    std::vector<std::vector<int>> owners;
    bool aggregates = false;
    for (std::size_t b = 0; b < contributors.size(); ++b) {
      owners.push_back({n.blockOwner[b]});
      aggregates = aggregates || contributors[b].size() > 1 || !contributors[b].count(n.blockOwner[b]);
    }
    const TensorSpec& out = spec_.tensors[static_cast<std::size_t>(n.outputTensor)];
    ns.outputLayout = einrt::Layout::grid(out.shape, ns.outputGrid.parts, owners);
    const auto blockElems = static_cast<std::size_t>(ns.outputGrid.blockElements());
    if (fused && aggregates) throw std::logic_error("einrt: fused node " + n.name + " aggregates between ranks");
    for (std::size_t b = 0; b < contributors.size(); ++b)
      if (contributors[b].count(me) && !(fused && n.fusion.scratch)) ns.partialNeed.push_back(static_cast<int64_t>(b));
    if (fused)
      for (int64_t c : ns.myCalls)
        ns.callOfBlock[einrt::blockOfCell(n.parts, n.outputLabels, cells[static_cast<std::size_t>(c)])] = c;
    if (aggregates) {
      const einrt::Layout partial = einrt::Layout::grid(out.shape, ns.outputGrid.parts, toVectors(contributors),
                                                        Holding::Partial, reduceOf(n.agg));
      ns.aggregation = std::make_unique<RedistributePlan>(planRedistribute(comm_, out.name, partial, ns.outputLayout, dtype, options_));
      for (std::size_t b = 0; b < contributors.size(); ++b)
        if (n.blockOwner[b] == me) ns.ownedNeed.push_back(static_cast<int64_t>(b));
    }
    // Graph outputs stay from the start to the end of the run (written after it).
    ns.resident = out.isOutput;
    if (ns.resident)
      for (int64_t b : ns.aggregation ? ns.ownedNeed : ns.partialNeed) ns.finished().emplace(b, block(blockElems));
    nodes_.push_back(std::move(ns));
  }
  lastBytes_.assign(spec_.nodes.size(), SentBytes{});
  // A node output dies when the step of its last reader ends (its own step if none reads it).
  std::vector<int> lastReader(spec_.nodes.size());
  for (std::size_t i = 0; i < spec_.nodes.size(); ++i) {
    lastReader[i] = static_cast<int>(i);  // readers come later in node order
    for (int t : spec_.nodes[i].operandTensor) {
      const int producer = spec_.tensors[static_cast<std::size_t>(t)].producer;
      if (producer >= 0) lastReader[static_cast<std::size_t>(producer)] = static_cast<int>(i);
    }
  }
  for (std::size_t i = 0; i < spec_.nodes.size(); ++i)
    if (!nodes_[i].resident) nodes_[static_cast<std::size_t>(lastReader[i])].releaseAfter.push_back(static_cast<int>(i));
  if (device_) return;
  for (std::size_t i = 0; i < spec_.nodes.size();) {
    const int g = spec_.nodes[i].fusion.group;
    std::size_t j = i;
    while (g >= 0 && j + 1 < spec_.nodes.size() && spec_.nodes[j + 1].fusion.group == g) ++j;
    if (g >= 0) {
      groups_.push_back(std::make_unique<FusedGroup<T>>(spec_, static_cast<int>(i), static_cast<int>(j), threads_));
      for (std::size_t m = i; m <= j; ++m) {
        nodes_[m].group = static_cast<int>(groups_.size()) - 1;
        if (nodes_[m].callOfBlock.size() != nodes_[i].callOfBlock.size())
          throw std::logic_error("einrt: the members of fused group " + spec_.nodes[i].name + " run on different ranks");
      }
    }
    i = j + 1;
  }
  // One tile workspace for every group this rank runs calls of, held for the whole run.
  int64_t workspace = 0;
  for (const auto& group : groups_)
    if (!nodes_[static_cast<std::size_t>(group->first())].callOfBlock.empty())
      workspace = std::max(workspace, group->workspaceElements());
  workspace_ = block(static_cast<std::size_t>(workspace) * static_cast<std::size_t>(std::max(1, threads_)));
}

template <class T>
Buffer<T> DistributedProgram<T>::block(std::size_t elements) {
  return Buffer<T>(elements, device_, &comm_.memory());
}

template <class T>
void DistributedProgram<T>::beginStep(std::size_t first, std::size_t last) {
  for (std::size_t m = first; m <= last; ++m) {
    NodeState<T>& ns = nodes_[m];
    for (std::size_t k = 0; k < ns.operandNeed.size(); ++k)
      for (int64_t b : ns.operandNeed[k])
        ns.operandBlocks[k].emplace(b, block(static_cast<std::size_t>(ns.operandGrid[k].blockElements())));
    const auto blockElems = static_cast<std::size_t>(ns.outputGrid.blockElements());
    if (!ns.resident || ns.aggregation)
      for (int64_t b : ns.partialNeed) ns.partial.emplace(b, block(blockElems));
    if (!ns.resident)
      for (int64_t b : ns.ownedNeed) ns.owned.emplace(b, block(blockElems));
    if (!ns.myCalls.empty()) ns.kernel.acquire();
  }
}

template <class T>
void DistributedProgram<T>::endStep(std::size_t first, std::size_t last) {
  for (std::size_t m = first; m <= last; ++m) {
    NodeState<T>& ns = nodes_[m];
    for (std::size_t k = 0; k < ns.operandNeed.size(); ++k)
      if (!ns.operandNeed[k].empty()) ns.operandBlocks[k].clear();
    if (ns.aggregation) ns.partial.clear();
    ns.kernel.release();
  }
  for (std::size_t m = first; m <= last; ++m)
    for (int dead : nodes_[m].releaseAfter) nodes_[static_cast<std::size_t>(dead)].finished().clear();
}

template <class T>
int DistributedProgram<T>::fusedWith(std::size_t i) const {
  const int g = nodes_[i].group;
  return g < 0 ? -1 : groups_[static_cast<std::size_t>(g)]->first();
}

template <class T>
void DistributedProgram<T>::repartitionOperands(std::size_t i) {
  const NodeSpec<T>& n = spec_.nodes[i];
  NodeState<T>& ns = nodes_[i];
  for (std::size_t k = 0; k < ns.repartition.size(); ++k) {
    if (!ns.repartition[k]) continue;
    const int producer = spec_.tensors[static_cast<std::size_t>(n.operandTensor[k])].producer;
    ns.repartition[k]->execute(blockMap(nodes_[static_cast<std::size_t>(producer)].finished()), blockMap(ns.operandBlocks[k]));
  }
}

template <class T>
void DistributedProgram<T>::runGroup(FusedGroup<T>& group) {
  const auto first = static_cast<std::size_t>(group.first()), last = static_cast<std::size_t>(group.last());
  for (std::size_t m = first; m <= last; ++m) {
    const SentBytes before = sentSoFar();
    repartitionOperands(m);
    lastBytes_.at(m) = sentSince(before);
  }
  std::vector<typename FusedGroup<T>::MemberBlocks> blocks(last - first + 1);
  for (const auto& entry : nodes_[first].callOfBlock) {
    const int64_t b = entry.first;
    for (std::size_t m = first; m <= last; ++m) {
      const NodeSpec<T>& n = spec_.nodes[m];
      NodeState<T>& ns = nodes_[m];
      const std::vector<int64_t> cell = einrt::callCell(n.parts, ns.callOfBlock.at(b));
      auto& mb = blocks[m - first];
      for (std::size_t o = 0; o < n.operandTensor.size(); ++o) {
        const int producer = spec_.tensors[static_cast<std::size_t>(n.operandTensor[o])].producer;
        const bool scratch = producer >= static_cast<int>(first) && producer < static_cast<int>(m) &&
                             spec_.nodes[static_cast<std::size_t>(producer)].fusion.scratch;
        mb.operand[o] = scratch ? nullptr : operandBlock(m, o, einrt::blockOfCell(n.parts, n.operandLabels[o], cell));
      }
      mb.output = n.fusion.scratch ? nullptr : ns.partial.at(b).data();
    }
    group.run(blocks, workspace_.data());
  }
}

template <class T>
const T* DistributedProgram<T>::operandBlock(std::size_t node, std::size_t operand, int64_t block) {
  NodeState<T>& ns = nodes_[node];
  if (!ns.inPlace[operand]) return ns.operandBlocks[operand].at(block).data();
  const int producer = spec_.tensors[static_cast<std::size_t>(spec_.nodes[node].operandTensor[operand])].producer;
  return nodes_[static_cast<std::size_t>(producer)].finished().at(block).data();
}

template <class T>
void DistributedProgram<T>::runNode(std::size_t i) {
  const NodeSpec<T>& n = spec_.nodes[i];
  NodeState<T>& ns = nodes_[i];
  if (ns.group >= 0) {
    FusedGroup<T>& group = *groups_[static_cast<std::size_t>(ns.group)];
    if (static_cast<int>(i) != group.first()) return;
    const auto first = static_cast<std::size_t>(group.first()), last = static_cast<std::size_t>(group.last());
    beginStep(first, last);
    runGroup(group);
    endStep(first, last);
    return;
  }
  const SentBytes before = sentSoFar();
  beginStep(i, i);
  repartitionOperands(i);
  std::set<int64_t> written;
  for (int64_t c : ns.myCalls) {
    const std::vector<int64_t> cell = einrt::callCell(n.parts, c);
    const T* X = operandBlock(i, 0, einrt::blockOfCell(n.parts, n.operandLabels[0], cell));
    const T* Y = n.operandLabels.size() > 1 ? operandBlock(i, 1, einrt::blockOfCell(n.parts, n.operandLabels[1], cell)) : nullptr;
    const int64_t ob = einrt::blockOfCell(n.parts, n.outputLabels, cell);
    ns.kernel.run(X, Y, ns.partial.at(ob).data(), !written.insert(ob).second);
  }
  if (device_) device_->synchronize();
  if (ns.aggregation) ns.aggregation->execute(blockMap(ns.partial), blockMap(ns.owned));
  endStep(i, i);
  lastBytes_.at(i) = sentSince(before);
}

template <class T>
std::vector<T> DistributedProgram<T>::gather(int tensor) {
  const TensorSpec& t = spec_.tensors[static_cast<std::size_t>(tensor)];
  NodeState<T>& ns = nodes_[static_cast<std::size_t>(t.producer)];
  int64_t elements = 1;
  for (int64_t e : t.shape) elements *= e;
  RedistributePlan plan = planGather(comm_, t.name, ns.outputLayout, 0, dtypeOf<T>(), options_);
  Buffer<T> whole;
  BlockMap dst;
  if (comm_.rank() == 0) {
    whole = Buffer<T>(static_cast<std::size_t>(elements), device_, nullptr);  // after the measured run
    dst[0] = whole.data();
  }
  plan.execute(blockMap(ns.finished()), dst);
  std::vector<T> host;
  if (comm_.rank() == 0) {
    host.resize(static_cast<std::size_t>(elements));
    whole.toHost(host.data());
  }
  return host;
}

template class DistributedProgram<float>;
template class DistributedProgram<double>;
template class DistributedProgram<bf16>;
template class DistributedProgram<f16>;

}  // namespace einrt::program::detail
