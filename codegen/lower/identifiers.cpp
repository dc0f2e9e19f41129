#include "codegen/lower/identifiers.h"

#include <einrt/limits.h>

#include <cctype>

#include "planner/graph/tensor_types.h"

namespace eindecomp::codegen {

namespace {
constexpr std::size_t kMaxNameLength = 64;

bool identStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Shortens a hostile name for an error message without echoing control characters.
std::string quoted(const std::string& s) {
  std::string shown = commentSafe(s.size() > 40 ? s.substr(0, 40) + "..." : s);
  return "'" + shown + "'";
}

void requireValid(bool ok, const SourceLoc& loc, const std::string& what, const std::string& name) {
  if (ok) return;
  throw InputError({loc, what + " " + quoted(name) +
                             " is not a valid identifier ([A-Za-z_][A-Za-z0-9_]*, at most 64 "
                             "characters); refusing to emit source for it"});
}
}  // namespace

bool isValidIdentifier(const std::string& s) {
  if (s.empty() || s.size() > kMaxNameLength || !identStart(s[0])) return false;
  for (char c : s)
    if (!identChar(c)) return false;
  return true;
}

bool isValidInternalName(const std::string& s) {
  std::size_t dot = s.find('.');
  if (!isValidIdentifier(s.substr(0, dot))) return false;
  while (dot != std::string::npos) {
    std::size_t next = s.find('.', dot + 1);
    std::string digits = s.substr(dot + 1, next == std::string::npos ? std::string::npos : next - dot - 1);
    if (digits.empty() || digits.size() > 9) return false;
    for (char c : digits)
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    dot = next;
  }
  return true;
}

namespace {

// The mixed precision einrt's executor runs (SPEC 8; runtime/src/program/mixed_types.h):
// a bf16 or f16 graph whose other float tensors are f32 (master weights, their state and
// update), computed by plain f32 nodes (no gather, no window) and casts. Anything else
// mixed plans and evaluates, and is refused here at its first tensor that breaks the rule.
void requireRunnableTypes(const Graph& g) {
  if (!hasMixedFloatTypes(g)) return;
  const std::string graph = std::string("a ") + dtypeName(g.dtype) + " graph";
  const std::string why = "; emitted programs hold f32 tensors in bf16 and f16 graphs only (mixed precision, SPEC 8)";
  const std::vector<DType> types = nodeOutputTypes(g);
  for (const auto& t : g.inputs)
    if (t.floatType && (!einrt::isTwoByte(g.dtype) || *t.floatType != DType::F32))
      throw InputError({t.loc, "input " + quoted(t.name) + " is " + dtypeName(*t.floatType) + " in " + graph + why});
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (types[i] == g.dtype) continue;
    if (!einrt::isTwoByte(g.dtype) || types[i] != DType::F32)
      throw InputError({n.loc, "node " + quoted(n.name) + " is " + dtypeName(types[i]) + " in " + graph + why});
    if (isIndexNode(n) || n.windows)
      throw InputError({n.loc, "node " + quoted(n.name) + ": an f32 " + (isIndexNode(n) ? "gather or scatter" : "node with windows") +
                                   " in " + graph + " (mixed precision): emitted programs run f32 nodes of plain EinSums only"});
  }
}

// A split input (micro-batches) is sliced by the program along one dimension of the
// blocks its readers hold whole (the loader refuses a file_shape of its own): a window
// over it would need the slices' halos.
void requireRunnableMicroBatches(const Graph& g) {
  if (!g.microBatches) return;
  for (const MicroBatchSplit& sp : g.microBatches->split)
    for (const Node& n : g.nodes)
      for (std::size_t k = 0; k < n.inputs.size(); ++k)
        if (n.inputs[k] == sp.input && isWindowed(n, k))
          throw InputError({n.loc, "node " + quoted(n.name) + " reads split input " + quoted(sp.input) + " through a window; "
                                   "emitted programs cut only inputs read whole"});
}

}  // namespace

void validateGraphForCodegen(const Graph& g) {
  SourceLoc fileLoc{g.sourceFile, 0, 0};
  requireValid(isValidIdentifier(g.name), fileLoc, "graph name", g.name);
  if (isReservedProgramName(g.name))
    throw InputError({fileLoc, "graph name '" + g.name + "' would be the emitted program's name, but it is a build target or "
                               "file of the project (all, clean, help, install, test, build, Makefile, program, ...); give "
                               "the graph another name (name: ...)"});
  for (const auto& t : g.inputs) requireValid(isValidIdentifier(t.name), t.loc, "input name", t.name);
  requireRunnableTypes(g);
  requireRunnableMicroBatches(g);
  for (const auto& n : g.nodes) {
    requireValid(isValidInternalName(n.name), n.loc, "node name", n.name);
    for (const auto& in : n.inputs) requireValid(isValidInternalName(in), n.loc, "operand name of node", in);
    for (const auto& ls : n.operandLabels)
      for (const auto& l : ls) requireValid(isValidIdentifier(l), n.loc, "label", l);
    for (const auto& l : n.outputLabels) requireValid(isValidIdentifier(l), n.loc, "label", l);
    for (const auto& [label, size] : n.labelSizes)
      if (size <= 0) throw InputError({n.loc, "label '" + label + "' of node '" + n.name + "' has non-positive size"});
    // einrt's limits (einrt/limits.h), found here rather than by every rank at run time.
    auto tooMany = [&](std::size_t count, int limit, const std::string& what) {
      if (count > static_cast<std::size_t>(limit))
        throw InputError({n.loc, "node '" + n.name + "': " + what + " " + std::to_string(count) + " exceeds einrt's limit of " +
                                     std::to_string(limit) + " (docs/hardening.md, Limits)"});
    };
    tooMany(iterationLabels(n).size(), einrt::kMaxNodeLabels, "label count");
    for (std::size_t k = 0; k < n.operandLabels.size(); ++k)
      tooMany(n.operandLabels[k].size(), einrt::kMaxTensorRank, "operand " + std::to_string(k) + "'s rank");
    tooMany(n.outputLabels.size(), einrt::kMaxTensorRank, "output rank");
  }
  for (const auto& o : g.outputs) requireValid(isValidInternalName(o), fileLoc, "output name", o);
}

std::string cppIdentifier(int index, const std::string& name) {
  std::string id = "t" + std::to_string(index) + "_";
  for (char c : name) id += (c == '.') ? '_' : c;
  return id;
}

std::string commentSafe(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    out += (u >= 0x20 && u < 0x7f && c != '\\') ? c : '?';
  }
  return out;
}

std::string htmlCommentSafe(const std::string& text) {
  std::string out = commentSafe(text);
  for (std::size_t at = out.find("--"); at != std::string::npos; at = out.find("--", at)) out.replace(at, 2, "- -");
  return out;
}

std::string markdownCellSafe(const std::string& text) {
  std::string out;
  for (char c : commentSafe(text)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string cmakeStringSafe(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\' || c == '"' || c == '$') out += '\\';
    out += c;
  }
  return out;
}

bool isReservedProgramName(const std::string& name) {
  static const char* const reserved[] = {"all",        "clean",          "help",           "install",       "test",
                                         "package",    "package_source", "edit_cache",     "rebuild_cache", "depend",
                                         "preinstall", "build",          "makefile",       "gnumakefile",   "cmakefiles",
                                         "cmake_install", "list_install_components", "ein_program", "program"};
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* r : reserved)
    if (lower == r) return true;
  return false;
}

}  // namespace eindecomp::codegen
