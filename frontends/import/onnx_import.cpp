#include "frontends/import/onnx_import.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

#include "planner/graph/diagnostic.h"
#include "planner/graph/excerpt.h"
#include "planner/graph/expr_parser.h"
#include "frontends/import/onnx_ops.h"

namespace eindecomp::onnx_import {

namespace {

[[noreturn]] void fail(const OnnxModel& m, const std::string& message) { throw InputError({{m.path, 0, 0}, message}); }

std::string nodeText(const onnx::NodeProto& n, int index) {
  const std::string name = n.name().empty() ? "#" + std::to_string(index) : eindecomp::quoted(n.name());
  return "node " + name + " (" + eindecomp::quoted(n.op_type()) + ")";
}

// How the model reads an integer model input: as the indices of a Gather (ids), as values
// (an attention mask cast to float and subtracted), or both. Followed through the operators
// that only move or retype it (Reshape, Unsqueeze, Cast, ...); Shape and Size read no values.
struct IntegerUse {
  bool ids = false, values = false;
};

IntegerUse integerUse(const onnx::GraphProto& g, const std::string& input) {
  static const std::set<std::string> carriers = {"Reshape", "Unsqueeze", "Squeeze", "Flatten", "Transpose", "Identity",
                                                 "Cast", "Expand"};
  IntegerUse use;
  std::set<std::string> seen = {input};
  std::vector<std::string> pending = {input};
  while (!pending.empty()) {
    const std::string value = pending.back();
    pending.pop_back();
    for (const auto& n : g.node())
      for (int k = 0; k < n.input_size(); ++k) {
        if (n.input(k) != value) continue;
        if (n.op_type() == "Shape" || n.op_type() == "Size") continue;
        if (n.op_type() == "Gather" && k == 1) {
          use.ids = true;
        } else if (carriers.count(n.op_type()) && k == 0) {
          for (const auto& out : n.output())
            if (!out.empty() && seen.insert(out).second) pending.push_back(out);
        } else if (!carriers.count(n.op_type())) {
          use.values = true;
        }
      }
  }
  for (const auto& out : g.output())
    if (seen.count(out.name())) use.values = true;
  return use;
}

// Every operator the import cannot map, found before any node is translated, so that one
// run names them all: an operator outside the table, unless its inputs are all known at
// import time and it can be folded (onnx_ops_constant.cpp). Which values are known is
// followed through the model (constants, initializers, shapes, and whatever is computed
// from known values alone). Listed once per type, with a count and the first node.
void refuseUnmappedOperators(const OnnxModel& model, const onnx::GraphProto& g, const std::vector<int>& order,
                             const std::set<std::string>& initializers) {
  const auto& table = operatorTable();
  const auto& folds = constantOperatorTable();
  std::set<std::string> known(initializers.begin(), initializers.end());
  std::map<std::string, std::vector<int64_t>> initializerShapes;
  for (const auto& t : g.initializer()) initializerShapes[t.name()] = std::vector<int64_t>(t.dims().begin(), t.dims().end());
  std::vector<std::string> types;  // in order of first appearance
  std::map<std::string, std::pair<int, std::string>> refused;  // type -> (count, first node)
  for (const int i : order) {
    const auto& node = g.node(i);
    bool inputsKnown = true;
    for (const auto& in : node.input()) inputsKnown = inputsKnown && (in.empty() || known.count(in));
    const bool foreign = !node.domain().empty() && node.domain() != "ai.onnx";
    const std::string type = foreign ? node.domain() + "." + node.op_type() : node.op_type();
    bool maps = !foreign && (table.count(node.op_type()) || (inputsKnown && folds.count(node.op_type())));
    std::string refusedType = type;
    const auto weight = node.input_size() > 1 ? initializerShapes.find(node.input(1)) : initializerShapes.end();
    if (maps && windowRefusal(node, weight == initializerShapes.end() ? std::vector<int64_t>{} : weight->second)) {
      maps = false;  // a window the EinGraph cannot express yet: listed under its own name
      refusedType = type + " with a window it cannot import";
    }
    if (!maps) {
      auto [it, added] = refused.emplace(refusedType, std::make_pair(0, nodeText(node, i)));
      if (added) types.push_back(refusedType);
      ++it->second.first;
    }
    const bool knownResult = node.op_type() == "Constant" || node.op_type() == "Shape" || node.op_type() == "Size" ||
                             (maps && inputsKnown && node.input_size() > 0);
    if (knownResult)
      for (const auto& out : node.output()) known.insert(out);
  }
  if (types.empty()) return;
  std::string list;
  for (const std::string& t : types) {
    const auto& [count, first] = refused.at(t);
    list += (list.empty() ? "" : "; ") + eindecomp::quoted(t) + " (" + std::to_string(count) + (count == 1 ? " node: " : " nodes, the first ") +
            first + ")";
  }
  fail(model, "the model has " + std::to_string(types.size()) + " operator type" + (types.size() == 1 ? "" : "s") +
                  " that einplan import does not map (docs/import.md lists those it does): " + list);
}

// The graph's float type: every float tensor the model declares must agree.
DType modelDType(const OnnxModel& m) {
  std::set<int> types;
  auto see = [&](int t) {
    if (t == onnx::TensorProto::FLOAT || t == onnx::TensorProto::DOUBLE || t == onnx::TensorProto::FLOAT16 ||
        t == onnx::TensorProto::BFLOAT16)
      types.insert(t);
  };
  const auto& g = m.proto.graph();
  for (const auto& v : g.input()) see(v.type().tensor_type().elem_type());
  for (const auto& v : g.output()) see(v.type().tensor_type().elem_type());
  for (const auto& t : g.initializer()) see(t.data_type());
  // A model in float16 or bfloat16 (model.half(), .to(torch.bfloat16)) imports as an f16 or
  // bf16 graph: 2-byte storage, every node computed in f32 and rounded once (SPEC 8), the
  // float32 islands exporters leave (a LayerNorm cast up) included.
  const bool f16 = types.count(onnx::TensorProto::FLOAT16) > 0, bf16 = types.count(onnx::TensorProto::BFLOAT16) > 0;
  if (f16 && bf16) fail(m, "the model mixes float16 and bfloat16; a graph has one 2-byte type");
  if (f16) return DType::F16;
  if (bf16) return DType::BF16;
  // A model that mixes float32 and float64 (a Cast between them) runs in float64: every
  // value it computes in float32 is computed more exactly, none less.
  return types.count(onnx::TensorProto::DOUBLE) ? DType::F64 : DType::F32;
}

std::vector<int64_t> declaredShape(const OnnxModel& m, const onnx::ValueInfoProto& v, const std::map<std::string, int64_t>& dims,
                                   std::set<std::string>& missing, std::set<std::string>& used, bool required) {
  std::vector<int64_t> shape;
  if (!v.type().tensor_type().has_shape()) {
    if (required) fail(m, "model input " + eindecomp::quoted(v.name()) + " has no shape; einplan import needs static shapes");
    return shape;
  }
  for (const auto& d : v.type().tensor_type().shape().dim()) {
    if (d.has_dim_value()) {
      shape.push_back(d.dim_value());
    } else if (d.has_dim_param() && dims.count(d.dim_param())) {
      used.insert(d.dim_param());
      shape.push_back(dims.at(d.dim_param()));
    } else {
      if (required) missing.insert(d.has_dim_param() ? d.dim_param() : "(unnamed dimension " + std::to_string(shape.size()) + " of " + v.name() + ")");
      shape.push_back(-1);
    }
  }
  return shape;
}

}  // namespace

ImportResult importOnnx(const ImportOptions& options) { return importOnnx(readOnnxModel(options.model), options); }

ImportResult importOnnx(const OnnxModel& model, const ImportOptions& options) {
  const auto& g = model.proto.graph();
  const DType dtype = modelDType(model);
  if (g.sparse_initializer_size() > 0) fail(model, "the model has sparse initializers, which einplan import does not read");

  ImportGraph graph;
  std::map<std::string, Value> values;
  std::map<std::string, View> constantViews;
  std::set<std::string> initializers;
  for (int i = 0; i < g.initializer_size(); ++i) {
    const auto& t = g.initializer(i);
    if (t.name().empty()) fail(model, "initializer #" + std::to_string(i) + " has no name");
    if (!initializers.insert(t.name()).second) fail(model, "two initializers are named " + eindecomp::quoted(t.name()));
    values[t.name()].constant = decodeTensor(t, model, "initializer " + eindecomp::quoted(t.name()));
  }
  std::set<std::string> missing, usedDims;
  for (const auto& in : g.input()) {
    if (initializers.count(in.name())) {  // IR < 4 lists initializers as inputs too: they must agree
      const HostTensor& init = *values[in.name()].constant;
      const auto& dims = in.type().tensor_type().shape().dim();
      bool agrees = !in.type().tensor_type().has_shape() || static_cast<std::size_t>(dims.size()) == init.shape.size();
      for (int d = 0; agrees && d < dims.size(); ++d)
        agrees = !dims[d].has_dim_value() || dims[d].dim_value() == init.shape[static_cast<std::size_t>(d)];
      if (!agrees)
        fail(model, "model input " + eindecomp::quoted(in.name()) + " is declared with another shape than the initializer of "
                    "the same name holds (" + shapeText(init.shape) + "); ONNX's checker refuses such a model");
      continue;
    }
    if (in.name().empty()) fail(model, "a model input has no name");
    if (values.count(in.name())) fail(model, "two model inputs are named " + eindecomp::quoted(in.name()));
    const int type = in.type().tensor_type().elem_type();
    if (!in.type().has_tensor_type()) fail(model, "model input " + eindecomp::quoted(in.name()) + " is not a tensor");
    const bool ids = type == onnx::TensorProto::INT64 || type == onnx::TensorProto::INT32;
    if (!isFloat(elemKind(type)) && !ids)
      fail(model, "model input " + eindecomp::quoted(in.name()) + " holds " + onnxTypeName(type) +
                      " elements; the graph's inputs are float tensors or int32/int64 ids that a Gather reads (an "
                      "input used as a shape must be a constant: make it an initializer)");
    const std::vector<int64_t> shape = declaredShape(model, in, options.dims, missing, usedDims, true);
    if (!missing.empty()) continue;
    if (checkedElements(shape, "model input " + eindecomp::quoted(in.name()), model.path) == 0)
      fail(model, "model input " + eindecomp::quoted(in.name()) + " has a dimension of size 0; EinGraph tensors have none");
    // An integer input the model reads as values (an attention mask) is a float input of the
    // graph: its .npy may hold the integers, converted exactly when read (einrt/npy.h).
    bool asIds = ids;
    if (ids) {
      const IntegerUse use = integerUse(g, in.name());
      if (use.ids && use.values)
        fail(model, "model input " + eindecomp::quoted(in.name()) + " (" + onnxTypeName(type) +
                        ") is read both as a Gather's indices and as values; give the model two inputs");
      asIds = !use.values;
    }
    values[in.name()].view = graph.addModelInput(
        in.name(), shape, asIds ? std::optional<DType>(type == onnx::TensorProto::INT32 ? DType::I32 : DType::I64) : std::nullopt);
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& d : missing) list += (list.empty() ? "" : ", ") + eindecomp::quoted(d);
    fail(model, "the model's inputs have symbolic dimensions " + list + "; give each a size with --dim NAME=SIZE");
  }
  for (const auto& [name, size] : options.dims)
    if (!usedDims.count(name)) fail(model, "--dim " + eindecomp::quoted(name) + ": no model input has a symbolic dimension of that name");

