// Convolution calls (SPEC 8.1, einrt/model/convolution_call.h): random 1-D and 2-D
// convolutions (batch 1-3, channels 1-5, outputs 1-4, output extents 1-6, kernels 1-3,
// dilations 1-2, strides (window steps) 1-3, a second batch label that is a spatial one of
// one tap, 2-3 groups) run by the node's
// loops (model::callLoopNest over model::operandWalk) and, where einrt has oneDNN, by its
// convolution primitive (program/convolution.h), each with and without accumulate, against
// naive loops written here over the image buffer's own indices. Also which nodes are no
// convolution for the model (a flipped kernel, a tap label in the result).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "einrt/model/call_geometry.h"
#include "einrt/model/convolution_call.h"
#include "einrt/program/convolution.h"
#include "einrt/program/elementwise.h"
#if defined(EINRT_TEST_ONEDNN)
#include "einrt/program/dnnl_gemm.h"
#endif

namespace {

using namespace einrt;

struct SumMul {
  template <class T> static T join(T x, T y) { return x * y; }
  template <class T> static T combine(T a, T b) { return a + b; }
  template <class T> static T identity() { return T(0); }
};

// A convolution node: labels n, c, o, then per spatial axis (y, i); the image [n, c, y...]
// read at y + dilation * i, the kernel [o, c, i...], the result [n, o, y...]; `twoBatch`
// adds a label b in image and result (a second batch label) after n.
struct ConvNode {
  model::NodeShape shape;
  std::vector<int64_t> out, kernel, dilation, stride;
  int64_t batch, in, outs, b, groups = 1;
};

// `grouped`: a label g of 2-3 groups in all three, just outside the channels: the image
// [n, g, c, y...], the kernel [g, o, c, i...], the result [n, g, o, y...].
ConvNode randomNode(std::mt19937& rng, bool twoBatch, bool grouped = false) {
  auto pick = [&](int lo, int hi) { return static_cast<int64_t>(lo + static_cast<int>(rng() % static_cast<unsigned>(hi - lo + 1))); };
  ConvNode c;
  const int spatial = twoBatch ? 1 : static_cast<int>(pick(1, 2));
  c.batch = pick(1, 3), c.in = pick(1, 5), c.outs = pick(1, 4), c.b = twoBatch ? pick(2, 3) : 1;
  model::NodeShape& s = c.shape;
  s.sizes = {c.batch, c.in, c.outs, c.b};  // labels 0..3: n, c, o, b
  std::vector<int> x{0}, w{2, 1}, z{0}, taps, xTaps;
  if (twoBatch) {
    x.push_back(3);
    z.push_back(3);
  }
  if (grouped) {
    c.groups = pick(2, 3);
    const int g = static_cast<int>(s.sizes.size());
    s.sizes.push_back(c.groups);
    x.push_back(g);
    z.push_back(g);
    w.insert(w.begin(), g);
  }
  x.push_back(1);
  z.push_back(2);
  std::vector<int64_t> dil, steps;
  for (std::size_t k = 0; k < x.size(); ++k) xTaps.push_back(-1), dil.push_back(0), steps.push_back(1);
  for (int d = 0; d < spatial; ++d) {
    c.out.push_back(pick(1, 6));
    c.kernel.push_back(pick(1, 3));
    c.dilation.push_back(pick(1, 2));
    c.stride.push_back(pick(1, 3));
    steps.push_back(c.stride.back());
    const int y = static_cast<int>(s.sizes.size()), i = y + 1;
    s.sizes.push_back(c.out.back());
    s.sizes.push_back(c.kernel.back());
    x.push_back(y);
    z.push_back(y);
    w.push_back(i);
    xTaps.push_back(i);
    dil.push_back(c.dilation.back());
  }
  s.operandLabels = {x, w};
  s.outputLabels = z;
  s.operandOrigin = {std::vector<int64_t>(x.size(), 0), {}};
  s.operandBound = {std::vector<int64_t>(x.size(), 1), {}};
  s.operandTap = {xTaps, {}};
  s.operandTapDilation = {dil, {}};
  if (std::any_of(steps.begin(), steps.end(), [](int64_t v) { return v > 1; })) s.operandStep = {steps, {}};
  return c;
}

// The naive result: every output element summed over channels and taps, the image indexed
// by its own buffer shape [n, (b,) c, stride * (out - 1) + 1 + dilation * (kernel - 1) ...].
std::vector<double> naive(const ConvNode& c, const std::vector<float>& image, const std::vector<float>& kernel) {
  const std::size_t r = c.out.size();
  std::vector<int64_t> span;
  int64_t outPoints = 1, taps = 1;
  for (std::size_t d = 0; d < r; ++d) {
    span.push_back(c.stride[d] * (c.out[d] - 1) + 1 + c.dilation[d] * (c.kernel[d] - 1));
    outPoints *= c.out[d];
    taps *= c.kernel[d];
  }
  int64_t spanPoints = 1;
  for (int64_t e : span) spanPoints *= e;
  std::vector<double> z(static_cast<std::size_t>(c.batch * c.b * c.groups * c.outs * outPoints), 0.0);
  for (int64_t ng = 0; ng < c.batch * c.b * c.groups; ++ng)
    for (int64_t o = 0; o < c.outs; ++o)
      for (int64_t p = 0; p < outPoints; ++p)
        for (int64_t ch = 0; ch < c.in; ++ch)
          for (int64_t t = 0; t < taps; ++t) {
            int64_t at = 0, rest = p, tapRest = t, tapAt = 0;
            std::vector<int64_t> pos(r), tap(r);
            for (std::size_t d = r; d-- > 0;) {
              pos[d] = rest % c.out[d], rest /= c.out[d];
              tap[d] = tapRest % c.kernel[d], tapRest /= c.kernel[d];
            }
            for (std::size_t d = 0; d < r; ++d) {
              at = at * span[d] + c.stride[d] * pos[d] + c.dilation[d] * tap[d];
              tapAt = tapAt * c.kernel[d] + tap[d];
            }
            const int64_t g = ng % c.groups;  // (n, g) and (g, o) are each one index here
            z[static_cast<std::size_t>((ng * c.outs + o) * outPoints + p)] +=
                static_cast<double>(image[static_cast<std::size_t>((ng * c.in + ch) * spanPoints + at)]) *
                kernel[static_cast<std::size_t>(((g * c.outs + o) * c.in + ch) * taps + tapAt)];
          }
  return z;
}

double worst(const std::vector<float>& got, const std::vector<double>& want) {
  double e = 0;
  for (std::size_t i = 0; i < got.size(); ++i) e = std::max(e, std::fabs(got[i] - want[i]) / (1.0 + std::fabs(want[i])));
  return e;
}

}  // namespace

