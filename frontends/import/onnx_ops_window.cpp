// Convolutions and pooling whose windows tile the image: Conv, MaxPool and AveragePool with
// kernel = stride, no padding and no dilation (a ViT's patchify convolution, a 2x2 pool of
// stride 2), and GlobalAveragePool / GlobalMaxPool. Such windows never overlap, so each
// spatial dimension of size H = (H / k) x k is split by a reshape into (window, offset) —
// a view, no data moves — and the operator is one EinSum over the offsets:
//   Conv:  Z[n,o,y,x] = sum_{c,i,j} X[n,c,y,i,x,j] * W[o,c,i,j]  (+ B[o])
//   Pool:  Z[n,c,y,x] = max or mean over (i,j) of X[n,c,y,i,x,j]
// which the planner cuts and the programs run like any EinSum. Pad (constant 0) places its
// input into the wider tensor, as a concatenation does. Windows that overlap or pad
// (a 3x3 convolution of stride 1) need windowed labels with halos and are refused with
// what the node asks for; windowRefusal lets the importer name every such node up front.
#include <algorithm>
#include <numeric>

#include "frontends/import/onnx_ops.h"
#include "planner/graph/excerpt.h"

namespace eindecomp::onnx_import {

namespace {

// The window of a Conv or pooling node, from its attributes.
struct Window {
  std::vector<int64_t> kernel, strides, pads, dilations;
  int64_t group = 1;
  std::string autoPad = "NOTSET";
  bool ceilMode = false;
};

std::vector<int64_t> intsOr(const onnx::NodeProto& node, const std::string& name, std::vector<int64_t> fallback) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return std::vector<int64_t>(a.ints().begin(), a.ints().end());
  return fallback;
}

// `kernel`: the spatial kernel shape (from kernel_shape, or the weight's shape for Conv).
Window windowOf(const onnx::NodeProto& node, const std::vector<int64_t>& kernel) {
  Window w;
  w.kernel = intsOr(node, "kernel_shape", kernel);
  const std::size_t r = w.kernel.size();
  w.strides = intsOr(node, "strides", std::vector<int64_t>(r, 1));
  w.pads = intsOr(node, "pads", std::vector<int64_t>(2 * r, 0));
  w.dilations = intsOr(node, "dilations", std::vector<int64_t>(r, 1));
  for (const auto& a : node.attribute()) {
    if (a.name() == "group") w.group = a.i();
    if (a.name() == "auto_pad") w.autoPad = a.s();
    if (a.name() == "ceil_mode") w.ceilMode = a.i() != 0;
  }
  return w;
}

std::string listText(const std::vector<int64_t>& v) {
  std::string s;
  for (const int64_t x : v) s += (s.empty() ? "" : "x") + std::to_string(x);
  return s;
}

// Why this window cannot be imported as a reshape and an EinSum, or nothing when it can.
std::optional<std::string> tilingRefusal(const Window& w, const std::string& what) {
  const std::size_t r = w.kernel.size();
  if (r == 0) return "a " + what + " without a kernel shape";
  if (w.strides.size() != r || w.dilations.size() != r || w.pads.size() != 2 * r)
    return "a " + what + " whose strides, pads or dilations do not match its kernel's rank";
  const bool padded = std::any_of(w.pads.begin(), w.pads.end(), [](int64_t p) { return p != 0; });
  const bool dilated = std::any_of(w.dilations.begin(), w.dilations.end(), [](int64_t d) { return d != 1; });
  const bool autoPadded = w.autoPad != "NOTSET" && w.autoPad != "VALID";
  if (w.strides != w.kernel || padded || dilated || autoPadded || w.ceilMode)
    return "a " + what + " with overlapping or padded windows (kernel " + listText(w.kernel) + ", stride " + listText(w.strides) +
           (padded ? ", padding " + listText(w.pads) : "") + (dilated ? ", dilation " + listText(w.dilations) : "") +
           (autoPadded ? ", auto_pad " + w.autoPad : "") + (w.ceilMode ? ", ceil_mode" : "") +
           "): einplan import maps windows that tile the image (kernel = stride, no padding); windowed labels with halos "
           "are not built yet";
  return std::nullopt;
}

// The spatial dimensions of x [N, C, D1..Dr] split into (window, offset) pairs; returns the
// view and, per spatial dimension, the symbols (window, offset). Refuses a size the kernel
// does not divide (the tail the operator drops would need a slice of the input).
View tiled(OpContext& c, int input, const std::vector<int64_t>& kernel, std::vector<int>& leading,
           std::vector<std::pair<int, int>>& spatial) {
  const std::vector<int64_t> shape = c.shape(input);
  if (shape.size() != kernel.size() + 2)
    throw Unsupported("an input of rank " + std::to_string(shape.size()) + " for a kernel of rank " + std::to_string(kernel.size()));
  std::vector<int64_t> split = {shape[0], shape[1]};
  for (std::size_t d = 0; d < kernel.size(); ++d) {
    if (shape[d + 2] % kernel[d] != 0)
      throw Unsupported("spatial size " + std::to_string(shape[d + 2]) + " is not a multiple of the kernel's " +
                        std::to_string(kernel[d]) + " (the dropped tail would be a slice of the input)");
    split.push_back(shape[d + 2] / kernel[d]);
    split.push_back(kernel[d]);
  }
  leading = {c.symbol(), c.symbol()};
  spatial.clear();
  for (std::size_t d = 0; d < kernel.size(); ++d) spatial.emplace_back(c.symbol(), c.symbol());
  if (c.isConstant(input)) throw Unsupported("a window over a constant input");
  return c.graph().reshape(c.view(input), split);
}

void conv(OpContext& c) {
  const std::vector<int64_t> wshape = c.shape(1);
  if (wshape.size() < 3) throw Unsupported("a Conv weight of rank " + std::to_string(wshape.size()));
  const Window w = windowOf(c.node(), std::vector<int64_t>(wshape.begin() + 2, wshape.end()));
  if (auto why = tilingRefusal(w, "convolution")) throw Unsupported(*why);
  if (w.kernel != std::vector<int64_t>(wshape.begin() + 2, wshape.end()))
    throw Unsupported("kernel_shape " + listText(w.kernel) + " differs from the weight's " + listText({wshape.begin() + 2, wshape.end()}));
  if (w.group != 1) throw Unsupported("a grouped convolution (group " + std::to_string(w.group) + ")");
  std::vector<int> lead;
  std::vector<std::pair<int, int>> spatial;
  const View x = tiled(c, 0, w.kernel, lead, spatial);
  const int out = c.symbol();
  ImportGraph::Operand xo{x, {lead[0], lead[1]}}, wo{c.view(1), {out, lead[1]}};
  std::vector<int> result = {lead[0], out};
  for (const auto& [window, offset] : spatial) {
    xo.symbols.push_back(window);
    xo.symbols.push_back(offset);
    wo.symbols.push_back(offset);
    result.push_back(window);
  }
  const bool bias = c.hasInput(2);
  View y = c.graph().einsum({xo, wo}, result, joinExpr("x * y"), Reduce::Sum, c.hint(bias ? "product" : ""));
  if (bias) {
    if (c.shape(2) != std::vector<int64_t>{wshape[0]}) throw Unsupported("a Conv bias of shape " + shapeText(c.shape(2)));
    std::vector<int64_t> trailing(w.kernel.size());
    std::iota(trailing.begin(), trailing.end(), int64_t{1});
    y = elementwise(c, {y, c.graph().unsqueeze(c.view(2), trailing)}, "x + y");
  }
  c.setOutput(0, y);
}

// MaxPool and AveragePool of tiling windows: one reduction over the offsets.
void pool(OpContext& c, Reduce agg) {
  const Window w = windowOf(c.node(), {});
  if (auto why = tilingRefusal(w, "pooling")) throw Unsupported(*why);
  if (c.outputCount() > 1 && c.wantsOutput(1)) throw Unsupported("MaxPool's Indices output");
  std::vector<int> lead;
  std::vector<std::pair<int, int>> spatial;
  const View x = tiled(c, 0, w.kernel, lead, spatial);
  ImportGraph::Operand xo{x, lead};
  std::vector<int> result = lead;
  for (const auto& [window, offset] : spatial) {
    xo.symbols.push_back(window);
    xo.symbols.push_back(offset);
    result.push_back(window);
  }
  const int64_t n = std::accumulate(w.kernel.begin(), w.kernel.end(), int64_t{1}, std::multiplies<>());
  const std::string join = agg == Reduce::Sum ? "x / " + numberText(static_cast<double>(n)) : "x";
  c.setOutput(0, c.graph().einsum({xo}, result, joinExpr(join), agg, c.hint()));
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

// Pad in constant mode with the value 0 (what exporters write before a pooling): zero pads
// are the input itself; other pads place the input into the wider tensor along each padded
// axis with ImportGraph::select (exact: the places outside hold -0, which compares and adds
// as 0). Other modes, other values and negative pads (crops) are refused.
void pad(OpContext& c) {
  const std::string mode = c.stringAttribute("mode", "constant");
  if (mode != "constant") throw Unsupported("Pad in mode " + eindecomp::quoted(mode));
  if (c.hasInput(3)) throw Unsupported("Pad with axes");
  if (c.hasInput(2)) {
    const auto value = c.scalarConstant(2);
    if (!value || *value != 0.0) throw Unsupported("Pad with a value other than 0");
  }
  const std::vector<int64_t> pads = c.constantInts(1), shape = c.shape(0);
  const std::size_t r = shape.size();
  if (pads.size() != 2 * r) throw Unsupported("Pad with " + std::to_string(pads.size()) + " pads for rank " + std::to_string(r));
  if (std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p < 0; })) throw Unsupported("Pad with negative pads (a crop)");
  if (c.isConstant(0) && std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; }))
    return c.setConstant(0, c.constant(0));
  if (c.isConstant(0)) throw Unsupported("Pad of a constant");
  View v = c.view(0);
  for (std::size_t d = 0; d < r; ++d) {
    const int64_t before = pads[d], after = pads[d + r];
    if (before == 0 && after == 0) continue;
    std::vector<int64_t> indices(static_cast<std::size_t>(shape[d]));
    std::iota(indices.begin(), indices.end(), int64_t{0});
    v = c.graph().select(v, static_cast<int64_t>(d), indices, shape[d] + before + after, before, c.hint("pad" + std::to_string(d)));
  }
  c.setOutput(0, v);
}

}  // namespace

