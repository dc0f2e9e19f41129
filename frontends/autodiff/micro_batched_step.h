// einplan grad --micro-batches (docs/grad.md "Micro-batches"): what the differentiator
// asks of the step's micro-batches — whether an input is cut into them, and the step of
// its result with every gradient (and the loss's copy) summed over them. The phase rules
// themselves are the planner's, planner/graph/micro_batches.h.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "planner/graph/graph.h"
#include "planner/graph/micro_batches.h"

namespace eindecomp::autodiff {

// Whether `input` is one of `mb`'s split inputs.
bool isSplitInput(const MicroBatches& mb, const std::string& input);

// `g` (over one micro-batch) as the step of `mb.count` micro-batches whose accumulated
// nodes are the gradients (`grads`: input, gradient node) and, where it is not empty,
// `lossSum` (the loss's copy that the step outputs).
Graph withAccumulatedGradients(Graph g, MicroBatches mb, const std::vector<std::pair<std::string, std::string>>& grads,
                               const std::string& lossSum);

}  // namespace eindecomp::autodiff
