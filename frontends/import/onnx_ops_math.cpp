// Products and elementwise operators: MatMul (NumPy batch broadcasting), Gemm, Einsum,
// the unary and binary elementwise operators with NumPy broadcasting, and Where with a
// condition known at import time. A constant operand whose elements are all one value
// becomes a number in the join (no weight, no traffic); operators whose inputs are all
// constants are folded.
#include <algorithm>
#include <cmath>

#include "frontends/eval/scalar_expr_eval.h"
#include "planner/graph/einsum_parser.h"
#include "planner/graph/excerpt.h"
#include "frontends/import/onnx_ops.h"

namespace eindecomp::onnx_import {

std::vector<int64_t> broadcastShapes(const std::vector<std::vector<int64_t>>& shapes) {
  std::size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  std::vector<int64_t> out(rank, 1);
  for (const auto& s : shapes)
    for (std::size_t i = 0; i < s.size(); ++i) {
      int64_t& o = out[rank - s.size() + i];
      if (s[i] == o || s[i] == 1) continue;
      if (o != 1) throw Unsupported("shapes do not broadcast (sizes " + std::to_string(o) + " and " + std::to_string(s[i]) + ")");
      o = s[i];
    }
  return out;
}

View elementwise(OpContext& c, const std::vector<View>& operands, const std::string& join, const std::string& step) {
  std::vector<std::vector<int64_t>> shapes;
  for (const auto& v : operands) shapes.push_back(c.graph().shape(v));
  const std::vector<int64_t> out = broadcastShapes(shapes);
  std::vector<int> symbols;
  for (std::size_t i = 0; i < out.size(); ++i) symbols.push_back(c.symbol());
  std::vector<ImportGraph::Operand> ops;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    ImportGraph::Operand op{operands[k], {}};
    for (std::size_t i = 0; i < shapes[k].size(); ++i) op.symbols.push_back(symbols[out.size() - shapes[k].size() + i]);
    ops.push_back(op);
  }
  return c.graph().einsum(ops, symbols, joinExpr(join), Reduce::Sum, c.hint(step));
}

