// Convolutions and windowed pooling: Conv (1-3-D, groups, depthwise), MaxPool and
// AveragePool (ConvTranspose: onnx_ops_conv_transpose.cpp; Pad, BatchNormalization and
// global pooling: onnx_ops_vision.cpp). Where the windows tile the input (kernel =
// stride, no padding: a ViT's patchify convolution, a 2x2 pool of stride 2) and the split
// can reach every node it spreads to, each spatial dimension is a reshape into (window y,
// offset i) — a view, no data moves — and the operator one EinSum over the offsets:
//   Conv:  Z[n,o,y,x] = sum_{c,i,j} X[n,c,y,i,x,j] * W[o,c,i,j]  (+ B[o])
//   Pool:  Z[n,c,y,x] = max or mean over (i,j) of X[n,c,y,i,x,j]
// Otherwise the operator is one node reading its input through windows over tap labels
// with the stride as their step (SPEC 8.1): a convolution node (convolutionNode), or a
// pooling node over the taps of a constant (poolNode). Where that cannot be made, a sum
// (or max) over its kernel's taps, each a window of the input (window_rules::tapInput):
// the operator's own FLOPs and a copy per tap; where a spatial axis spans merged
// dimensions of its tensor, each dimension is unfolded by a contraction with a constant
// 0/1 tensor (ImportGraph::unfold: exact, paid in multiply-adds). An average whose divisor varies by position
// (count_include_pad 0 beside padding) multiplies by a constant of reciprocals.
// windowRefusal names, before any node is translated, attributes that make no window.
#include <algorithm>
#include <cmath>
#include <limits>
#include <functional>
#include <numeric>
#include <variant>

#include "frontends/import/onnx_ops.h"
#include "frontends/import/onnx_windows.h"
#include "planner/graph/excerpt.h"

