#include "frontends/eval/node_eval.h"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>

#include "frontends/eval/scalar_expr_eval.h"
#include "planner/graph/diagnostic.h"
#include "planner/graph/excerpt.h"
#include "planner/paths/split_nary.h"

namespace eindecomp {

double aggregationIdentity(Reduce agg) {
  switch (agg) {
    case Reduce::Sum: return 0.0;
    case Reduce::Prod: return 1.0;
    case Reduce::Max: return -std::numeric_limits<double>::infinity();
    case Reduce::Min: return std::numeric_limits<double>::infinity();
  }
  throw std::invalid_argument("unknown aggregation");
}

double aggregate(Reduce agg, double accumulator, double value) {
  switch (agg) {
    case Reduce::Sum: return accumulator + value;
    case Reduce::Prod: return accumulator * value;
    case Reduce::Max: return nanPropagatingMax(accumulator, value);
    case Reduce::Min: return nanPropagatingMin(accumulator, value);
  }
  throw std::invalid_argument("unknown aggregation");
}

// For each iteration label, the stride (in elements) with which it moves through a
// tensor indexed by `tensorLabels` of the given shape; 0 for labels the tensor lacks.
static std::vector<int64_t> labelStrides(const Labels& iteration, const Labels& tensorLabels,
                                         const std::vector<int64_t>& shape) {
  const std::vector<int64_t> strides = rowMajorStrides(shape);
  std::vector<int64_t> out(iteration.size(), 0);
  // A label repeated within the tensor (a diagonal) moves along every dimension it names.
  for (std::size_t d = 0; d < iteration.size(); ++d)
    for (std::size_t t = 0; t < tensorLabels.size(); ++t)
      if (tensorLabels[t] == iteration[d]) out[d] += strides[t];
  return out;
}

static void checkOperands(const Node& node, const std::vector<const Tensor*>& operands) {
  const std::string where = "node '" + node.name + "': ";
  if (operands.size() != node.operandLabels.size() || operands.empty())
    throw std::invalid_argument(where + "expects " + std::to_string(node.operandLabels.size()) + " operand(s), got " +
                                std::to_string(operands.size()));
  if (operands.size() > 2 && !isContraction(node))
    throw std::invalid_argument(where + "a node with three or more operands must be a pure contraction");
  for (std::size_t k = 0; k < operands.size(); ++k) {
    const Labels& labels = node.operandLabels[k];
    std::vector<int64_t> expected;
    for (const auto& l : labels) expected.push_back(node.labelSizes.at(l));
    if (operands[k]->shape != expected || static_cast<int64_t>(operands[k]->values.size()) != elementCount(expected))
      throw std::invalid_argument(where + "operand " + std::to_string(k) + " does not have the shape its labels give");
  }
}

// The node's accumulators (one per output element, in double, not rounded): every point
// of the iteration space visited in C order, the operands' and the output's offsets kept
// up to date as the odometer turns.
static std::vector<double> accumulate(const Node& node, const std::vector<const Tensor*>& operands) {
  const Labels labels = iterationLabels(node);
  std::vector<int64_t> extents;
  for (const auto& l : labels) extents.push_back(node.labelSizes.at(l));

  const std::vector<int64_t> outShape = outputShape(node);
  const std::vector<int64_t> outStrides = labelStrides(labels, node.outputLabels, outShape);
  std::vector<std::vector<int64_t>> operandStrides;
  for (std::size_t k = 0; k < operands.size(); ++k)
    operandStrides.push_back(labelStrides(labels, node.operandLabels[k], operands[k]->shape));

  const bool contraction = isContraction(node);
  std::vector<double> accumulators(static_cast<std::size_t>(elementCount(outShape)), aggregationIdentity(node.agg));
  std::vector<double> operandValues(operands.size());
  const int64_t points = elementCount(extents);
  std::vector<int64_t> point(labels.size(), 0);  // the current point, an odometer in C order
  std::vector<int64_t> offsets(operands.size(), 0);
  int64_t outOffset = 0;

  for (int64_t n = 0; n < points; ++n) {
    for (std::size_t k = 0; k < operands.size(); ++k) operandValues[k] = operands[k]->values[static_cast<std::size_t>(offsets[k])];
    double joined;
    if (contraction) {
      // mul over every operand (for a unary contraction: the identity).
      joined = 1.0;
      for (double v : operandValues) joined *= v;
    } else {
      joined = evaluateScalarExpr(node.join, operandValues[0], operandValues.size() > 1 ? operandValues[1] : 0.0);
    }
    double& acc = accumulators[static_cast<std::size_t>(outOffset)];
    acc = aggregate(node.agg, acc, joined);

    // Next point: the last label moves fastest; a label that wraps to 0 takes its offsets back.
    for (std::size_t d = labels.size(); d-- > 0;) {
      const bool wraps = ++point[d] == extents[d];
      const int64_t step = wraps ? 1 - extents[d] : 1;
      if (wraps) point[d] = 0;
      for (std::size_t k = 0; k < operands.size(); ++k) offsets[k] += step * operandStrides[k][d];
      outOffset += step * outStrides[d];
      if (!wraps) break;
    }
  }
  return accumulators;
}

// An index node (graph.h): every point of its labels but the selected one reads its id
// and adds y's element at that id into the output's (a gather's or a scatter's row).
static std::vector<double> accumulateIndexed(const Node& node, const std::vector<const Tensor*>& operands) {
  Labels labels = iterationLabels(node);
  const auto selected = std::find(labels.begin(), labels.end(), node.indexLabel) - labels.begin();
  const std::vector<int64_t> outShape = outputShape(node);
  const std::vector<int64_t> idStrides = labelStrides(labels, node.operandLabels[0], operands[0]->shape);
  const std::vector<int64_t> yStrides = labelStrides(labels, node.operandLabels[1], operands[1]->shape);
  const std::vector<int64_t> outStrides = labelStrides(labels, node.outputLabels, outShape);
  const int64_t range = node.labelSizes.at(node.indexLabel);
  const int64_t yStep = yStrides[static_cast<std::size_t>(selected)], outStep = outStrides[static_cast<std::size_t>(selected)];
  std::vector<int64_t> extents;
  for (std::size_t d = 0; d < labels.size(); ++d)
    extents.push_back(static_cast<std::ptrdiff_t>(d) == selected ? 1 : node.labelSizes.at(labels[d]));
  std::vector<double> accumulators(static_cast<std::size_t>(elementCount(outShape)), 0.0);
  std::vector<int64_t> point(labels.size(), 0);
  int64_t idAt = 0, yAt = 0, outAt = 0;
  for (int64_t n = 0, points = elementCount(extents); n < points; ++n) {
    const double id = operands[0]->values[static_cast<std::size_t>(idAt)];
    if (!(id >= 0 && id < static_cast<double>(range))) {
      std::string position;
      for (std::size_t d = 0; d < node.operandLabels[0].size(); ++d) {
        const auto l = std::find(labels.begin(), labels.end(), node.operandLabels[0][d]) - labels.begin();
        position += (d ? ", " : "") + std::to_string(point[static_cast<std::size_t>(l)]);
      }
      throw InputError({node.loc, "node " + quoted(node.name) + ": id " + std::to_string(static_cast<int64_t>(id)) +
                                      " at position (" + position + ") of " + quoted(node.inputs[0]) + " is outside [0, " +
                                      std::to_string(range) + "), the size of label " + quoted(node.indexLabel)});
    }
    const auto row = static_cast<int64_t>(id);
    accumulators[static_cast<std::size_t>(outAt + row * outStep)] += operands[1]->values[static_cast<std::size_t>(yAt + row * yStep)];
    for (std::size_t d = labels.size(); d-- > 0;) {
      const bool wraps = ++point[d] == extents[d];
      const int64_t step = wraps ? 1 - extents[d] : 1;
      if (wraps) point[d] = 0;
      idAt += step * idStrides[d];
      yAt += step * yStrides[d];
      outAt += step * outStrides[d];
      if (!wraps) break;
    }
  }
  return accumulators;
}

// The tap labels of operand k's dimensions (SPEC 8.1: a convolution's), in dimension
// order, each once; empty when it has none.
static Labels tapLabels(const Node& node, std::size_t k) {
  Labels taps;
  if (!hasTaps(node) || node.windows->taps[k].empty()) return taps;
  for (const Label& t : node.windows->taps[k])
    if (!t.empty() && std::find(taps.begin(), taps.end(), t) == taps.end()) taps.push_back(t);
  return taps;
}

// Operand k of a windowed node as the node reads it (SPEC 8.1): a tensor with its labels'
// sizes whose element at i is the operand's at step * i + offset, or the fill outside it
// (through a spread: at (i + offset) / spread where that divides, the fill elsewhere).
// With tap labels, the tensor has their dimensions too, after its own (an unfold: the
// element at (i, t) is the operand's at step * i + dilation * t + offset).
static Tensor readThroughWindow(const Node& node, std::size_t k, const Tensor& operand) {
  const Labels& labels = node.operandLabels[k];
  const std::vector<int64_t>& offset = node.windows->offsets[k];
  if (operand.shape.size() != labels.size())
    throw std::invalid_argument("node '" + node.name + "': operand " + std::to_string(k) + " does not have the rank its labels give");
  const Labels taps = tapLabels(node, k);
  std::vector<int64_t> tapDim(labels.size(), -1);  // per own dimension: the position of its tap label
  for (std::size_t d = 0; d < labels.size() && !taps.empty(); ++d)
    if (!node.windows->taps[k][d].empty())
      tapDim[d] = static_cast<int64_t>(labels.size()) + (std::find(taps.begin(), taps.end(), node.windows->taps[k][d]) - taps.begin());
  Tensor w;
  w.dtype = operand.dtype;
  for (const Label& l : labels) w.shape.push_back(node.labelSizes.at(l));
  for (const Label& t : taps) w.shape.push_back(node.labelSizes.at(t));
  w.values.assign(static_cast<std::size_t>(elementCount(w.shape)), node.windows->fill);
  const std::vector<int64_t> from = rowMajorStrides(operand.shape);
  const NodeWindows& nw = *node.windows;
  std::vector<int64_t> at(w.shape.size(), 0);
  for (std::size_t e = 0; e < w.values.size(); ++e) {
    int64_t source = 0;
    bool inside = true;
    for (std::size_t d = 0; d < labels.size(); ++d) {
      int64_t i = nw.stepOf(k, d) * at[d] + offset[d];
      if (tapDim[d] >= 0) i += node.windows->dilations[k][d] * at[static_cast<std::size_t>(tapDim[d])];
      if (const int64_t s = nw.spreadOf(k, d); s > 1) i = i % s == 0 ? i / s : -1;
      inside = inside && i >= 0 && i < operand.shape[d];
      source += i * from[d];
    }
    if (inside) w.values[e] = operand.values[static_cast<std::size_t>(source)];
    for (std::size_t d = at.size(); d-- > 0;) {
      if (++at[d] < w.shape[d]) break;
      at[d] = 0;
    }
  }
  return w;
}

Tensor evaluateNode(const Graph& graph, const Node& givenNode, const std::vector<const Tensor*>& given) {
  std::vector<Tensor> windowed(given.size());
  std::vector<const Tensor*> operands = given;
  // A tapped operand is read unfolded, its tap labels appended to its labels.
  Node unfolded;
  if (hasTaps(givenNode)) {
    unfolded = givenNode;
    for (std::size_t k = 0; k < given.size(); ++k)
      for (const Label& t : tapLabels(givenNode, k)) unfolded.operandLabels[k].push_back(t);
  }
  const Node& node = hasTaps(givenNode) ? unfolded : givenNode;
  for (std::size_t k = 0; k < given.size(); ++k)
    if (isWindowed(givenNode, k)) {
      windowed[k] = readThroughWindow(givenNode, k, *given[k]);
      operands[k] = &windowed[k];
    }
  checkOperands(node, operands);
  Tensor out;
  // The node's type (planner/graph/tensor_types.h): a cast's, else its float operands'.
  out.dtype = node.castTo.value_or(graph.dtype);
  if (!node.castTo)
    for (const Tensor* t : given)
      if (!einrt::isIndexType(t->dtype)) {
        out.dtype = t->dtype;
        break;
      }
  out.shape = outputShape(node);
  std::vector<double> values;
  if (isIndexNode(node)) {
    values = accumulateIndexed(node, operands);
  } else if (operands.size() <= 2) {
    values = accumulate(node, operands);
  } else {
    // Binary steps along the contraction path; a step reads the node's operands by name
    // and earlier steps' results, which stay in double.
    std::map<std::string, Tensor> intermediates;
    auto tensorNamed = [&](const std::string& name) -> const Tensor* {
      auto it = intermediates.find(name);
      if (it != intermediates.end()) return &it->second;
      const auto at = std::find(node.inputs.begin(), node.inputs.end(), name) - node.inputs.begin();
      return operands[static_cast<std::size_t>(at)];
    };
    for (const Node& step : contractionSteps(node)) {
      std::vector<const Tensor*> stepOperands;
      for (const auto& name : step.inputs) stepOperands.push_back(tensorNamed(name));
      Tensor result;
      result.dtype = DType::F64;
      result.shape = outputShape(step);
      result.values = accumulate(step, stepOperands);
      if (step.name == node.name) values = std::move(result.values);
      else intermediates[step.name] = std::move(result);
    }
  }
  out.values.reserve(values.size());
  for (double a : values) out.values.push_back(roundToDType(a, out.dtype));
  return out;
}

}  // namespace eindecomp