namespace {

// Elementwise evaluation of `join` over constants with NumPy broadcasting.
HostTensor foldElementwise(const std::vector<const HostTensor*>& in, const std::string& join) {
  std::vector<std::vector<int64_t>> shapes;
  for (const auto* t : in) shapes.push_back(t->shape);
  HostTensor out;
  out.shape = broadcastShapes(shapes);
  out.kind = in[0]->kind == ElemKind::Float64 || (in.size() > 1 && in[1]->kind == ElemKind::Float64) ? ElemKind::Float64
                                                                                                     : in[0]->kind;
  int64_t n = 1;
  for (const int64_t d : out.shape) n *= d;
  const Expr e = joinExpr(join);
  const std::size_t rank = out.shape.size();
  std::vector<int64_t> index(rank, 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    double args[2] = {0, 0};
    for (std::size_t k = 0; k < in.size(); ++k) {
      const auto& s = in[k]->shape;
      int64_t offset = 0;
      for (std::size_t i = 0; i < s.size(); ++i) offset = offset * s[i] + (s[i] == 1 ? 0 : index[rank - s.size() + i]);
      args[k] = in[k]->values[static_cast<std::size_t>(offset)];
    }
    double v = evaluateScalarExpr(e, args[0], args[1]);
    if (out.kind == ElemKind::Float32) v = static_cast<double>(static_cast<float>(v));
    if (out.kind == ElemKind::Integer) v = std::trunc(v);  // ONNX integer division truncates
    out.values.push_back(v);
    for (std::size_t i = rank; i-- > 0;)
      if (++index[i] < out.shape[i]) break;
      else index[i] = 0;
  }
  return out;
}

void unary(std::map<std::string, OpTranslation>& t, const std::string& op, const std::string& join) {
  t[op] = [join](OpContext& c) {
    if (c.isConstant(0)) return c.setConstant(0, foldElementwise({&c.constant(0)}, join));
    c.setOutput(0, elementwise(c, {c.view(0)}, join));
  };
}

// `pattern` uses a for the first operand and b for the second.
std::string substitute(const std::string& pattern, const std::string& a, const std::string& b) {
  std::string out;
  for (const char ch : pattern) out += ch == 'a' ? a : ch == 'b' ? b : std::string(1, ch);
  return out;
}

void binary(std::map<std::string, OpTranslation>& t, const std::string& op, const std::string& pattern) {
  t[op] = [pattern, op](OpContext& c) {
    const std::vector<int64_t> out = broadcastShapes({c.shape(0), c.shape(1)});
    if (c.isConstant(0) && c.isConstant(1))
      return c.setConstant(0, foldElementwise({&c.constant(0), &c.constant(1)}, substitute(pattern, "x", "y")));
    // A one-element constant that does not widen the result is a number in the join.
    for (int k = 0; k < 2; ++k) {
      const auto u = c.scalarConstant(k);
      if (!u || c.isConstant(1 - k) || c.shape(1 - k) != out) continue;
      std::string number = numberText(*u);
      if (op == "Pow" && k == 1 && *u == 2.0) return c.setOutput(0, elementwise(c, {c.view(0)}, "x * x"));
      return c.setOutput(0, elementwise(c, {c.view(1 - k)}, k == 1 ? substitute(pattern, "x", number) : substitute(pattern, number, "x")));
    }
    c.setOutput(0, elementwise(c, {c.view(0), c.view(1)}, substitute(pattern, "x", "y")));
  };
}

void matmul(OpContext& c) {
  const auto sa = c.shape(0), sb = c.shape(1);
  if (sa.empty() || sb.empty()) throw Unsupported("MatMul of a scalar");
  const std::vector<int64_t> ba(sa.begin(), sa.end() - std::min<std::size_t>(sa.size(), 2));
  const std::vector<int64_t> bb(sb.begin(), sb.end() - std::min<std::size_t>(sb.size(), 2));
  const std::vector<int64_t> batch = broadcastShapes({ba, bb});
  std::vector<int> bsym;
  for (std::size_t i = 0; i < batch.size(); ++i) bsym.push_back(c.symbol());
  const int m = c.symbol(), k = c.symbol(), n = c.symbol();
  ImportGraph::Operand a{c.view(0), {}}, b{c.view(1), {}};
  for (std::size_t i = 0; i < ba.size(); ++i) a.symbols.push_back(bsym[batch.size() - ba.size() + i]);
  for (std::size_t i = 0; i < bb.size(); ++i) b.symbols.push_back(bsym[batch.size() - bb.size() + i]);
  if (sa.size() >= 2) a.symbols.push_back(m);
  a.symbols.push_back(k);
  b.symbols.push_back(k);
  if (sb.size() >= 2) b.symbols.push_back(n);
  std::vector<int> out = bsym;
  if (sa.size() >= 2) out.push_back(m);
  if (sb.size() >= 2) out.push_back(n);
  c.setOutput(0, c.graph().einsum({a, b}, out, joinExpr("x * y"), Reduce::Sum, c.hint()));
}

void gemm(OpContext& c) {
  const double alpha = c.floatAttribute("alpha", 1.0), beta = c.floatAttribute("beta", 1.0);
  const bool ta = c.intAttribute("transA", 0) != 0, tb = c.intAttribute("transB", 0) != 0;
  if (c.rank(0) != 2 || c.rank(1) != 2) throw Unsupported("Gemm takes matrices");
  const int m = c.symbol(), k = c.symbol(), n = c.symbol();
  ImportGraph::Operand a{c.view(0), ta ? std::vector<int>{k, m} : std::vector<int>{m, k}};
  ImportGraph::Operand b{c.view(1), tb ? std::vector<int>{n, k} : std::vector<int>{k, n}};
  const bool bias = c.hasInput(2) && beta != 0.0;
  const std::string join = alpha == 1.0 ? "x * y" : "x * y * " + numberText(alpha);
  View y = c.graph().einsum({a, b}, {m, n}, joinExpr(join), Reduce::Sum, c.hint(bias ? "product" : ""));
  if (bias) {
    if (const auto u = c.scalarConstant(2); u && broadcastShapes({c.graph().shape(y), c.shape(2)}) == c.graph().shape(y))
      y = elementwise(c, {y}, "x + " + numberText(beta * *u));
    else
      y = elementwise(c, {y, c.view(2)}, beta == 1.0 ? "x + y" : "x + " + numberText(beta) + " * y");
  }
  c.setOutput(0, y);
}

void einsumOp(OpContext& c) {
  const std::string equation = c.stringAttribute("equation", "");
  EinsumSpec spec;
  try {
    spec = parseEinsum(equation);
  } catch (const InputError& e) {
    throw Unsupported("equation " + eindecomp::quoted(equation) + ": " + e.diagnostic().message);
  }
  if (static_cast<int>(spec.operands.size()) != c.inputCount())
    throw Unsupported("equation " + eindecomp::quoted(equation) + " has " + std::to_string(spec.operands.size()) + " operands for " +
                      std::to_string(c.inputCount()) + " inputs");
  std::map<std::string, int> symbol;
  auto sym = [&](const std::string& l) {
    auto [it, fresh] = symbol.emplace(l, 0);
    if (fresh) it->second = c.symbol();
    return it->second;
  };
  std::size_t ellipsisRank = 0;
  for (std::size_t k = 0; k < spec.operands.size(); ++k)
    if (spec.operandEllipsis[k] >= 0) {
      if (c.shape(static_cast<int>(k)).size() < spec.operands[k].size()) throw Unsupported("an operand has fewer dimensions than labels");
      ellipsisRank = std::max(ellipsisRank, c.shape(static_cast<int>(k)).size() - spec.operands[k].size());
    }
  std::vector<int> ellipsis;
  for (std::size_t i = 0; i < ellipsisRank; ++i) ellipsis.push_back(c.symbol());
  auto symbolsOf = [&](const Labels& labels, int at, std::size_t rank) {
    std::vector<int> out;
    for (std::size_t i = 0; i <= labels.size(); ++i) {
      if (static_cast<int>(i) == at)
        for (std::size_t e = ellipsisRank - rank; e < ellipsisRank; ++e) out.push_back(ellipsis[e]);
      if (i < labels.size()) out.push_back(sym(labels[i]));
    }
    return out;
  };
  std::vector<ImportGraph::Operand> ops;
  for (std::size_t k = 0; k < spec.operands.size(); ++k) {
    const std::size_t rank = c.shape(static_cast<int>(k)).size();
    const std::size_t er = spec.operandEllipsis[k] >= 0 ? rank - spec.operands[k].size() : 0;
    if (spec.operandEllipsis[k] < 0 && rank != spec.operands[k].size())
      throw Unsupported("operand " + std::to_string(k) + " has rank " + std::to_string(rank) + " and " +
                        std::to_string(spec.operands[k].size()) + " labels");
    ops.push_back({c.view(static_cast<int>(k)), symbolsOf(spec.operands[k], spec.operandEllipsis[k], er)});
  }
  const std::vector<int> out = symbolsOf(spec.output, spec.outputEllipsis, ellipsisRank);
  c.setOutput(0, c.graph().einsum(ops, out, joinExpr(ops.size() == 1 ? "x" : "x * y"), Reduce::Sum, c.hint()));
}

// The condition is a constant (a causal mask: a weight of 0/1, ONNX's bool) or computed
// (a comparison's 0/1: `x.masked_fill(x < 0, 0)`).
void where(OpContext& c) {
  const std::vector<int64_t> out = broadcastShapes({c.shape(0), c.shape(1), c.shape(2)});
  if (c.isConstant(0) && c.isConstant(1) && c.isConstant(2)) {
    // cond ? x : y as (cond ? x : 0) + (cond ? 0 : y).
    const HostTensor& cond = c.constant(0);
    const HostTensor a = foldElementwise({&cond, &c.constant(1)}, "where(x, y, 0)");
    const HostTensor b = foldElementwise({&cond, &c.constant(2)}, "where(x, 0, y)");
    HostTensor sum = foldElementwise({&a, &b}, "x + y");
    if (sum.shape != out) throw Unsupported("the branches widen the condition's shape");
    return c.setConstant(0, sum);
  }
  for (int k = 1; k <= 2; ++k) {
    const auto u = c.scalarConstant(k);
    if (!u || c.isConstant(3 - k)) continue;
    // The condition is a weight of 0/1 (ONNX's bool), one per condition value: every
    // layer's Where reading the same causal mask shares it.
    const View mask = c.view(0);
    const View v = c.view(3 - k);
    if (broadcastShapes({c.shape(3 - k), c.shape(0)}) != out) throw Unsupported("the constant branch widens the result");
    const std::string number = numberText(*u);
    return c.setOutput(0, elementwise(c, {v, mask}, k == 2 ? "where(y, x, " + number + ")" : "where(y, " + number + ", x)"));
  }
  // Two branches: where(c, x, -0) + where(c, -0, y) is exact (x + -0 is x).
  const View mask = c.view(0);
  const View a = elementwise(c, {c.view(1), mask}, "where(y, x, -0)", "then");
  const View b = elementwise(c, {c.view(2), mask}, "where(y, -0, x)", "else");
  if (broadcastShapes({c.graph().shape(a), c.graph().shape(b)}) != out) throw Unsupported("the branches do not cover the result");
  c.setOutput(0, elementwise(c, {a, b}, "x + y"));
}

// Trilu of a computed tensor: its elements where a constant 0/1 triangle over the last two
// dimensions (the same rule as the folded constant's, onnx_ops_constant.cpp) keeps them,
// 0 elsewhere — a select, so an infinity or NaN outside the triangle gives 0 too.
void triluComputed(OpContext& c) {
  const std::vector<int64_t> shape = c.shape(0);
  if (shape.size() < 2) throw Unsupported("Trilu needs a tensor of rank 2 or more");
  const int64_t k = c.hasInput(1) ? c.constantInts(1).at(0) : 0;
  const bool upper = c.intAttribute("upper", 1) != 0;
  HostTensor triangle;
  const int64_t rows = shape[shape.size() - 2], cols = shape.back();
  triangle.shape = {rows, cols};
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) triangle.values.push_back((upper ? j - i >= k : j - i <= k) ? 1.0 : 0.0);
  const View mask = c.graph().addWeight(c.hint("triangle"), std::move(triangle), false);
  c.setOutput(0, elementwise(c, {c.view(0), mask}, "where(y, x, 0)"));
}

}  // namespace

