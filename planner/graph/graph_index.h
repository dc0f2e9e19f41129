// Name lookups over one graph, built once. The free queries of graph.h (findNode,
// nodeIndex, tensorShape, consumers) search the node lists, which is fine for a single
// question but quadratic when a stage asks once per node: a 100,000-node chain took
// minutes to check, plan and lower. A stage that walks the whole graph builds one
// GraphIndex and asks it instead. The index points into the graph it was built from,
// so that graph must outlive it and must not gain or lose tensors meanwhile.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "planner/graph/graph.h"

namespace eindecomp {

class GraphIndex {
 public:
  explicit GraphIndex(const Graph& g);

  // Index of the node in g.nodes, or -1 (a graph input or an unknown name).
  int nodeIndex(const std::string& name) const;
  const Node* findNode(const std::string& name) const;
  const InputTensor* findInput(const std::string& name) const;
  // Shape of a tensor (input or node output); throws std::out_of_range if unknown.
  std::vector<int64_t> tensorShape(const std::string& name) const;
  // The nodes that read `name`, with the operand position, in node order.
  const std::vector<Use>& consumers(const std::string& name) const;
  bool isOutput(const std::string& name) const;

 private:
  const Graph& graph_;
  std::unordered_map<std::string, int> nodes_;
  std::unordered_map<std::string, int> inputs_;
  std::unordered_map<std::string, std::vector<Use>> consumers_;
  std::unordered_set<std::string> outputs_;
};

}  // namespace eindecomp
