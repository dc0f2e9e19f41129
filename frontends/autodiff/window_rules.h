// Which nodes with windows over tap labels (SPEC 8.1) einplan grad differentiates: a
// convolution, whose gradients are convolutions again (grad.cpp's tapContribution: the
// kernel's reads the image through the same windows, the image's reads the upstream
// gradient through windows of the negated dilation). Apart from grad.cpp so that the rule
// that admits a node is read in one place.
#pragma once

#include "planner/graph/graph.h"

namespace eindecomp::autodiff {

// True for a convolution: a contraction of two operands, one read through windows with
// taps, whose windowed labels are each once in it and in the output and not in the other
// operand, and whose tap labels are the other operand's alone. False for a node without
// taps; any other node with taps is refused (InputError at the node).
bool tappedConvolution(const Node& n);

}  // namespace eindecomp::autodiff
