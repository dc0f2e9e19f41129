#include "distributed.h"

#include <set>
#include <stdexcept>

#include <einrt/input_generator.h>

#include "../box_copy_plan.h"
#include "../copy_ops.h"
#include "micro_batches.h"
#include "mixed_types.h"

namespace einrt::program::detail {

namespace {

// A node's calls as blocks of its iteration space (einrt/block_grid.h numbers both alike).
einrt::BlockGrid callGrid(const NodeTable& n) { return einrt::BlockGrid{n.sizes, n.parts}; }

template <class Buffers>
BlockMap blockMap(const Buffers& buffers) {
  BlockMap m;
  for (const auto& [b, buf] : buffers) m[static_cast<std::size_t>(b)] = buf.data();
  return m;
}

// The same keyed by the blocks' numbers in a window's layout (those reading nothing left out).
template <class Buffers>
BlockMap blockMap(const Buffers& buffers, const std::vector<int64_t>& layoutBlock) {
  if (layoutBlock.empty()) return blockMap(buffers);
  BlockMap m;
  for (const auto& [b, buf] : buffers)
    if (layoutBlock[static_cast<std::size_t>(b)] >= 0) m[static_cast<std::size_t>(layoutBlock[static_cast<std::size_t>(b)])] = buf.data();
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

// Node i's operand k: the blocks this rank's calls read (graph inputs made now and held
// for the run; copies of node outputs only during the step, or to the end of the last
// step that shares them: the output-copy rule) and how they arrive.
template <class T>
void DistributedProgram<T>::setUpOperand(std::size_t i, std::size_t k, uint64_t seed, const std::map<int, std::vector<T>>* rootInputs) {
  const NodeTable& n = spec_.nodes[i];
  const model::NodeModel& nm = model_.nodes[i];
  NodeState<T>& ns = nodes_[i];
  const int me = comm_.rank();
  const TensorSpec& t = spec_.tensors[static_cast<std::size_t>(n.operandTensor[k])];
  const einrt::BlockGrid& g = nm.geometry->operandGrid[k];
  std::map<int64_t, Buffer<T>> blocks;
  std::vector<int64_t> needed, layoutBlock;
  std::unique_ptr<RedistributePlan> plan;
  // An index tensor's blocks hold ids of its own type (index_kernel.h), an f32 tensor's of a
  // bf16 program f32 values (mixed_types.h).
  const DType dtype = typeOf(n.operandTensor[k]);
  const auto blockBytes = static_cast<std::size_t>(g.blockElements()) * dtypeSize(dtype);
  // A graph input read in a grid an earlier operand reads it in: its blocks are that
  // operand's (the input-copy rule, einrt/model/program_model.h), made or scattered once.
  const int copy = nm.inputCopy.empty() ? -1 : nm.inputCopy[k];
  const model::InputCopy* shared = copy < 0 ? nullptr : &model_.inputCopies[static_cast<std::size_t>(copy)];
  // A node output read as an earlier operand's received copy is (the output-copy rule).
  const bool sharesCopy = (shared && (shared->node != static_cast<int>(i) || shared->operand != static_cast<int>(k))) ||
                          nm.sharesCopyOf[k].node >= 0;
  if (!nm.inPlace[k] && !sharesCopy) {
    const std::vector<model::RankBlock>& reads = shared ? shared->reads : *nm.reads[k];
    needed = model::blocksOf(reads, me);
    const std::vector<std::vector<int>> holders = model::holdersByBlock(reads, g.blockCount());
    const einrt::Layout need = g.windowed() ? einrt::Layout::window(g, holders, layoutBlock) : einrt::Layout::grid(g.shape, g.parts, holders);
    if (t.producer >= 0) {
      plan = std::make_unique<RedistributePlan>(planRedistribute(
          comm_, t.name, nodes_[static_cast<std::size_t>(t.producer)].outputLayout, need, dtype, options_));
    } else {
      // A split input (micro_batches.h): every micro-batch's slice of each block, held for
      // the run, micro-batch m's under block numbers offset by m x the grid's blocks.
      const int64_t slices = t.splitDimension >= 0 ? spec_.microBatches : 1;
      for (int64_t m = 0; m < slices; ++m) {
        std::map<int64_t, Buffer<T>> slice;
        for (int64_t b : needed) slice.emplace(b, Buffer<T>::ofBytes(blockBytes, device_, &comm_.memory()));
        placeInputBlocks(i, k, m, seed, rootInputs, need, layoutBlock, slice);
        for (auto& [b, buf] : slice) blocks.emplace(b + m * g.blockCount(), std::move(buf));
      }
    }
  }
  ns.operandBlocks.push_back(std::move(blocks));
  ns.operandLayoutBlock.push_back(std::move(layoutBlock));
  ns.operandNeed.push_back(t.producer >= 0 ? needed : std::vector<int64_t>{});
  ns.repartition.push_back(std::move(plan));
}

// Micro-batch m's slice (the whole input without micro-batches) of graph input operand k
// of node i into the blocks this rank reads (`blocks`, laid out as `need`): scattered
// from rank 0's --inputs, or generated from `seed` over the whole step's shape.
template <class T>
void DistributedProgram<T>::placeInputBlocks(std::size_t i, std::size_t k, int64_t m, uint64_t seed,
                                             const std::map<int, std::vector<T>>* rootInputs, const einrt::Layout& need,
                                             const std::vector<int64_t>& layoutBlock, std::map<int64_t, Buffer<T>>& blocks) {
  const NodeTable& n = spec_.nodes[i];
  const int me = comm_.rank();
  const TensorSpec& t = spec_.tensors[static_cast<std::size_t>(n.operandTensor[k])];
  const einrt::BlockGrid& g = model_.nodes[i].geometry->operandGrid[k];
  const DType dtype = typeOf(n.operandTensor[k]);
  const bool split = t.splitDimension >= 0;
  if (split && g.windowed()) throw std::runtime_error("input " + t.name + ": a window over a split input (eincodegen refuses it)");
  // Where micro-batch m's slice lies in the whole step's tensor: its generated values are
  // the step's at those coordinates.
  const std::vector<int64_t> wholeShape = t.stepShape(spec_.microBatches);
  auto origin = [&](int64_t b) {
    std::vector<int64_t> at = g.offset(b);
    if (split) at[static_cast<std::size_t>(t.splitDimension)] += m * t.shape[static_cast<std::size_t>(t.splitDimension)];
    return at;
  };
  if (rootInputs) {
    RedistributePlan scatter = planScatter(comm_, t.name, 0, need, dtype, options_);
    Buffer<T> whole;
    BlockMap src;
    for (auto& [b, buf] : blocks)
      if (g.windowed()) fillWindowBlock(i, k, b, buf, nullptr);  // the scatter writes the rest
    if (me == 0) {
      const std::vector<T>& step = rootInputs->at(n.operandTensor[k]);
      const std::vector<T> host = split ? microBatchSlice(t, step, spec_.microBatches, m) : step;
      whole = Buffer<T>(host.size(), device_, nullptr);  // --inputs I/O, before the measured run
      whole.fromHost(host.data());
      src[0] = whole.data();
    }
    scatter.execute(src, blockMap(blocks, layoutBlock));
  } else if (g.windowed()) {
    if (dtype != dtypeOf<T>()) throw std::runtime_error("input " + t.name + ": a window over a tensor of another float type (eincodegen refuses it)");
    // The tensor's own values (generated over its shape) where the window reads it.
    std::vector<T> host;
    for (auto& [b, buf] : blocks) {
      const int64_t inLayout = layoutBlock[static_cast<std::size_t>(b)];
      if (inLayout < 0) {  // wholly fill
        fillWindowBlock(i, k, b, buf, nullptr);
        continue;
      }
      const einrt::Box& in = need.blocks[static_cast<std::size_t>(inLayout)].box;
      std::vector<int64_t> sub(in.rank());
      for (std::size_t d = 0; d < in.rank(); ++d) sub[d] = in.extent(d);
      host.resize(static_cast<std::size_t>(einrt::volume(in)));
      einrt::fillInputBlock<T>(seed, t.name, g.bound, in.lo, sub, host.data());
      fillWindowBlock(i, k, b, buf, host.data());
    }
  } else if (t.indexType) {
    std::vector<int64_t> ids(static_cast<std::size_t>(g.blockElements()));
    for (auto& [b, buf] : blocks) {
      einrt::fillIndexBlock(seed, t.name, wholeShape, origin(b), g.blockShape(), t.indexRange, ids.data());
      buf.fromHost(packIds<T>(ids, *t.indexType).data());
    }
  } else if (dtype != dtypeOf<T>()) {  // an f32 input of a bf16 program (mixed_types.h): its f32 values' bytes
    std::vector<float> host(static_cast<std::size_t>(g.blockElements()));
    for (auto& [b, buf] : blocks) {
      einrt::fillInputBlock<float>(seed, t.name, wholeShape, origin(b), g.blockShape(), host.data());
      buf.fromHost(reinterpret_cast<const T*>(host.data()));
    }
  } else {
    std::vector<T> host(static_cast<std::size_t>(g.blockElements()));
    for (auto& [b, buf] : blocks) {
      einrt::fillInputBlock<T>(seed, t.name, wholeShape, origin(b), g.blockShape(), host.data());
      buf.fromHost(host.data());
    }
  }
}

// Node i's output: its finished layout, the partial and owned blocks this rank holds, the
// aggregation; a graph output's finished blocks are made now and held for the run.
template <class T>
void DistributedProgram<T>::setUpOutput(std::size_t i) {
  const NodeTable& n = spec_.nodes[i];
  const model::NodeModel& nm = model_.nodes[i];
  NodeState<T>& ns = nodes_[i];
  const int me = comm_.rank();
  const einrt::BlockGrid& grid = nm.geometry->outputGrid;
  std::vector<std::vector<int>> owners;
  for (int o : n.blockOwner) owners.push_back({o});
  const TensorSpec& out = spec_.tensors[static_cast<std::size_t>(n.outputTensor)];
  ns.outputLayout = einrt::Layout::grid(out.shape, grid.parts, owners);
  if (!nm.scratch) ns.partialNeed = model::blocksOf(*nm.writes, me);
  if (nm.group >= 0)
    for (int64_t c : ns.myCalls) ns.callOfBlock[nm.geometry->outputBlock[static_cast<std::size_t>(c)]] = c;
  if (nm.aggregates) {
    const einrt::Layout partial = einrt::Layout::grid(out.shape, grid.parts, model::holdersByBlock(*nm.writes, grid.blockCount()),
                                                      Holding::Partial, n.agg);
    if (nm.reducedBy.node >= 0) {
      // Reduced at read (program_model.h): its reader repartitions the partials themselves.
      ns.outputLayout = partial;
    } else {
      ns.aggregation = std::make_unique<RedistributePlan>(
          planRedistribute(comm_, out.name, partial, ns.outputLayout, typeOf(n.outputTensor), options_));
      ns.ownedNeed = model::ownedBlocks(n, me);
    }
  }
  // Graph outputs stay from the start to the end of the run (written after it).
  ns.resident = out.isOutput;
  if (ns.resident)
    for (int64_t b : ns.aggregation ? ns.ownedNeed : ns.partialNeed)
      ns.finished().emplace(b, blockOf(n.outputTensor, static_cast<std::size_t>(grid.blockElements())));
}

// Everything is decided by einrt's program model (einrt/model/program_model.h); this
// builds the rank's share of it, collectively, in the same order on every rank.
template <class T>
void DistributedProgram<T>::setUp(uint64_t seed, const std::map<int, std::vector<T>>* rootInputs) {
  const int me = comm_.rank();
  // Fused groups run on the host; on a device every member runs as its own node.
  model_ = model::buildProgramModel(spec_, sizeof(T), !device_);
  nodes_.resize(spec_.nodes.size());
  for (std::size_t i = 0; i < spec_.nodes.size(); ++i) {
    const NodeTable& n = spec_.nodes[i];
    const model::NodeModel& nm = model_.nodes[i];
    NodeState<T>& ns = nodes_[i];
    for (std::size_t c = 0; c < n.callRank.size(); ++c)
      if (n.callRank[c] == me) ns.myCalls.push_back(static_cast<int64_t>(c));
    if (n.indexLabel >= 0) ns.index.emplace(n, spec_.tensors.at(static_cast<std::size_t>(n.operandTensor.at(0))), nm.extent);
    else if (spec_.isCast(i, dtypeOf<T>())) ns.cast = std::make_pair(typeOf(n.operandTensor[0]), typeOf(n.outputTensor));
    else if (spec_.isWidening(i, dtypeOf<T>())) {
      ns.widens = true;
      ns.kernel = NodeKernel<T>(n, NodeKernels<T>{}, nm.extent, device_, threads_, spec_.parallelFor, &comm_.memory(), true);
    } else if (typeOf(n.outputTensor) != dtypeOf<T>())
      ns.wide.emplace(n, spec_.wideKernels.at(i), nm.extent, device_, threads_, spec_.parallelFor, &comm_.memory());
    else ns.kernel = NodeKernel<T>(n, spec_.kernels.at(i), nm.extent, device_, threads_, spec_.parallelFor, &comm_.memory());
    for (std::size_t k = 0; k < n.operandTensor.size(); ++k) setUpOperand(i, k, seed, rootInputs);
    setUpOutput(i);
  }
  lastBytes_.assign(spec_.nodes.size(), SentBytes{});
  if (device_) return;
  std::vector<bool> scratch;
  for (const model::NodeModel& nm : model_.nodes) scratch.push_back(nm.scratch);
  // One tile workspace for every group this rank runs calls of, held for the whole run.
  int64_t workspace = 0;
  for (const model::FusedGroupGeometry& g : model_.groups) {
    groups_.push_back(std::make_unique<FusedGroup<T>>(
        spec_, model::fusedGroupGeometry(spec_, scratch, g.first, g.last, sizeof(T), threads_), threads_));
    if (!nodes_[static_cast<std::size_t>(g.first)].myCalls.empty()) workspace = std::max(workspace, g.workspaceElements);
  }
  workspace_ = block(static_cast<std::size_t>(workspace) * static_cast<std::size_t>(std::max(1, threads_)));
}

template <class T>
Buffer<T> DistributedProgram<T>::block(std::size_t elements) {
  return Buffer<T>(elements, device_, &comm_.memory());
}

template <class T>
Buffer<T> DistributedProgram<T>::blockOf(int tensor, std::size_t elements) {
  const std::size_t bytes = dtypeSize(typeOf(tensor));
  if (bytes == sizeof(T)) return block(elements);
  return Buffer<T>::ofBytes(elements * bytes, device_, &comm_.memory());
}

// A block of node i's windowed operand k: the fill where it lies outside the tensor, and
// `inRange` (row-major over the part inside, when given) there; null leaves that part to
// the repartition.
template <class T>
void DistributedProgram<T>::fillWindowBlock(std::size_t i, std::size_t k, int64_t b, Buffer<T>& buffer, const T* inRange) {
  const einrt::BlockGrid& g = model_.nodes[i].geometry->operandGrid[k];
  if (!inRange && g.readElements(b) == g.blockElements()) return;
  std::vector<T> host(static_cast<std::size_t>(g.blockElements()), static_cast<T>(spec_.nodes[i].fill));
  if (inRange && g.readElements(b) > 0) {
    // The part inside the tensor into the whole window block, both in tensor coordinates.
    const std::vector<int64_t> c = g.coords(b);
    einrt::Box inside{std::vector<int64_t>(g.dims()), std::vector<int64_t>(g.dims())}, whole = inside;
    for (std::size_t d = 0; d < g.dims(); ++d) {
      inside.lo[d] = g.readLo(d, c[d]);
      inside.hi[d] = g.readHi(d, c[d]);
      whole.lo[d] = g.storageLo(d, c[d]);
      whole.hi[d] = whole.lo[d] + g.span(d);
    }
    const einrt::detail::BoxCopy copy = einrt::detail::makeBoxCopy(inside, inside, whole);
    einrt::detail::runCopiesHost({{&copy, reinterpret_cast<const std::byte*>(inRange), reinterpret_cast<std::byte*>(host.data()),
                                   einrt::detail::CombineOp::Assign}},
                                 dtypeOf<T>());
  }
  buffer.fromHost(host.data());
}

template <class T>
void DistributedProgram<T>::beginStep(std::size_t first, std::size_t last) {
  for (std::size_t m = first; m <= last; ++m) {
    NodeState<T>& ns = nodes_[m];
    const model::CallGeometry& geometry = *model_.nodes[m].geometry;
    for (std::size_t k = 0; k < ns.operandNeed.size(); ++k)
      for (int64_t b : ns.operandNeed[k]) {
        if (microBatch_ > 0 && model_.nodes[m].copyKept[k]) break;  // received in the first micro-batch, kept (run once)
        auto [it, added] = ns.operandBlocks[k].emplace(
            b, blockOf(spec_.nodes[m].operandTensor[k], static_cast<std::size_t>(geometry.operandGrid[k].blockElements())));
        if (geometry.operandGrid[k].windowed()) fillWindowBlock(m, k, b, it->second, nullptr);
      }
    const auto blockElems = static_cast<std::size_t>(geometry.outputGrid.blockElements());
    const int out = spec_.nodes[m].outputTensor;
    // An accumulated node (micro_batches.h) sums into the partials of its first run; a
    // later run's results go to fresh blocks first, its owned blocks come with its last.
    // A node that outlives the micro-batches (program_model.h) holds its finished blocks
    // from the first: later micro-batches write into them.
    const model::RunOfStep run = runOf(m);
    if ((!ns.resident || ns.aggregation) && run.first)
      for (int64_t b : ns.partialNeed)
        if (!ns.partial.count(b)) ns.partial.emplace(b, blockOf(out, blockElems));
    if (!run.first)
      for (int64_t b : ns.partialNeed) ns.fresh.emplace(b, blockOf(out, blockElems));
    if (!ns.resident && run.last)
      for (int64_t b : ns.ownedNeed)
        if (!ns.owned.count(b)) ns.owned.emplace(b, blockOf(out, blockElems));
    if (!ns.myCalls.empty()) {
      if (ns.wide) ns.wide->acquire();
      else ns.kernel.acquire();
    }
  }
}

template <class T>
void DistributedProgram<T>::endStep(std::size_t first, std::size_t last) {
  for (std::size_t m = first; m <= last; ++m) {
    NodeState<T>& ns = nodes_[m];
    for (std::size_t k = 0; k < ns.operandNeed.size(); ++k)
      if (!ns.operandNeed[k].empty() && !model_.nodes[m].copyKept[k] &&
          model_.nodes[static_cast<std::size_t>(model_.nodes[m].copyKeptUntil[k])].step == model_.nodes[m].step)
        ns.operandBlocks[k].clear();
    if (ns.aggregation && runOf(m).last) ns.partial.clear();
    ns.fresh.clear();
    ns.kernel.release();
    if (ns.wide) ns.wide->release();
  }
  const model::StepModel& step = model_.steps[static_cast<std::size_t>(model_.nodes[first].step)];
  for (const model::OperandCopy& c : step.copyReleases)  // copies later operands shared
    nodes_[static_cast<std::size_t>(c.node)].operandBlocks[static_cast<std::size_t>(c.operand)].clear();
  for (int dead : step.releases)
    nodes_[static_cast<std::size_t>(dead)].finished().clear();
  releaseAtBodyEnd(last);
}

// After the last micro-batch's last step of the body (program_model.h, run once):
// invariants run once and their kept copies go.
template <class T>
void DistributedProgram<T>::releaseAtBodyEnd(std::size_t last) {
  if (spec_.microBatches <= 1 || last + 1 != model::bodyEnd(spec_) || microBatch_ + 1 != spec_.microBatches) return;
  for (const model::OperandCopy& c : model_.bodyEndCopyReleases)
    nodes_[static_cast<std::size_t>(c.node)].operandBlocks[static_cast<std::size_t>(c.operand)].clear();
  for (int dead : model_.bodyEndReleases) nodes_[static_cast<std::size_t>(dead)].finished().clear();
}

template <class T>
int DistributedProgram<T>::fusedWith(std::size_t i) const {
  const int g = model_.nodes[i].group;
  return g < 0 ? -1 : model_.groups[static_cast<std::size_t>(g)].first;
}

template <class T>
void DistributedProgram<T>::repartitionOperands(std::size_t i) {
  const NodeTable& n = spec_.nodes[i];
  NodeState<T>& ns = nodes_[i];
  for (std::size_t k = 0; k < ns.repartition.size(); ++k) {
    if (!ns.repartition[k]) continue;
    if (microBatch_ > 0 && model_.nodes[i].copyKept[k]) continue;  // received in the first micro-batch (run once)
    const int producer = spec_.tensors[static_cast<std::size_t>(n.operandTensor[k])].producer;
    ns.repartition[k]->execute(blockMap(nodes_[static_cast<std::size_t>(producer)].finished()),
                               blockMap(ns.operandBlocks[k], ns.operandLayoutBlock[k]));
  }
}

template <class T>
void DistributedProgram<T>::runGroup(FusedGroup<T>& group) {
  const auto first = static_cast<std::size_t>(group.first()), last = static_cast<std::size_t>(group.last());
  for (std::size_t m = first; m <= last; ++m) {
    const SentBytes before = sentSoFar();
    repartitionOperands(m);
    countSentSince(m, before);
  }
  std::vector<typename FusedGroup<T>::MemberBlocks> blocks(last - first + 1);
  for (const auto& entry : nodes_[first].callOfBlock) {
    const int64_t b = entry.first;
    for (std::size_t m = first; m <= last; ++m) {
      const NodeTable& n = spec_.nodes[m];
      NodeState<T>& ns = nodes_[m];
      const auto call = static_cast<std::size_t>(ns.callOfBlock.at(b));
      const model::CallGeometry& geometry = *model_.nodes[m].geometry;
      auto& mb = blocks[m - first];
      for (std::size_t o = 0; o < n.operandTensor.size(); ++o) {
        const int producer = spec_.tensors[static_cast<std::size_t>(n.operandTensor[o])].producer;
        const bool scratch = producer >= static_cast<int>(first) && producer < static_cast<int>(m) &&
                             model_.nodes[static_cast<std::size_t>(producer)].scratch;
        mb.operand[o] = scratch ? nullptr : operandBlock(m, o, geometry.operandBlock[o][call]);
      }
      mb.output = model_.nodes[m].scratch ? nullptr : ns.partial.at(b).data();
    }
    group.run(blocks, workspace_.data());
  }
}

template <class T>
const T* DistributedProgram<T>::operandBlock(std::size_t node, std::size_t operand, int64_t block) {
  NodeState<T>& ns = nodes_[node];
  const model::NodeModel& nm = model_.nodes[node];
  if (const int copy = nm.inputCopy.empty() ? -1 : nm.inputCopy[operand]; copy >= 0) {
    const model::InputCopy& shared = model_.inputCopies[static_cast<std::size_t>(copy)];
    return nodes_[static_cast<std::size_t>(shared.node)]
        .operandBlocks[static_cast<std::size_t>(shared.operand)]
        .at(inputBlockKey(node, operand, block))
        .data();
  }
  if (const model::OperandCopy& c = nm.sharesCopyOf[operand]; c.node >= 0)
    return nodes_[static_cast<std::size_t>(c.node)].operandBlocks[static_cast<std::size_t>(c.operand)].at(block).data();
  if (!nm.inPlace[operand]) return ns.operandBlocks[operand].at(inputBlockKey(node, operand, block)).data();
  const int producer = spec_.tensors[static_cast<std::size_t>(spec_.nodes[node].operandTensor[operand])].producer;
  return nodes_[static_cast<std::size_t>(producer)].finished().at(block).data();
}

template <class T>
void DistributedProgram<T>::runNode(std::size_t i) {
  NodeState<T>& ns = nodes_[i];
  const model::NodeModel& nm = model_.nodes[i];
  // An invariant run once runs in the first micro-batch only (program_model.h); so does
  // its fused group, all of whose members do. The last micro-batch's end still releases.
  if (spec_.nodes[i].runsOnce && microBatch_ > 0) {
    if (nm.group < 0 || static_cast<int>(i) == groups_[static_cast<std::size_t>(nm.group)]->first())
      releaseAtBodyEnd(nm.group < 0 ? i : static_cast<std::size_t>(groups_[static_cast<std::size_t>(nm.group)]->last()));
    return;
  }
  if (nm.group >= 0) {
    FusedGroup<T>& group = *groups_[static_cast<std::size_t>(nm.group)];
    if (static_cast<int>(i) != group.first()) return;
    const auto first = static_cast<std::size_t>(group.first()), last = static_cast<std::size_t>(group.last());
    beginStep(first, last);
    runGroup(group);
    endStep(first, last);
    return;
  }
  const SentBytes before = sentSoFar();
  const model::RunOfStep run = runOf(i);
  beginStep(i, i);
  repartitionOperands(i);
  std::set<int64_t> written;
  for (int64_t c : ns.myCalls) {
    const auto call = static_cast<std::size_t>(c);
    const std::vector<model::BlockNumbers>& reads = nm.geometry->operandBlock;
    const T* X = operandBlock(i, 0, reads[0][call]);
    const T* Y = reads.size() > 1 ? operandBlock(i, 1, reads[1][call]) : nullptr;
    const int64_t ob = nm.geometry->outputBlock[call];
    T* Z = (run.first ? ns.partial : ns.fresh).at(ob).data();
    const bool accumulate = !written.insert(ob).second;
    if (ns.index) ns.index->run(X, Y, Z, accumulate, callGrid(spec_.nodes[i]).offset(c));
    else if (ns.cast) convertElements<T>(ns.cast->first, X, ns.cast->second, Z, nm.geometry->outputGrid.blockElements());
    else if (ns.wide)
      ns.wide->run(reinterpret_cast<const float*>(X), reinterpret_cast<const float*>(Y), reinterpret_cast<float*>(Z), accumulate);
    else if (ns.widens) ns.kernel.runWidening(X, Y, reinterpret_cast<float*>(Z), accumulate);
    else ns.kernel.run(X, Y, Z, accumulate);
  }
  if (!run.first) addFreshIntoPartials(i);
  if (device_) device_->synchronize();
  if (ns.aggregation && run.last) ns.aggregation->execute(blockMap(ns.partial), blockMap(ns.owned));
  endStep(i, i);
  countSentSince(i, before);
}

// An accumulated node's later run: its results, in fresh blocks, added into the sums.
template <class T>
void DistributedProgram<T>::addFreshIntoPartials(std::size_t i) {
  NodeState<T>& ns = nodes_[i];
  const int64_t elements = model_.nodes[i].geometry->outputGrid.blockElements();
  const DType type = typeOf(spec_.nodes[i].outputTensor);
  for (auto& [b, part] : ns.fresh) addInto<T>(type, part.data(), ns.partial.at(b).data(), elements);
}

template <class T>
model::RunOfStep DistributedProgram<T>::runOf(std::size_t i) const {
  return model::runOfStep(spec_, i, microBatch_);
}

// A graph input's block as stored: a split input's of the current micro-batch.
template <class T>
int64_t DistributedProgram<T>::inputBlockKey(std::size_t node, std::size_t operand, int64_t block) const {
  const TensorSpec& t = spec_.tensors[static_cast<std::size_t>(spec_.nodes[node].operandTensor[operand])];
  if (t.producer >= 0 || t.splitDimension < 0) return block;
  return block + microBatch_ * model_.nodes[node].geometry->operandGrid[operand].blockCount();
}

template <class T>
void DistributedProgram<T>::startIteration() {
  lastBytes_.assign(spec_.nodes.size(), SentBytes{});
  microBatch_ = 0;
}

template <class T>
std::vector<T> DistributedProgram<T>::gather(int tensor) {
  const TensorSpec& t = spec_.tensors[static_cast<std::size_t>(tensor)];
  NodeState<T>& ns = nodes_[static_cast<std::size_t>(t.producer)];
  int64_t elements = 1;
  for (int64_t e : t.shape) elements *= e;
  RedistributePlan plan = planGather(comm_, t.name, ns.outputLayout, 0, typeOf(tensor), options_);
  Buffer<T> whole;
  BlockMap dst;
  if (comm_.rank() == 0) {
    // After the measured run; an f32 tensor of a bf16 program as its bytes (mixed_types.h).
    whole = Buffer<T>::ofBytes(static_cast<std::size_t>(elements) * dtypeSize(typeOf(tensor)), device_, nullptr);
    dst[0] = whole.data();
  }
  plan.execute(blockMap(ns.finished()), dst);
  std::vector<T> host;
  if (comm_.rank() == 0) {
    host.resize(whole.size());
    whole.toHost(host.data());
  }
  return host;
}

template class DistributedProgram<float>;
template class DistributedProgram<double>;
template class DistributedProgram<bf16>;
template class DistributedProgram<f16>;

}  // namespace einrt::program::detail
