#include "planner/report/render.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "planner/graph/diagnostic.h"
#include "planner/graph/text_table.h"
#include "planner/graph/units.h"

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
  // Extensions in any case: plan.JSON is JSON.
  std::string lower = path;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto ends = [&](const std::string& ext) {
    return lower.size() >= ext.size() && lower.compare(lower.size() - ext.size(), ext.size(), ext) == 0;
  };
  if (ends(".json")) return ReportFormat::Json;
  if (ends(".yaml") || ends(".yml")) return ReportFormat::Yaml;
  if (ends(".md")) return ReportFormat::Markdown;
  if (ends(".csv")) return ReportFormat::Csv;
  return ReportFormat::Table;
}

std::string partitionText(const Labels& labels, const Parts& parts) {
  std::string s;
  for (std::size_t i = 0; i < labels.size(); ++i) s += (i ? " " : "") + labels[i] + ":" + std::to_string(parts[i]);
  return s.empty() ? "-" : s;
}

namespace {

nlohmann::ordered_json partitionJson(const Labels& labels, const Parts& parts) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < labels.size(); ++i) j[labels[i]] = parts[i];
  return j;
}

// The node table, shared by table, markdown and csv (`human`: units for people).
TextTable nodeTable(const Report& r, bool human) {
  TextTable t;
  t.header = {"node", "partition", "calls", "traffic", "join", "agg", "repart_in", "paper", "flops", "live_bytes"};
  const bool cluster = r.ranksPerNode > 0;
  if (cluster) t.header.push_back("inter_node");
  if (r.estimatedTimeSeconds) t.header.push_back("time");
  t.numeric.assign(t.header.size(), true);
  t.numeric[0] = t.numeric[1] = false;
  auto bytes = [&](int64_t b) { return human ? formatBytes(b) : std::to_string(b); };
  for (const auto& n : r.nodes) {
    std::vector<std::string> row{n.name, partitionText(n.labels, n.parts) + (n.fallback && human ? " (fallback)" : ""),
                                 std::to_string(n.kernelCalls), bytes(n.trafficBytes), std::to_string(n.join),
                                 std::to_string(n.agg), std::to_string(n.repartIn), std::to_string(n.total),
                                 human ? formatFlops(n.flops) : std::to_string(n.flops), bytes(n.liveBytes)};
    if (cluster) row.push_back(bytes(n.interNodeBytes));
    if (r.estimatedTimeSeconds) row.push_back(human ? formatSeconds(*n.timeSeconds) : numberText(*n.timeSeconds));
    t.rows.push_back(std::move(row));
  }
  if (!human) {  // csv: a total row
    int64_t join = 0, agg = 0, repart = 0;
    for (const auto& n : r.nodes) join += n.join, agg += n.agg, repart += n.repartIn;
    std::vector<std::string> total{"TOTAL", "", "", std::to_string(r.totalTrafficBytes), std::to_string(join),
                                   std::to_string(agg), std::to_string(repart), std::to_string(r.totalCost),
                                   std::to_string(r.totalFlops), std::to_string(r.peakBytesPerDevice)};
    if (cluster) total.push_back(std::to_string(r.totalInterNodeBytes));
    if (r.estimatedTimeSeconds) total.push_back(numberText(*r.estimatedTimeSeconds));
    t.rows.push_back(std::move(total));
  }
  return t;
}

TextTable edgeTable(const Report& r, bool human, const std::string& arrow) {
  TextTable t;
  t.header = {"edge", "operand", "traffic", "repart"};
  t.numeric = {false, true, true, true};
  for (const auto& e : r.edges)
    t.rows.push_back({e.from + arrow + e.to, std::to_string(e.operand),
                      human ? formatBytes(e.trafficBytes) : std::to_string(e.trafficBytes), std::to_string(e.cost)});
  return t;
}