  // Every value has one definition (SSA): a model input, an initializer or one node output.
  std::set<std::string> defined;
  for (const auto& [name, v] : values) defined.insert(name);
  {
    std::set<std::string> outputsSeen;
    for (int i = 0; i < g.node_size(); ++i)
      for (const auto& out : g.node(i).output())
        if (!out.empty() && (defined.count(out) || !outputsSeen.insert(out).second))
          fail(model, nodeText(g.node(i), i) + " defines " + eindecomp::quoted(out) +
                          ", which a model input, an initializer or another node defines too (ONNX values have one definition)");
  }
  // Topological order (ONNX asks for one; a cycle or an undefined value is an error).
  std::vector<int> order;
  std::vector<bool> done(static_cast<std::size_t>(g.node_size()), false);
  for (bool progress = true; progress && static_cast<int>(order.size()) < g.node_size();) {
    progress = false;
    for (int i = 0; i < g.node_size(); ++i) {
      if (done[i]) continue;
      bool ready = true;
      for (const auto& in : g.node(i).input()) ready = ready && (in.empty() || defined.count(in));
      if (!ready) continue;
      done[i] = true;
      progress = true;
      order.push_back(i);
      for (const auto& out : g.node(i).output())
        if (!out.empty()) defined.insert(out);
    }
  }
  if (static_cast<int>(order.size()) < g.node_size())
    for (int i = 0; i < g.node_size(); ++i)
      if (!done[i])
        for (const auto& in : g.node(i).input())
          if (!in.empty() && !defined.count(in))
            fail(model, nodeText(g.node(i), i) + " reads " + eindecomp::quoted(in) +
                            ", which no model input, initializer or node that can run before it defines (a cycle, or "
                            "an undefined value)");

