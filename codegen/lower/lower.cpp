#include "codegen/lower/lower.h"

#include <algorithm>
#include <set>

#include "codegen/kernels/join_source.h"
#include "codegen/lower/block_geometry.h"
#include "codegen/lower/hungarian.h"
#include "codegen/lower/identifiers.h"
#include "planner/graph/graph_index.h"

namespace eindecomp::codegen {

namespace {

int labelIndex(const Labels& labels, const Label& l) {
  return static_cast<int>(std::find(labels.begin(), labels.end(), l) - labels.begin());
}

// The grid a node cuts one of its tensors (operand or output) into.
BlockGrid gridOf(const NodeProgram& n, const std::vector<int>& labelOfDim) {
  BlockGrid g;
  for (int l : labelOfDim) {
    g.shape.push_back(n.sizes[l]);
    g.parts.push_back(n.parts[l]);
  }
  return g;
}

// The block of a tensor (dims labelled by `labelOfDim`) that call `call` of `n` touches.
int64_t blockOfCall(const NodeProgram& n, const std::vector<int>& labelOfDim, int64_t call) {
  std::vector<int64_t> cell(n.labels.size());
  for (std::size_t l = n.labels.size(); l-- > 0;) {
    cell[l] = call % n.parts[l];
    call /= n.parts[l];
  }
  int64_t b = 0;
  for (int l : labelOfDim) b = b * n.parts[l] + cell[l];
  return b;
}

// Aggregation coordinates of a call: its cell restricted to the aggregated labels,
// flattened row-major; 0 for the first contributor of each output block.
int64_t aggCoordinate(const NodeProgram& n, int64_t call) {
  std::vector<int64_t> cell(n.labels.size());
  for (std::size_t l = n.labels.size(); l-- > 0;) {
    cell[l] = call % n.parts[l];
    call /= n.parts[l];
  }
  int64_t a = 0;
  for (std::size_t l = 0; l < n.labels.size(); ++l)
    if (std::find(n.outputLabelOfDim.begin(), n.outputLabelOfDim.end(), static_cast<int>(l)) == n.outputLabelOfDim.end())
      a = a * n.parts[l] + cell[l];
  return a;
}

struct ProducerLayout {
  BlockGrid grid;
  const std::vector<int>* owner = nullptr;
};

std::optional<ProducerLayout> producerLayout(const RankProgram& rp, int tensor) {
  const TensorProgram& t = rp.tensors[tensor];
  if (t.producer < 0) return std::nullopt;
  const NodeProgram& p = rp.nodes[t.producer];
  return ProducerLayout{gridOf(p, p.outputLabelOfDim), &p.blockOwner};
}

void placeCalls(NodeProgram& n, const RankProgram& rp, int devices, int64_t elementSize) {
  std::vector<std::vector<int64_t>> cost(n.calls, std::vector<int64_t>(devices, 0));
  for (const auto& op : n.operands) {
    auto prod = producerLayout(rp, op.tensor);
    if (!prod) continue;
    BlockGrid need = gridOf(n, op.labelOfDim);
    for (int64_t c = 0; c < n.calls; ++c) {
      int64_t block = blockOfCall(n, op.labelOfDim, c);
      forEachOverlap(need, block, prod->grid, [&](int64_t pb, int64_t elements) {
        int owner = (*prod->owner)[pb];
        for (int r = 0; r < devices; ++r)
          if (r != owner) cost[c][r] += elements * elementSize;
      });
    }
  }
  n.callRank = solveAssignment(cost);
}

void chooseOwners(NodeProgram& n) {
  BlockGrid out = gridOf(n, n.outputLabelOfDim);
  n.blockOwner.assign(out.blockCount(), -1);
  std::vector<int64_t> bestAgg(out.blockCount(), -1);
  for (int64_t c = 0; c < n.calls; ++c) {
    int64_t b = blockOfCall(n, n.outputLabelOfDim, c), a = aggCoordinate(n, c);
    if (bestAgg[b] < 0 || a < bestAgg[b]) {
      bestAgg[b] = a;
      n.blockOwner[b] = n.callRank[c];
    }
  }
}

void predictBytes(NodeProgram& n, const RankProgram& rp, int devices, int64_t elementSize) {
  n.repartBytes.assign(n.operands.size(), 0);
  for (std::size_t k = 0; k < n.operands.size(); ++k) {
    auto prod = producerLayout(rp, n.operands[k].tensor);
    if (!prod) continue;
    BlockGrid need = gridOf(n, n.operands[k].labelOfDim);
    std::vector<std::set<int64_t>> needed(devices);
    for (int64_t c = 0; c < n.calls; ++c) needed[n.callRank[c]].insert(blockOfCall(n, n.operands[k].labelOfDim, c));
    for (int r = 0; r < devices; ++r)
      for (int64_t block : needed[r])
        forEachOverlap(need, block, prod->grid, [&](int64_t pb, int64_t elements) {
          if ((*prod->owner)[pb] != r) n.repartBytes[k] += elements * elementSize;
        });
  }
  BlockGrid out = gridOf(n, n.outputLabelOfDim);
  std::vector<std::set<int>> contributors(out.blockCount());
  for (int64_t c = 0; c < n.calls; ++c) contributors[blockOfCall(n, n.outputLabelOfDim, c)].insert(n.callRank[c]);
  n.aggBytes = 0;
  for (int64_t b = 0; b < out.blockCount(); ++b)
    n.aggBytes += static_cast<int64_t>(contributors[b].size() - contributors[b].count(n.blockOwner[b])) *
                  out.blockElements() * elementSize;
  n.bytesPredicted = n.aggBytes;
  for (int64_t r : n.repartBytes) n.bytesPredicted += r;
}

NodeProgram describeNode(const Graph& g, const Node& node, int index, const PlanPartitions& plan) {
  NodeProgram n;
  n.name = node.name;
  n.ident = cppIdentifier(static_cast<int>(g.inputs.size()) + index, node.name);
  n.labels = iterationLabels(node);
  SourceLoc where = node.loc.file.empty() ? SourceLoc{g.sourceFile, 0, 0} : node.loc;
  auto planned = plan.partitions.find(node.name);
  if (planned == plan.partitions.end())
    throw InputError({where, "the plan has no partition for node '" + node.name + "'"});
  for (const auto& [label, parts] : planned->second)
    if (labelIndex(n.labels, label) == static_cast<int>(n.labels.size()))
      throw InputError({where, "the plan partitions node '" + node.name + "' over label '" + label + "', which it does not have"});
  n.calls = 1;
  for (const auto& l : n.labels) {
    int64_t size = node.labelSizes.at(l);
    auto it = planned->second.find(l);
    int64_t parts = it == planned->second.end() ? 1 : it->second;
    if (parts < 1 || size % parts != 0)
      throw InputError({where, "partition of node '" + node.name + "': " + std::to_string(parts) + " parts do not divide label '" +
                                   l + "' of size " + std::to_string(size)});
    n.sizes.push_back(size);
    n.parts.push_back(parts);
    n.calls *= parts;
  }
  if (n.calls > plan.devices)
    throw InputError({where, "partition of node '" + node.name + "' needs " + std::to_string(n.calls) + " kernel calls but the plan has " +
                                 std::to_string(plan.devices) + " devices"});
  for (std::size_t k = 0; k < node.inputs.size(); ++k) {
    OperandProgram op;
    for (const auto& l : node.operandLabels[k]) op.labelOfDim.push_back(labelIndex(n.labels, l));
    n.operands.push_back(op);
  }
  for (const auto& l : node.outputLabels) n.outputLabelOfDim.push_back(labelIndex(n.labels, l));
  n.agg = node.agg;
  n.joinSource = joinExpressionSource(node.join);
  n.usesY = usesY(node.join);
  std::vector<int64_t> extent;
  for (std::size_t l = 0; l < n.labels.size(); ++l) extent.push_back(n.sizes[l] / n.parts[l]);
  n.gemm = mapContractionToGemm(node, extent);
  n.flops = nodeFlops(node);
  auto cost = plan.modelNodeCostElements.find(node.name);
  if (cost != plan.modelNodeCostElements.end()) n.modelCostElements = cost->second;
  return n;
}

}  // namespace

RankProgram lowerPlan(const Graph& g, const PlanPartitions& plan) {
  validateGraphForCodegen(g);
  if (plan.devices < 1) throw InputError({{g.sourceFile, 0, 0}, "the plan's device count must be positive"});
  const GraphIndex index(g);
  for (const auto& [name, parts] : plan.partitions)
    if (!index.findNode(name)) throw InputError({{g.sourceFile, 0, 0}, "the plan names node '" + name + "', which the graph does not have"});
  RankProgram rp;
  rp.graphName = g.name;
  rp.dtype = g.dtype;
  rp.devices = plan.devices;
  rp.algorithm = plan.algorithm;
  rp.modelCostElements = plan.modelCostElements;
  const int64_t elementSize = static_cast<int64_t>(dtypeSize(g.dtype));
  for (const auto& in : g.inputs) {
    TensorProgram t;
    t.name = in.name;
    t.ident = cppIdentifier(static_cast<int>(rp.tensors.size()), in.name);
    t.shape = in.shape;
    t.isInput = true;
    rp.tensors.push_back(t);
  }
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    TensorProgram t;
    t.name = g.nodes[i].name;
    t.ident = cppIdentifier(static_cast<int>(rp.tensors.size()), t.name);
    t.shape = outputShape(g.nodes[i]);
    t.producer = static_cast<int>(i);
    rp.tensors.push_back(t);
  }
  // rp.tensors holds the graph inputs, then the nodes, each in graph order.
  auto tensorIndex = [&](const std::string& name) {
    if (const InputTensor* in = index.findInput(name)) return static_cast<int>(in - g.inputs.data());
    if (int node = index.nodeIndex(name); node >= 0) return static_cast<int>(g.inputs.size()) + node;
    throw InputError({{g.sourceFile, 0, 0}, "unknown tensor '" + name + "'"});
  };
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    NodeProgram n = describeNode(g, g.nodes[i], static_cast<int>(i), plan);
    for (std::size_t k = 0; k < n.operands.size(); ++k) n.operands[k].tensor = tensorIndex(g.nodes[i].inputs[k]);
    n.outputTensor = tensorIndex(g.nodes[i].name);
    placeCalls(n, rp, plan.devices, elementSize);
    chooseOwners(n);
    predictBytes(n, rp, plan.devices, elementSize);
    rp.bytesPredicted += n.bytesPredicted;
    rp.flops += n.flops;
    rp.nodes.push_back(std::move(n));
  }
  for (const auto& o : g.outputs) {
    int t = tensorIndex(o);
    rp.tensors[t].isOutput = true;
    rp.outputs.push_back(t);
  }
  return rp;
}

}  // namespace eindecomp::codegen
