#include "planner/paths/split_nary.h"

#include <algorithm>
#include <map>
#include <set>

#include "planner/graph/write_graph.h"

namespace eindecomp {

namespace {

bool contains(const Labels& ls, const Label& l) { return std::find(ls.begin(), ls.end(), l) != ls.end(); }

std::string stepName(const Node& n, std::size_t step, std::size_t stepCount) {
  return step + 1 == stepCount ? n.name : n.name + "." + std::to_string(step + 1);
}

void requirePureContraction(const Node& n) {
  const bool mul = n.join.kind == Expr::Kind::Mul && n.join.args.size() == 2 &&
                   n.join.args[0].kind == Expr::Kind::VarX && n.join.args[1].kind == Expr::Kind::VarY;
  if (!mul || n.agg != Reduce::Sum)
    throw InputError({n.loc, "node '" + n.name + "' has " + std::to_string(n.inputs.size()) +
                                 " operands: a node with three or more operands must be a pure contraction "
                                 "(join mul, agg sum)"});
}

// The order of a step's result labels. The last step keeps the node's output order.
// Intermediates put batch-like labels (in both operands) first, then the left operand's
// own labels, then the right operand's, each in operand order: that makes the result the
// [C][M][N] layout a (batched) GEMM writes.
Labels orderResult(const Labels& left, const Labels& right, const std::set<Label>& keep) {
  Labels out;
  for (const auto& l : left)
    if (keep.count(l) && contains(right, l)) out.push_back(l);
  for (const auto& l : left)
    if (keep.count(l) && !contains(right, l)) out.push_back(l);
  for (const auto& l : right)
    if (keep.count(l) && !contains(left, l)) out.push_back(l);
  return out;
}

struct SplitNode {
  ContractionPathInfo info;
  std::vector<Node> steps;
};

SplitNode splitNode(const Node& n, const PathOptions& opts) {
  requirePureContraction(n);
  const Labels labels = iterationLabels(n);
  std::map<Label, int> id;
  ContractionProblem problem;
  for (const auto& l : labels) {
    id[l] = static_cast<int>(problem.sizes.size());
    problem.sizes.push_back(n.labelSizes.at(l));
  }
  for (const auto& op : n.operandLabels) {
    std::vector<int> ids;
    for (const auto& l : op) ids.push_back(id.at(l));
    problem.operands.push_back(ids);
  }
  for (const auto& l : n.outputLabels) problem.output.push_back(id.at(l));

  const PathSearchResult searched = optimizePath(problem, opts);
  const ContractionPath& path = searched.path;

  SplitNode split;
  ContractionPathInfo& info = split.info;
  info.node = n.name;
  info.einsum = n.einsum.empty() ? readableEinsum(n.operandLabels, n.outputLabels) : n.einsum;
  info.operandCount = static_cast<int>(n.inputs.size());
  info.naiveFlops = naiveFlops(problem);
  info.optimizedFlops = path.totalFlops;
  info.speedup = path.totalFlops == 0 ? 1.0 : flopCountToDouble(info.naiveFlops) / flopCountToDouble(path.totalFlops);
  info.naiveScaling = static_cast<int>(labels.size());
  info.largestIntermediate = path.largestIntermediate;
  info.path = toPositionalPath(path, info.operandCount);
  info.search = searched.stats;

  // SSA id -> (tensor name, labels)
  std::vector<std::string> names(n.inputs.begin(), n.inputs.end());
  std::vector<Labels> tensorLabels(n.operandLabels.begin(), n.operandLabels.end());
  for (std::size_t k = 0; k < path.steps.size(); ++k) {
    const PathStep& s = path.steps[k];
    const bool last = k + 1 == path.steps.size();
    std::set<Label> keep;
    for (int l : s.result) keep.insert(labels[l]);
    const Labels& left = tensorLabels[s.left];
    const Labels& right = tensorLabels[s.right];
    Node step;
    step.name = stepName(n, k, path.steps.size());
    step.inputs = {names[s.left], names[s.right]};
    step.operandLabels = {left, right};
    step.outputLabels = last ? n.outputLabels : orderResult(left, right, keep);
    step.einsum = readableEinsum(step.operandLabels, step.outputLabels);
    step.joinName = "mul";
    step.join = Expr::binary(Expr::Kind::Mul, Expr::x(), Expr::y());
    step.agg = Reduce::Sum;
    step.loc = n.loc;
    for (const auto& l : iterationLabels(step)) step.labelSizes[l] = n.labelSizes.at(l);

    ContractionStepInfo row;
    row.name = step.name;
    row.operands = step.inputs;
    row.resultLabels = step.outputLabels;
    row.einsum = step.einsum;
    row.flops = s.flops;
    row.resultSize = s.resultSize;
    row.scaling = static_cast<int>(iterationLabels(step).size());
    info.optimizedScaling = std::max(info.optimizedScaling, row.scaling);
    row.classes = classifyLabels(left, right, step.outputLabels);
    row.kind = kernelMappingOf(mapContractionToGemm(step, iterationSizes(step)));
    info.steps.push_back(row);

    names.push_back(step.name);
    tensorLabels.push_back(step.outputLabels);
    split.steps.push_back(std::move(step));
  }
  return split;
}

void requireFreeSanitizedNames(const Graph& g) {
  std::set<std::string> taken;
  for (const auto& t : g.inputs) taken.insert(t.name);
  for (const auto& n : g.nodes) taken.insert(n.name);
  for (const auto& n : g.nodes) {
    if (n.inputs.size() < 3) continue;
    for (std::size_t k = 1; k + 1 < n.inputs.size(); ++k) {
      const std::string sanitized = sanitizedInternalName(n.name + "." + std::to_string(k));
      if (taken.count(sanitized))
        throw InputError({n.loc, "node '" + n.name + "' has " + std::to_string(n.inputs.size()) +
                                     " operands and is split into binary steps named " + n.name + "__1, " + n.name +
                                     "__2, ...; the name '" + sanitized + "' is already taken: rename it"});
    }
  }
}

}  // namespace

Graph splitNaryNodes(const Graph& g, std::vector<ContractionPathInfo>& infos, const PathOptions& opts) {
  requireFreeSanitizedNames(g);
  Graph out = g;
  out.nodes.clear();
  infos.clear();
  for (const auto& n : g.nodes) {
    if (n.inputs.size() < 3) {
      out.nodes.push_back(n);
      continue;
    }
    SplitNode split = splitNode(n, opts);
    infos.push_back(std::move(split.info));
    for (auto& step : split.steps) out.nodes.push_back(std::move(step));
  }
  return out;
}

Graph splitNaryNodes(const Graph& g, const PathOptions& opts) {
  std::vector<ContractionPathInfo> infos;
  return splitNaryNodes(g, infos, opts);
}

std::vector<ContractionPathInfo> contractionPathInfos(const Graph& g, const PathOptions& opts) {
  std::vector<ContractionPathInfo> infos;
  for (const auto& n : g.nodes)
    if (n.inputs.size() >= 3) infos.push_back(splitNode(n, opts).info);
  return infos;
}

std::vector<Node> contractionSteps(const Node& n, const PathOptions& opts) { return splitNode(n, opts).steps; }

std::string sanitizedInternalName(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '.') out += "__";
    else out += c;
  }
  return out;
}

Graph withSanitizedNames(const Graph& g) {
  Graph out = g;
  for (auto& t : out.inputs) t.name = sanitizedInternalName(t.name);
  for (auto& n : out.nodes) {
    n.name = sanitizedInternalName(n.name);
    for (auto& in : n.inputs) in = sanitizedInternalName(in);
  }
  for (auto& o : out.outputs) o = sanitizedInternalName(o);
  return out;
}

}  // namespace eindecomp