TEST_CASE("convolution calls: the node's loops and oneDNN's primitive equal naive loops") {
#if defined(EINRT_TEST_ONEDNN)
  program::useOneDnnGemm();
#endif
  const unsigned seed = std::random_device{}();
  std::printf("convolution calls: seed %u\n", seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(-1, 1);
  for (int c = 0; c < 60; ++c) {
    const ConvNode node = randomNode(rng, c % 4 == 3, c % 3 == 1);
    const model::NodeShape& s = node.shape;
    const model::OperandWalk walk = model::operandWalk(s, s.sizes, 0);
    const int64_t imageElements = model::operandGrid(s, std::vector<int64_t>(s.sizes.size(), 1), 0).blockElements();
    std::vector<float> image(static_cast<std::size_t>(imageElements)),
        kernel(static_cast<std::size_t>(node.groups * node.outs * node.in));
    for (int64_t k : node.kernel) kernel.resize(kernel.size() * static_cast<std::size_t>(k));
    for (float& v : image) v = value(rng);
    for (float& v : kernel) v = value(rng);
    const std::vector<double> want = naive(node, image, kernel);
    CAPTURE(c);
    CHECK(walk.base == 0);
    // The node's loops, then once more accumulating (twice the result).
    std::vector<float> loops(want.size(), 7.0f);
    const program::LoopNest nest = model::callLoopNest(s, s.sizes);
    program::elementwise<float, SumMul>(nest, image.data() + walk.base, kernel.data(), loops.data(), false, 1);
    CHECK(worst(loops, want) < 1e-5);
    const std::optional<program::ConvolutionCall> call = model::convolutionCall(s, true, s.sizes);
    REQUIRE(call.has_value());
    CHECK(call->groups == node.groups);
    CHECK(call->flops() == static_cast<int64_t>(2 * want.size() * node.in) * [&] {
      int64_t t = 1;
      for (int64_t k : node.kernel) t *= k;
      return t;
    }());
#if defined(EINRT_TEST_ONEDNN)
    std::vector<float> library(want.size(), 0.5f);
    const bool hasProvider = program::convolutionProvider() != nullptr;
    REQUIRE(hasProvider);
    REQUIRE(program::convolutionProvider()(*call, DType::F32, image.data(), kernel.data(), library.data(), false));
    CHECK(worst(library, want) < 1e-5);
    REQUIRE(program::convolutionProvider()(*call, DType::F32, image.data(), kernel.data(), library.data(), true));
    std::vector<double> twice = want;
    for (double& v : twice) v *= 2;
    CHECK(worst(library, twice) < 1e-5);
#endif
  }
}

TEST_CASE("convolution calls: a flipped kernel or a tap in the result is no convolution for the model") {
  std::mt19937 rng(5);
  ConvNode node = randomNode(rng, false);
  node.shape.operandTapDilation[0].back() = -1;
  CHECK_FALSE(model::convolutionCall(node.shape, true, node.shape.sizes).has_value());
  CHECK_FALSE(model::convolutionCall(randomNode(rng, false).shape, false, node.shape.sizes).has_value());  // not a contraction
  ConvNode tapOut = randomNode(rng, false);
  tapOut.shape.outputLabels.push_back(tapOut.shape.operandTap[0].back());
  tapOut.shape.sizes[static_cast<std::size_t>(tapOut.shape.operandTap[0].back())] = 3;  // a tap of 1 is no dimension at all
  CHECK_FALSE(model::convolutionCall(tapOut.shape, true, tapOut.shape.sizes).has_value());
  // A flipped kernel's walk starts at the far end of its span (one row apart: no step).
  node.shape.operandStep.clear();
  node.shape.sizes.back() = 3;
  const model::OperandWalk walk = model::operandWalk(node.shape, node.shape.sizes, 0);
  CHECK(walk.base == 2 * walk.stride[static_cast<std::size_t>(node.shape.operandLabels[0].back())]);
}
