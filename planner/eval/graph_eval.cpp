#include "planner/eval/graph_eval.h"

#include <stdexcept>

#include "planner/eval/node_eval.h"

namespace eindecomp {

static void checkInputs(const Graph& graph, const std::map<std::string, Tensor>& inputs) {
  for (const auto& declared : graph.inputs) {
    auto it = inputs.find(declared.name);
    if (it == inputs.end()) throw std::invalid_argument("no value given for graph input '" + declared.name + "'");
    const Tensor& t = it->second;
    if (t.dtype != graph.dtype)
      throw std::invalid_argument("graph input '" + declared.name + "' is " + dtypeName(t.dtype) + ", the graph is " +
                                  dtypeName(graph.dtype));
    if (t.shape != declared.shape || static_cast<int64_t>(t.values.size()) != elementCount(declared.shape))
      throw std::invalid_argument("graph input '" + declared.name + "' does not have its declared shape");
  }
  for (const auto& [name, tensor] : inputs)
    if (!findInput(graph, name)) throw std::invalid_argument("'" + name + "' is not an input of the graph");
}

std::map<std::string, Tensor> evaluateGraph(const Graph& graph, const std::map<std::string, Tensor>& inputs) {
  checkInputs(graph, inputs);
  std::map<std::string, Tensor> results;
  for (const Node& node : graph.nodes) {
    std::vector<const Tensor*> operands;
    for (const auto& name : node.inputs) {
      auto in = inputs.find(name);
      if (in != inputs.end()) {
        operands.push_back(&in->second);
        continue;
      }
      auto produced = results.find(name);
      if (produced == results.end())
        throw std::invalid_argument("node '" + node.name + "' reads '" + name + "', which is not computed before it");
      operands.push_back(&produced->second);
    }
    results[node.name] = evaluateNode(graph, node, operands);
  }
  return results;
}

}  // namespace eindecomp
