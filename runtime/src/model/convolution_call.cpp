#include "einrt/model/convolution_call.h"

#include <algorithm>

#include "einrt/model/call_geometry.h"
#include "einrt/program/loop_nest.h"

namespace einrt::model {

std::optional<program::ConvolutionCall> convolutionCall(const NodeShape& shape, bool contraction, const std::vector<int64_t>& extent) {
  if (!contraction || shape.operandLabels.size() != 2) return std::nullopt;
  const int image = shape.tapped(0) || shape.stepped(0) ? 0 : 1;
  const auto k = static_cast<std::size_t>(image);
  if (!(shape.tapped(k) || shape.stepped(k)) || shape.spreadOut(k) || shape.windowed(1 - k)) return std::nullopt;
  const std::vector<int>& x = shape.operandLabels[k];
  const std::vector<int>& w = shape.operandLabels[1 - k];
  const std::vector<int>& z = shape.outputLabels;
  // Per image dimension its tap label (-1: none), dilation and step.
  const std::vector<int> taps = shape.tapped(k) ? shape.operandTap[k] : std::vector<int>(x.size(), -1);
  const std::vector<int64_t> dilations = shape.tapped(k) ? shape.operandTapDilation[k] : std::vector<int64_t>(x.size(), 1);
  const std::vector<int64_t> steps = shape.stepped(k) ? shape.operandStep[k] : std::vector<int64_t>(x.size(), 1);
  const OperandWalk walk = operandWalk(shape, extent, static_cast<std::size_t>(image));
  const std::vector<int64_t> kernelStride = program::labelStrides(w, extent);
  const std::vector<int64_t> resultStride = program::labelStrides(z, extent);

  program::ConvolutionCall c;
  c.image = image;
  int batch = -1, in = -1, out = -1, group = -1;
  std::vector<int> spatial;
  auto once = [](int& slot, int label) {  // one label per class
    if (slot >= 0) return false;
    slot = label;
    return true;
  };
  for (std::size_t l = 0; l < extent.size(); ++l) {
    const int label = static_cast<int>(l);
    const auto inX = std::count(x.begin(), x.end(), label), inW = std::count(w.begin(), w.end(), label),
               inZ = std::count(z.begin(), z.end(), label);
    if (inX > 1 || inW > 1 || inZ > 1) return std::nullopt;
    const auto dim = static_cast<std::size_t>(std::find(x.begin(), x.end(), label) - x.begin());
    if (extent[l] == 1 && !(inX && taps[dim] >= 0)) continue;  // a dimension of 1: no class needed
    if (std::find(taps.begin(), taps.end(), label) != taps.end()) {
      if (inX || inZ || !inW) return std::nullopt;
      continue;
    }
    if (inX && inZ && !inW) {
      // A second batch label: a spatial one of 1 tap.
      if (taps[dim] >= 0 || steps[dim] > 1 || !once(batch, label)) spatial.push_back(label);
    } else if (inX && inW && !inZ) {
      if (!once(in, label)) return std::nullopt;
    } else if (inW && inZ && !inX) {
      if (!once(out, label)) return std::nullopt;
    } else if (inX && inW && inZ) {
      if (!once(group, label)) return std::nullopt;
    } else {
      return std::nullopt;
    }
  }
  if (spatial.empty() || spatial.size() > 3) return std::nullopt;
  // Any stored order: the strides say where each dimension lies.
  c.spatial = static_cast<int>(spatial.size());
  auto extentOf = [&](int l) { return l < 0 ? int64_t{1} : extent[static_cast<std::size_t>(l)]; };
  c.batch = extentOf(batch);
  c.inChannels = extentOf(in);
  c.outChannels = extentOf(out);
  // Absent dimensions (extent 1) take the stride of a whole buffer: oneDNN wants a stride
  // even where it never steps.
  auto strideIn = [](const std::vector<int64_t>& strides, int l, int64_t whole) { return l < 0 ? whole : strides[static_cast<std::size_t>(l)]; };
  const int64_t imageWhole = operandGrid(shape, std::vector<int64_t>(extent.size(), 1), static_cast<std::size_t>(image)).blockElements();
  c.imageStride[0] = strideIn(walk.stride, batch, imageWhole);
  c.imageStride[1] = strideIn(walk.stride, in, imageWhole);
  c.kernelStride[0] = strideIn(kernelStride, out, 1);
  c.kernelStride[1] = strideIn(kernelStride, in, 1);
  c.resultStride[0] = strideIn(resultStride, batch, 1);
  c.resultStride[1] = strideIn(resultStride, out, 1);
  if (group >= 0) {
    // One channel dimension of groups x channels in the image and the result: the group's
    // stride there is its channels' extent times theirs (a depthwise convolution's one
    // channel per group: the group's own stride).
    const auto g = static_cast<std::size_t>(group);
    c.groups = extent[g];
    c.imageStride[1] = in >= 0 ? walk.stride[static_cast<std::size_t>(in)] : walk.stride[g];
    c.resultStride[1] = out >= 0 ? resultStride[static_cast<std::size_t>(out)] : resultStride[g];
    if (walk.stride[g] != c.inChannels * c.imageStride[1] || resultStride[g] != c.outChannels * c.resultStride[1])
      return std::nullopt;
    c.kernelGroupStride = kernelStride[g];
  }
  for (std::size_t s = 0; s < spatial.size(); ++s) {
    const int a = spatial[s];
    const auto dim = static_cast<std::size_t>(std::find(x.begin(), x.end(), a) - x.begin());
    const int t = taps[dim];
    const int64_t dilation = t < 0 ? 1 : dilations[dim];
    if (dilation <= 0) return std::nullopt;  // a flipped kernel: the node's loops
    c.kernel[s] = t < 0 ? 1 : extent[static_cast<std::size_t>(t)];
    c.out[s] = extent[static_cast<std::size_t>(a)];
    c.dilation[s] = dilation;
    c.stride[s] = steps[dim];
    c.in[s] = c.stride[s] * (c.out[s] - 1) + 1 + dilation * (c.kernel[s] - 1);
    c.imageStride[2 + s] = walk.stride[static_cast<std::size_t>(a)] / c.stride[s];  // the walk's stride is the step's
    c.kernelStride[2 + s] = t < 0 ? 1 : kernelStride[static_cast<std::size_t>(t)];
    c.resultStride[2 + s] = resultStride[static_cast<std::size_t>(a)];
  }
  return c;
}

}  // namespace einrt::model