std::string summaryLine(const Report& r) {
  std::string s = "objective " + std::string(objectiveName(r.objective)) + ": traffic " + formatBytes(r.totalTrafficBytes) +
                  " per execution, paper cost " + std::to_string(r.totalCost) + " elements (" + formatBytes(r.totalBytes) +
                  "), " + formatFlops(r.totalFlops) + ", peak " + formatBytes(r.peakBytesPerDevice) + " on the busiest rank";
  if (r.ranksPerNode > 0)
    s += ", between nodes " + formatBytes(r.totalInterNodeBytes) + " of the traffic (" + std::to_string(r.ranksPerNode) +
         " ranks per node)";
  if (r.estimatedTimeSeconds) {
    s += ", estimated time " + formatSeconds(*r.estimatedTimeSeconds);
    if (r.kernelTimeSeconds && r.exchangeTimeSeconds)
      s += " (kernels " + formatSeconds(*r.kernelTimeSeconds) + ", exchanges " + formatSeconds(*r.exchangeTimeSeconds) + ", none hidden)";
  }
  if (r.searchSeconds) s += ", search " + formatSeconds(*r.searchSeconds);
  if (r.microBatches > 1) {
    // The step's figures above, as the program runs them: the body per micro-batch, the rest once.
    s += "\nstep of " + std::to_string(r.microBatches) + " micro-batches: per micro-batch traffic " +
         formatBytes(r.perMicroBatchTrafficBytes);
    if (r.perMicroBatchTimeSeconds) s += ", time " + formatSeconds(*r.perMicroBatchTimeSeconds);
    s += "; once per step traffic " + formatBytes(r.oncePerStepTrafficBytes);
    if (r.oncePerStepTimeSeconds) s += ", time " + formatSeconds(*r.oncePerStepTimeSeconds);
  }
  return s;
}

std::string renderTable(const Report& r) {
  std::string out = "graph " + r.graph + "  devices " + std::to_string(r.devices) + "  algorithm " + r.algorithm +
                    "  objective " + objectiveName(r.objective) + "  dtype " + r.dtype + "\n\n";
  out += renderAligned(nodeTable(r, true));
  if (!r.edges.empty()) out += "\n" + renderAligned(edgeTable(r, true, " -> "));
  out += "\n" + summaryLine(r) + "\n";
  for (const auto& note : r.notes) out += "note: " + note + "\n";
  return out;
}

std::string renderMarkdown(const Report& r) {
  std::string out = "# Plan for `" + r.graph + "`: " + std::to_string(r.devices) + " devices, " + r.algorithm + ", objective " +
                    objectiveName(r.objective) + ", " + r.dtype + "\n\n";
  out += renderMarkdownTable(nodeTable(r, true));
  if (!r.edges.empty()) out += "\n" + renderMarkdownTable(edgeTable(r, true, " → "));
  out += "\n" + summaryLine(r) + "\n";
  for (const auto& note : r.notes) out += "\n- " + note;
  if (!r.notes.empty()) out += "\n";
  return out;
}

std::string renderCsv(const Report& r) { return renderCsvTable(nodeTable(r, false)); }

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

