#include "planner/graph/write_graph.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "planner/graph/micro_batches.h"
#include "planner/graph/excerpt.h"

namespace eindecomp {

namespace {

bool allSingleCharacter(const std::vector<Labels>& operands, const Labels& output) {
  for (const auto& op : operands)
    for (const auto& l : op)
      if (l.size() != 1) return false;
  for (const auto& l : output)
    if (l.size() != 1) return false;
  return true;
}

std::string joinLabels(const Labels& ls, const std::string& sep) {
  std::string s;
  for (std::size_t i = 0; i < ls.size(); ++i) s += (i ? sep : "") + ls[i];
  return s;
}

// The join text to write, or "" when the node uses the default join for its arity.
std::string nonDefaultJoin(const Node& n) {
  const Expr defaultJoin =
      n.operandLabels.size() == 1 ? Expr::x() : Expr::binary(Expr::Kind::Mul, Expr::x(), Expr::y());
  if (n.join == defaultJoin) return "";
  return n.joinName.empty() ? toString(n.join) : n.joinName;
}

// Labels whose size the node's 'sizes' gives: broadcasts, and labels read only through
// windows (their extent is the window's, not a tensor's).
Labels sizedLabels(const Node& n) {
  Labels out = broadcastLabels(n);
  if (!n.windows) return out;
  for (const Label& l : iterationLabels(n)) {
    bool plain = false;
    for (std::size_t k = 0; k < n.operandLabels.size(); ++k)
      if (!isWindowed(n, k))
        for (const Label& m : n.operandLabels[k]) plain = plain || m == l;
    if (!plain && std::find(out.begin(), out.end(), l) == out.end()) out.push_back(l);
  }
  return out;
}

// One windowed dimension as written: `label: offset`, or with a tap label, a step or a
// spread `label: {tap: t, dilation: d, offset: o, step: s}` (the tap's fields with a tap,
// step and spread where not 1).
struct WindowEntry {
  Label label;
  int64_t offset = 0;
  Label tap{};
  int64_t dilation = 1;
  int64_t step = 1, spread = 1;
  bool plain() const { return tap.empty() && step == 1 && spread == 1; }
};

// Per operand, each windowed dimension (a repeated label once); empty lists for operands
// read as they are. Every dimension of a windowed operand is listed, so the graph reads
// back the same.
std::vector<std::vector<WindowEntry>> windowEntries(const Node& n) {
  std::vector<std::vector<WindowEntry>> out(n.operandLabels.size());
  for (std::size_t k = 0; k < n.operandLabels.size(); ++k) {
    if (!isWindowed(n, k)) continue;
    const bool tapped = hasTaps(n) && !n.windows->taps[k].empty();
    for (std::size_t d = 0; d < n.operandLabels[k].size(); ++d) {
      bool seen = false;
      for (const auto& e : out[k]) seen = seen || e.label == n.operandLabels[k][d];
      if (seen) continue;
      WindowEntry e{n.operandLabels[k][d], n.windows->offsets[k][d]};
      if (tapped && !n.windows->taps[k][d].empty()) {
        e.tap = n.windows->taps[k][d];
        e.dilation = n.windows->dilations[k][d];
      }
      e.step = n.windows->stepOf(k, d);
      e.spread = n.windows->spreadOf(k, d);
      out[k].push_back(std::move(e));
    }
  }
  return out;
}

// A fill as YAML/JSON text: a number, or -inf / inf.
std::string fillText(double v) {
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

std::string readableEinsum(const std::vector<Labels>& operands, const Labels& output) {
  if (allSingleCharacter(operands, output)) {
    std::string s;
    for (std::size_t i = 0; i < operands.size(); ++i) s += (i ? "," : "") + joinLabels(operands[i], "");
    return s + "->" + joinLabels(output, "");
  }
  std::string s;
  for (std::size_t i = 0; i < operands.size(); ++i) s += (i ? ", " : "") + joinLabels(operands[i], " ");
  const std::string out = joinLabels(output, " ");
  return s + " ->" + (out.empty() ? "" : " " + out);
}

std::string formatEinsum(const std::vector<Labels>& operands, const Labels& output) {
  // The loader reads whitespace-separated labels only when some tensor shows the spacing.
  bool spacing = allSingleCharacter(operands, output) || output.size() >= 2;
  for (const auto& op : operands) spacing = spacing || op.size() >= 2;
  if (!spacing)
    throw std::invalid_argument("cannot write an einsum with multi-character labels in which no tensor has two labels");
  return readableEinsum(operands, output);
}

std::string formatEinsum(const Node& n) { return formatEinsum(n.operandLabels, n.outputLabels); }

namespace {

nlohmann::ordered_json renamedJson(const GraphProvenance& p) {
  nlohmann::ordered_json names = nlohmann::ordered_json::object();
  for (const auto& [from, to] : p.renamed) names[from] = to;
  return names;
}

}  // namespace

namespace {

// Text yaml-cpp's emitter writes as a plain scalar unchanged: an identifier other than
// YAML's null words (and, to be safe, its 1.1 booleans).
bool plainToken(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (const char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  static const char* const kSpecial[] = {"null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE",
                                         "yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF",
                                         "y", "Y", "n", "N"};
  for (const char* w : kSpecial)
    if (s == w) return false;
  return true;
}

// Text yaml-cpp writes in double quotes with no escape: printable ASCII but " and \.
bool plainQuoted(const std::string& s) {
  for (const char c : s)
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return false;
  return true;
}

template <class Numbers>
void flowNumbers(std::string& out, const Numbers& values) {
  out += '[';
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  out += ']';
}

void flowNames(std::string& out, const std::vector<std::string>& names) {
  out += '[';
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  out += ']';
}

// The YAML yaml-cpp's emitter writes for `g` (writeGraphYaml below), written directly
// where every value is a plain token or plain quoted text — every graph the tools make
// but hostile ones: the emitter checks each scalar with regular expressions and took a
// quarter of `einplan grad`'s time on a 300,000-node result. Nothing where some value
// needs the emitter's judgement (false).
// Appends to `out`; false (and `out` as it was) where a value needs the emitter.
bool directYaml(const Graph& g, std::string& out) {
  const std::size_t start = out.size();
  const auto fallBack = [&] {
    out.resize(start);
    return false;
  };
  if (!plainToken(g.name) || g.inputs.empty() || g.nodes.empty() || g.outputs.empty()) return false;
  out += "name: " + g.name + "\ndtype: " + dtypeName(g.dtype) + "\ninputs:\n";
  for (const auto& t : g.inputs) {
    if (!plainToken(t.name)) return fallBack();
    out += "  - {name: " + t.name + ", shape: ";
    flowNumbers(out, stepShape(g, t));
    if (!t.fileShape.empty()) {
      out += ", file_shape: ";
      flowNumbers(out, t.fileShape);
    }
    if (const auto own = t.ownType()) out += std::string(", dtype: ") + dtypeName(*own);
    out += "}\n";
  }
  out += "nodes:\n";
  for (const auto& n : g.nodes) {
    const std::string einsum = formatEinsum(n), join = nonDefaultJoin(n);
    if (!plainToken(n.name) || !plainQuoted(einsum) || !plainQuoted(join) || n.inputs.empty() || n.windows)
      return fallBack();
    out += "  - name: " + n.name + "\n    einsum: \"" + einsum + "\"\n    inputs: ";
    for (const auto& in : n.inputs)
      if (!plainToken(in)) return fallBack();
    flowNames(out, n.inputs);
    out += '\n';
    if (!join.empty()) out += "    join: \"" + join + "\"\n";
    if (n.agg != Reduce::Sum) out += std::string("    agg: ") + reduceName(n.agg) + "\n";
    const Labels broadcast = broadcastLabels(n);
    if (!broadcast.empty()) {
      out += "    sizes: {";
      for (std::size_t i = 0; i < broadcast.size(); ++i) {
        if (!plainToken(broadcast[i])) return fallBack();
        out += (i ? ", " : "") + broadcast[i] + ": " + std::to_string(n.labelSizes.at(broadcast[i]));
      }
      out += "}\n";
    }
    if (!n.fileShape.empty()) {
      out += "    file_shape: ";
      flowNumbers(out, n.fileShape);
      out += '\n';
    }
    if (n.castTo) out += std::string("    cast: ") + dtypeName(*n.castTo) + "\n";
  }
  for (const auto& o : g.outputs)
    if (!plainToken(o)) return fallBack();
  out += "outputs: ";
  flowNames(out, g.outputs);
  out += '\n';
  if (g.microBatches) {
    out += "micro_batches:\n  count: " + std::to_string(g.microBatches->count) + "\n  split: {";
    for (std::size_t i = 0; i < g.microBatches->split.size(); ++i)
      out += (i ? ", " : "") + g.microBatches->split[i].input + ": " + std::to_string(g.microBatches->split[i].dimension);
    out += "}\n  accumulate: ";
    std::vector<std::string> names;
    for (const AccumulatedNode& a : g.microBatches->accumulate) names.push_back(a.node);
    flowNames(out, names);
    out += '\n';
  }
  return true;
}

}  // namespace

std::string writeGraphYaml(const Graph& g, const GraphProvenance* provenance) {
  std::string header;
  if (provenance)
    header = "# generated by " + oneLine(provenance->tool) + " " + oneLine(provenance->version) + "\n# command: " +
             oneLine(provenance->command) + "\n" +
             (provenance->renamed.empty() ? std::string() : "# names: " + renamedJson(*provenance).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace) + "\n");
  if (directYaml(g, header)) return header;
  return header + emittedYaml(g) + "\n";
}

std::string emittedYaml(const Graph& g) {
  YAML::Emitter y;
  y << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << g.name;
  y << YAML::Key << "dtype" << YAML::Value << dtypeName(g.dtype);
  y << YAML::Key << "inputs" << YAML::Value << YAML::BeginSeq;
  for (const auto& t : g.inputs) {
    y << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << t.name;
    y << YAML::Key << "shape" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (int64_t s : stepShape(g, t)) y << s;
    y << YAML::EndSeq;
    if (!t.fileShape.empty()) y << YAML::Key << "file_shape" << YAML::Value << YAML::Flow << t.fileShape;
    if (const auto own = t.ownType()) y << YAML::Key << "dtype" << YAML::Value << dtypeName(*own);
    y << YAML::EndMap;
  }
  y << YAML::EndSeq;
  y << YAML::Key << "nodes" << YAML::Value << YAML::BeginSeq;
  for (const auto& n : g.nodes) {
    y << YAML::BeginMap;
    y << YAML::Key << "name" << YAML::Value << n.name;
    y << YAML::Key << "einsum" << YAML::Value << YAML::DoubleQuoted << formatEinsum(n);
    y << YAML::Key << "inputs" << YAML::Value << YAML::Flow << n.inputs;
    const std::string join = nonDefaultJoin(n);
    if (!join.empty()) y << YAML::Key << "join" << YAML::Value << YAML::DoubleQuoted << join;
    if (n.agg != Reduce::Sum) y << YAML::Key << "agg" << YAML::Value << reduceName(n.agg);
    // Broadcast labels take their size from the node's own `sizes` (labels are local), and
    // so do labels read only through windows.
    const Labels sized = sizedLabels(n);
    if (!sized.empty()) {
      y << YAML::Key << "sizes" << YAML::Value << YAML::Flow << YAML::BeginMap;
      for (const auto& l : sized) y << YAML::Key << l << YAML::Value << n.labelSizes.at(l);
      y << YAML::EndMap;
    }
    if (!n.fileShape.empty()) y << YAML::Key << "file_shape" << YAML::Value << YAML::Flow << n.fileShape;
    if (n.castTo) y << YAML::Key << "cast" << YAML::Value << dtypeName(*n.castTo);
    if (n.windows) {
      y << YAML::Key << "windows" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (const auto& entries : windowEntries(n)) {
        y << YAML::Flow << YAML::BeginMap;
        for (const WindowEntry& e : entries) {
          y << YAML::Key << e.label << YAML::Value;
          if (e.plain()) {
            y << e.offset;
            continue;
          }
          y << YAML::Flow << YAML::BeginMap;
          if (!e.tap.empty()) y << YAML::Key << "tap" << YAML::Value << e.tap << YAML::Key << "dilation" << YAML::Value << e.dilation;
          y << YAML::Key << "offset" << YAML::Value << e.offset;
          if (e.step != 1) y << YAML::Key << "step" << YAML::Value << e.step;
          if (e.spread != 1) y << YAML::Key << "spread" << YAML::Value << e.spread;
          y << YAML::EndMap;
        }
        y << YAML::EndMap;
      }
      y << YAML::EndSeq;
      if (n.windows->fill != 0.0) y << YAML::Key << "fill" << YAML::Value << fillText(n.windows->fill);
    }
    y << YAML::EndMap;
  }
  y << YAML::EndSeq;
  y << YAML::Key << "outputs" << YAML::Value << YAML::Flow << g.outputs;
  if (g.microBatches) {
    y << YAML::Key << "micro_batches" << YAML::Value << YAML::BeginMap;
    y << YAML::Key << "count" << YAML::Value << g.microBatches->count;
    y << YAML::Key << "split" << YAML::Value << YAML::Flow << YAML::BeginMap;
    for (const MicroBatchSplit& sp : g.microBatches->split) y << YAML::Key << sp.input << YAML::Value << sp.dimension;
    y << YAML::EndMap;
    std::vector<std::string> names;
    for (const AccumulatedNode& a : g.microBatches->accumulate) names.push_back(a.node);
    y << YAML::Key << "accumulate" << YAML::Value << YAML::Flow << names;
    y << YAML::EndMap;
  }
  y << YAML::EndMap;
  if (!y.good()) throw std::runtime_error("YAML emitter: " + y.GetLastError());
  return y.c_str();
}

namespace {

DocText docText(std::string t, const SourceLoc& at) { return DocText{std::move(t), at, false}; }

std::vector<DocInteger> docIntegers(const std::vector<int64_t>& values, const SourceLoc& at) {
  std::vector<DocInteger> out;
  for (int64_t v : values) out.push_back({v, at});
  return out;
}

}  // namespace

DocNode documentNodeOf(const Node& n, const SourceLoc& at) {
  DocNode node;
  node.name = docText(n.name, at);
  node.einsum = docText(formatEinsum(n), at);
  for (const auto& in : n.inputs) node.inputs.push_back(docText(in, at));
  node.inputsLoc = at;
  const std::string join = nonDefaultJoin(n);
  if (!join.empty()) node.join = docText(join, at);
  if (n.agg != Reduce::Sum) node.agg = docText(reduceName(n.agg), at);
  for (const auto& l : sizedLabels(n)) node.sizes.push_back({docText(l, at), {n.labelSizes.at(l), at}});
  if (!n.fileShape.empty()) node.fileShape = docIntegers(n.fileShape, at);
  if (n.castTo) node.cast = docText(dtypeName(*n.castTo), at);
  if (n.windows) {
    auto windows = std::make_shared<DocWindows>();
    windows->given = true;
    for (const auto& entries : windowEntries(n)) {
      std::vector<DocSize>& w = windows->offsets.emplace_back();
      std::vector<DocAffineWindow>& taps = windows->taps.emplace_back();
      for (const WindowEntry& e : entries) {
        w.push_back({docText(e.label, at), {e.offset, at}});
        taps.push_back({docText(e.tap, at), {e.dilation, at}, {e.step, at}, {e.spread, at}});
      }
    }
    windows->loc = at;
    if (n.windows->fill != 0.0) windows->fill = n.windows->fill;
    windows->fillLoc = at;
    node.windows = std::move(windows);
  }
  node.loc = at;
  return node;
}

DocInput documentInputOf(const Graph& g, const InputTensor& t, const SourceLoc& at) {
  DocInput in{docText(t.name, at), docIntegers(stepShape(g, t), at), std::nullopt, std::nullopt, at};
  if (!t.fileShape.empty()) in.fileShape = docIntegers(t.fileShape, at);
  if (const auto own = t.ownType()) in.dtype = docText(dtypeName(*own), at);
  return in;
}

GraphDocument documentOf(const Graph& g, const std::string& file) {
  const SourceLoc at{file, 0, 0};
  GraphDocument d;
  d.file = file;
  d.loc = at;
  d.name = docText(g.name, at);
  d.dtype = docText(dtypeName(g.dtype), at);
  for (const auto& t : g.inputs) d.inputs.push_back(documentInputOf(g, t, at));
  d.nodesLoc = at;
  d.nodes.reserve(g.nodes.size());
  for (const auto& n : g.nodes) d.nodes.push_back(documentNodeOf(n, at));
  std::vector<DocText> outputs;
  for (const auto& o : g.outputs) outputs.push_back(docText(o, at));
  d.outputs = std::move(outputs);
  d.outputsLoc = at;
  if (g.microBatches) {
    DocMicroBatches mb{{g.microBatches->count, at}, {}, {}, at};
    for (const MicroBatchSplit& sp : g.microBatches->split) mb.split.push_back({docText(sp.input, at), {sp.dimension, at}});
    for (const AccumulatedNode& a : g.microBatches->accumulate) mb.accumulate.push_back(docText(a.node, at));
    d.microBatches = std::move(mb);
  }
  return d;
}

std::string writeGraphJson(const Graph& g, const GraphProvenance* provenance) {
  nlohmann::ordered_json j;
  if (provenance)
    j["provenance"] = {{"tool", oneLine(provenance->tool)},
                       {"version", oneLine(provenance->version)},
                       {"command", oneLine(provenance->command)}};
  if (provenance && !provenance->renamed.empty()) j["provenance"]["names"] = renamedJson(*provenance);
  j["name"] = g.name;
  j["dtype"] = dtypeName(g.dtype);
  j["inputs"] = nlohmann::ordered_json::array();
  for (const auto& t : g.inputs) {
    j["inputs"].push_back({{"name", t.name}, {"shape", stepShape(g, t)}});
    if (!t.fileShape.empty()) j["inputs"].back()["file_shape"] = t.fileShape;
    if (const auto own = t.ownType()) j["inputs"].back()["dtype"] = dtypeName(*own);
  }
  j["nodes"] = nlohmann::ordered_json::array();
  for (const auto& n : g.nodes) {
    nlohmann::ordered_json node{{"name", n.name}, {"einsum", formatEinsum(n)}, {"inputs", n.inputs}};
    const std::string join = nonDefaultJoin(n);
    if (!join.empty()) node["join"] = join;
    if (n.agg != Reduce::Sum) node["agg"] = reduceName(n.agg);
    const Labels sized = sizedLabels(n);
    if (!sized.empty()) {
      nlohmann::ordered_json sizes = nlohmann::ordered_json::object();
      for (const auto& l : sized) sizes[l] = n.labelSizes.at(l);
      node["sizes"] = sizes;
    }
    if (!n.fileShape.empty()) node["file_shape"] = n.fileShape;
    if (n.castTo) node["cast"] = dtypeName(*n.castTo);
    if (n.windows) {
      nlohmann::ordered_json windows = nlohmann::ordered_json::array();
      for (const auto& entries : windowEntries(n)) {
        nlohmann::ordered_json w = nlohmann::ordered_json::object();
        for (const WindowEntry& e : entries) {
          if (e.plain()) {
            w[e.label] = e.offset;
            continue;
          }
          nlohmann::ordered_json entry = nlohmann::ordered_json::object();
          if (!e.tap.empty()) {
            entry["tap"] = e.tap;
            entry["dilation"] = e.dilation;
          }
          entry["offset"] = e.offset;
          if (e.step != 1) entry["step"] = e.step;
          if (e.spread != 1) entry["spread"] = e.spread;
          w[e.label] = entry;
        }
        windows.push_back(w);
      }
      node["windows"] = windows;
      if (std::isinf(n.windows->fill)) node["fill"] = fillText(n.windows->fill);
      else if (n.windows->fill != 0.0) node["fill"] = n.windows->fill;
    }
    j["nodes"].push_back(node);
  }
  j["outputs"] = g.outputs;
  if (g.microBatches) {
    nlohmann::ordered_json split = nlohmann::ordered_json::object();
    for (const MicroBatchSplit& sp : g.microBatches->split) split[sp.input] = sp.dimension;
    std::vector<std::string> names;
    for (const AccumulatedNode& a : g.microBatches->accumulate) names.push_back(a.node);
    j["micro_batches"] = {{"count", g.microBatches->count}, {"split", split}, {"accumulate", names}};
  }
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string writeGraphForPath(const Graph& g, const std::string& path, const GraphProvenance* provenance) {
  std::string lower = path;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto endsWith = [&lower](const std::string& suffix) {
    return lower.size() >= suffix.size() && lower.compare(lower.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (path == "-" || endsWith(".yaml") || endsWith(".yml")) return writeGraphYaml(g, provenance);
  if (endsWith(".json")) return writeGraphJson(g, provenance);
  throw std::invalid_argument("the graph file name must end in .yaml, .yml or .json (in any case)");
}

}  // namespace eindecomp
