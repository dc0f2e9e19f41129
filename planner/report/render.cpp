#include "planner/report/render.h"

#include <algorithm>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "planner/graph/diagnostic.h"

namespace eindecomp {

ReportFormat parseReportFormat(const std::string& name) {
  if (name == "table") return ReportFormat::Table;
  if (name == "markdown" || name == "md") return ReportFormat::Markdown;
  if (name == "csv") return ReportFormat::Csv;
  if (name == "json") return ReportFormat::Json;
  if (name == "yaml" || name == "yml") return ReportFormat::Yaml;
  throw InputError({{}, "--format: unknown format '" + name + "' (table, json, yaml, markdown, csv)"});
}

ReportFormat reportFormatForPath(const std::string& path) {
  auto ends = [&](const std::string& ext) {
    return path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0;
  };
  if (ends(".json")) return ReportFormat::Json;
  if (ends(".yaml") || ends(".yml")) return ReportFormat::Yaml;
  if (ends(".md")) return ReportFormat::Markdown;
  if (ends(".csv")) return ReportFormat::Csv;
  return ReportFormat::Table;
}

namespace {

nlohmann::ordered_json partitionJson(const Labels& labels, const Parts& parts) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < labels.size(); ++i) j[labels[i]] = parts[i];
  return j;
}

// Columns of one node row, shared by table, markdown and csv.
std::vector<std::string> nodeHeader(const Report& r) {
  std::vector<std::string> h{"node", "partition", "calls", "join", "agg", "repart_in", "total", "flops", "bytes_per_device"};
  if (r.totalTimeSeconds) h.push_back("time");
  return h;
}

std::vector<std::string> nodeRow(const Report& r, const NodeReport& n, bool human) {
  std::vector<std::string> row{n.name, partitionText(n.labels, n.parts) + (n.fallback && human ? " (fallback)" : ""),
                               std::to_string(n.kernelCalls), std::to_string(n.join), std::to_string(n.agg),
                               std::to_string(n.repartIn), std::to_string(n.total),
                               human ? humanFlops(n.flops) : std::to_string(n.flops),
                               human ? humanBytes(n.bytesPerDevice) : std::to_string(n.bytesPerDevice)};
  if (r.totalTimeSeconds) {
    std::ostringstream t;
    t << *n.timeSeconds;
    row.push_back(human ? humanSeconds(*n.timeSeconds) : t.str());
  }
  return row;
}

std::string alignedTable(const std::vector<std::vector<std::string>>& rows, std::size_t numericFrom) {
  std::vector<std::size_t> width;
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], row[c].size());
    }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      std::string pad(width[c] - row[c].size(), ' ');
      line += c >= numericFrom ? pad + row[c] : row[c] + pad;
      if (c + 1 < row.size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string summaryLine(const Report& r) {
  std::string s = "total cost " + std::to_string(r.totalCost) + " elements (" + humanBytes(r.totalBytes) + "), " +
                  humanFlops(r.totalFlops) + ", peak " + humanBytes(r.peakBytesPerDevice) + " per device";
  if (r.totalTimeSeconds) s += ", estimated time " + humanSeconds(*r.totalTimeSeconds);
  s += ", search " + humanSeconds(r.searchSeconds);
  return s;
}

std::string renderTable(const Report& r) {
  std::string out = "graph " + r.graph + "  devices " + std::to_string(r.devices) + "  algorithm " + r.algorithm +
                    "  dtype " + r.dtype + "\n\n";
  std::vector<std::vector<std::string>> rows{nodeHeader(r)};
  for (const auto& n : r.nodes) rows.push_back(nodeRow(r, n, true));
  out += alignedTable(rows, 2);
  if (!r.edges.empty()) {
    std::vector<std::vector<std::string>> edges{{"edge", "operand", "repart"}};
    for (const auto& e : r.edges) edges.push_back({e.from + " -> " + e.to, std::to_string(e.operand), std::to_string(e.cost)});
    out += "\n" + alignedTable(edges, 1);
  }
  out += "\n" + summaryLine(r) + "\n";
  for (const auto& note : r.notes) out += "note: " + note + "\n";
  return out;
}

std::string renderMarkdown(const Report& r) {
  std::string out = "# Plan for `" + r.graph + "`: " + std::to_string(r.devices) + " devices, " + r.algorithm + ", " + r.dtype + "\n\n";
  auto line = [](const std::vector<std::string>& cells) {
    std::string s = "|";
    for (const auto& c : cells) s += " " + c + " |";
    return s + "\n";
  };
  std::vector<std::string> header = nodeHeader(r);
  out += line(header);
  std::vector<std::string> rule;
  for (std::size_t c = 0; c < header.size(); ++c) rule.push_back(c >= 2 ? "---:" : "---");
  out += line(rule);
  for (const auto& n : r.nodes) out += line(nodeRow(r, n, true));
  if (!r.edges.empty()) {
    out += "\n" + line({"edge", "operand", "repart"}) + line({"---", "---:", "---:"});
    for (const auto& e : r.edges) out += line({e.from + " → " + e.to, std::to_string(e.operand), std::to_string(e.cost)});
  }
  out += "\n" + summaryLine(r) + "\n";
  for (const auto& note : r.notes) out += "\n- " + note;
  if (!r.notes.empty()) out += "\n";
  return out;
}

std::string renderCsv(const Report& r) {
  auto line = [](const std::vector<std::string>& cells) {
    std::string s;
    for (std::size_t c = 0; c < cells.size(); ++c) s += (c ? "," : "") + cells[c];
    return s + "\n";
  };
  std::string out = line(nodeHeader(r));
  for (const auto& n : r.nodes) out += line(nodeRow(r, n, false));
  int64_t join = 0, agg = 0, repart = 0;
  for (const auto& n : r.nodes) {
    join += n.join;
    agg += n.agg;
    repart += n.repartIn;
  }
  std::vector<std::string> total{"TOTAL", "", "", std::to_string(join), std::to_string(agg), std::to_string(repart),
                                 std::to_string(r.totalCost), std::to_string(r.totalFlops), std::to_string(r.peakBytesPerDevice)};
  if (r.totalTimeSeconds) {
    std::ostringstream t;
    t << *r.totalTimeSeconds;
    total.push_back(t.str());
  }
  out += line(total);
  return out;
}

void emitYaml(YAML::Emitter& out, const nlohmann::ordered_json& j) {
  if (j.is_object()) {
    out << YAML::BeginMap;
    for (auto it = j.begin(); it != j.end(); ++it) {
      out << YAML::Key << it.key() << YAML::Value;
      emitYaml(out, it.value());
    }
    out << YAML::EndMap;
  } else if (j.is_array()) {
    out << YAML::BeginSeq;
    for (const auto& v : j) emitYaml(out, v);
    out << YAML::EndSeq;
  } else if (j.is_string()) {
    out << YAML::DoubleQuoted << j.get<std::string>();
  } else if (j.is_boolean()) {
    out << j.get<bool>();
  } else if (j.is_number_integer()) {
    out << j.get<int64_t>();
  } else if (j.is_number()) {
    out << j.get<double>();
  } else {
    out << YAML::Null;
  }
}

}  // namespace

