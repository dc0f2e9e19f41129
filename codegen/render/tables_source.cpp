#include "codegen/render/tables_source.h"

#include <cmath>
#include <cstdio>

#include "codegen/lower/identifiers.h"

namespace eindecomp::codegen {

namespace {

template <class Container>
std::string list(const Container& values) {
  std::string s = "{";
  for (const auto& v : values) s += (s.size() > 1 ? ", " : "") + std::to_string(v);
  return s + "}";
}

template <class T>
std::string lists(const std::vector<std::vector<T>>& values) {
  std::string s = "{";
  for (const auto& v : values) s += (s.size() > 1 ? ", " : "") + list(v);
  return s + "}";
}

const char* boolText(bool b) { return b ? "true" : "false"; }

// A C++ string literal of printable ASCII (names are validated identifiers already;
// anything else is escaped, so no byte of a graph file can end the literal).
std::string literal(const std::string& text) {
  std::string s = "\"";
  for (const unsigned char c : text) {
    if (c == '"' || c == '\\') {
      s += '\\';
      s += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f || c == '?') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);  // '?' too: no trigraph can form
      s += buf;
    } else {
      s += static_cast<char>(c);
    }
  }
  return s + "\"";
}

std::string exactNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// einrt::Reduce's enumerators, in its order.
const char* aggEnumName(Reduce a) {
  static constexpr const char* kNames[] = {"Sum", "Max", "Min", "Prod"};
  return kNames[static_cast<int>(a)];
}

// A window's fill as C++: a number, or an infinity (a max-pool's).
std::string fillSource(double v) {
  if (std::isinf(v)) return v < 0 ? "-std::numeric_limits<double>::infinity()" : "std::numeric_limits<double>::infinity()";
  return exactNumber(v);
}

const char* pathEnumName(einrt::program::GemmPlanned p) {
  return p == einrt::program::GemmPlanned::Blas ? "Blas" : p == einrt::program::GemmPlanned::Primitive ? "Primitive" : "Rule";
}

std::string gemmSource(const einrt::model::GemmSpec& g) {
  return "einrt::program::GemmSpec{" + list(g.batchLabels) + ", " + list(g.mLabels) + ", " + list(g.nLabels) + ", " +
         list(g.kLabels) + ", " + boolText(g.transX) + ", " + boolText(g.transY) + ", " + boolText(g.transZ) + ", " +
         list(g.permX) + ", " + list(g.permY) + ", " + list(g.permZ) + ", " + exactNumber(g.alpha) +
         ", einrt::program::GemmPlanned::" + pathEnumName(g.path) + "}";
}

std::string kernelComment(const NodeProgram& n) {
  return commentSafe(n.choice.kind + ": " + (n.mapping ? describeGemmMapping(*n.mapping) : n.choice.why));
}