nlohmann::ordered_json reportJson(const Report& r, bool withPlacements) {
  nlohmann::ordered_json j;
  j["schema_version"] = 1;
  j["tool"] = {{"name", r.provenance.toolName}, {"version", r.provenance.toolVersion}};
  j["command"] = r.provenance.commandLine;
  j["graph_sha256"] = r.provenance.graphSha256;
  j["graph"] = r.graph;
  j["devices"] = r.devices;
  j["algorithm"] = r.algorithm;
  j["objective"] = objectiveName(r.objective);
  j["dtype"] = r.dtype;
  j["nodes"] = nlohmann::ordered_json::array();
  for (const auto& n : r.nodes) {
    nlohmann::ordered_json node;
    node["name"] = n.name;
    node["partition"] = partitionJson(n.labels, n.parts);
    node["kernel_calls"] = n.kernelCalls;
    node["output_partition"] = partitionJson(n.outputLabels, n.outputParts);
    if (withPlacements) node["placement"] = n.placement;
    else node["placement"] = nullptr;  // written from the report (renderReport)
    node["cost"] = {{"join", n.join}, {"agg", n.agg}, {"repart_in", n.repartIn}, {"total", n.total}};
    node["traffic_bytes"] = n.trafficBytes;
    node["traffic_in_bytes"] = n.trafficInBytes;
    node["traffic_agg_bytes"] = n.trafficAggBytes;
    node["intra_node_bytes"] = n.trafficBytes - n.interNodeBytes;
    node["inter_node_bytes"] = n.interNodeBytes;
    if (!n.reducedAtReadBy.empty()) node["reduced_at_read_by"] = n.reducedAtReadBy;
    node["flops"] = n.flops;
    node["bytes_per_device"] = n.bytesPerDevice;
    node["live_bytes"] = n.liveBytes;
    node["resident_input_bytes"] = n.residentInputBytes;
    if (n.fallback) node["fallback"] = true;
    if (n.timeSeconds) node["estimated_time_s"] = *n.timeSeconds;
    if (n.kernelTimeSeconds) node["estimated_kernel_time_s"] = *n.kernelTimeSeconds;
    if (n.exchangeTimeSeconds) node["estimated_exchange_time_s"] = *n.exchangeTimeSeconds;
    if (n.gemmPath != einrt::program::GemmPlanned::Rule) node["gemm_path"] = einrt::program::gemmPlannedName(n.gemmPath);
    j["nodes"].push_back(std::move(node));
  }
  j["edges"] = nlohmann::ordered_json::array();
  for (const auto& e : r.edges) {
    nlohmann::ordered_json edge{{"from", e.from}, {"to", e.to}, {"operand", e.operand}, {"cost", e.cost},
                                {"traffic_bytes", e.trafficBytes}, {"intra_node_bytes", e.trafficBytes - e.interNodeBytes},
                                {"inter_node_bytes", e.interNodeBytes}};
    if (e.timeSeconds) edge["estimated_time_s"] = *e.timeSeconds;
    if (!e.readsCopyOf.empty()) edge["reads_copy_of"] = e.readsCopyOf;
    if (e.reducesPartials) edge["reduces_partials"] = true;
    j["edges"].push_back(std::move(edge));
  }
  j["total_cost"] = r.totalCost;
  j["total_bytes"] = r.totalBytes;
  j["total_traffic_bytes"] = r.totalTrafficBytes;
  j["intra_node_bytes"] = r.totalTrafficBytes - r.totalInterNodeBytes;
  j["inter_node_bytes"] = r.totalInterNodeBytes;
  j["ranks_per_node"] = r.ranksPerNode > 0 ? r.ranksPerNode : r.devices;
  j["total_flops"] = r.totalFlops;
  j["peak_bytes_per_device"] = r.peakBytesPerDevice;
  j["peak_bytes_per_rank"] = r.peakBytesPerRank;
  j["tile_workspace_bytes_per_rank"] = r.tileWorkspaceBytesPerRank;
  if (r.estimatedTimeSeconds) j["estimated_time_s"] = *r.estimatedTimeSeconds;
  if (r.kernelTimeSeconds) j["estimated_kernel_time_s"] = *r.kernelTimeSeconds;
  if (r.exchangeTimeSeconds) j["estimated_exchange_time_s"] = *r.exchangeTimeSeconds;
  if (r.microBatches > 1) {
    nlohmann::ordered_json mb{{"count", r.microBatches},
                              {"per_micro_batch_traffic_bytes", r.perMicroBatchTrafficBytes},
                              {"once_per_step_traffic_bytes", r.oncePerStepTrafficBytes}};
    if (r.perMicroBatchTimeSeconds) mb["per_micro_batch_time_s"] = *r.perMicroBatchTimeSeconds;
    if (r.oncePerStepTimeSeconds) mb["once_per_step_time_s"] = *r.oncePerStepTimeSeconds;
    j["micro_batches"] = std::move(mb);
  }
  if (r.searchSeconds) j["search_time_s"] = *r.searchSeconds;
  j["optimal"] = r.optimal;
  j["notes"] = r.notes;
  if (r.partialsOnOwners) j["partials_on_owners"] = true;
  if (r.invariantsPerMicroBatch) j["invariants_per_micro_batch"] = true;
  if (!r.fusedGradientCasts.empty()) {
    j["fused_gradient_casts"] = nlohmann::ordered_json::array();
    for (const FusedGradientCast& e : r.fusedGradientCasts) j["fused_gradient_casts"].push_back(e.cast);
  }
  if (!r.shardAtRest.empty()) {
    j["shard_at_rest"] = nlohmann::ordered_json::array();
    for (const ShardAtRest& e : r.shardAtRest) j["shard_at_rest"].push_back(e.input);
  }
  if (!r.recompute.empty()) {
    j["recompute"] = nlohmann::ordered_json::array();
    for (const Recompute& e : r.recompute) j["recompute"].push_back({{"node", e.node}, {"from", e.from}});
  }
  return j;
}