  refuseUnmappedOperators(model, g, order, initializers);
  int nextSymbol = 0;
  const auto& table = operatorTable();
  const auto& folds = constantOperatorTable();
  for (const int i : order) {
    const auto& node = g.node(i);
    try {
      OpContext context(graph, model, values, constantViews, node, nextSymbol);
      bool inputsKnown = true;
      for (int k = 0; k < context.inputCount(); ++k) inputsKnown = inputsKnown && (!context.hasInput(k) || context.isConstant(k));
      // Folded where it can be, whatever the operator; else translated.
      const auto fold = folds.find(node.op_type());
      if (inputsKnown && fold != folds.end()) fold->second(context);
      else if (const auto it = table.find(node.op_type()); it != table.end()) it->second(context);
      else throw Unsupported("the operator " + eindecomp::quoted(node.op_type()) + " is mapped only where its inputs are "
                             "all known at import time (constants), and they are not");
    } catch (const Unsupported& e) {
      fail(model, nodeText(node, i) + ": " + e.what());
    } catch (const InputError& e) {
      if (!e.diagnostic().loc.file.empty()) throw;  // names its own file (a tensor of the model)
      fail(model, nodeText(node, i) + ": " + e.diagnostic().message);
    }
  }

  std::vector<std::pair<std::string, View>> outputs;
  for (const auto& out : g.output()) {
    auto it = values.find(out.name());
    if (it == values.end()) fail(model, "model output " + eindecomp::quoted(out.name()) + " is not computed by any node");
    const int type = out.type().tensor_type().elem_type();
    if (type != 0 && !isFloat(elemKind(type)))
      fail(model, "model output " + eindecomp::quoted(out.name()) + " holds " + onnxTypeName(type) +
                      " elements; the graph's outputs are float tensors");
    if (!it->second.view) {
      // A constant output: a weight, copied into the output node by finish().
      constantViews[out.name()] = graph.addWeight(out.name() + "_value", *it->second.constant, false);
      it->second.view = constantViews[out.name()];
    }
    const std::vector<int64_t> computed = graph.shape(*it->second.view);
    std::set<std::string> ignoredMissing, ignoredUsed;
    const std::vector<int64_t> declared = declaredShape(model, out, options.dims, ignoredMissing, ignoredUsed, false);
    bool agrees = declared.empty() || declared.size() == computed.size();
    for (std::size_t k = 0; agrees && k < declared.size(); ++k) agrees = declared[k] < 0 || declared[k] == computed[k];
    if (!agrees) {
      std::string a, b;
      for (const int64_t d : computed) a += (a.empty() ? "" : ", ") + std::to_string(d);
      for (const int64_t d : declared) b += (b.empty() ? "" : ", ") + (d < 0 ? std::string("?") : std::to_string(d));
      fail(model, "model output " + eindecomp::quoted(out.name()) + " has shape [" + a + "], but the model declares [" + b + "]");
    }
    outputs.emplace_back(out.name(), *it->second.view);
  }
  ImportGraph::Result r;
  try {
    r = graph.finish(outputs, dtype, g.name());
  } catch (const Unsupported& e) {
    fail(model, e.what());
  }
  ImportResult result;
  result.graph = std::move(r.graph);
  result.weights = std::move(r.weights);
  result.renamed = std::move(r.renamed);
  result.tied = std::move(r.tied);
  result.opset = model.opset;
  return result;
}