std::string jsonToYaml(const nlohmann::ordered_json& j) {
  YAML::Emitter out;
  emitYaml(out, j);
  return std::string(out.c_str()) + "\n";
}

nlohmann::ordered_json reportJson(const Report& r) {
  nlohmann::ordered_json j;
  j["schema_version"] = 1;
  j["tool"] = {{"name", r.provenance.toolName}, {"version", r.provenance.toolVersion}};
  j["command"] = r.provenance.commandLine;
  j["graph_sha256"] = r.provenance.graphSha256;
  j["graph"] = r.graph;
  j["devices"] = r.devices;
  j["algorithm"] = r.algorithm;
  j["dtype"] = r.dtype;
  j["nodes"] = nlohmann::ordered_json::array();
  for (const auto& n : r.nodes) {
    nlohmann::ordered_json node;
    node["name"] = n.name;
    node["partition"] = partitionJson(n.labels, n.parts);
    node["kernel_calls"] = n.kernelCalls;
    node["output_partition"] = partitionJson(n.outputLabels, n.outputParts);
    node["cost"] = {{"join", n.join}, {"agg", n.agg}, {"repart_in", n.repartIn}, {"total", n.total}};
    node["flops"] = n.flops;
    node["bytes_per_device"] = n.bytesPerDevice;
    if (n.fallback) node["fallback"] = true;
    if (n.timeSeconds) node["time_s"] = *n.timeSeconds;
    j["nodes"].push_back(std::move(node));
  }
  j["edges"] = nlohmann::ordered_json::array();
  for (const auto& e : r.edges) j["edges"].push_back({{"from", e.from}, {"to", e.to}, {"operand", e.operand}, {"cost", e.cost}});
  j["total_cost"] = r.totalCost;
  j["total_bytes"] = r.totalBytes;
  j["total_flops"] = r.totalFlops;
  j["peak_bytes_per_device"] = r.peakBytesPerDevice;
  if (r.totalTimeSeconds) j["time_s"] = *r.totalTimeSeconds;
  j["search_time_s"] = r.searchSeconds;
  j["optimal"] = r.optimal;
  j["notes"] = r.notes;
  return j;
}

std::string renderReport(const Report& r, ReportFormat format) {
  switch (format) {
    case ReportFormat::Table: return renderTable(r);
    case ReportFormat::Markdown: return renderMarkdown(r);
    case ReportFormat::Csv: return renderCsv(r);
    case ReportFormat::Json: return reportJson(r).dump(2) + "\n";
    case ReportFormat::Yaml: return jsonToYaml(reportJson(r));
  }
  return renderTable(r);
}

}  // namespace eindecomp
