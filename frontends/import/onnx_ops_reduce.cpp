// Reductions and normalisations: ReduceSum/Mean/Max/Min/Prod (axes, keepdims), Softmax and
// LogSoftmax over any axis, and LayerNormalization. Each becomes the EinSums it is made
// of: a reduction is one node whose aggregation is the ONNX reduction (a mean sums x / n),
// softmax is max, exp(x - max), sum and a division, LayerNormalization is mean, centring,
// variance, 1/sqrt(var + eps), scale and bias. The ReduceMean/Sub/Pow/Sqrt/Div pattern
// exporters emit for a normalisation needs no matching: each of its operators maps alone.
#include <algorithm>

#include "frontends/import/onnx_ops.h"

namespace eindecomp::onnx_import {

View reduce(OpContext& c, const View& v, const std::vector<int64_t>& axes, bool keepdims, const std::string& join,
            Reduce agg, const std::string& step) {
  const std::vector<int64_t> shape = c.graph().shape(v);
  ImportGraph::Operand op{v, {}};
  std::vector<int> out;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const int s = c.symbol();
    op.symbols.push_back(s);
    const bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) != axes.end();
    if (!reduced) out.push_back(s);
    else if (keepdims) out.push_back(c.symbol());  // a kept dimension of size 1
  }
  return c.graph().einsum({op}, out, joinExpr(join), agg, c.hint(step));
}

