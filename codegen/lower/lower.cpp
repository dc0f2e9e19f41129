#include "codegen/lower/lower.h"

#include <einrt/limits.h>

#include <algorithm>

#include "codegen/kernels/fusion.h"
#include "codegen/kernels/join_source.h"
#include "codegen/lower/identifiers.h"
#include "planner/fusion/fusion.h"
#include "planner/model/program_tables.h"

namespace eindecomp::codegen {

namespace {

// A block travels as one MPI message at most, counted in int (einrt/limits.h).
void checkBlockLimit(const Node& node, const NodeProgram& n) {
  const std::vector<int64_t> extent = einrt::model::blockExtent(n.sizes, n.parts);
  auto blockElements = [&](const std::vector<int>& dims) {
    int64_t e = 1;
    for (int d : dims)
      if (__builtin_mul_overflow(e, extent[static_cast<std::size_t>(d)], &e)) return einrt::kMaxBlockElements + 1;
    return e;
  };
  std::vector<std::vector<int>> tensors = n.operandLabels;
  tensors.push_back(n.outputLabels);
  for (const auto& dims : tensors)
    if (blockElements(dims) > einrt::kMaxBlockElements)
      throw InputError({node.loc, "node '" + node.name + "': a block of " + std::to_string(blockElements(dims)) +
                                      " or more elements under this partition exceeds einrt's limit of " +
                                      std::to_string(einrt::kMaxBlockElements) +
                                      " (an MPI message counts elements in int); plan with more devices or split the node"});
}

NodeProgram describeNode(const Graph& g, const Node& node, int index, einrt::model::NodeTable table, const NodePlan& np,
                         const NodePlanCost& cost) {
  NodeProgram n;
  static_cast<einrt::model::NodeTable&>(n) = std::move(table);
  n.ident = cppIdentifier(static_cast<int>(g.inputs.size()) + index, node.name);
  n.labels = np.labels;
  n.joinSource = joinExpressionSource(node.join);
  n.usesY = usesY(node.join);
  checkBlockLimit(node, n);
  if (n.gemm) n.mapping = mapContractionToGemm(node, einrt::model::blockExtent(n.sizes, n.parts));
  n.choice = chooseKernel(node, n.mapping);
  n.bytesPredicted = cost.trafficBytes;
  n.interNodeBytesPredicted = cost.interNodeBytes;
  n.flops = cost.flops;
  return n;
}

}  // namespace

RankProgram lowerPlan(const Graph& g, const Plan& plan, const PlanCost& cost) {
  validateGraphForCodegen(g);
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
  const Fusion fusion = chooseFusion(g, plan);
  einrt::model::ProgramTables tables = programTables(g, plan, fusion);
  tables.ranksPerNode = cost.ranksPerNode;  // the split costPlan priced (the program's rules read it)
  rp.model = einrt::model::buildProgramModel(tables, dtypeSize(g.dtype), true);
  rp.tensors = std::move(tables.tensors);
  rp.outputs = std::move(tables.outputs);
  rp.microBatches = tables.microBatches;
  rp.partialsOnOwners = tables.partialsOnOwners;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    rp.nodes.push_back(describeNode(g, g.nodes[i], static_cast<int>(i), std::move(tables.nodes[i]), plan.nodes[i], cost.nodes[i]));
  applyFusion(rp, fusion);
  for (NodeProgram& n : rp.nodes) n.kernel = n.choice.kind;
  return rp;
}

}  // namespace eindecomp::codegen
