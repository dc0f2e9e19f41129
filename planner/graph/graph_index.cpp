#include "planner/graph/graph_index.h"

#include <stdexcept>

namespace eindecomp {

GraphIndex::GraphIndex(const Graph& g) : graph_(g), outputs_(g.outputs.begin(), g.outputs.end()) {
  // emplace keeps the first of duplicate names, as the linear searches of graph.h do.
  for (std::size_t i = 0; i < g.inputs.size(); ++i) inputs_.emplace(g.inputs[i].name, static_cast<int>(i));
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    nodes_.emplace(g.nodes[i].name, static_cast<int>(i));
    for (std::size_t k = 0; k < g.nodes[i].inputs.size(); ++k)
      consumers_[g.nodes[i].inputs[k]].push_back({static_cast<int>(i), static_cast<int>(k)});
  }
}

int GraphIndex::nodeIndex(const std::string& name) const {
  auto it = nodes_.find(name);
  return it == nodes_.end() ? -1 : it->second;
}

const Node* GraphIndex::findNode(const std::string& name) const {
  int i = nodeIndex(name);
  return i < 0 ? nullptr : &graph_.nodes[static_cast<std::size_t>(i)];
}

const InputTensor* GraphIndex::findInput(const std::string& name) const {
  auto it = inputs_.find(name);
  return it == inputs_.end() ? nullptr : &graph_.inputs[static_cast<std::size_t>(it->second)];
}

std::vector<int64_t> GraphIndex::tensorShape(const std::string& name) const {
  if (const InputTensor* t = findInput(name)) return t->shape;
  if (const Node* n = findNode(name)) return outputShape(*n);
  throw std::out_of_range("unknown tensor '" + name + "'");
}

const std::vector<Use>& GraphIndex::consumers(const std::string& name) const {
  static const std::vector<Use> none;
  auto it = consumers_.find(name);
  return it == consumers_.end() ? none : it->second;
}

bool GraphIndex::isOutput(const std::string& name) const { return outputs_.count(name) > 0; }

}  // namespace eindecomp
