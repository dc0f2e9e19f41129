// A convolution call, as a library runs it (oneDNN's convolution primitive): a node's call
// whose one operand is read through windows over tap labels (SPEC 8.1), in the library's
// terms — an image of N x C x in_1 x ... (its rows already padded: the window block holds
// the fill), a kernel of O x C x k_1 x ..., a result of N x O x out_1 x ..., each with the
// element strides its block buffer has, the taps' dilations and the steps' strides. einrt's model decides
// which calls these are (einrt/model/convolution_call.h); the provider is registered by
// the program's build like the 2-byte GEMM's (gemm.h), and a call it does not take runs
// the node's own loops instead.
#pragma once

#include <cstdint>
#include <string>

#include "einrt/types.h"

namespace einrt::program {

struct ConvolutionCall {
  int spatial = 0;                           // spatial dimensions, 1 to 3
  // Channels in `groups` groups (a grouped or depthwise convolution): inChannels and
  // outChannels per group; the image's and the result's channels are group-major (one
  // dimension of groups x channels, its stride the channels'), the kernel's group stride
  // apart (kernelGroupStride).
  int64_t groups = 1, kernelGroupStride = 0;
  int64_t batch = 1, inChannels = 1, outChannels = 1;
  // Per spatial dimension: in = stride * (out - 1) + 1 + dilation * (kernel - 1).
  int64_t in[3] = {1, 1, 1}, kernel[3] = {1, 1, 1}, out[3] = {1, 1, 1}, dilation[3] = {1, 1, 1}, stride[3] = {1, 1, 1};
  // Element strides: the image's [N, C, in...], the kernel's [O, C, k...], the result's
  // [N, O, out...].
  int64_t imageStride[5] = {}, kernelStride[5] = {}, resultStride[5] = {};
  int image = 0;                             // which operand is the image (0: X, 1: Y)
  int64_t flops() const {
    int64_t f = 2 * batch * groups * inChannels * outChannels;
    for (int d = 0; d < spatial; ++d) f *= out[d] * kernel[d];
    return f;
  }
};

// Runs `call` (result = the convolution, or result += it with `accumulate`); false where the
// provider has no kernel for it, which leaves the result untouched.
using ConvolutionFn = bool (*)(const ConvolutionCall& call, DType dtype, const void* image, const void* kernel, void* result,
                               bool accumulate);
void setConvolution(ConvolutionFn fn, const char* name);
ConvolutionFn convolutionProvider();
// What ran the convolutions so far: "" (none), the provider's name, "loops" (the node's own
// loops), or both joined by '+'; for the program's report.
std::string convolutionPath();
void noteConvolutionPath(bool provider);

}  // namespace einrt::program