// Clip: max(x, lo) then min(., hi); a bound known at import time (an input from opset 11,
// an attribute before) is a number in the join, a computed one a second operand.
void clip(OpContext& c) {
  std::optional<View> v;
  std::string join = "x";
  const auto apply = [&](int input, const char* attribute, const char* fn) {
    std::optional<double> number;
    if (c.hasInput(input) && c.scalarConstant(input)) number = c.scalarConstant(input);
    else if (!c.hasInput(input) && c.hasAttribute(attribute)) number = c.floatAttribute(attribute, 0);
    if (number) {
      join = std::string(fn) + "(" + join + ", " + numberText(*number) + ")";
    } else if (c.hasInput(input)) {
      if (c.shape(input) != std::vector<int64_t>{} && c.shape(input) != std::vector<int64_t>{1})
        throw Unsupported("Clip's bounds must be scalars");
      const View base = v ? *v : c.view(0);
      const View current = join == "x" ? base : elementwise(c, {base}, join, "bounded");
      v = elementwise(c, {current, c.view(input)}, std::string(fn) + "(x, y)", fn);
      join = "x";
    }
  };
  apply(1, "min", "max");
  apply(2, "max", "min");
  if (!v && c.isConstant(0)) return c.setConstant(0, foldElementwise({&c.constant(0)}, join));
  c.setOutput(0, v ? (join == "x" ? *v : elementwise(c, {*v}, join)) : elementwise(c, {c.view(0)}, join));
}

