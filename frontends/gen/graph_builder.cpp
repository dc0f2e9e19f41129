#include "frontends/gen/graph_builder.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>

#include "planner/graph/einsum_parser.h"
#include "planner/graph/expr_parser.h"
#include "planner/graph/graph_index.h"

namespace eindecomp::gen {

GraphBuilder::GraphBuilder(std::string name, DType dtype) {
  graph_.name = std::move(name);
  graph_.dtype = dtype;
  graph_.sourceFile = "einplan gen";
}

void GraphBuilder::size(const Label& label, int64_t extent) {
  if (extent < 1) throw std::logic_error("generator: label '" + label + "' sized " + std::to_string(extent));
  auto [it, inserted] = sizes_.emplace(label, extent);
  if (!inserted && it->second != extent)
    throw std::logic_error("generator: label '" + label + "' declared with two sizes");
}

void GraphBuilder::input(const std::string& name, const std::string& labels) {
  std::istringstream is(labels);
  InputTensor t;
  t.name = name;
  for (std::string l; is >> l;) t.shape.push_back(sizes_.at(l));
  inputIndex_[name] = graph_.inputs.size();
  graph_.inputs.push_back(t);
}

const Node& GraphBuilder::nodeNamed(const std::string& name) const {
  const auto it = nodeIndex_.find(name);
  if (it == nodeIndex_.end()) throw std::logic_error("generator: '" + name + "' is not a node");
  return graph_.nodes[it->second];
}

std::vector<int64_t> GraphBuilder::shapeOf(const std::string& tensor) const {
  if (const auto it = inputIndex_.find(tensor); it != inputIndex_.end()) return graph_.inputs[it->second].shape;
  return outputShape(nodeNamed(tensor));
}

void GraphBuilder::node(const std::string& name, const std::string& einsum, const std::vector<std::string>& inputs,
                        const std::string& join, Reduce agg) {
  const EinsumSpec spec = parseEinsum(einsum);
  if (spec.operands.size() != inputs.size())
    throw std::logic_error("generator: node '" + name + "' has " + std::to_string(inputs.size()) +
                           " inputs for einsum " + einsum);
  Node n;
  n.name = name;
  n.inputs = inputs;
  n.operandLabels = spec.operands;
  n.outputLabels = spec.output;
  n.einsum = einsum;
  n.agg = agg;
  if (join.empty()) {
    n.joinName = inputs.size() == 1 ? "x" : "mul";
    n.join = inputs.size() == 1 ? Expr::x() : *namedJoin("mul");
  } else {
    n.joinName = join;
    auto named = namedJoin(join);
    n.join = named ? *named : parseExpr(join);
  }
  // Every operand's labels must match the shape of the tensor it names.
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const std::vector<int64_t> shape = shapeOf(inputs[k]);
    const Labels& ls = spec.operands[k];
    bool ok = shape.size() == ls.size();
    for (std::size_t i = 0; ok && i < ls.size(); ++i) ok = sizes_.count(ls[i]) && sizes_.at(ls[i]) == shape[i];
    if (!ok) throw std::logic_error("generator: node '" + name + "' operand " + inputs[k] + " does not fit " + einsum);
  }
  for (const auto& l : spec.output)
    if (!sizes_.count(l)) throw std::logic_error("generator: label '" + l + "' has no size");
  for (const auto& l : iterationLabels(n)) n.labelSizes[l] = sizes_.at(l);
  nodeIndex_[name] = graph_.nodes.size();
  graph_.nodes.push_back(std::move(n));
}

void GraphBuilder::output(const std::string& name) {
  nodeNamed(name);
  graph_.outputs.push_back(name);
}

Graph GraphBuilder::build() const {
  Graph g = graph_;
  if (g.outputs.empty()) {
    const GraphIndex index(g);
    std::vector<std::string> sinks;
    for (const auto& n : g.nodes)
      if (index.consumers(n.name).empty()) sinks.push_back(n.name);
    g.outputs = std::move(sinks);
  }
  return g;
}


}  // namespace eindecomp::gen
