#include "codegen/lower/lower.h"

#include <einrt/limits.h>

#include <algorithm>

#include "codegen/kernels/fusion.h"
#include "codegen/kernels/join_source.h"
#include "codegen/lower/identifiers.h"
#include "planner/graph/graph_index.h"

namespace eindecomp::codegen {

namespace {

int labelIndex(const Labels& labels, const Label& l) {
  return static_cast<int>(std::find(labels.begin(), labels.end(), l) - labels.begin());
}

NodeProgram describeNode(const Graph& g, const Node& node, int index, const NodePlan& np, const NodePlanCost& cost) {
  NodeProgram n;
  n.name = node.name;
  n.ident = cppIdentifier(static_cast<int>(g.inputs.size()) + index, node.name);
  n.labels = np.labels;
  n.sizes = iterationSizes(node);
  n.parts = np.parts;
  n.calls = np.kernelCalls;
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
  // A block travels as one MPI message at most, counted in int (einrt/limits.h).
  auto blockElements = [&](const std::vector<int>& dims) {
    int64_t e = 1;
    for (int d : dims)
      if (__builtin_mul_overflow(e, extent[static_cast<std::size_t>(d)], &e)) return einrt::kMaxBlockElements + 1;
    return e;
  };
  std::vector<std::vector<int>> tensors;
  for (const auto& op : n.operands) tensors.push_back(op.labelOfDim);
  tensors.push_back(n.outputLabelOfDim);
  for (const auto& dims : tensors)
    if (blockElements(dims) > einrt::kMaxBlockElements)
      throw InputError({node.loc, "node '" + node.name + "': a block of " + std::to_string(blockElements(dims)) +
                                      " or more elements under this partition exceeds einrt's limit of " +
                                      std::to_string(einrt::kMaxBlockElements) +
                                      " (an MPI message counts elements in int); plan with more devices or split the node"});
  if (runsAsGemm(node)) n.gemm = mapContractionToGemm(node, extent);
  n.kernel = chooseKernel(node, n.gemm);
  if (n.gemm) n.gemmPath = np.gemmPath;
  for (const auto& l : aggregatedLabels(node)) n.reductionLength *= node.labelSizes.at(l);
  n.callRank = np.placement.callRank;
  n.blockOwner = np.placement.blockOwner;
  n.bytesPredicted = cost.trafficBytes;
  n.interNodeBytesPredicted = cost.interNodeBytes;
  n.flops = cost.flops;
  return n;
}

}  // namespace

RankProgram lowerPlan(const Graph& g, const Plan& plan, const PlanCost& cost) {
  validateGraphForCodegen(g);
  const GraphIndex index(g);
  RankProgram rp;
  rp.graphName = g.name;
  rp.dtype = g.dtype;
  rp.devices = static_cast<int>(plan.devices);
  rp.algorithm = plan.algorithm;
  rp.bytesPredicted = cost.trafficBytes;
  rp.interNodeBytesPredicted = cost.interNodeBytes;
  rp.ranksPerNode = cost.ranksPerNode;
  rp.flops = cost.flops;
  rp.peakBytesPredicted = cost.memory.peakBytesPerRank;
  rp.tileWorkspaceBytes = cost.memory.tileWorkspaceBytesPerRank;
  rp.stagingSendBytes = cost.memory.stagingSendBytesPerRank;
  rp.stagingRecvBytes = cost.memory.stagingRecvBytesPerRank;
  for (const auto& in : g.inputs) {
    TensorProgram t;
    t.name = in.name;
    t.ident = cppIdentifier(static_cast<int>(rp.tensors.size()), in.name);
    t.shape = in.shape;
    t.fileShape = in.fileShape.empty() ? in.shape : in.fileShape;
    t.isInput = true;
    rp.tensors.push_back(t);
  }
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    TensorProgram t;
    t.name = g.nodes[i].name;
    t.ident = cppIdentifier(static_cast<int>(rp.tensors.size()), t.name);
    t.shape = outputShape(g.nodes[i]);
    t.fileShape = g.nodes[i].fileShape.empty() ? t.shape : g.nodes[i].fileShape;
    t.producer = static_cast<int>(i);
    rp.tensors.push_back(t);
  }
  // rp.tensors holds the graph inputs, then the nodes, each in graph order.
  auto tensorIndex = [&](const std::string& name) {
    if (const InputTensor* in = index.findInput(name)) return static_cast<int>(in - g.inputs.data());
    return static_cast<int>(g.inputs.size()) + index.nodeIndex(name);
  };
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    NodeProgram n = describeNode(g, g.nodes[i], static_cast<int>(i), plan.nodes[i], cost.nodes[i]);
    for (std::size_t k = 0; k < n.operands.size(); ++k) n.operands[k].tensor = tensorIndex(g.nodes[i].inputs[k]);
    n.outputTensor = tensorIndex(g.nodes[i].name);
    rp.nodes.push_back(std::move(n));
  }
  for (const auto& o : g.outputs) {
    const int t = tensorIndex(o);
    rp.tensors[static_cast<std::size_t>(t)].isOutput = true;
    rp.outputs.push_back(t);
  }
  applyFusion(rp, chooseFusion(g, plan));
  return rp;
}

}  // namespace eindecomp::codegen