namespace {

std::vector<int64_t> normalisedAxes(OpContext& c, const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<int64_t> out;
  for (const int64_t a : axes) {
    const int64_t n = c.axis(a, rank);
    if (std::find(out.begin(), out.end(), n) != out.end()) throw Unsupported("axis " + std::to_string(a) + " is listed twice");
    out.push_back(n);
  }
  return out;
}

int64_t countOver(const std::vector<int64_t>& shape, const std::vector<int64_t>& axes) {
  int64_t n = 1;
  for (const int64_t a : axes) n *= shape[static_cast<std::size_t>(a)];
  return n;
}

// `join` runs on each element before the aggregation, `after` (if any) on the result.
void reduction(std::map<std::string, OpTranslation>& t, const std::string& op, Reduce agg, bool mean,
               const std::string& join = "x", const std::string& after = "") {
  t[op] = [op, agg, mean, join, after](OpContext& c) {
    const std::vector<int64_t> shape = c.shape(0);
    const int64_t rank = static_cast<int64_t>(shape.size());
    std::vector<int64_t> axes;
    // Opsets 13-17: ReduceSum takes axes as an input, the others (and ReduceSum before 13)
    // as an attribute.
    const bool axesInput = op == "ReduceSum" && c.opset() >= 13;
    if (axesInput && c.hasInput(1)) axes = c.constantInts(1);
    if (!axesInput) axes = c.intsAttribute("axes").value_or(std::vector<int64_t>{});
    if (axes.empty()) {
      if (axesInput && c.intAttribute("noop_with_empty_axes", 0) != 0) {
        if (c.isConstant(0)) return c.setConstant(0, c.constant(0));
        return c.setOutput(0, c.view(0));
      }
      for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
    }
    axes = normalisedAxes(c, axes, rank);
    const bool keepdims = c.intAttribute("keepdims", 1) != 0;
    const int64_t n = countOver(shape, axes);
    if (n == 0) throw Unsupported("a reduction over an empty dimension");
    const std::string each = mean && n > 1 ? "x / " + numberText(static_cast<double>(n)) : join;
    const View r = reduce(c, c.view(0), axes, keepdims, each, agg, after.empty() ? "" : "reduced");
    c.setOutput(0, after.empty() ? r : elementwise(c, {r}, after));
  };
}

void softmax(OpContext& c, bool logarithm) {
  const int64_t rank = c.rank(0);
  const int64_t axis = c.axis(c.intAttribute("axis", c.opset() >= 13 ? -1 : 1), rank);
  // Before opset 13 Softmax coerced its input to 2-D at `axis`: the same as ours only for the last axis.
  if (c.opset() < 13 && axis != rank - 1)
    throw Unsupported("opset " + std::to_string(c.opset()) + " Softmax over the dimensions from axis " + std::to_string(axis) +
                      " on (coerced to 2-D) is not mapped; re-export with opset 13 or later");
  const View x = c.view(0);
  const View m = reduce(c, x, {axis}, true, "x", Reduce::Max, "max");
  if (logarithm) {
    const View shifted = elementwise(c, {x, m}, "x - y", "shifted");
    const View s = reduce(c, shifted, {axis}, true, "exp(x)", Reduce::Sum, "sum");
    return c.setOutput(0, elementwise(c, {shifted, s}, "x - log(y)"));
  }
  const View e = elementwise(c, {x, m}, "exp(x - y)", "exp");
  const View s = reduce(c, e, {axis}, true, "x", Reduce::Sum, "sum");
  c.setOutput(0, elementwise(c, {e, s}, "x / y"));
}

void layerNormalization(OpContext& c) {
  const std::vector<int64_t> shape = c.shape(0);
  const int64_t rank = static_cast<int64_t>(shape.size());
  const int64_t axis = c.axis(c.intAttribute("axis", -1), rank);
  const double eps = c.floatAttribute("epsilon", 1e-5);
  std::vector<int64_t> axes;
  for (int64_t i = axis; i < rank; ++i) axes.push_back(i);
  const std::string n = numberText(static_cast<double>(countOver(shape, axes)));
  const View x = c.view(0);
  const View mean = reduce(c, x, axes, true, "x / " + n, Reduce::Sum, "mean");
  const View centred = elementwise(c, {x, mean}, "x - y", "centred");
  const View var = reduce(c, centred, axes, true, "x * x / " + n, Reduce::Sum, "var");
  const View inv = elementwise(c, {var}, "1 / sqrt(x + " + numberText(eps) + ")", "invstd");
  View y = elementwise(c, {centred, inv}, "x * y", "normed");
  const bool bias = c.hasInput(2) && c.scalarConstant(2) != std::optional<double>(0.0);
  if (const auto u = c.scalarConstant(1); u && broadcastShapes({shape, c.shape(1)}) == shape) {
    if (*u != 1.0) y = elementwise(c, {y}, "x * " + numberText(*u), bias ? "scaled" : "");
  } else {
    y = elementwise(c, {y, c.view(1)}, "x * y", bias ? "scaled" : "");
  }
  if (bias) {
    if (const auto u = c.scalarConstant(2); u && broadcastShapes({shape, c.shape(2)}) == shape)
      y = elementwise(c, {y}, "x + " + numberText(*u));
    else
      y = elementwise(c, {y, c.view(2)}, "x + y");
  }
  c.setOutput(0, y);
  c.setOutput(1, mean);
  c.setOutput(2, inv);
}

}  // namespace

void addReduceOperators(std::map<std::string, OpTranslation>& t) {
  reduction(t, "ReduceSum", Reduce::Sum, false);
  reduction(t, "ReduceMean", Reduce::Sum, true);
  reduction(t, "ReduceMax", Reduce::Max, false);
  reduction(t, "ReduceMin", Reduce::Min, false);
  reduction(t, "ReduceProd", Reduce::Prod, false);
  reduction(t, "ReduceSumSquare", Reduce::Sum, false, "x * x");
  reduction(t, "ReduceL1", Reduce::Sum, false, "abs(x)");
  reduction(t, "ReduceL2", Reduce::Sum, false, "x * x", "sqrt(x)");
  reduction(t, "ReduceLogSum", Reduce::Sum, false, "x", "log(x)");
  reduction(t, "ReduceLogSumExp", Reduce::Sum, false, "exp(x)", "log(x)");
  t["Softmax"] = [](OpContext& c) { softmax(c, false); };
  t["LogSoftmax"] = [](OpContext& c) { softmax(c, true); };
  t["LayerNormalization"] = layerNormalization;
}

}  // namespace eindecomp::onnx_import
