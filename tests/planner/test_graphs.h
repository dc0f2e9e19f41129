// Graph structs built directly for the planner tests (no loader): a binary or unary node
// from an einsum-like description. Labels are single characters here; a test sizes them
// from one vocabulary (sizeLabels), though in a graph each node has its own labels.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "planner/graph/graph.h"

namespace eindecomp::testing {

inline Labels labelsOf(const std::string& s) {
  Labels out;
  for (char c : s) out.push_back(std::string(1, c));
  return out;
}

// Adds a node "ops->out" (ops comma-separated) reading `inputs`; join is x*y (binary)
// or x (unary), agg sum.
inline void addNode(Graph& g, const std::string& name, const std::string& spec, const std::vector<std::string>& inputs) {
  Node n;
  n.name = name;
  n.inputs = inputs;
  n.einsum = spec;
  auto arrow = spec.find("->");
  std::string ops = spec.substr(0, arrow);
  std::size_t start = 0;
  for (;;) {
    auto comma = ops.find(',', start);
    n.operandLabels.push_back(labelsOf(ops.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  n.outputLabels = labelsOf(spec.substr(arrow + 2));
  if (n.operandLabels.size() == 2) {
    n.join = Expr::binary(Expr::Kind::Mul, Expr::x(), Expr::y());
    n.joinName = "mul";
  } else {
    n.join = Expr::x();
    n.joinName = "x";
  }
  g.nodes.push_back(std::move(n));
}

// Gives every node the sizes of its own labels from one vocabulary.
inline void sizeLabels(Graph& g, const std::map<Label, int64_t>& sizes) {
  for (Node& n : g.nodes)
    for (const auto& l : iterationLabels(n)) n.labelSizes[l] = sizes.at(l);
}

inline void addInput(Graph& g, const std::string& name, std::vector<int64_t> shape) {
  g.inputs.push_back({name, std::move(shape), {}});
}

// Z_ik = sum_j X_ij Y_jk, all sizes `n`.
inline Graph matmulGraph(int64_t n) {
  Graph g;
  g.name = "matmul";
  addInput(g, "X", {n, n});
  addInput(g, "Y", {n, n});
  addNode(g, "Z", "ij,jk->ik", {"X", "Y"});
  sizeLabels(g, {{"i", n}, {"j", n}, {"k", n}});
  g.outputs = {"Z"};
  return g;
}

}  // namespace eindecomp::testing
