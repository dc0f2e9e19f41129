// Operators evaluated at import time when every input is a constant (issue "Whole models as
// people export them"): what exporters leave in a model's forward pass that depends on
// nothing the model is given — a causal mask built with torch.triu, the Equal/Where pair of
// `.expand(n, -1, -1)`, positions from torch.arange, cumulative sums of constants. Each
// follows ONNX's definition (NumPy broadcasting; comparisons give bools, 1 and 0). The
// driver tries this table before the operator table whenever a node's inputs are all
// known (onnx_import.cpp), so an operator the graph cannot express on computed tensors
// still folds on constants.
#include <algorithm>
#include <cmath>

#include "frontends/import/onnx_ops.h"

namespace eindecomp::onnx_import {

namespace {

// NumPy broadcasting of any number of constants through `f` (one value per input), with
// the result's element kind.
template <class F>
HostTensor broadcastFold(const std::vector<const HostTensor*>& in, ElemKind kind, F f) {
  std::vector<std::vector<int64_t>> shapes;
  for (const auto* t : in) shapes.push_back(t->shape);
  HostTensor out;
  out.shape = broadcastShapes(shapes);
  out.kind = kind;
  int64_t n = 1;
  for (const int64_t d : out.shape) n *= d;
  const std::size_t rank = out.shape.size();
  std::vector<int64_t> index(rank, 0);
  std::vector<double> args(in.size());
  out.values.reserve(static_cast<std::size_t>(n));
  for (int64_t flat = 0; flat < n; ++flat) {
    for (std::size_t k = 0; k < in.size(); ++k) {
      const auto& s = in[k]->shape;
      int64_t offset = 0;
      for (std::size_t i = 0; i < s.size(); ++i) offset = offset * s[i] + (s[i] == 1 ? 0 : index[rank - s.size() + i]);
      args[k] = in[k]->values[static_cast<std::size_t>(offset)];
    }
    double v = f(args);
    if (kind == ElemKind::Float32) v = static_cast<double>(static_cast<float>(v));
    out.values.push_back(v);
    for (std::size_t i = rank; i-- > 0;)
      if (++index[i] < out.shape[i]) break;
      else index[i] = 0;
  }
  return out;
}

std::vector<const HostTensor*> constants(OpContext& c) {
  std::vector<const HostTensor*> in;
  for (int i = 0; i < c.inputCount(); ++i) in.push_back(&c.constant(i));
  return in;
}

// The kind of a result computed from `in` (the widest float among them, else theirs).
ElemKind widest(const std::vector<const HostTensor*>& in) {
  ElemKind k = in[0]->kind;
  for (const auto* t : in)
    if (t->kind == ElemKind::Float64 || (t->kind == ElemKind::Float32 && k != ElemKind::Float64)) k = t->kind;
  return k;
}

template <class F>
OpTranslation compare(F f) {
  return [f](OpContext& c) {
    c.setConstant(0, broadcastFold(constants(c), ElemKind::Bool, [&](const std::vector<double>& a) { return f(a[0], a[1]) ? 1.0 : 0.0; }));
  };
}

template <class F>
OpTranslation arithmetic(F f) {
  return [f](OpContext& c) {
    const auto in = constants(c);
    const ElemKind kind = widest(in);
    c.setConstant(0, broadcastFold(in, kind, [&](const std::vector<double>& a) {
      const double v = f(a);
      return kind == ElemKind::Integer || kind == ElemKind::Bool ? std::trunc(v) : v;
    }));
  };
}

// Trilu: the upper (upper = 1) or lower triangle of the last two dimensions, from diagonal k.
void trilu(OpContext& c) {
  HostTensor t = c.constant(0);
  const int64_t k = c.hasInput(1) ? c.constantInts(1).at(0) : 0;
  const bool upper = c.intAttribute("upper", 1) != 0;
  if (t.shape.size() < 2) throw Unsupported("Trilu needs a tensor of rank 2 or more");
  const int64_t rows = t.shape[t.shape.size() - 2], cols = t.shape.back();
  for (std::size_t flat = 0; flat < t.values.size(); ++flat) {
    const int64_t j = static_cast<int64_t>(flat) % cols, i = static_cast<int64_t>(flat) / cols % rows;
    if (upper ? j - i < k : j - i > k) t.values[flat] = 0;
  }
  c.setConstant(0, std::move(t));
}

// Range: start, start + delta, ... below limit (above, for a negative delta).
void range(OpContext& c) {
  const double start = c.constant(0).values.at(0), limit = c.constant(1).values.at(0), delta = c.constant(2).values.at(0);
  if (delta == 0) throw Unsupported("Range with a delta of 0");
  const double count = std::max(0.0, std::ceil((limit - start) / delta));
  if (count > 1e9) throw Unsupported("Range of more than 10^9 elements");
  HostTensor t;
  t.kind = widest({&c.constant(0), &c.constant(1), &c.constant(2)});
  t.shape = {static_cast<int64_t>(count)};
  for (int64_t i = 0; i < t.shape[0]; ++i) t.values.push_back(start + static_cast<double>(i) * delta);
  c.setConstant(0, std::move(t));
}

// CumSum along an axis (exclusive: the sum before the element; reverse: from the end).
void cumSum(OpContext& c) {
  HostTensor t = c.constant(0);
  const int64_t axis = c.axis(c.constantInts(1).at(0), static_cast<int64_t>(t.shape.size()));
  const bool exclusive = c.intAttribute("exclusive", 0) != 0, reverse = c.intAttribute("reverse", 0) != 0;
  int64_t inner = 1;
  for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < t.shape.size(); ++d) inner *= t.shape[d];
  const int64_t extent = t.shape[static_cast<std::size_t>(axis)], outer = static_cast<int64_t>(t.values.size()) / std::max<int64_t>(1, extent * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double sum = 0;
      for (int64_t s = 0; s < extent; ++s) {
        const int64_t at = reverse ? extent - 1 - s : s;
        double& v = t.values[static_cast<std::size_t>((o * extent + at) * inner + i)];
        const double x = v;
        if (exclusive) v = sum;
        sum += x;
        if (!exclusive) v = sum;
      }
    }
  c.setConstant(0, std::move(t));
}

}  // namespace

