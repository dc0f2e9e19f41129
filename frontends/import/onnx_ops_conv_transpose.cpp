// ONNX ConvTranspose (1-3-D, groups; output_padding, output_shape, auto_pad): the
// gradient of a convolution with respect to its input. As taps per output phase where the
// stride divides the output size (transposedByTaps: the operator's own FLOPs and copies),
// else a contraction and a fold (productAndFolds: exact, paid in multiply-adds).
#include <algorithm>
#include <numeric>

#include "frontends/import/onnx_windows.h"

namespace eindecomp::onnx_import {

namespace {

using namespace window_rules;

// T[n, (g), m, y1, i1, ...] = sum_c X[n, (g), c, y...] W[(g), c, m, i...], then each
// spatial (y, i) summed into h = s*y + d*i - pad (ImportGraph::fold: a contraction with a
// constant 0/1 tensor, y x k x h multiply-adds per row; a view where the windows tile the
// output). x and weight: grouped as (g, C/g) where `grouped`.
View productAndFolds(OpContext& c, const View& x, const View& weight, bool grouped,
                     const std::vector<ImportGraph::UnfoldWindow>& windows, const std::vector<int64_t>& folded) {
  const std::size_t r = windows.size();
  const int n = c.symbol(), group = c.symbol(), cin = c.symbol(), m = c.symbol();
  ImportGraph::Operand xo{x, grouped ? std::vector<int>{n, group, cin} : std::vector<int>{n, cin}};
  ImportGraph::Operand wo{weight, grouped ? std::vector<int>{group, cin, m} : std::vector<int>{cin, m}};
  std::vector<int> result = grouped ? std::vector<int>{n, group, m} : std::vector<int>{n, m};
  const std::size_t lead = result.size();
  for (std::size_t d = 0; d < r; ++d) {
    const int y = c.symbol(), i = c.symbol();
    xo.symbols.push_back(y);
    wo.symbols.push_back(i);
    result.push_back(y);
    result.push_back(i);
  }
  View t = c.graph().einsum({xo, wo}, result, joinExpr("x * y"), Reduce::Sum, c.hint("product"));
  for (std::size_t d = r; d-- > 0;) {  // the last first: earlier pairs keep their axes
    const ImportGraph::UnfoldWindow& u = windows[d];
    if (u.kernel == u.stride && u.dilation == 1 && u.padBefore == 0 && folded[d] == u.outSize * u.kernel) {
      // Windows that tile the output (a U-Net's 2x2 up-convolution of stride 2): h = s*y + i
      // is (y, i) merged, a view of the product — no data moves.
      std::vector<int64_t> merged = c.graph().shape(t);
      const auto at = static_cast<std::ptrdiff_t>(lead + 2 * d);
      merged[static_cast<std::size_t>(at)] = folded[d];
      merged.erase(merged.begin() + at + 1);
      t = c.graph().reshape(t, merged);
      continue;
    }
    t = c.graph().fold(t, static_cast<int64_t>(lead + 2 * d), u, folded[d], c.hint(c.hasInput(2) || grouped || d > 0 ? "fold" + std::to_string(d) : ""));
  }
  return t;
}

// The same as a sum over the kernel's taps, per output phase: output position
// h = s*y + d*i - pad lies in phase r = h mod s at h' = h div s, and tap i reaches phase
// r_i = (d*i - pad) mod s reading x at h' + a_i, a_i = (r_i + pad - d*i) / s. So phase r
// is the sum, over its taps, of a window of x shifted by a_i times the tap's weight matrix
// (a contraction over the channels: the transposed convolution's own FLOPs), and the
// phases are laid side by side: each placed by a one-hot constant e_r[s] (where(e, x, -0),
// an outer product), summed, and (h', r) merged into h — a view. Where s does not divide the output size, or
// a phase has no tap (a kernel smaller than the stride), nothing: the caller folds.
std::optional<View> transposedByTaps(OpContext& c, const View& x, const View& weight, bool grouped,
                                     const std::vector<ImportGraph::UnfoldWindow>& windows, const std::vector<int64_t>& folded) {
  const std::size_t r = windows.size(), lead = grouped ? 3 : 2;
  std::vector<int64_t> kernel, strides, phaseSize;
  for (std::size_t d = 0; d < r; ++d) {
    const ImportGraph::UnfoldWindow& u = windows[d];
    if (folded[d] % u.stride != 0 || u.kernel < u.stride) return std::nullopt;
    kernel.push_back(u.kernel);
    strides.push_back(u.stride);
    phaseSize.push_back(folded[d] / u.stride);
  }
  if (!fewTaps(kernel)) return std::nullopt;
  int64_t phases = 1;  // at most the taps (each stride is at most its kernel)
  for (const int64_t s : strides) phases *= s;
  const int n = c.symbol(), group = c.symbol(), cin = c.symbol(), m = c.symbol();
  std::vector<int> spatial;
  for (std::size_t d = 0; d < r; ++d) spatial.push_back(c.symbol());
  std::vector<int> xs = grouped ? std::vector<int>{n, group, cin} : std::vector<int>{n, cin};
  std::vector<int> out = grouped ? std::vector<int>{n, group, m} : std::vector<int>{n, m};
  const std::vector<int> ws = grouped ? std::vector<int>{group, cin, m} : std::vector<int>{cin, m};
  xs.insert(xs.end(), spatial.begin(), spatial.end());
  out.insert(out.end(), spatial.begin(), spatial.end());
  // Per phase (numbered row-major over the dimensions' phases), the sum of its taps.
  std::vector<std::optional<View>> phase(static_cast<std::size_t>(phases));
  std::vector<int64_t> tap(r, 0);
  int64_t t = 0;
  do {
    std::vector<ImportGraph::WindowAxis> axes;
    int64_t which = 0;
    bool identity = true;
    for (std::size_t d = 0; d < r; ++d) {
      const ImportGraph::UnfoldWindow& u = windows[d];
      const int64_t at = tap[d] * u.dilation - u.padBefore, rd = ((at % u.stride) + u.stride) % u.stride;
      const int64_t shift = (rd - at) / u.stride;
      which = which * u.stride + rd;
      identity = identity && shift == 0 && phaseSize[d] == u.outSize;
      axes.push_back({static_cast<int64_t>(lead + d), shift, phaseSize[d]});
    }
    const std::string suffix = "_tap" + std::to_string(t);
    std::optional<View> shifted = x;
    if (!identity) shifted = c.graph().window(x, axes, 0.0, c.hint("window" + suffix));
    std::vector<ImportGraph::WindowAxis> at;
    for (std::size_t d = 0; d < r; ++d) at.push_back({static_cast<int64_t>(lead + d), tap[d], 1});
    const std::optional<View> tapWeight = c.graph().window(weight, at, 0.0, c.hint("weight" + suffix));
    if (!shifted || !tapWeight) return std::nullopt;
    std::vector<int64_t> taxes(r);
    std::iota(taxes.begin(), taxes.end(), static_cast<int64_t>(lead));
    const View product = c.graph().einsum({{*shifted, xs}, {c.graph().squeeze(*tapWeight, taxes), ws}}, out, joinExpr("x * y"),
                                          Reduce::Sum, c.hint("tap" + std::to_string(t)));
    std::optional<View>& sum = phase[static_cast<std::size_t>(which)];
    sum = sum ? c.graph().einsum({{*sum, out}, {product, out}}, out, joinExpr("x + y"), Reduce::Sum, c.hint("phase" + std::to_string(which)))
              : product;
    ++t;
  } while (nextTap(tap, kernel));
  for (const auto& p : phase)
    if (!p) return std::nullopt;
  // Lay the phases side by side, the last dimension first: phases differing only in their
  // phase along d become one tensor whose dimension d is (h', s) merged.
  std::vector<View> parts;
  for (auto& p : phase) parts.push_back(*p);
  std::vector<int> symbols = out;
  for (std::size_t d = r; d-- > 0;) {
    const int64_t s = strides[d];
    const int rsym = c.symbol();
    std::vector<int> wide = symbols;
    wide.insert(wide.begin() + static_cast<std::ptrdiff_t>(lead + d + 1), rsym);
    std::vector<View> oneHots;  // e_k[r] = (r == k)
    for (int64_t k = 0; k < s; ++k) {
      HostTensor e;
      e.shape = {s};
      e.values.assign(static_cast<std::size_t>(s), 0.0);
      e.values[static_cast<std::size_t>(k)] = 1.0;
      oneHots.push_back(c.graph().addWeight(c.hint("place" + std::to_string(d) + "_" + std::to_string(k)), e, false));
    }
    std::vector<View> next;
    for (std::size_t first = 0; first < parts.size(); first += static_cast<std::size_t>(s)) {
      std::optional<View> laid;
      for (int64_t k = 0; k < s; ++k) {
        const View& e = oneHots[static_cast<std::size_t>(k)];
        // where(e, x, -0), not x * e: an infinite or NaN value stays in its own phase's places
        // (x + -0 is x in the sum, for every x).
        const View placed = c.graph().einsum({{parts[first + static_cast<std::size_t>(k)], symbols}, {e, {rsym}}}, wide,
                                             joinExpr("where(y, x, -0)"), Reduce::Sum, c.hint("placed" + std::to_string(d)));
        laid = laid ? c.graph().einsum({{*laid, wide}, {placed, wide}}, wide, joinExpr("x + y"), Reduce::Sum, c.hint("laid" + std::to_string(d)))
                    : placed;
      }
      std::vector<int64_t> merged = c.graph().shape(*laid);
      merged[lead + d] *= s;
      merged.erase(merged.begin() + static_cast<std::ptrdiff_t>(lead + d + 1));
      next.push_back(c.graph().reshape(*laid, merged));
    }
    parts = std::move(next);
  }
  return parts.at(0);
}

// ConvTranspose: the gradient of a convolution with respect to its input, which is a
// contraction and a fold — T[n,m,y,i] = sum_c X[n,c,y] W[c,m,i], then each spatial
// (y, i) summed into h = s*y + d*i - pad (ImportGraph::fold; a view where the windows
// tile the output) — with ONNX's output size rules (output_shape, output_padding, auto_pad).
}  // namespace

void convTranspose(OpContext& c) {
  const Window w = convolutionWindow(c, "ConvTranspose", "transposed convolution");
  const std::vector<int64_t> wshape = c.shape(1), xshape = c.shape(0);
  const std::vector<int64_t>& kernel = w.kernel;
  const std::size_t r = kernel.size();
  const int64_t g = w.group, channels = xshape[1], outs = wshape[1] * g;
  if (g < 1 || channels % g != 0 || wshape[0] != channels)
    throw Unsupported("group " + std::to_string(g) + " for " + std::to_string(channels) + " input channels and a weight of " + shapeText(wshape));
  if (c.isConstant(0)) throw Unsupported("a transposed convolution of a constant input");
  const std::vector<int64_t> extra = intsOr(c.node(), "output_padding", std::vector<int64_t>(r, 0));
  const std::optional<std::vector<int64_t>> asked = c.intsAttribute("output_shape");
  if (extra.size() != r || (asked && asked->size() != r)) throw Unsupported("output_padding or output_shape of another rank");
  std::vector<ImportGraph::UnfoldWindow> windows;
  std::vector<int64_t> folded;
  for (std::size_t d = 0; d < r; ++d) {
    const int64_t span = (w.kernel[d] - 1) * w.dilations[d] + 1, full = w.strides[d] * (xshape[d + 2] - 1) + extra[d] + span;
    int64_t before = w.pads[d], size = full - w.pads[d] - w.pads[d + r];
    const bool same = w.autoPad == "SAME_UPPER" || w.autoPad == "SAME_LOWER";
    if (asked || same) {
      size = asked ? (*asked)[d] : xshape[d + 2] * w.strides[d];
      // ONNX's split of the total padding, with Python's floor division: a negative total
      // (an output_shape larger than the windows reach) pads the output with zeros.
      const int64_t total = full - size, half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      before = w.autoPad == "SAME_UPPER" ? half : total - half;
    } else if (w.autoPad == "VALID") {
      before = 0;
      size = full;
    }
    if (size < 1) throw Unsupported("a transposed convolution with an output of size " + std::to_string(size));
    windows.push_back({xshape[d + 2], w.kernel[d], w.strides[d], w.dilations[d], before, Reduce::Sum});
    folded.push_back(size);
  }
  View x = c.view(0), weight = c.view(1);
  if (g > 1) {
    std::vector<int64_t> xs = {xshape[0], g, channels / g}, ws = {g, channels / g, wshape[1]};
    xs.insert(xs.end(), xshape.begin() + 2, xshape.end());
    ws.insert(ws.end(), kernel.begin(), kernel.end());
    x = c.graph().reshape(x, xs);
    weight = c.graph().reshape(weight, ws);
  }
  bool tiling = true;  // every dimension's windows tile the output: the folds are views
  for (std::size_t d = 0; d < r; ++d) {
    const ImportGraph::UnfoldWindow& u = windows[d];
    tiling = tiling && u.kernel == u.stride && u.dilation == 1 && u.padBefore == 0 && folded[d] == u.outSize * u.kernel;
  }
  const std::optional<View> byTaps = tiling ? std::nullopt : transposedByTaps(c, x, weight, g > 1, windows, folded);
  View t = byTaps ? *byTaps : productAndFolds(c, x, weight, g > 1, windows, folded);
  if (g > 1) t = groupsMerged(c, t, outs);
  c.setOutput(0, withBias(c, t, outs, r, "ConvTranspose"));
}

}  // namespace eindecomp::onnx_import