// ---- OpContext ----

std::string OpContext::hint(const std::string& step) const {
  std::string base = node_.output_size() > 0 && !node_.output(0).empty() ? node_.output(0) : node_.op_type();
  // Exporters' value names start with '/' or "onnx::": the node names read better without.
  for (const char* prefix : {"onnx::", "/"})
    if (base.rfind(prefix, 0) == 0 && base.size() > std::char_traits<char>::length(prefix)) base = base.substr(std::char_traits<char>::length(prefix));
  return step.empty() ? base : base + "_" + step;
}

int OpContext::inputCount() const {
  int n = node_.input_size();
  while (n > 0 && node_.input(n - 1).empty()) --n;
  return n;
}

bool OpContext::hasInput(int i) const { return i < node_.input_size() && !node_.input(i).empty(); }

bool OpContext::inputReadWhole(int i) const {
  const std::string& name = node_.input(i);
  const auto& g = model_.proto.graph();
  for (const auto& out : g.output())
    if (out.name() == name) return true;
  for (const auto& n : g.node()) {
    if (n.op_type() == "Slice" || n.op_type() == "Split") continue;
    for (const auto& in : n.input())
      if (in == name) return true;
  }
  return false;
}

const Value& OpContext::value(int i) const {
  if (!hasInput(i)) throw Unsupported("input " + std::to_string(i) + " is missing");
  return values_.at(node_.input(i));
}

