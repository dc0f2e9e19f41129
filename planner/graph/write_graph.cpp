#include "planner/graph/write_graph.h"

#include <stdexcept>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

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


}  // namespace

std::string formatEinsum(const std::vector<Labels>& operands, const Labels& output) {
  if (allSingleCharacter(operands, output)) {
    std::string s;
    for (std::size_t i = 0; i < operands.size(); ++i) s += (i ? "," : "") + joinLabels(operands[i], "");
    return s + "->" + joinLabels(output, "");
  }
  // The loader reads whitespace-separated labels only when some tensor shows the spacing.
  bool spacing = output.size() >= 2;
  for (const auto& op : operands) spacing = spacing || op.size() >= 2;
  if (!spacing)
    throw std::invalid_argument("cannot write an einsum with multi-character labels in which no tensor has two labels");
  std::string s;
  for (std::size_t i = 0; i < operands.size(); ++i) s += (i ? ", " : "") + joinLabels(operands[i], " ");
  const std::string out = joinLabels(output, " ");
  return s + " ->" + (out.empty() ? "" : " " + out);
}

std::string formatEinsum(const Node& n) { return formatEinsum(n.operandLabels, n.outputLabels); }

std::string writeGraphYaml(const Graph& g) {
  YAML::Emitter y;
  y << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << g.name;
  y << YAML::Key << "dtype" << YAML::Value << dtypeName(g.dtype);
  y << YAML::Key << "inputs" << YAML::Value << YAML::BeginSeq;
  for (const auto& t : g.inputs) {
    y << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << t.name;
    y << YAML::Key << "shape" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (int64_t s : t.shape) y << s;
    y << YAML::EndSeq << YAML::EndMap;
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
    if (n.agg != AggOp::Sum) y << YAML::Key << "agg" << YAML::Value << aggName(n.agg);
    // Broadcast labels take their size from the node's own `sizes` (labels are local).
    const Labels broadcast = broadcastLabels(n);
    if (!broadcast.empty()) {
      y << YAML::Key << "sizes" << YAML::Value << YAML::Flow << YAML::BeginMap;
      for (const auto& l : broadcast) y << YAML::Key << l << YAML::Value << n.labelSizes.at(l);
      y << YAML::EndMap;
    }
    y << YAML::EndMap;
  }
  y << YAML::EndSeq;
  y << YAML::Key << "outputs" << YAML::Value << YAML::Flow << g.outputs;
  y << YAML::EndMap;
  if (!y.good()) throw std::runtime_error("YAML emitter: " + y.GetLastError());
  return std::string(y.c_str()) + "\n";
}

std::string writeGraphJson(const Graph& g) {
  nlohmann::ordered_json j;
  j["name"] = g.name;
  j["dtype"] = dtypeName(g.dtype);
  j["inputs"] = nlohmann::ordered_json::array();
  for (const auto& t : g.inputs) j["inputs"].push_back({{"name", t.name}, {"shape", t.shape}});
  j["nodes"] = nlohmann::ordered_json::array();
  for (const auto& n : g.nodes) {
    nlohmann::ordered_json node{{"name", n.name}, {"einsum", formatEinsum(n)}, {"inputs", n.inputs}};
    const std::string join = nonDefaultJoin(n);
    if (!join.empty()) node["join"] = join;
    if (n.agg != AggOp::Sum) node["agg"] = aggName(n.agg);
    const Labels broadcast = broadcastLabels(n);
    if (!broadcast.empty()) {
      nlohmann::ordered_json sizes = nlohmann::ordered_json::object();
      for (const auto& l : broadcast) sizes[l] = n.labelSizes.at(l);
      node["sizes"] = sizes;
    }
    j["nodes"].push_back(node);
  }
  j["outputs"] = g.outputs;
  return j.dump(2) + "\n";
}

std::string writeGraphForPath(const Graph& g, const std::string& path) {
  auto endsWith = [&path](const std::string& suffix) {
    return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (path == "-" || endsWith(".yaml") || endsWith(".yml")) return writeGraphYaml(g);
  if (endsWith(".json")) return writeGraphJson(g);
  throw std::invalid_argument("'" + path + "': the graph file name must end in .yaml, .yml or .json");
}

}  // namespace eindecomp
