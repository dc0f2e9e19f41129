// Graph inputs read from a directory of `.npy` files, one `NAME.npy` per graph input,
// for `einplan eval --inputs DIR`. Each file must hold the input's declared shape, as
// float32 or float64 in C or Fortran order (einrt/npy.h converts to the graph's dtype,
// with a note on stderr); every problem — including a directory, FIFO or device where a
// file should be — is an InputError (exit 2) naming the file.
#pragma once

#include <map>
#include <string>

#include "frontends/eval/tensor.h"
#include "planner/graph/graph.h"

namespace eindecomp {

// Reads DIR/NAME.npy for every input NAME of the graph, keyed by name.
std::map<std::string, Tensor> readInputFiles(const Graph& graph, const std::string& directory);

}  // namespace eindecomp