namespace eindecomp::onnx_import {

namespace window_rules {

// (Declared, and said what they are, in onnx_windows.h.)

std::vector<int64_t> intsOr(const onnx::NodeProto& node, const std::string& name, std::vector<int64_t> fallback) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return std::vector<int64_t>(a.ints().begin(), a.ints().end());
  return fallback;
}

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

Window convolutionWindow(OpContext& c, const std::string& op, const std::string& what) {
  const std::vector<int64_t> wshape = c.shape(1), xshape = c.shape(0);
  if (wshape.size() < 3) throw Unsupported("a " + op + " weight of rank " + std::to_string(wshape.size()));
  const std::vector<int64_t> kernel(wshape.begin() + 2, wshape.end());
  const Window w = windowOf(c.node(), kernel);
  if (auto why = windowProblem(w, what)) throw Unsupported(*why);
  if (w.kernel != kernel) throw Unsupported("kernel_shape " + listText(w.kernel) + " differs from the weight's " + listText(kernel));
  if (xshape.size() != kernel.size() + 2)
    throw Unsupported("an input of rank " + std::to_string(xshape.size()) + " for a kernel of rank " + std::to_string(kernel.size()));
  return w;
}

std::string listText(const std::vector<int64_t>& v) {
  std::string s;
  for (const int64_t x : v) s += (s.empty() ? "" : "x") + std::to_string(x);
  return s;
}

std::optional<std::string> windowProblem(const Window& w, const std::string& what) {
  const std::size_t r = w.kernel.size();
  if (r == 0) return "a " + what + " without a kernel shape";
  if (w.strides.size() != r || w.dilations.size() != r || w.pads.size() != 2 * r)
    return "a " + what + " whose strides, pads or dilations do not match its kernel's rank";
  const auto positive = [](const std::vector<int64_t>& v) { return std::all_of(v.begin(), v.end(), [](int64_t x) { return x > 0; }); };
  if (!positive(w.kernel) || !positive(w.strides) || !positive(w.dilations) ||
      std::any_of(w.pads.begin(), w.pads.end(), [](int64_t x) { return x < 0; }))
    return "a " + what + " with a kernel, stride or dilation below 1 or a negative pad";
  if (w.autoPad != "NOTSET" && w.autoPad != "VALID" && w.autoPad != "SAME_UPPER" && w.autoPad != "SAME_LOWER")
    return "auto_pad " + eindecomp::quoted(w.autoPad);
  return std::nullopt;
}

std::vector<ImportGraph::UnfoldWindow> unfoldWindows(const Window& w, const std::vector<int64_t>& in, Reduce padding,
                                                     std::vector<int64_t>* padAfter) {
  std::vector<ImportGraph::UnfoldWindow> out;
  const std::size_t r = w.kernel.size();
  for (std::size_t d = 0; d < r; ++d) {
    const int64_t span = (w.kernel[d] - 1) * w.dilations[d] + 1, s = w.strides[d];
    int64_t before = w.pads[d], after = w.pads[d + r], size;
    if (w.autoPad == "SAME_UPPER" || w.autoPad == "SAME_LOWER") {
      size = (in[d] + s - 1) / s;
      const int64_t total = std::max<int64_t>((size - 1) * s + span - in[d], 0);
      before = w.autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      after = total - before;
    } else {
      if (w.autoPad == "VALID") before = after = 0;
      const int64_t room = in[d] + before + after - span;
      if (room < 0)
        throw Unsupported("a window of " + std::to_string(span) + " larger than its padded input of " +
                          std::to_string(in[d] + before + after));
      size = (w.ceilMode ? (room + s - 1) / s : room / s) + 1;
      if (w.ceilMode && (size - 1) * s >= in[d] + before) --size;  // the last window starts inside
    }
    out.push_back({size, w.kernel[d], s, w.dilations[d], before, padding});
    if (padAfter) padAfter->push_back(after);
  }
  return out;
}

TapInput tapInput(OpContext& c, const View& x, const std::vector<ImportGraph::UnfoldWindow>& windows,
                  const std::vector<int64_t>& tap, double fill, const std::string& suffix) {
  const std::vector<int64_t> shape = c.graph().shape(x);
  const std::size_t r = windows.size(), lead = shape.size() - r;
  std::vector<ImportGraph::WindowAxis> axes;
  bool identity = true;
  for (std::size_t d = 0; d < r; ++d) {
    const ImportGraph::UnfoldWindow& u = windows[d];
    const int64_t at = tap[d] * u.dilation - u.padBefore, axis = static_cast<int64_t>(lead + d);
    // The rows it reads are at, at + stride, ...: the first not below 0, if it is inside.
    const int64_t first = at >= 0 ? 0 : (-at + u.stride - 1) / u.stride;
    if (first >= u.outSize || at + u.stride * first >= shape[lead + d]) return {};  // only padding
    identity = identity && at == 0 && u.stride == 1 && shape[lead + d] == u.outSize;
    axes.push_back({axis, at, u.outSize, u.stride});
  }
  if (identity) return {true, x};
  const std::optional<View> read = c.graph().window(x, axes, fill, c.hint("window" + suffix));
  return {read.has_value(), read};
}

View groupsMerged(OpContext& c, const View& y, int64_t channels) {
  std::vector<int64_t> merged = c.graph().shape(y);
  merged.erase(merged.begin() + 1);
  merged[1] = channels;
  return c.graph().reshape(y, merged);
}

View withBias(OpContext& c, View y, int64_t channels, std::size_t spatialDims, const std::string& what) {
  if (!c.hasInput(2)) return y;
  if (c.shape(2) != std::vector<int64_t>{channels}) throw Unsupported("a " + what + " bias of shape " + shapeText(c.shape(2)));
  std::vector<int64_t> trailing(spatialDims);
  std::iota(trailing.begin(), trailing.end(), int64_t{1});
  return elementwise(c, {y, c.graph().unsqueeze(c.view(2), trailing)}, "x + y");
}

bool fewTaps(const std::vector<int64_t>& kernel) {
  int64_t taps = 1;
  for (const int64_t k : kernel) {
    if (k > kMaxTaps) return false;
    taps *= k;
    if (taps > kMaxTaps) return false;
  }
  return true;
}

bool nextTap(std::vector<int64_t>& tap, const std::vector<int64_t>& kernel) {
  for (std::size_t d = kernel.size(); d-- > 0;) {
    if (++tap[d] < kernel[d]) return true;
    tap[d] = 0;
  }
  return false;
}

std::string tapSumHint(OpContext& c, std::vector<int64_t> tap, const std::vector<int64_t>& kernel, int64_t t) {
  return c.hint(nextTap(tap, kernel) ? "taps" + std::to_string(t) : "taps");
}

}  // namespace window_rules