std::optional<std::string> windowRefusal(const onnx::NodeProto& node, const std::vector<int64_t>& weightShape) {
  if (node.op_type() == "Conv") {
    const std::vector<int64_t> kernel = weightShape.size() >= 3 ? std::vector<int64_t>(weightShape.begin() + 2, weightShape.end())
                                                                : std::vector<int64_t>{};
    const Window w = windowOf(node, kernel);
    if (w.kernel.empty()) return std::nullopt;  // the translation names what is missing
    return tilingRefusal(w, "convolution");
  }
  if (node.op_type() == "MaxPool" || node.op_type() == "AveragePool") return tilingRefusal(windowOf(node, {}), "pooling");
  return std::nullopt;
}

void addWindowOperators(std::map<std::string, OpTranslation>& t) {
  t["Conv"] = conv;
  t["MaxPool"] = [](OpContext& c) { pool(c, Reduce::Max); };
  t["AveragePool"] = [](OpContext& c) {
    if (c.intAttribute("count_include_pad", 0) != 0 && c.hasAttribute("pads")) {
      const auto pads = *c.intsAttribute("pads");
      if (std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p != 0; })) throw Unsupported("padded average pooling");
    }
    pool(c, Reduce::Sum);
  };
  t["GlobalAveragePool"] = [](OpContext& c) { globalPool(c, Reduce::Sum); };
  t["Pad"] = pad;
  t["GlobalMaxPool"] = [](OpContext& c) { globalPool(c, Reduce::Max); };
}

}  // namespace eindecomp::onnx_import
