#include <algorithm>
#include <stdexcept>

#include "planner/graph/graph.h"

namespace eindecomp {

static void appendNew(Labels& out, const Labels& from) {
  for (const auto& l : from)
    if (std::find(out.begin(), out.end(), l) == out.end()) out.push_back(l);
}

Labels iterationLabels(const Node& n) {
  Labels out;
  for (const auto& ls : n.operandLabels) appendNew(out, ls);
  appendNew(out, n.outputLabels);
  return out;
}

Labels aggregatedLabels(const Node& n) {
  Labels in;
  for (const auto& ls : n.operandLabels) appendNew(in, ls);
  Labels out;
  for (const auto& l : in)
    if (std::find(n.outputLabels.begin(), n.outputLabels.end(), l) == n.outputLabels.end()) out.push_back(l);
  return out;
}

Labels broadcastLabels(const Node& n) {
  Labels in;
  for (const auto& ls : n.operandLabels) appendNew(in, ls);
  Labels out;
  for (const auto& l : n.outputLabels)
    if (std::find(in.begin(), in.end(), l) == in.end()) out.push_back(l);
  return out;
}

bool isContraction(const Node& n) {
  if (n.agg != Reduce::Sum) return false;
  if (n.operandLabels.size() == 1) return n.join.kind == Expr::Kind::VarX;
  return n.join.kind == Expr::Kind::Mul && n.join.args.size() == 2 &&
         n.join.args[0].kind == Expr::Kind::VarX && n.join.args[1].kind == Expr::Kind::VarY;
}

const Node* findNode(const Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

const InputTensor* findInput(const Graph& g, const std::string& name) {
  for (const auto& t : g.inputs)
    if (t.name == name) return &t;
  return nullptr;
}

int nodeIndex(const Graph& g, const std::string& name) {
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].name == name) return static_cast<int>(i);
  return -1;
}

std::vector<int64_t> tensorShape(const Graph& g, const std::string& name) {
  if (const InputTensor* t = findInput(g, name)) return t->shape;
  if (const Node* n = findNode(g, name)) return outputShape(*n);
  throw std::out_of_range("unknown tensor '" + name + "'");
}

std::vector<int64_t> outputShape(const Node& n) {
  std::vector<int64_t> shape;
  for (const auto& l : n.outputLabels) shape.push_back(n.labelSizes.at(l));
  return shape;
}

std::vector<int64_t> iterationSizes(const Node& n) {
  std::vector<int64_t> sizes;
  for (const auto& l : iterationLabels(n)) sizes.push_back(n.labelSizes.at(l));
  return sizes;
}

int64_t elementCount(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

std::vector<int64_t> fileShapeOf(const Graph& g, const std::string& name) {
  if (const InputTensor* in = findInput(g, name)) return in->fileShape.empty() ? in->shape : in->fileShape;
  const Node* n = findNode(g, name);
  if (!n) throw std::out_of_range("no tensor named " + name);
  return n->fileShape.empty() ? outputShape(*n) : n->fileShape;
}

std::vector<Use> consumers(const Graph& g, const std::string& name) {
  std::vector<Use> uses;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    for (std::size_t k = 0; k < g.nodes[i].inputs.size(); ++k)
      if (g.nodes[i].inputs[k] == name) uses.push_back({static_cast<int>(i), static_cast<int>(k)});
  return uses;
}

int64_t nodeFlops(const Node& n) {
  int64_t space = 1;
  for (const auto& l : iterationLabels(n)) {
    // An index node's selected label is a lookup, not a loop: one term per other point.
    if (l == n.indexLabel) continue;
    if (__builtin_mul_overflow(space, n.labelSizes.at(l), &space))
      throw InputError({n.loc, "node '" + n.name + "': its iteration space overflows 64 bits"});
  }
  int64_t perPoint = n.indexLabel.empty() ? std::max<int64_t>(1, static_cast<int64_t>(n.operandLabels.size()) - 1) +
                                                (aggregatedLabels(n).empty() ? 0 : 1)
                                          : 1;
  int64_t flops = 0;
  if (__builtin_mul_overflow(space, perPoint, &flops))
    throw InputError({n.loc, "node '" + n.name + "': its FLOP count overflows 64 bits"});
  return flops;
}

}  // namespace eindecomp
