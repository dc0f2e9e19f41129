#include "frontends/eval/generate_inputs.h"

#include "einrt/input_generator.h"
#include "planner/graph/index_nodes.h"
#include "planner/graph/micro_batches.h"
#include "planner/graph/tensor_types.h"

namespace eindecomp {

Tensor generateInput(const Graph& graph, const InputTensor& input, uint64_t seed) {
  Tensor t;
  t.dtype = inputType(graph, input);
  // A split input (micro_batches) is the whole step's: its values are those of the same
  // tensor in the one-pass step.
  t.shape = stepShape(graph, input);
  t.values.resize(static_cast<std::size_t>(elementCount(t.shape)));
  if (input.indexType) {  // ids within the range their gathers select from (input_generator.h)
    t.dtype = *input.indexType;
    std::vector<int64_t> ids(t.values.size());
    einrt::fillIndexBlock(seed, input.name, t.shape, std::vector<int64_t>(t.shape.size(), 0), t.shape,
                          indexRange(graph, input.name), ids.data());
    for (std::size_t i = 0; i < ids.size(); ++i) t.values[i] = static_cast<double>(ids[i]);
  } else if (t.dtype == DType::F64) {
    einrt::fillInput<double>(seed, input.name, t.values.size(), t.values.data());
  } else {
    // f32's value; bf16 and f16 round it once more, as the programs' inputElement does.
    std::vector<float> f32(t.values.size());
    einrt::fillInput<float>(seed, input.name, f32.size(), f32.data());
    for (std::size_t i = 0; i < f32.size(); ++i) t.values[i] = roundToDType(f32[i], t.dtype);
  }
  return t;
}

std::map<std::string, Tensor> generateInputs(const Graph& graph, uint64_t seed) {
  std::map<std::string, Tensor> inputs;
  for (const auto& in : graph.inputs) inputs[in.name] = generateInput(graph, in, seed);
  return inputs;
}

}  // namespace eindecomp
