// The windows (SPEC 8.1) einplan grad meets, in one place: which nodes with windows over
// tap labels it differentiates (a convolution, whose gradients are convolutions again:
// grad.cpp's tapContribution — the kernel's reads the image through the same windows, the
// image's reads the upstream gradient through windows of the negated dilation, spread by
// the steps), and the rewrite that leaves every other windowed node reading copies made
// by window nodes of their own (whose gradient is a window the other way:
// windowContribution).
#pragma once

#include "planner/graph/graph.h"

namespace eindecomp::autodiff {

// True for a convolution: a contraction of two operands, one read through windows with
// taps, whose windowed labels are each once in it and in the output and not in the other
// operand, and whose tap labels are the other operand's alone. False for a node without
// taps; any other node with taps is refused (InputError at the node).
bool tappedConvolution(const Node& n);

// Every windowed node but window copies and convolutions reads its windowed operands from
// copies made by window nodes of their own (`w<k>_<node>`, placed before it; the same
// values), so that the gradient rules meet windows only as copies.
void splitWindows(Graph& g);

}  // namespace eindecomp::autodiff
