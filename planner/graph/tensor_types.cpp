#include "planner/graph/tensor_types.h"

#include <unordered_map>

#include "planner/graph/excerpt.h"

namespace eindecomp {

namespace {

// Each tensor's type by name, inputs first, then node by node in order (a topological one).
class TypeTable {
 public:
  explicit TypeTable(const Graph& g) : g_(g) {
    types_.reserve(g.inputs.size() + g.nodes.size());
    for (const InputTensor& in : g.inputs) {
      types_.emplace(in.name, inputType(g, in));
      if (in.indexType) ids_.emplace(in.name, true);
    }
  }
  DType of(const std::string& name) const { return types_.at(name); }
  bool isIds(const std::string& name) const { return ids_.count(name) > 0; }
  // The node's output type: its cast's, else its first float operand's, else the graph's.
  DType add(const Node& n) {
    DType t = g_.dtype;
    if (n.castTo) t = *n.castTo;
    else
      for (const std::string& in : n.inputs)
        if (!isIds(in)) {
          t = of(in);
          break;
        }
    types_.emplace(n.name, t);
    return t;
  }

 private:
  const Graph& g_;
  std::unordered_map<std::string, DType> types_;
  std::unordered_map<std::string, bool> ids_;
};

bool identityCast(const Node& n) {
  return n.inputs.size() == 1 && n.join == Expr::x() && !isIndexNode(n) && !n.windows && n.operandLabels[0] == n.outputLabels;
}

// The widening contraction's form (tensor_types.h); its GEMM shape is checked where the
// program's tables are made (planner/model/program_tables.cpp).
bool wideningForm(const Node& n) {
  return n.inputs.size() == 2 && isContraction(n) && !isIndexNode(n) && !n.windows && n.castTo == DType::F32;
}

}  // namespace

bool isWideningContraction(const Node& n) { return n.castTo && n.inputs.size() == 2; }

std::vector<DType> nodeComputeTypes(const Graph& g) {
  TypeTable table(g);
  std::vector<DType> out;
  out.reserve(g.nodes.size());
  for (const Node& n : g.nodes) {
    const DType t = table.add(n);
    out.push_back(isWideningContraction(n) ? table.of(n.inputs[0]) : t);
  }
  return out;
}

DType inputType(const Graph& g, const InputTensor& in) { return in.ownType().value_or(g.dtype); }

std::vector<DType> nodeOutputTypes(const Graph& g) {
  TypeTable table(g);
  std::vector<DType> out;
  out.reserve(g.nodes.size());
  for (const Node& n : g.nodes) out.push_back(table.add(n));
  return out;
}

bool hasMixedFloatTypes(const Graph& g) {
  for (const InputTensor& in : g.inputs)
    if (in.floatType && *in.floatType != g.dtype) return true;
  for (const Node& n : g.nodes)
    if (n.castTo && *n.castTo != g.dtype) return true;
  return false;
}

void checkTensorTypes(const Graph& g, const std::vector<SourceLoc>& castAt, const IndexNodeLocations& where) {
  TypeTable table(g);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const std::string node = "node " + quoted(n.name);
    if (n.castTo && wideningForm(n)) {
      for (std::size_t k = 0; k < 2; ++k) {
        const bool ids = table.isIds(n.inputs[k]);
        const DType t = ids ? DType::I64 : table.of(n.inputs[k]);
        if (ids || (t != DType::BF16 && t != DType::F16) || t != table.of(n.inputs[1 - k]))
          throw InputError({where.operands[i][k], node + ": a contraction with `cast: f32` (a widening contraction, SPEC 8) "
                                                      "reads two operands of one 2-byte float type (bf16 or f16); operand " +
                                                      std::to_string(k + 1) + " (" + quoted(n.inputs[k]) + ") is " +
                                                      (ids ? std::string("ids") : std::string(dtypeName(t))) +
                                                      (ids ? "" : " and its other operand " + std::string(dtypeName(table.of(n.inputs[1 - k]))))});
      }
    } else if (n.castTo) {
      if (!identityCast(n))
        throw InputError({castAt[i], node + ": a cast (`cast: " + std::string(dtypeName(*n.castTo)) +
                                         "`) converts one operand element by element: one input, the identity join, the "
                                         "output's labels in the operand's order (such as \"ij->ij\"), no window; or, as "
                                         "`cast: f32`, widens a contraction of two bf16 or f16 operands (join x * y, "
                                         "aggregation sum) into f32"});
      // (A cast of ids never comes here: only gathers and scatters read ids, index_nodes.h.)
    } else {
      // The float operands' one type: the first float operand's, which the others must have.
      std::size_t first = n.inputs.size();
      for (std::size_t k = 0; k < n.inputs.size(); ++k) {
        if (table.isIds(n.inputs[k])) continue;
        if (first == n.inputs.size()) {
          first = k;
          continue;
        }
        const DType a = table.of(n.inputs[first]), b = table.of(n.inputs[k]);
        if (a != b)
          throw InputError({where.operands[i][k], node + ": operand " + std::to_string(k + 1) + " (" + quoted(n.inputs[k]) +
                                                      ") is " + dtypeName(b) + " and operand " + std::to_string(first + 1) +
                                                      " (" + quoted(n.inputs[first]) + ") is " + dtypeName(a) +
                                                      "; a node computes in one float type: cast one of them first (a "
                                                      "node with `cast: " + dtypeName(a) + "`, SPEC 8)"});
      }
    }
    table.add(n);
  }
}

}  // namespace eindecomp
