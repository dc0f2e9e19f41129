// Test helper: builds Graph structs directly (without the loaders) from compact einsum
// strings with one-character labels, or from explicit label lists for multi-character
// labels, so the evaluator can be tested on its own.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "frontends/eval/tensor.h"
#include "planner/graph/graph.h"

namespace evaltest {

using eindecomp::Expr;

inline Expr mulJoin() { return Expr::binary(Expr::Kind::Mul, Expr::x(), Expr::y()); }

// Splits "ij,jk->ik" into operand label lists and output labels (one char per label).
inline void splitEinsum(const std::string& einsum, std::vector<eindecomp::Labels>& operands,
                        eindecomp::Labels& output) {
  const auto arrow = einsum.find("->");
  std::string lhs = einsum.substr(0, arrow), rhs = einsum.substr(arrow + 2);
  operands.assign(1, {});
  for (char c : lhs) {
    if (c == ',') operands.emplace_back();
    else operands.back().push_back(std::string(1, c));
  }
  output.clear();
  for (char c : rhs) output.push_back(std::string(1, c));
}

struct GraphBuilder {
  eindecomp::Graph g;

  explicit GraphBuilder(eindecomp::DType dtype = eindecomp::DType::F64) { g.dtype = dtype; }

  // One vocabulary of label sizes for the test; each node takes its own labels' sizes.
  std::map<std::string, int64_t> vocabulary;

  GraphBuilder& sizes(const std::map<std::string, int64_t>& s) {
    for (const auto& [l, n] : s) vocabulary[l] = n;
    return *this;
  }
  GraphBuilder& input(const std::string& name, const std::vector<int64_t>& shape) {
    g.inputs.push_back({name, shape, {}});
    return *this;
  }
  GraphBuilder& node(const std::string& name, const std::vector<std::string>& inputs,
                     const std::vector<eindecomp::Labels>& operandLabels, const eindecomp::Labels& output,
                     Expr join, eindecomp::Reduce agg = eindecomp::Reduce::Sum) {
    eindecomp::Node n;
    n.name = name;
    n.inputs = inputs;
    n.operandLabels = operandLabels;
    n.outputLabels = output;
    n.join = std::move(join);
    n.agg = agg;
    for (const auto& l : eindecomp::iterationLabels(n)) n.labelSizes[l] = vocabulary.at(l);
    g.nodes.push_back(n);
    g.outputs.push_back(name);
    return *this;
  }
  GraphBuilder& node(const std::string& name, const std::vector<std::string>& inputs, const std::string& einsum,
                     Expr join, eindecomp::Reduce agg = eindecomp::Reduce::Sum) {
    std::vector<eindecomp::Labels> ops;
    eindecomp::Labels out;
    splitEinsum(einsum, ops, out);
    return node(name, inputs, ops, out, std::move(join), agg);
  }
};

inline eindecomp::Tensor tensor(eindecomp::DType dtype, std::vector<int64_t> shape, std::vector<double> values) {
  return eindecomp::Tensor{dtype, std::move(shape), std::move(values)};
}

}  // namespace evaltest
