// Graph inputs made by the deterministic generator of einrt/input_generator.h: the same
// values the emitted programs make for `--seed S`, so `einplan eval --seed S` and
// `mpirun ... ./PROGRAM --seed S` compute on identical inputs.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "frontends/eval/tensor.h"
#include "planner/graph/graph.h"

namespace eindecomp {

// The input tensor `input` of `graph` for `seed`: element i (flat C order) is
// einrt::inputValue(einrt::inputStreamKey(seed, input.name), i), rounded to the
// graph's dtype.
Tensor generateInput(const Graph& graph, const InputTensor& input, uint64_t seed);

// generateInput for every input of the graph, keyed by name.
std::map<std::string, Tensor> generateInputs(const Graph& graph, uint64_t seed);

}  // namespace eindecomp