namespace {

using namespace window_rules;

bool anyNonZero(const std::vector<int64_t>& v) {
  return std::any_of(v.begin(), v.end(), [](int64_t x) { return x != 0; });
}

// Whether the windows tile the input: kernel = stride, no padding, no dilation.
bool tiles(const Window& w) {
  const bool dilated = std::any_of(w.dilations.begin(), w.dilations.end(), [](int64_t d) { return d != 1; });
  const bool autoPadded = w.autoPad != "NOTSET" && w.autoPad != "VALID";
  return w.strides == w.kernel && !anyNonZero(w.pads) && !dilated && !autoPadded && !w.ceilMode;
}

// AveragePool's divisor at each output position: the window's places inside the input
// (count_include_pad 0) or inside the padded input (1; ceil_mode's last window may reach
// past it). As a number when every position has the whole kernel, else a weight of
// reciprocals over the spatial output dimensions.
std::variant<double, HostTensor> averageDivisors(const Window& w, const std::vector<int64_t>& in, bool countPad) {
  std::vector<int64_t> after;
  const auto windows = unfoldWindows(w, in, Reduce::Sum, &after);
  std::vector<std::vector<double>> counts;  // per dimension, per output position
  bool whole = true;
  for (std::size_t d = 0; d < windows.size(); ++d) {
    const auto& u = windows[d];
    const int64_t lo = countPad ? -u.padBefore : 0, hi = countPad ? in[d] + after[d] : in[d];
    std::vector<double> perPosition;
    for (int64_t y = 0; y < u.outSize; ++y) {
      int64_t n = 0;
      for (int64_t i = 0; i < u.kernel; ++i) {
        const int64_t h = y * u.stride + i * u.dilation - u.padBefore;
        n += h >= lo && h < hi ? 1 : 0;
      }
      if (n == 0) throw Unsupported("an average pooling window that covers no element");
      whole = whole && n == u.kernel;
      perPosition.push_back(static_cast<double>(n));
    }
    counts.push_back(perPosition);
  }
  if (whole) return std::accumulate(w.kernel.begin(), w.kernel.end(), 1.0, [](double a, int64_t k) { return a * static_cast<double>(k); });
  HostTensor t;
  t.kind = ElemKind::Float32;
  t.values = {1.0};
  for (const auto& perPosition : counts) {
    t.shape.push_back(static_cast<int64_t>(perPosition.size()));
    std::vector<double> next;
    for (const double v : t.values)
      for (const double n : perPosition) next.push_back(v / n);
    t.values = std::move(next);
  }
  return t;
}

// x [lead..., D1..Dr] with each spatial dimension split into (window, offset) by a
// reshape (a view: no data moves), where the windows tile it (tiles()), each kernel divides
// its dimension and the split reaches every node that carries it (not where taps elsewhere
// read a tensor it reaches through windows not falling on the split:
// ImportGraph::tryReshape leaves the graph as it was); else nothing.
std::optional<View> tiledView(OpContext& c, const View& x, const Window& w) {
  const std::vector<int64_t> shape = c.graph().shape(x);
  const std::size_t r = w.kernel.size();
  if (!tiles(w) || shape.size() < r) return std::nullopt;
  std::vector<int64_t> split(shape.begin(), shape.end() - static_cast<std::ptrdiff_t>(r));
  for (std::size_t d = 0; d < r; ++d) {
    const int64_t size = shape[shape.size() - r + d];
    if (size % w.kernel[d] != 0) return std::nullopt;
    split.push_back(size / w.kernel[d]);
    split.push_back(w.kernel[d]);
  }
  if (c.graph().readThroughWindows(x)) return std::nullopt;
  return c.graph().tryReshape(x, split);
}

// `x` [lead..., D1..Dr] with its spatial dimensions as (window, offset) pairs: a reshape
// when the windows tile it (no data moves), else one unfold per dimension. `leading` gets
// symbols for the dimensions before the spatial ones, `spatial` (window, offset) symbols.
View windowed(OpContext& c, const View& x, const Window& w, Reduce padding, std::vector<int>& leading,
              std::vector<std::pair<int, int>>& spatial) {
  const std::vector<int64_t> shape = c.graph().shape(x);
  const std::size_t r = w.kernel.size();
  if (shape.size() < r + 2)
    throw Unsupported("an input of rank " + std::to_string(shape.size()) + " for a kernel of rank " + std::to_string(r));
  const std::size_t lead = shape.size() - r;
  leading.clear();
  for (std::size_t i = 0; i < lead; ++i) leading.push_back(c.symbol());
  spatial.clear();
  for (std::size_t d = 0; d < r; ++d) spatial.emplace_back(c.symbol(), c.symbol());
  const std::vector<int64_t> in(shape.begin() + static_cast<std::ptrdiff_t>(lead), shape.end());
  if (const std::optional<View> tiled = tiledView(c, x, w)) return *tiled;
  const auto windows = unfoldWindows(w, in, padding);
  View v = x;
  for (std::size_t d = r; d-- > 0;)  // the last first: earlier dimensions keep their axes
    v = c.graph().unfold(v, static_cast<int64_t>(lead + d), windows[d], c.hint("unfold" + std::to_string(d)));
  return v;
}

// The weight of a convolution of `groups` groups as [g, O/g, C/g, k...] (or as it is).
View groupedWeight(OpContext& c, int64_t groups) {
  if (groups == 1) return c.view(1);
  std::vector<int64_t> split = c.shape(1);
  const int64_t outs = split[0];
  split[0] = outs / groups;
  split.insert(split.begin(), groups);
  return c.graph().reshape(c.view(1), split);
}

// A convolution (any stride, dilation, padding and groups) as a sum over its kernel's
// taps: per tap, the input read through a window shifted by the tap (tapInput: the padding
// read as 0, the stride its step) times that tap's weight matrix
// [O, C] (a window of the weight) — a contraction over the channels; with g groups, the
// channels as (g, C/g) and the outputs as (g, O/g), a contraction per group (depthwise:
// C/g = 1, a product per channel). Its FLOPs are the convolution's own, with no unfold; a
// spatial cut of the input moves only each window's halo rows (SPEC 8.1). Nothing where a
// spatial axis spans merged dimensions of its tensor (the caller unfolds).
std::optional<View> convolutionByTaps(OpContext& c, const Window& w, const std::vector<int64_t>& xshape, int64_t outs) {
  if (!fewTaps(w.kernel)) return std::nullopt;
  const std::size_t r = w.kernel.size();
  const int64_t g = w.group;
  const std::vector<int64_t> in(xshape.begin() + 2, xshape.end());
  const auto windows = unfoldWindows(w, in, Reduce::Sum);
  View x = c.view(0);
  if (g > 1) {
    std::vector<int64_t> split = {xshape[0], g, xshape[1] / g};
    split.insert(split.end(), in.begin(), in.end());
    x = c.graph().reshape(x, split);
  }
  const View wview = groupedWeight(c, g);  // [(g,) O/g, C/g, k...]
  const int64_t lead = g > 1 ? 3 : 2;       // the weight's dimensions before its taps
  std::optional<View> sum;
  const int n = c.symbol(), group = c.symbol(), ch = c.symbol(), o = c.symbol();
  std::vector<int> spatial;
  for (std::size_t d = 0; d < r; ++d) spatial.push_back(c.symbol());
  std::vector<int> xs = g > 1 ? std::vector<int>{n, group, ch} : std::vector<int>{n, ch};
  std::vector<int> out = g > 1 ? std::vector<int>{n, group, o} : std::vector<int>{n, o};
  const std::vector<int> ws = g > 1 ? std::vector<int>{group, o, ch} : std::vector<int>{o, ch};
  xs.insert(xs.end(), spatial.begin(), spatial.end());
  out.insert(out.end(), spatial.begin(), spatial.end());
  std::vector<int64_t> tap(r, 0);
  int64_t t = 0;
  do {
    const std::string suffix = "_tap" + std::to_string(t);
    const TapInput shifted = tapInput(c, x, windows, tap, 0.0, suffix);
    if (!shifted.possible) return std::nullopt;
    if (!shifted.read) {  // only padding: adds nothing
      ++t;
      continue;
    }
    // [O, C, k...] -> this tap's [O, C], read through a window so that the model's weight
    // stays one input (its file and its gradient are the user's).
    std::vector<ImportGraph::WindowAxis> at;
    for (std::size_t d = 0; d < r; ++d) at.push_back({static_cast<int64_t>(d) + lead, tap[d], 1});
    const std::optional<View> tapWeight = c.graph().window(wview, at, 0.0, c.hint("weight" + suffix));
    if (!tapWeight) return std::nullopt;
    std::vector<int64_t> taxes(r);
    std::iota(taxes.begin(), taxes.end(), lead);
    const View weight = c.graph().squeeze(*tapWeight, taxes);
    const View product = c.graph().einsum({{*shifted.read, xs}, {weight, ws}}, out, joinExpr("x * y"), Reduce::Sum, c.hint("tap" + std::to_string(t)));
    sum = sum ? c.graph().einsum({{*sum, out}, {product, out}}, out, joinExpr("x + y"), Reduce::Sum, tapSumHint(c, tap, w.kernel, t))
              : product;
    ++t;
  } while (nextTap(tap, w.kernel));
  if (!sum || g == 1) return sum;
  return groupsMerged(c, *sum, outs);
}

// A convolution as one convolution node (ImportGraph::convolution: the input read through
// windows over the kernel's taps with the stride as their step, SPEC 8.1), which programs
// run on oneDNN's convolution primitive and a spatial cut splits with halos. Groups:
// channels as (G, C/G) and outputs as (G, O/G), each group its own convolution in one node
// (depthwise: C/G = 1). Nothing where a spatial axis spans merged dimensions.
std::optional<View> convolutionNode(OpContext& c, const Window& w, const std::vector<int64_t>& xshape, int64_t outs) {
  const std::size_t r = w.kernel.size();
  const int64_t groups = w.group;
  View image = c.view(0);
  if (groups > 1) {  // channels as (G, C/G), outputs as (G, O/G): ImportGraph::convolution's grouped form
    std::vector<int64_t> split = {xshape[0], groups, xshape[1] / groups};
    split.insert(split.end(), xshape.begin() + 2, xshape.end());
    image = c.graph().reshape(image, split);
  }
  const std::vector<int64_t> in(xshape.begin() + 2, xshape.end());
  const auto windows = unfoldWindows(w, in, Reduce::Sum);
  std::vector<ImportGraph::ConvolutionAxis> axes;
  for (std::size_t d = 0; d < r; ++d) axes.push_back({windows[d].outSize, windows[d].dilation, windows[d].padBefore, windows[d].stride});
  const std::optional<View> y = c.graph().convolution(image, groupedWeight(c, groups), axes, c.hint(c.hasInput(2) ? "product" : ""),
                                                      groups > 1);
  if (!y) return std::nullopt;
  return groups > 1 ? groupsMerged(c, *y, outs) : *y;
}

// MaxPool and AveragePool the same way: per tap a window of the input (tapInput; fill
// -inf for a maximum, 0 for a sum), joined by max or add — copies and one comparison or
// addition per tap and element, where an unfold would cost a multiply-add per input
// position. Nothing where a spatial axis spans merged dimensions (the caller unfolds).
// The maximum of the taps so far (x) and the next (y) as torch's max pool takes it: on a
// tie the earlier tap (x) is the maximum, so the gradient goes to the window's first
// maximal position (where max(x, y) splits it; docs/grad.md). Through infinities too:
// y - x is -inf, +inf or NaN there, and max(., 0) leaves a positive difference alone.
constexpr const char* kFirstMax = "where(max(y - x, 0), y, x)";

std::optional<View> poolByTaps(OpContext& c, const View& x, const Window& w, Reduce agg) {
  const std::vector<int64_t> shape = c.graph().shape(x);
  const std::size_t r = w.kernel.size();
  if (shape.size() < r + 1 || !fewTaps(w.kernel)) return std::nullopt;
  const std::vector<int64_t> in(shape.end() - static_cast<std::ptrdiff_t>(r), shape.end());
  const auto windows = unfoldWindows(w, in, agg);
  const double fill = agg == Reduce::Max ? -std::numeric_limits<double>::infinity() : 0.0;
  std::vector<int> symbols;
  for (std::size_t d = 0; d < shape.size(); ++d) symbols.push_back(c.symbol());
  std::optional<View> acc;
  std::vector<int64_t> tap(r, 0);
  int64_t t = 0;
  do {
    const TapInput shifted = tapInput(c, x, windows, tap, fill, "_tap" + std::to_string(t));
    if (!shifted.possible) return std::nullopt;
    if (shifted.read)
      acc = acc ? c.graph().einsum({{*acc, symbols}, {*shifted.read, symbols}}, symbols,
                                   joinExpr(agg == Reduce::Max ? kFirstMax : "x + y"), Reduce::Sum, tapSumHint(c, tap, w.kernel, t))
                : *shifted.read;
    ++t;
  } while (nextTap(tap, w.kernel));
  return acc;
}

// MaxPool and AveragePool as one pooling node (ImportGraph::tapReduction: the input read
// through windows over the taps of a constant the kernel's shape, the stride their step):
// a max pool the max-plus `max over taps of x + 0` (-inf outside the input; einplan grad
// gives its gradient to the window's first maximal position, as torch's max_pool), an
// average the sum of x * 1 over taps. One copy of the input block and one pass over it,
// where a node per tap copies the block once per tap. Nothing where a spatial axis spans
// merged dimensions (poolByTaps then).
std::optional<View> poolNode(OpContext& c, const View& x, const Window& w, Reduce agg) {
  const std::vector<int64_t> shape = c.graph().shape(x);
  const std::size_t r = w.kernel.size();
  if (shape.size() < r + 1) return std::nullopt;
  const std::vector<int64_t> in(shape.end() - static_cast<std::ptrdiff_t>(r), shape.end());
  const auto windows = unfoldWindows(w, in, agg);
  std::vector<ImportGraph::ConvolutionAxis> axes;
  for (const auto& u : windows) axes.push_back({u.outSize, u.dilation, u.padBefore, u.stride});
  HostTensor taps;
  taps.shape = w.kernel;
  taps.values.assign(static_cast<std::size_t>(std::accumulate(w.kernel.begin(), w.kernel.end(), int64_t{1}, std::multiplies<>())),
                     agg == Reduce::Max ? 0.0 : 1.0);
  const View weight = c.graph().addWeight(c.hint("taps"), std::move(taps), false);
  const bool max = agg == Reduce::Max;
  return c.graph().tapReduction(x, weight, axes, joinExpr(max ? "x + y" : "x * y"), agg,
                                max ? -std::numeric_limits<double>::infinity() : 0.0, c.hint(max ? "" : "sum"));
}

void conv(OpContext& c) {
  const Window w = convolutionWindow(c, "Conv", "convolution");
  const std::vector<int64_t> wshape = c.shape(1), xshape = c.shape(0);
  const int64_t g = w.group, channels = xshape[1], outs = wshape[0];
  if (g < 1 || channels % g != 0 || outs % g != 0 || wshape[1] * g != channels)
    throw Unsupported("group " + std::to_string(g) + " for " + std::to_string(channels) + " input and " + std::to_string(outs) +
                      " output channels");
  if (c.isConstant(0)) throw Unsupported("a convolution of a constant input");
  const bool tiled = g == 1 ? tiledView(c, c.view(0), w).has_value() : tiles(w);
  std::optional<View> byTaps;
  if (!tiled) byTaps = convolutionNode(c, w, xshape, outs);
  if (!tiled && !byTaps) byTaps = convolutionByTaps(c, w, xshape, outs);
  if (byTaps) return c.setOutput(0, withBias(c, *byTaps, outs, w.kernel.size(), "Conv"));
  // Groups: channels as (g, C/g) and outputs as (g, O/g), each group its own contraction.
  View x = c.view(0);
  if (g > 1) {
    std::vector<int64_t> split = {xshape[0], g, channels / g};
    split.insert(split.end(), xshape.begin() + 2, xshape.end());
    x = c.graph().reshape(x, split);
  }
  std::vector<int> lead;
  std::vector<std::pair<int, int>> spatial;
  x = windowed(c, x, w, Reduce::Sum, lead, spatial);
  const int out = c.symbol();
  ImportGraph::Operand xo{x, lead}, wo{groupedWeight(c, g), {}};
  std::vector<int> result = {lead[0]};
  if (g > 1) {
    wo.symbols = {lead[1], out, lead[2]};
    result.push_back(lead[1]);
  } else {
    wo.symbols = {out, lead[1]};
  }
  result.push_back(out);
  for (const auto& [window, offset] : spatial) {
    xo.symbols.push_back(window);
    xo.symbols.push_back(offset);
    wo.symbols.push_back(offset);
    result.push_back(window);
  }
  const bool bias = c.hasInput(2);
  View y = c.graph().einsum({xo, wo}, result, joinExpr("x * y"), Reduce::Sum, c.hint(bias ? "product" : ""));
  if (g > 1) y = groupsMerged(c, y, outs);
  c.setOutput(0, withBias(c, y, outs, w.kernel.size(), "Conv"));
}

// MaxPool and AveragePool: one reduction over the offsets of the windows.
void pool(OpContext& c, Reduce agg) {
  const Window w = windowOf(c.node(), {});
  if (auto why = windowProblem(w, "pooling")) throw Unsupported(*why);
  if (c.outputCount() > 1 && c.wantsOutput(1)) throw Unsupported("MaxPool's Indices output");
  if (c.isConstant(0)) throw Unsupported("a pooling of a constant input");
  const std::vector<int64_t> shape = c.shape(0);
  if (shape.size() < w.kernel.size() + 2)
    throw Unsupported("an input of rank " + std::to_string(shape.size()) + " for a kernel of rank " + std::to_string(w.kernel.size()));
  const std::vector<int64_t> in(shape.end() - static_cast<std::ptrdiff_t>(w.kernel.size()), shape.end());
  if (!tiledView(c, c.view(0), w)) {
    std::optional<View> byTaps = poolNode(c, c.view(0), w, agg);
    if (!byTaps) byTaps = poolByTaps(c, c.view(0), w, agg);
    if (byTaps) {
      if (agg == Reduce::Max) return c.setOutput(0, *byTaps);
      auto divisors = averageDivisors(w, in, c.intAttribute("count_include_pad", 0) != 0);
      if (const double* n = std::get_if<double>(&divisors)) return c.setOutput(0, elementwise(c, {*byTaps}, "x / " + numberText(*n)));
      const View reciprocals = c.graph().addWeight(c.hint("divisors"), std::get<HostTensor>(std::move(divisors)), false);
      return c.setOutput(0, elementwise(c, {*byTaps, reciprocals}, "x * y"));
    }
  }
  std::vector<int> lead;
  std::vector<std::pair<int, int>> spatial;
  const View x = windowed(c, c.view(0), w, agg, lead, spatial);
  ImportGraph::Operand xo{x, lead};
  std::vector<int> result = lead;
  for (const auto& [window, offset] : spatial) {
    xo.symbols.push_back(window);
    xo.symbols.push_back(offset);
    result.push_back(window);
  }
  if (agg == Reduce::Max) return c.setOutput(0, c.graph().einsum({xo}, result, joinExpr("x"), agg, c.hint()));
  auto divisors = averageDivisors(w, in, c.intAttribute("count_include_pad", 0) != 0);
  if (const double* n = std::get_if<double>(&divisors))
    return c.setOutput(0, c.graph().einsum({xo}, result, joinExpr("x / " + numberText(*n)), agg, c.hint()));
  const View sum = c.graph().einsum({xo}, result, joinExpr("x"), agg, c.hint("sum"));
  const View reciprocals = c.graph().addWeight(c.hint("divisors"), std::get<HostTensor>(std::move(divisors)), false);
  c.setOutput(0, elementwise(c, {sum, reciprocals}, "x * y"));
}

}  // namespace

std::optional<std::string> windowRefusal(const onnx::NodeProto& node, const std::vector<int64_t>& weightShape) {
  if (node.op_type() == "Conv" || node.op_type() == "ConvTranspose") {
    const std::vector<int64_t> kernel = weightShape.size() >= 3 ? std::vector<int64_t>(weightShape.begin() + 2, weightShape.end())
                                                                : std::vector<int64_t>{};
    const Window w = windowOf(node, kernel);
    if (w.kernel.empty()) return std::nullopt;  // the translation names what is missing
    return windowProblem(w, "convolution");
  }
  if (node.op_type() == "MaxPool" || node.op_type() == "AveragePool") return windowProblem(windowOf(node, {}), "pooling");
  return std::nullopt;
}

void addWindowOperators(std::map<std::string, OpTranslation>& t) {
  t["Conv"] = conv;
  t["ConvTranspose"] = convTranspose;
  t["MaxPool"] = [](OpContext& c) { pool(c, Reduce::Max); };
  t["AveragePool"] = [](OpContext& c) { pool(c, Reduce::Sum); };
}

}  // namespace eindecomp::onnx_import
