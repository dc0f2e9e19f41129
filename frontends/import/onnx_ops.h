// The operator table of `einplan import`: one translation per ONNX operator type, each
// reading its node through an OpContext (inputs as views or folded constants,
// attributes with their ONNX defaults) and defining its outputs on the ImportGraph.
// docs/import.md lists the operators and how each maps; anything else is refused by the
// driver with the operator's name.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontends/import/import_graph.h"

namespace eindecomp::onnx_import {

// An ONNX value: known at import time (a constant) or computed (a view of the graph).
struct Value {
  std::optional<HostTensor> constant;
  std::optional<View> view;
};

class OpContext {
 public:
  OpContext(ImportGraph& graph, const OnnxModel& model, std::map<std::string, Value>& values,
            std::map<std::string, View>& constantViews, const onnx::NodeProto& node, int& nextSymbol)
      : graph_(graph), model_(model), values_(values), constantViews_(constantViews), node_(node), nextSymbol_(nextSymbol) {}

  ImportGraph& graph() { return graph_; }
  const onnx::NodeProto& node() const { return node_; }
  int64_t opset() const { return model_.opset; }
  const OnnxModel& model() const { return model_; }
  std::string hint(const std::string& step = "") const;  // a name for nodes made for this ONNX node

  int inputCount() const;                   // inputs given (trailing empty names dropped)
  bool hasInput(int i) const;               // given and not the empty name
  bool isConstant(int i) const;
  // Whether input i's value is read whole somewhere in the model: by a node other than
  // Slice and Split, or as a model output. A slice of such a value is taken from it (no
  // producer computed again); a value only ever sliced is better split at its producer.
  bool inputReadWhole(int i) const;
  const HostTensor& constant(int i) const;  // Unsupported unless known at import time
  std::vector<int64_t> constantInts(int i) const;
  View view(int i);                         // constants become weights (once per value)
  std::vector<int64_t> shape(int i) const;
  int rank(int i) const { return static_cast<int>(shape(i).size()); }
  // The value of a constant input of one element (eps, sqrt(d), an exponent): such
  // constants become numbers in the join. Larger constants stay weights even when their
  // elements agree — a LayerNorm scale of ones is a parameter the user may replace.
  std::optional<double> scalarConstant(int i) const;

  bool hasAttribute(const std::string& name) const;
  int64_t intAttribute(const std::string& name, int64_t fallback) const;
  double floatAttribute(const std::string& name, double fallback) const;
  std::string stringAttribute(const std::string& name, const std::string& fallback) const;
  std::optional<std::vector<int64_t>> intsAttribute(const std::string& name) const;
  const onnx::AttributeProto* attribute(const std::string& name) const;

  int outputCount() const;
  bool wantsOutput(int i) const;  // present and named
  void setOutput(int i, View v);
  void setConstant(int i, HostTensor t);

  int symbol() { return nextSymbol_++; }
  // Axis in [-rank, rank) to [0, rank); Unsupported otherwise.
  int64_t axis(int64_t a, int64_t rank) const;

 private:
  const Value& value(int i) const;
  ImportGraph& graph_;
  const OnnxModel& model_;
  std::map<std::string, Value>& values_;
  std::map<std::string, View>& constantViews_;
  const onnx::NodeProto& node_;
  int& nextSymbol_;
};

using OpTranslation = std::function<void(OpContext&)>;

// Operator type -> translation (the default ONNX domain).
const std::map<std::string, OpTranslation>& operatorTable();
// Operators folded where every input is a constant (onnx_ops_constant.cpp), tried first.
const std::map<std::string, OpTranslation>& constantOperatorTable();

// Parts of the table, one per file: products and elementwise operators
// (onnx_ops_math.cpp), reductions and normalisations (onnx_ops_reduce.cpp), shape
// operators and constants (onnx_ops_shape.cpp).
void addMathOperators(std::map<std::string, OpTranslation>& table);
void addReduceOperators(std::map<std::string, OpTranslation>& table);
void addShapeOperators(std::map<std::string, OpTranslation>& table);
// Convolutions and windowed pooling (onnx_ops_window.cpp).
void addWindowOperators(std::map<std::string, OpTranslation>& table);
// BatchNormalization, global pooling and Pad (onnx_ops_vision.cpp).
void addVisionOperators(std::map<std::string, OpTranslation>& table);
// Why a Conv/MaxPool/AveragePool node's window cannot be imported (overlapping or padded
// windows), read from its attributes and its weight's shape (empty when not known), or
// nothing when it can; the importer lists such nodes with the unmapped operators.
std::optional<std::string> windowRefusal(const onnx::NodeProto& node, const std::vector<int64_t>& weightShape);

// Helpers the parts share.
std::string numberText(double v);  // a number the expression parser reads back
Expr joinExpr(const std::string& text);
// NumPy broadcasting of shapes; Unsupported when they do not broadcast.
std::vector<int64_t> broadcastShapes(const std::vector<std::vector<int64_t>>& shapes);
// An elementwise node over views (NumPy broadcasting), join over x (and y).
View elementwise(OpContext& c, const std::vector<View>& operands, const std::string& join, const std::string& step = "");
// Reduce `v` over the given (normalised) axes with `join` applied first, keeping the
// reduced dimensions as size 1 when keepdims.
View reduce(OpContext& c, const View& v, const std::vector<int64_t>& axes, bool keepdims, const std::string& join,
            Reduce agg, const std::string& step = "");

}  // namespace eindecomp::onnx_import