void addMathOperators(std::map<std::string, OpTranslation>& t) {
  t["MatMul"] = matmul;
  t["Gemm"] = gemm;
  t["Einsum"] = einsumOp;
  t["Where"] = where;
  t["Clip"] = clip;
  t["LeakyRelu"] = [](OpContext& c) {
    // max(x, 0) + alpha min(x, 0): x above zero, alpha x below, NaN and infinities kept.
    const std::string alpha = numberText(c.floatAttribute("alpha", 0.01));
    if (c.isConstant(0)) return c.setConstant(0, foldElementwise({&c.constant(0)}, "max(x, 0) + " + alpha + " * min(x, 0)"));
    c.setOutput(0, elementwise(c, {c.view(0)}, "max(x, 0) + " + alpha + " * min(x, 0)"));
  };
  unary(t, "Sqrt", "sqrt(x)");
  unary(t, "Reciprocal", "1 / x");
  unary(t, "Neg", "-x");
  unary(t, "Abs", "abs(x)");
  unary(t, "Exp", "exp(x)");
  unary(t, "Log", "log(x)");
  unary(t, "Tanh", "tanh(x)");
  unary(t, "Sigmoid", "sigmoid(x)");
  unary(t, "Relu", "relu(x)");
  unary(t, "Erf", "erf(x)");
  unary(t, "Sin", "sin(x)");
  unary(t, "Cos", "cos(x)");
  binary(t, "Add", "a + b");
  binary(t, "Sub", "a - b");
  binary(t, "Mul", "a * b");
  binary(t, "Div", "a / b");
  binary(t, "Pow", "pow(a, b)");
  // Comparisons and logic of computed values, as 1 and 0 (ONNX's bool) — masks made in
  // forward from what the model computes. (Of constants they fold: onnx_ops_constant.cpp.)
  binary(t, "Less", "lt(a, b)");
  binary(t, "LessOrEqual", "le(a, b)");
  binary(t, "Greater", "gt(a, b)");
  binary(t, "GreaterOrEqual", "ge(a, b)");
  binary(t, "Equal", "eq(a, b)");
  binary(t, "And", "a * b");  // (patterns name no function with an a or b in it: substitute)
  binary(t, "Or", "ge(a + b, 1)");
  binary(t, "Xor", "eq(a + b, 1)");
  unary(t, "Not", "1 - x");
  t["Trilu"] = triluComputed;
}

}  // namespace eindecomp::onnx_import