namespace {

bool isNumberArray(const nlohmann::ordered_json& j) {
  return j.is_array() && !j.empty() && std::all_of(j.begin(), j.end(), [](const auto& v) { return v.is_number(); });
}

void appendNumber(std::string& out, const nlohmann::ordered_json& v) {
  if (v.is_number_integer()) {
    char digits[24];
    const auto end = v.is_number_unsigned() ? std::to_chars(digits, digits + sizeof digits, v.get<uint64_t>()).ptr
                                            : std::to_chars(digits, digits + sizeof digits, v.get<int64_t>()).ptr;
    out.append(digits, end);
  } else {
    out += v.dump();  // nlohmann's shortest round-trip form, as dump(2) writes it
  }
}

// A plan's placements, written from the report as the tree reaches them rather than held
// in it: p numbers per node are most of a plan file (LLaMA-65B at p = 16,384: 43 million,
// 700 MB as tree values). The tree has null in their place (reportJson(r, false)).
struct Placements {
  const Report* report = nullptr;
  std::size_t next = 0;  // the node whose placement comes next
};

// Integers as a number array is written: [a, b, c], or [] when there are none.
void appendIntegers(std::string& out, const std::vector<int>& values) {
  out += "[";
  char digits[16];
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out.append(digits, std::to_chars(digits, digits + sizeof digits, values[i]).ptr);
  }
  out += "]";
}

// The characters appendIntegers writes for every node's placement.
std::size_t placementCharacters(const Report& r) {
  std::size_t chars = 0;
  char digits[16];
  for (const auto& node : r.nodes) {
    chars += 2 + (node.placement.empty() ? 0 : 2 * (node.placement.size() - 1));
    for (int rank : node.placement) chars += static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, rank).ptr - digits);
  }
  return chars;
}

void appendPretty(std::string& out, const nlohmann::ordered_json& j, std::size_t depth, Placements& placements) {
  const std::string inner(2 * (depth + 1), ' ');
  if (j.is_object() && !j.empty()) {
    out += "{\n";
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) out += ",\n";
      first = false;
      out += inner;
      out += nlohmann::ordered_json(it.key()).dump();
      out += ": ";
      if (placements.report && depth == 2 && it.key() == "placement" && it.value().is_null())
        appendIntegers(out, placements.report->nodes[placements.next++].placement);
      else
        appendPretty(out, it.value(), depth + 1, placements);
    }
    out += "\n" + std::string(2 * depth, ' ') + "}";
  } else if (isNumberArray(j)) {
    out += "[";
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (i > 0) out += ", ";
      appendNumber(out, j[i]);
    }
    out += "]";
  } else if (j.is_array() && !j.empty()) {
    out += "[\n";
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (i > 0) out += ",\n";
      out += inner;
      appendPretty(out, j[i], depth + 1, placements);
    }
    out += "\n" + std::string(2 * depth, ' ') + "]";
  } else {
    out += j.dump();  // scalars, [] and {}
  }
}

}  // namespace

std::string prettyJson(const nlohmann::ordered_json& j) {
  std::string out;
  Placements none;
  appendPretty(out, j, 0, none);
  return out;
}

std::string renderReport(const Report& r, ReportFormat format) {
  switch (format) {
    case ReportFormat::Table: return renderTable(r);
    case ReportFormat::Markdown: return renderMarkdown(r);
    case ReportFormat::Csv: return renderCsv(r);
    case ReportFormat::Json: {
      // prettyJson(reportJson(r)), the placements written straight from the report.
      // Room for the placements and the rest reserved at once: grown by doubling, the text
      // of a plan for p = 16,384 (260 MB) held its old and new copies together, 770 MB.
      // Pages the rest does not reach are never touched, so the slack costs no memory.
      std::string out;
      out.reserve(placementCharacters(r) + (std::size_t{64} << 20));
      Placements placements{&r, 0};
      appendPretty(out, reportJson(r, false), 0, placements);
      out += "\n";
      return out;
    }
    case ReportFormat::Yaml: return jsonToYaml(reportJson(r));
  }
  return renderTable(r);
}

}  // namespace eindecomp
