#include "planner/model/program_tables.h"

#include <algorithm>

#include "planner/graph/excerpt.h"
#include "planner/graph/graph_index.h"
#include "planner/graph/index_nodes.h"
#include "planner/graph/micro_batches.h"
#include "planner/graph/node_space.h"
#include "planner/graph/tensor_types.h"
#include "planner/paths/gemm_mapping.h"

namespace eindecomp {

namespace {

einrt::model::NodeTable nodeTable(const Node& node, const NodePlan& np, const NodeFusion& fusion) {
  einrt::model::NodeTable n;
  NodeSpace space = nodeSpace(node);
  n.sizes = std::move(space.sizes);
  n.operandLabels = std::move(space.operandLabels);
  n.outputLabels = std::move(space.outputLabels);
  n.operandOrigin = std::move(space.operandOrigin);
  n.operandBound = std::move(space.operandBound);
  n.operandTap = std::move(space.operandTap);
  n.operandTapDilation = std::move(space.operandTapDilation);
  n.operandStep = std::move(space.operandStep);
  n.operandSpread = std::move(space.operandSpread);
  n.fill = node.windows ? node.windows->fill : 0.0;
  n.name = node.name;
  n.parts = np.parts;
  n.agg = node.agg;
  n.callRank = np.placement.callRank;
  n.blockOwner = np.placement.blockOwner;
  // What one output element sums (the --check tolerance): a gather's selected label
  // adds one term, not its size.
  for (const auto& l : aggregatedLabels(node))
    if (l != node.indexLabel) n.reductionLength *= node.labelSizes.at(l);
  n.contraction = isContraction(node);
  if (runsAsGemm(node))
    if (const std::optional<GemmMapping> g = mapContractionToGemm(node, einrt::model::blockExtent(n.sizes, n.parts)))
      n.gemm = gemmSpecOf(*g, space.labels, np.gemmPath);
  // einrt runs a widening contraction (tensor_types.h) as a GEMM only: 2-byte operands into
  // an f32 result is a matrix-unit call (oneDNN); no elementwise kernel reads two types.
  if (isWideningContraction(node) && !n.gemm)
    throw InputError({node.loc, "node " + quoted(node.name) + ": a contraction with `cast: f32` runs as a GEMM, and its labels "
                                "are not a GEMM's (" + describeLabelClasses(classifyLabels(node.operandLabels[0],
                                node.operandLabels[1], node.outputLabels)) + "): it needs a summed label and no label "
                                "summed within one operand, broadcast or repeated"});
  if (!n.gemm)
    if (const std::optional<std::vector<int>> order = permutationOrder(node)) n.permutation = *order;
  n.fusion = fusion;
  if (isIndexNode(node)) {
    const Labels labels = iterationLabels(node);
    n.indexLabel = static_cast<int>(std::find(labels.begin(), labels.end(), node.indexLabel) - labels.begin());
  }
  return n;
}

}  // namespace

einrt::model::ProgramTables programTables(const Graph& g, const Plan& plan, const Fusion& fusion) {
  const GraphIndex index(g);
  einrt::model::ProgramTables t;
  // A float tensor's own type where it is not the graph's (tensor_types.h).
  auto ownFloat = [&](DType type) { return type == g.dtype ? std::nullopt : std::optional<DType>(type); };
  for (const auto& in : g.inputs) {
    t.tensors.push_back({in.name, in.shape, true, false, -1, in.fileShape, in.indexType, in.indexType ? indexRange(g, in.name) : 0,
                         in.indexType ? std::nullopt : ownFloat(inputType(g, in))});
    t.tensors.back().splitDimension = splitDimension(g, in.name);
  }
  // Micro-batches (planner/graph/micro_batches.h): which nodes run once per step, which are summed.
  t.microBatches = microBatchCount(g);
  t.ranksPerNode = plan.ranksPerNode;
  t.partialsOnOwners = plan.partialsOnOwners;
  const std::vector<StepPhase> phases = stepPhases(g);
  const std::vector<bool> accumulated = accumulatedNodes(g);
  const std::vector<NodeRuns> runs = nodeRuns(g, plan.invariants());
  const std::vector<DType> types = nodeOutputTypes(g);
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    t.tensors.push_back({g.nodes[i].name, outputShape(g.nodes[i]), false, false, static_cast<int>(i), g.nodes[i].fileShape,
                         std::nullopt, 0, ownFloat(types[i])});
  auto tensorIndex = [&](const std::string& name) {
    if (const InputTensor* in = index.findInput(name)) return static_cast<int>(in - g.inputs.data());
    return static_cast<int>(g.inputs.size()) + index.nodeIndex(name);
  };
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    einrt::model::NodeTable n = nodeTable(g.nodes[i], plan.nodes[i], fusion.nodes[i]);
    for (const std::string& input : g.nodes[i].inputs) n.operandTensor.push_back(tensorIndex(input));
    n.outputTensor = tensorIndex(g.nodes[i].name);
    n.oncePerStep = phases[i] == StepPhase::OncePerStep;
    n.accumulated = accumulated[i];
    n.runsOnce = runs[i].once;
    t.nodes.push_back(std::move(n));
  }
  for (const std::string& o : g.outputs) {
    const int tensor = tensorIndex(o);
    t.tensors[static_cast<std::size_t>(tensor)].isOutput = true;
    t.outputs.push_back(tensor);
  }
  return t;
}

}  // namespace eindecomp
