// The window rules the importer's convolutions and pools share (onnx_ops_window.cpp
// defines them; onnx_ops_conv_transpose.cpp uses them too): a node's window from its
// attributes, ONNX's output sizes and paddings, and what one tap of a window reads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "frontends/import/onnx_ops.h"

namespace eindecomp::onnx_import {

namespace window_rules {

// The window of a Conv, ConvTranspose or pooling node, from its attributes.
struct Window {
  std::vector<int64_t> kernel, strides, pads, dilations;
  int64_t group = 1;
  std::string autoPad = "NOTSET";
  bool ceilMode = false;
};

// The node's integer-list attribute `name`, or `fallback`.
std::vector<int64_t> intsOr(const onnx::NodeProto& node, const std::string& name, std::vector<int64_t> fallback);

// `kernel`: the spatial kernel shape (from kernel_shape, or the weight's shape for Conv).
Window windowOf(const onnx::NodeProto& node, const std::vector<int64_t>& kernel);

// "3x3", for messages.
std::string listText(const std::vector<int64_t>& v);

// The window of a Conv or ConvTranspose node (`op`: its operator type; `what`: the words
// for it in windowProblem's message), its kernel the weight's spatial shape (input 1), after
// the checks both share: the weight's rank, windowProblem, a kernel_shape equal to the
// weight's, an input of the kernel's rank plus 2.
Window convolutionWindow(OpContext& c, const std::string& op, const std::string& what);

// What a window asks that the import cannot give (attributes that make no window), or nothing.
std::optional<std::string> windowProblem(const Window& w, const std::string& what);

// Per spatial dimension of sizes `in`, the window's output size and padding (ONNX's rules
// for explicit pads, VALID, SAME_UPPER/LOWER and ceil_mode).
// `padAfter`, when given, gets each dimension's padding after the input.
std::vector<ImportGraph::UnfoldWindow> unfoldWindows(const Window& w, const std::vector<int64_t>& in, Reduce padding,
                                                     std::vector<int64_t>* padAfter = nullptr);

// What tap `tap` (one offset per spatial dimension) of windows `windows` reads of x
// [lead..., D1..Dr]: output position y of dimension d reads s*y + dil*i - pad, a window
// (SPEC 8.1) of x with step s and offset dil*i - pad, `fill` outside it — a copy of the
// rows it reads. `read` stays empty where the tap reads only padding. Not `possible`
// where an axis spans merged dimensions of its tensor (the callers unfold).
struct TapInput {
  bool possible = true;
  std::optional<View> read;
};
TapInput tapInput(OpContext& c, const View& x, const std::vector<ImportGraph::UnfoldWindow>& windows,
                  const std::vector<int64_t>& tap, double fill, const std::string& suffix);

// y [n, g, M/g, spatial...] (a grouped convolution's result) with (g, M/g) merged into M:
// a view.
View groupsMerged(OpContext& c, const View& y, int64_t channels);

// y [n, M, spatial...] plus the node's bias (input 2, shape [M]) along M where it has
// one; `what` names the operator in the message for a bias of another shape.
View withBias(OpContext& c, View y, int64_t channels, std::size_t spatialDims, const std::string& what);

// Kernels of more taps than this are not taps (each tap is a few nodes: a 4096-tap kernel
// is about 16,000): the callers fold or unfold them instead.
inline constexpr int64_t kMaxTaps = 4096;
// Whether `kernel` has at most kMaxTaps taps.
bool fewTaps(const std::vector<int64_t>& kernel);

// The next tap of `kernel` (the last dimension fastest); false after the last.
bool nextTap(std::vector<int64_t>& tap, const std::vector<int64_t>& kernel);

// The name of the sum after tap t: "taps" for the last (the operator's result).
std::string tapSumHint(OpContext& c, std::vector<int64_t> tap, const std::vector<int64_t>& kernel, int64_t t);

}  // namespace window_rules

// ONNX ConvTranspose (onnx_ops_conv_transpose.cpp).
void convTranspose(OpContext& c);

}  // namespace eindecomp::onnx_import