const std::map<std::string, OpTranslation>& constantOperatorTable() {
  static const std::map<std::string, OpTranslation> table = [] {
    std::map<std::string, OpTranslation> t;
    t["Trilu"] = trilu;
    t["Range"] = range;
    t["CumSum"] = cumSum;
    t["Equal"] = compare([](double a, double b) { return a == b; });
    t["Less"] = compare([](double a, double b) { return a < b; });
    t["Greater"] = compare([](double a, double b) { return a > b; });
    t["LessOrEqual"] = compare([](double a, double b) { return a <= b; });
    t["GreaterOrEqual"] = compare([](double a, double b) { return a >= b; });
    t["And"] = compare([](double a, double b) { return a != 0 && b != 0; });
    t["Or"] = compare([](double a, double b) { return a != 0 || b != 0; });
    t["Xor"] = compare([](double a, double b) { return (a != 0) != (b != 0); });
    t["Not"] = [](OpContext& c) {
      c.setConstant(0, broadcastFold(constants(c), ElemKind::Bool, [](const std::vector<double>& a) { return a[0] == 0 ? 1.0 : 0.0; }));
    };
    t["Where"] = [](OpContext& c) {
      const auto in = constants(c);
      c.setConstant(0, broadcastFold(in, widest({in[1], in[2]}), [](const std::vector<double>& a) { return a[0] != 0 ? a[1] : a[2]; }));
    };
    t["Min"] = arithmetic([](const std::vector<double>& a) { return *std::min_element(a.begin(), a.end()); });
    t["Max"] = arithmetic([](const std::vector<double>& a) { return *std::max_element(a.begin(), a.end()); });
    t["Mod"] = [](OpContext& c) {  // fmod = 0: the sign of the divisor (Python's %), as integers use
      const bool fmod = c.intAttribute("fmod", 0) != 0;
      const auto in = constants(c);
      c.setConstant(0, broadcastFold(in, widest(in), [fmod](const std::vector<double>& a) {
        const double r = std::fmod(a[0], a[1]);
        return fmod || r == 0 || (r < 0) == (a[1] < 0) ? r : r + a[1];
      }));
    };
    t["Floor"] = arithmetic([](const std::vector<double>& a) { return std::floor(a[0]); });
    t["Ceil"] = arithmetic([](const std::vector<double>& a) { return std::ceil(a[0]); });
    t["Round"] = arithmetic([](const std::vector<double>& a) { return std::nearbyint(a[0]); });  // half to even
    t["Sign"] = arithmetic([](const std::vector<double>& a) { return static_cast<double>((a[0] > 0) - (a[0] < 0)); });
    return t;
  }();
  return table;
}

}  // namespace eindecomp::onnx_import