std::string nodeSource(const NodeProgram& n) {
  // Each node's block is a lambda of its own: one function of 500 nodes' tables took g++
  // 17 s at -O0 (resnet18's taps), 500 small ones 5 s.
  std::string s = "  [&] {  // node " + commentSafe(n.name) + ": " + einsumComment(n) + "; " + kernelComment(n) + "\n";
  s += "    einrt::program::NodeTable& n = p.nodes.emplace_back();\n";
  s += "    n.sizes = " + list(n.sizes) + ";\n";
  s += "    n.operandLabels = " + lists(n.operandLabels) + ";\n";
  s += "    n.outputLabels = " + list(n.outputLabels) + ";\n";
  s += "    n.name = " + literal(n.name) + ";\n";
  s += "    n.parts = " + list(n.parts) + ";\n";
  s += "    n.operandTensor = " + list(n.operandTensor) + ";\n";
  s += "    n.outputTensor = " + std::to_string(n.outputTensor) + ";\n";
  s += std::string("    n.agg = einrt::Reduce::") + aggEnumName(n.agg) + ";\n";
  s += "    n.callRank = " + list(n.callRank) + ";\n";
  s += "    n.blockOwner = " + list(n.blockOwner) + ";\n";
  s += "    n.bytesPredicted = " + std::to_string(n.bytesPredicted) + ";\n";
  s += "    n.interNodeBytesPredicted = " + std::to_string(n.interNodeBytesPredicted) + ";\n";
  s += "    n.flops = " + std::to_string(n.flops) + ";\n";
  s += "    n.reductionLength = " + std::to_string(n.reductionLength) + ";\n";
  if (n.contraction) s += "    n.contraction = true;\n";
  if (n.gemm) s += "    n.gemm = " + gemmSource(*n.gemm) + ";\n";
  if (!n.permutation.empty()) s += "    n.permutation = " + list(n.permutation) + ";\n";
  s += "    n.fusion = {" + std::to_string(n.fusion.group) + ", " + std::to_string(n.fusion.tileDims) + "};\n";
  if (n.indexLabel >= 0) s += "    n.indexLabel = " + std::to_string(n.indexLabel) + ";\n";
  if (!n.operandOrigin.empty()) {
    s += "    n.operandOrigin = " + lists(n.operandOrigin) + ";\n";
    s += "    n.operandBound = " + lists(n.operandBound) + ";\n";
  }
  if (!n.operandTap.empty()) {
    s += "    n.operandTap = " + lists(n.operandTap) + ";\n";
    s += "    n.operandTapDilation = " + lists(n.operandTapDilation) + ";\n";
  }
  if (!n.operandStep.empty()) s += "    n.operandStep = " + lists(n.operandStep) + ";\n";
  if (!n.operandSpread.empty()) s += "    n.operandSpread = " + lists(n.operandSpread) + ";\n";
  if (n.fill != 0.0) s += "    n.fill = " + fillSource(n.fill) + ";\n";
  s += "    n.kernel = " + literal(n.kernel) + ";\n";
  if (n.oncePerStep) s += "    n.oncePerStep = true;\n";
  if (n.accumulated) s += "    n.accumulated = true;\n";
  if (n.runsOnce) s += "    n.runsOnce = true;\n";
  return s + "  }();\n";
}

}  // namespace

std::string einsumComment(const NodeProgram& n) {
  std::string s;
  for (std::size_t k = 0; k < n.operandLabels.size(); ++k) {
    if (k) s += ",";
    for (int l : n.operandLabels[k]) s += (s.empty() || s.back() == ',' ? "" : " ") + n.labels[static_cast<std::size_t>(l)];
  }
  s += " ->";
  for (int l : n.outputLabels) s += " " + n.labels[static_cast<std::size_t>(l)];
  return commentSafe(s + " (agg " + reduceName(n.agg) + ")");
}

// A mixed-precision tensor's own float type (SPEC 8) as einrt::DType's enumerator.
const char* floatTypeEnum(einrt::DType t) {
  switch (t) {
    case einrt::DType::F64: return "F64";
    case einrt::DType::BF16: return "BF16";
    case einrt::DType::F16: return "F16";
    default: return "F32";
  }
}

std::string tablesSource(const RankProgram& program) {
  std::string s;
  for (const einrt::model::TensorTable& t : program.tensors)
    s += "  p.tensors.push_back({" + literal(t.name) + ", " + list(t.shape) + ", " + boolText(t.isInput) + ", " +
         boolText(t.isOutput) + ", " + std::to_string(t.producer) + ", " + list(t.fileShape) +
         (t.indexType ? std::string(", einrt::DType::") + (*t.indexType == einrt::DType::I32 ? "I32" : "I64")
                      : std::string(", std::nullopt")) +
         ", " + std::to_string(t.indexRange) +
         (t.floatType ? std::string(", einrt::DType::") + floatTypeEnum(*t.floatType) : std::string()) + "});\n" +
         (t.splitDimension >= 0 ? "  p.tensors.back().splitDimension = " + std::to_string(t.splitDimension) + ";\n" : std::string());
  for (const NodeProgram& n : program.nodes) s += nodeSource(n);
  if (program.microBatches > 1) s += "  p.microBatches = " + std::to_string(program.microBatches) + ";\n";
  if (program.partialsOnOwners) s += "  p.partialsOnOwners = true;\n";
  return s + "  p.outputs = " + list(program.outputs) + ";\n";
}

}  // namespace eindecomp::codegen
