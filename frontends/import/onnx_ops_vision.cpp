// The operators around convolutions in vision models: BatchNormalization in inference
// (folded into a scale and a shift per channel), GlobalAveragePool and GlobalMaxPool (a
// reduction over the spatial dimensions) and Pad (constant: windows with the value as their
// fill; reflect and edge: gathers of constant ids). Convolutions and windowed pooling are
// onnx_ops_window.cpp's.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "frontends/import/onnx_ops.h"
#include "planner/graph/excerpt.h"

namespace eindecomp::onnx_import {

namespace {

// BatchNormalization in inference (training_mode 0; torch exports eval-mode models so, when
// it has not folded the norm into a convolution): y = x * a[c] + b[c] with a = scale /
// sqrt(var + eps) and b = B - mean * a — folded at import (in double precision) into two
// per-channel weights when the statistics and parameters are constants, else computed by
// elementwise nodes over the channels. Then two elementwise nodes over x.
void batchNormalization(OpContext& c) {
  if (c.intAttribute("training_mode", 0) != 0 || c.outputCount() > 1)
    throw Unsupported("BatchNormalization in training mode (its running statistics are outputs)");
  const double eps = c.floatAttribute("epsilon", 1e-5);
  const std::vector<int64_t> shape = c.shape(0);
  if (shape.size() < 2) throw Unsupported("BatchNormalization of an input of rank " + std::to_string(shape.size()));
  if (c.isConstant(0)) throw Unsupported("BatchNormalization of a constant input");
  const int64_t channels = shape[1];
  bool constants = true;
  for (int i = 1; i <= 4; ++i) {
    if (c.shape(i) != std::vector<int64_t>{channels})
      throw Unsupported("BatchNormalization input " + std::to_string(i) + " of shape " + shapeText(c.shape(i)) + " for " +
                        std::to_string(channels) + " channels");
    constants = constants && c.isConstant(i);
  }
  View a, b;
  if (constants) {
    const HostTensor &scale = c.constant(1), &bias = c.constant(2), &mean = c.constant(3), &var = c.constant(4);
    HostTensor at, bt;
    at.shape = bt.shape = {channels};
    for (std::size_t k = 0; k < static_cast<std::size_t>(channels); ++k) {
      at.values.push_back(scale.values[k] / std::sqrt(var.values[k] + eps));
      bt.values.push_back(bias.values[k] - mean.values[k] * at.values.back());
    }
    a = c.graph().addWeight(c.hint("scale"), at, false);
    b = c.graph().addWeight(c.hint("shift"), bt, false);
  } else {
    a = elementwise(c, {c.view(1), c.view(4)}, "x / sqrt(y + " + numberText(eps) + ")", "scale");
    b = elementwise(c, {elementwise(c, {c.view(3), a}, "x * y", "mean_scaled"), c.view(2)}, "y - x", "shift");
  }
  std::vector<int64_t> trailing(shape.size() - 2);
  std::iota(trailing.begin(), trailing.end(), int64_t{1});
  const View scaled = elementwise(c, {c.view(0), c.graph().unsqueeze(a, trailing)}, "x * y", "scaled");
  c.setOutput(0, elementwise(c, {scaled, c.graph().unsqueeze(b, trailing)}, "x + y"));
}

// GlobalAveragePool / GlobalMaxPool: a reduction over every spatial dimension, kept as 1s.
void globalPool(OpContext& c, Reduce agg) {
  const std::vector<int64_t> shape = c.shape(0);
  if (shape.size() < 3) throw Unsupported("a global pooling of an input of rank " + std::to_string(shape.size()));
  std::vector<int64_t> axes;
  int64_t n = 1;
  for (std::size_t d = 2; d < shape.size(); ++d) {
    axes.push_back(static_cast<int64_t>(d));
    n *= shape[d];
  }
  const std::string join = agg == Reduce::Sum ? "x / " + numberText(static_cast<double>(n)) : "x";
  c.setOutput(0, reduce(c, c.view(0), axes, true, join, agg));
}

// Pad in mode reflect (x[2] x[1] | x[0] ... x[n-1] | x[n-2] ...) or edge (x[0] x[0] | ... |
// x[n-1] x[n-1]): per padded axis one gather node whose constant ids name, for each place
// of the result, the element it copies (ImportGraph::gather: an i64 weight) — a copy of the
// result's size. Negative pads (crops) and axes the model merged from several are refused.
void padByIndices(OpContext& c, bool reflect) {
  if (c.hasInput(3)) throw Unsupported("Pad with axes");
  const std::vector<int64_t> pads = c.constantInts(1), shape = c.shape(0);
  const std::size_t r = shape.size();
  if (pads.size() != 2 * r) throw Unsupported("Pad with " + std::to_string(pads.size()) + " pads for rank " + std::to_string(r));
  if (c.isConstant(0)) throw Unsupported("Pad of a constant");
  View v = c.view(0);
  for (std::size_t d = 0; d < r; ++d) {
    const int64_t before = pads[d], after = pads[d + r], n = shape[d];
    if (before == 0 && after == 0) continue;
    if (before < 0 || after < 0) throw Unsupported("Pad in mode reflect or edge with a negative pad (a crop)");
    if (reflect && (before >= n || after >= n))
      throw Unsupported("Pad in mode reflect by " + std::to_string(std::max(before, after)) + " along a dimension of " +
                        std::to_string(n) + " (a reflection repeats no edge: pads below the size)");
    std::vector<int64_t> ids;
    for (int64_t k = -before; k < n + after; ++k)
      ids.push_back(k < 0 ? (reflect ? -k : 0) : k >= n ? (reflect ? 2 * (n - 1) - k : n - 1) : k);
    const std::optional<View> padded = c.graph().gather(v, static_cast<int64_t>(d), ids, {static_cast<int64_t>(ids.size())},
                                                        c.hint("pad" + std::to_string(d)));
    if (!padded) throw Unsupported("Pad in mode reflect or edge along a dimension the model merged from several");
    v = *padded;
  }
  c.setOutput(0, v);
}

// Pad in constant mode: zero pads are the input itself; other pads read the input through
// a window along each padded axis (ImportGraph::window: the value outside it, negative pads
// crop), or — where the axis spans several dimensions of its tensor and the value is 0 —
// place it into the wider tensor with ImportGraph::select (exact: the places outside hold
// -0, which compares and adds as 0). Other modes are refused.
void pad(OpContext& c) {
  const std::string mode = c.stringAttribute("mode", "constant");
  if (mode == "reflect" || mode == "edge") return padByIndices(c, mode == "reflect");
  if (mode != "constant") throw Unsupported("Pad in mode " + eindecomp::quoted(mode));
  if (c.hasInput(3)) throw Unsupported("Pad with axes");
  double value = 0.0;
  if (c.hasInput(2)) {
    const auto given = c.scalarConstant(2);
    if (!given) throw Unsupported("Pad with a computed value");
    value = *given;
  }
  const std::vector<int64_t> pads = c.constantInts(1), shape = c.shape(0);
  const std::size_t r = shape.size();
  if (pads.size() != 2 * r) throw Unsupported("Pad with " + std::to_string(pads.size()) + " pads for rank " + std::to_string(r));
  if (c.isConstant(0) && std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; }))
    return c.setConstant(0, c.constant(0));
  if (c.isConstant(0)) throw Unsupported("Pad of a constant");
  View v = c.view(0);
  for (std::size_t d = 0; d < r; ++d) {
    const int64_t before = pads[d], after = pads[d + r];
    if (before == 0 && after == 0) continue;
    if (shape[d] + before + after <= 0) throw Unsupported("Pad that crops dimension " + std::to_string(d) + " to nothing");
    const std::string hint = c.hint("pad" + std::to_string(d));
    if (std::optional<View> w = c.graph().window(v, static_cast<int64_t>(d), -before, shape[d] + before + after, value, hint)) {
      v = *w;
      continue;
    }
    if (value != 0.0 || before < 0 || after < 0)
      throw Unsupported("Pad with a value other than 0 or a crop along a dimension the model merged from several");
    std::vector<int64_t> indices(static_cast<std::size_t>(shape[d]));
    std::iota(indices.begin(), indices.end(), int64_t{0});
    v = c.graph().select(v, static_cast<int64_t>(d), indices, shape[d] + before + after, before, hint);
  }
  c.setOutput(0, v);
}

}  // namespace

void addVisionOperators(std::map<std::string, OpTranslation>& t) {
  t["BatchNormalization"] = batchNormalization;
  t["GlobalAveragePool"] = [](OpContext& c) { globalPool(c, Reduce::Sum); };
  t["GlobalMaxPool"] = [](OpContext& c) { globalPool(c, Reduce::Max); };
  t["Pad"] = pad;
}

}  // namespace eindecomp::onnx_import
