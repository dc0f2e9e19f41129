// Graph inputs read from a directory of `.npy` files, one `NAME.npy` per graph input,
// for `einplan eval --inputs DIR`. Each file must hold the graph's dtype and the input's
// declared shape; every problem is an InputError (exit 2) naming the file.
#pragma once

#include <map>
#include <string>

#include "planner/eval/tensor.h"
#include "planner/graph/graph.h"

namespace eindecomp {

// Reads DIR/NAME.npy for every input NAME of the graph, keyed by name.
std::map<std::string, Tensor> readInputFiles(const Graph& graph, const std::string& directory);

}  // namespace eindecomp