bool OpContext::isConstant(int i) const { return hasInput(i) && value(i).constant.has_value(); }

const HostTensor& OpContext::constant(int i) const {
  const Value& v = value(i);
  if (!v.constant)
    throw Unsupported("input " + std::to_string(i) + " (" + eindecomp::quoted(node_.input(i)) +
                      ") must be known when the model is imported (a constant or an initializer), and it is computed");
  return *v.constant;
}

std::vector<int64_t> OpContext::constantInts(int i) const {
  // Constants are held as doubles: int64's extremes, which exporters write as "to the end"
  // of a slice (torch: t[..., half:] ends at 2^63 - 1), round to +-2^63, outside int64, so
  // they saturate instead of being cast (undefined behaviour: -2^63 on x86, an empty slice).
  constexpr double kTop = 9223372036854775808.0;  // 2^63
  std::vector<int64_t> out;
  for (const double v : constant(i).values)
    out.push_back(v >= kTop ? std::numeric_limits<int64_t>::max()
                            : v <= -kTop ? std::numeric_limits<int64_t>::min() : static_cast<int64_t>(v));
  return out;
}

View OpContext::view(int i) {
  const Value& v = value(i);
  if (v.view) return *v.view;
  auto it = constantViews_.find(node_.input(i));
  if (it != constantViews_.end()) return it->second;
  return constantViews_[node_.input(i)] = graph_.addWeight(node_.input(i), *v.constant);
}

std::vector<int64_t> OpContext::shape(int i) const {
  const Value& v = value(i);
  return v.constant ? v.constant->shape : graph_.shape(*v.view);
}

std::optional<double> OpContext::scalarConstant(int i) const {
  if (!isConstant(i)) return std::nullopt;
  const auto& vals = constant(i).values;
  if (vals.size() != 1) return std::nullopt;
  return vals[0];
}

const onnx::AttributeProto* OpContext::attribute(const std::string& name) const {
  for (const auto& a : node_.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

bool OpContext::hasAttribute(const std::string& name) const { return attribute(name) != nullptr; }

int64_t OpContext::intAttribute(const std::string& name, int64_t fallback) const {
  const auto* a = attribute(name);
  return a ? a->i() : fallback;
}

double OpContext::floatAttribute(const std::string& name, double fallback) const {
  const auto* a = attribute(name);
  return a ? static_cast<double>(a->f()) : fallback;
}

std::string OpContext::stringAttribute(const std::string& name, const std::string& fallback) const {
  const auto* a = attribute(name);
  return a ? a->s() : fallback;
}

std::optional<std::vector<int64_t>> OpContext::intsAttribute(const std::string& name) const {
  const auto* a = attribute(name);
  if (!a) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

int OpContext::outputCount() const { return node_.output_size(); }

bool OpContext::wantsOutput(int i) const { return i < node_.output_size() && !node_.output(i).empty(); }

void OpContext::setOutput(int i, View v) {
  if (!wantsOutput(i)) return;
  Value& out = values_[node_.output(i)];
  out.view = std::move(v);
  out.constant.reset();
}

void OpContext::setConstant(int i, HostTensor t) {
  if (!wantsOutput(i)) return;
  checkedElements(t.shape, "a folded constant", model_.path);
  Value& out = values_[node_.output(i)];
  out.constant = std::move(t);
  out.view.reset();
}

int64_t OpContext::axis(int64_t a, int64_t rank) const {
  if (a < -rank || a >= rank)
    throw Unsupported("axis " + std::to_string(a) + " is outside a tensor of rank " + std::to_string(rank));
  return a < 0 ? a + rank : a;
}

const std::map<std::string, OpTranslation>& operatorTable() {
  static const std::map<std::string, OpTranslation> table = [] {
    std::map<std::string, OpTranslation> t;
    addMathOperators(t);
    addReduceOperators(t);
    addShapeOperators(t);
    addWindowOperators(t);
    addVisionOperators(t);
    return t;
  }();
  return table;
}

std::string numberText(double v) {
  if (std::isnan(v)) throw Unsupported("a constant NaN cannot be written into a join expression");
  if (std::isinf(v)) return v > 0 ? "inf" : "(-inf)";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s(buf);
  return v < 0 ? "(" + s + ")" : s;
}

Expr joinExpr(const std::string& text) { return parseExpr(text); }

}  // namespace eindecomp::onnx_import
