#include "planner/report/compare.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <type_traits>

#include "planner/graph/document.h"
#include "planner/graph/input_file.h"
#include "planner/graph/text_table.h"
#include "planner/graph/units.h"

namespace eindecomp {

int reducedParallelismNodes(const Report& r) {
  int count = 0;
  for (const auto& n : r.nodes) count += n.kernelCalls < n.fullCalls;
  return count;
}

Comparison makeComparison(Objective objective, std::vector<ComparisonEntry> entries) {
  Comparison c;
  c.objective = objective;
  c.entries = std::move(entries);
  // Fewer kernel calls always move less data (a serial plan moves nothing but its inputs),
  // so plans that leave devices idle compete only when no plan uses them all.
  for (bool fullOnly : {true, false}) {
    for (std::size_t i = 0; i < c.entries.size(); ++i) {
      const auto& r = c.entries[i].report;
      if (!r || (fullOnly && reducedParallelismNodes(*r) > 0)) continue;
      if (c.best < 0 || r->objectiveValue() < c.entries[static_cast<std::size_t>(c.best)].report->objectiveValue())
        c.best = static_cast<int>(i);
    }
    if (c.best >= 0) break;
  }
  return c;
}

namespace {

TextTable comparisonTable(const Comparison& c, bool human) {
  bool timed = false, cluster = false;
  for (const auto& e : c.entries) {
    timed = timed || (e.report && e.report->estimatedTimeSeconds);
    cluster = cluster || (e.report && e.report->ranksPerNode > 0 && e.report->ranksPerNode < e.report->devices);
  }
  TextTable t;
  t.header = {"best", "algorithm", "traffic_bytes"};
  if (cluster) t.header.push_back("inter_node_bytes");
  for (const char* h : {"paper_cost", "paper_bytes"}) t.header.push_back(h);
  if (timed) t.header.push_back("estimated_time");
  for (const char* h : {"peak_bytes_per_device", "search_time", "reduced_calls"}) t.header.push_back(h);
  t.numeric.assign(t.header.size(), true);
  t.numeric[0] = t.numeric[1] = false;
  auto bytes = [&](int64_t b) { return human ? formatBytes(b) : std::to_string(b); };
  auto seconds = [&](double s) { return human ? formatSeconds(s) : numberText(s); };
  for (std::size_t i = 0; i < c.entries.size(); ++i) {
    const ComparisonEntry& e = c.entries[i];
    std::vector<std::string> row{static_cast<int>(i) == c.best ? "*" : "", e.algorithm};
    if (!e.report) {
      row.resize(t.header.size(), "n/a");
      t.rows.push_back(std::move(row));
      continue;
    }
    const Report& r = *e.report;
    row.push_back(bytes(r.totalTrafficBytes));
    if (cluster) row.push_back(bytes(r.totalInterNodeBytes));
    row.insert(row.end(), {std::to_string(r.totalCost), bytes(r.totalBytes)});
    if (timed) row.push_back(r.estimatedTimeSeconds ? seconds(*r.estimatedTimeSeconds) : "n/a");
    row.insert(row.end(), {bytes(r.peakBytesPerDevice), seconds(r.searchSeconds.value_or(0)), std::to_string(reducedParallelismNodes(r))});
    t.rows.push_back(std::move(row));
  }
  return t;
}

// The entries that failed, one line each, under the table.
// Why a column has no plan, and — in words, not only in the reduced_calls column — which
// plans leave devices idle: they move less by doing less, so "cheapest" skips them while
// any plan uses every device.
std::string failures(const Comparison& c, const std::string& prefix) {
  std::string out;
  for (const auto& e : c.entries)
    if (!e.report) out += prefix + e.algorithm + ": " + e.error + "\n";
  for (const auto& e : c.entries)
    if (e.report && reducedParallelismNodes(*e.report) > 0) {
      const int n = reducedParallelismNodes(*e.report);
      out += "note: " + e.algorithm + " runs fewer kernel calls than it could on " + std::to_string(n) + " node" +
             (n == 1 ? "" : "s") + " (devices left idle): it moves less by doing less, so it is not marked cheapest " +
             "while a plan that uses every device exists, whatever its traffic\n";
    }
  return out;
}

}  // namespace

std::string renderComparison(const Comparison& c, ReportFormat format) {
  switch (format) {
    case ReportFormat::Json:
    case ReportFormat::Yaml: {
      nlohmann::ordered_json j;
      j["schema_version"] = 1;
      j["objective"] = objectiveName(c.objective);
      j["best"] = c.best >= 0 ? nlohmann::ordered_json(c.entries[static_cast<std::size_t>(c.best)].algorithm)
                              : nlohmann::ordered_json(nullptr);
      j["algorithms"] = nlohmann::ordered_json::array();
      for (const auto& e : c.entries) {
        if (e.report) j["algorithms"].push_back(reportJson(*e.report));
        else j["algorithms"].push_back({{"algorithm", e.algorithm}, {"error", e.error}});
      }
      return format == ReportFormat::Json ? prettyJson(j) + "\n" : jsonToYaml(j);
    }
    case ReportFormat::Csv: return renderCsvTable(comparisonTable(c, false));
    case ReportFormat::Markdown: {
      std::string notes = failures(c, "- ");
      return renderMarkdownTable(comparisonTable(c, true)) + (notes.empty() ? "" : "\n" + notes);
    }
    case ReportFormat::Table: break;
  }
  std::string out = "objective " + std::string(objectiveName(c.objective)) + " (* = cheapest)\n\n" +
                    renderAligned(comparisonTable(c, true));
  const std::string notes = failures(c, "n/a: ");
  return notes.empty() ? out : out + "\n" + notes;
}

namespace {

// A report's field: absent, or a non-negative number.
template <class T>
std::optional<T> numberField(const DocFields& report, const char* key) {
  const DocField* v = report.find(key);
  if (!v) return std::nullopt;
  const ScalarKind kind = v->value.IsScalar() ? kindOf(v->value) : ScalarKind::Null;
  const bool integer = std::is_integral_v<T>;
  if (!(kind == ScalarKind::Integer || (!integer && kind == ScalarKind::Float)))
    throw InputError({v->valueLoc, std::string("baseline report: '") + key + "' must be a non-negative number"});
  errno = 0;
  const std::string text = v->value.Scalar();
  const T x = integer ? static_cast<T>(std::strtoll(text.c_str(), nullptr, 10)) : static_cast<T>(std::strtod(text.c_str(), nullptr));
  if (errno == ERANGE || !(x >= 0))
    throw InputError({v->valueLoc, std::string("baseline report: '") + key + "' must be a non-negative number"});
  return x;
}

}  // namespace

Baseline readBaseline(const std::string& path) {
  const Document doc = Document::read(path, "baseline report", GraphFormat::Auto, kMaxInputFileBytes);
  const YamlValue root = doc.root();
  if (!root.IsMap()) throw InputError({{path, 1, 1}, "a baseline must be a report (einplan plan --format json) or compare's JSON"});
  // Any field may be there (a report of any version, or compare's output); read what is known.
  auto fieldsOf = [&](const YamlValue& map) {
    std::vector<std::string> keys;
    for (const auto& entry : map.entries()) keys.push_back(entry.first.IsScalar() ? entry.first.Scalar() : "");
    return doc.fields(map, keys, "baseline report");
  };
  DocFields report = fieldsOf(root);
  SourceLoc reportLoc = doc.at(root);
  // compare's own output: the report of its first algorithm.
  if (const DocField* list = report.find("algorithms")) {
    const std::vector<YamlValue> items = list->value.IsSequence() ? list->value.items() : std::vector<YamlValue>{};
    if (items.empty() || !items[0].IsMap() || !fieldsOf(items[0]).find("graph_sha256"))
      throw InputError({list->valueLoc, "baseline comparison: its first algorithm has no report"});
    report = fieldsOf(items[0]);
    reportLoc = doc.at(items[0]);
  }
  Baseline b;
  b.path = path;
  const DocField* sha = report.find("graph_sha256");
  const DocField* devices = report.find("devices");
  if (!sha || !sha->value.IsScalar()) throw InputError({reportLoc, "baseline report has no 'graph_sha256'"});
  if (!devices || !devices->value.IsScalar()) throw InputError({reportLoc, "baseline report has no 'devices'"});
  b.graphSha256 = sha->value.Scalar();
  b.devices = numberField<int64_t>(report, "devices").value_or(0);
  b.totalCost = numberField<int64_t>(report, "total_cost");
  b.totalTrafficBytes = numberField<int64_t>(report, "total_traffic_bytes");
  b.estimatedTimeSeconds = numberField<double>(report, "estimated_time_s");
  return b;
}

double baselineValue(const Baseline& b, Objective objective, const std::string& graphSha256, int64_t devices) {
  if (b.graphSha256 != graphSha256)
    throw InputError({{b.path, 0, 0}, "the baseline is for another graph (graph_sha256 " + b.graphSha256.substr(0, 12) +
                                          "..., this graph " + graphSha256.substr(0, 12) + "...)"});
  if (b.devices != devices)
    throw InputError({{b.path, 0, 0}, "the baseline is for " + std::to_string(b.devices) + " devices, this comparison for " +
                                          std::to_string(devices)});
  const char* key = objective == Objective::Traffic ? "total_traffic_bytes"
                    : objective == Objective::Paper ? "total_cost"
                                                    : "estimated_time_s";
  const std::optional<double> value = objective == Objective::Traffic && b.totalTrafficBytes
                                          ? std::optional<double>(static_cast<double>(*b.totalTrafficBytes))
                                      : objective == Objective::Paper && b.totalCost ? std::optional<double>(static_cast<double>(*b.totalCost))
                                      : objective == Objective::Time ? b.estimatedTimeSeconds
                                                                     : std::nullopt;
  if (!value)
    throw InputError({{b.path, 0, 0}, std::string("baseline report has no '") + key + "' for --objective " +
                                          objectiveName(objective)});
  return *value;
}

bool regresses(double value, double baseline, double tolerance) {
  return static_cast<long double>(value) > static_cast<long double>(baseline) * (1.0L + tolerance);
}

}  // namespace eindecomp
