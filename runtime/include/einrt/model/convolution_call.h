// Which kernel calls are convolutions a library runs, and as what (program/convolution.h).
// A node is one when it is a contraction of two operands of which one, the image, is read
// through windows over tap labels, and each of its labels is of one class: batch (image
// and result), input channel (image and kernel, summed), output channel (kernel and
// result), group (all three), spatial (image, through a tap, and result) or tap (kernel
// alone); at most one label of each but the spatial (one to three; a second batch label
// is a spatial one of one tap), every dilation positive, and a group label just outside
// the channels in the image and the result (one dimension of groups x channels there). The program runs
// such a call through the registered provider and the planner's time model prices it as
// one; every other call with taps runs the node's loops (callLoopNest).
#pragma once

#include <optional>
#include <vector>

#include "einrt/model/tables.h"
#include "einrt/program/convolution.h"

namespace einrt::model {

// The call over blocks of `extent` (per iteration label), or nothing where the node is no
// such convolution. `contraction`: the node's join is x * y and its aggregation a sum.
std::optional<program::ConvolutionCall> convolutionCall(const NodeShape& shape, bool contraction, const std::vector<int64_t>& extent);

}  // namespace einrt::model
