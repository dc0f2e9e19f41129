#include "planner/report/compare.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

namespace eindecomp {

int reducedParallelismNodes(const Report& r) {
  int count = 0;
  for (const auto& n : r.nodes) count += n.kernelCalls < r.devices && !n.fallback;
  return count;
}

Comparison makeComparison(std::vector<ComparisonEntry> entries) {
  Comparison c;
  c.entries = std::move(entries);
  // Fewer kernel calls always move less data (a serial plan moves nothing but its inputs),
  // so plans that leave devices idle compete only when no plan uses them all.
  for (bool fullOnly : {true, false}) {
    for (std::size_t i = 0; i < c.entries.size(); ++i) {
      const auto& r = c.entries[i].report;
      if (!r || (fullOnly && reducedParallelismNodes(*r) > 0)) continue;
      if (c.best < 0 || r->totalCost < c.entries[c.best].report->totalCost) c.best = static_cast<int>(i);
    }
    if (c.best >= 0) break;
  }
  return c;
}

namespace {

std::vector<std::string> header() {
  return {"best", "algorithm", "total_cost", "total_bytes", "join", "agg", "repart", "peak_bytes_per_device", "search_time",
          "reduced_calls"};
}

std::vector<std::string> row(const Comparison& c, std::size_t i, bool human) {
  const ComparisonEntry& e = c.entries[i];
  std::string mark = static_cast<int>(i) == c.best ? "*" : "";
  if (!e.report) return {mark, e.algorithm, "n/a: " + e.error, "", "", "", "", "", "", ""};
  const Report& r = *e.report;
  int64_t join = 0, agg = 0, repart = 0;
  for (const auto& n : r.nodes) {
    join += n.join;
    agg += n.agg;
    repart += n.repartIn;
  }
  std::ostringstream seconds;
  seconds << r.searchSeconds;
  return {mark, e.algorithm, std::to_string(r.totalCost), human ? humanBytes(r.totalBytes) : std::to_string(r.totalBytes),
          std::to_string(join), std::to_string(agg), std::to_string(repart),
          human ? humanBytes(r.peakBytesPerDevice) : std::to_string(r.peakBytesPerDevice),
          human ? humanSeconds(r.searchSeconds) : seconds.str(), std::to_string(reducedParallelismNodes(r))};
}

}  // namespace

std::string renderComparison(const Comparison& c, ReportFormat format) {
  if (format == ReportFormat::Json || format == ReportFormat::Yaml) {
    nlohmann::ordered_json j;
    j["schema_version"] = 1;
    j["best"] = c.best >= 0 ? nlohmann::ordered_json(c.entries[c.best].algorithm) : nlohmann::ordered_json(nullptr);
    j["algorithms"] = nlohmann::ordered_json::array();
    for (const auto& e : c.entries) {
      if (e.report) j["algorithms"].push_back(reportJson(*e.report));
      else j["algorithms"].push_back({{"algorithm", e.algorithm}, {"error", e.error}});
    }
    return format == ReportFormat::Json ? j.dump(2) + "\n" : jsonToYaml(j);
  }
  std::vector<std::vector<std::string>> rows{header()};
  for (std::size_t i = 0; i < c.entries.size(); ++i) rows.push_back(row(c, i, format != ReportFormat::Csv));
  std::string out;
  if (format == ReportFormat::Csv) {
    for (const auto& r : rows) {
      std::string line;
      for (std::size_t k = 0; k < r.size(); ++k) line += (k ? "," : "") + r[k];
      out += line + "\n";
    }
    return out;
  }
  if (format == ReportFormat::Markdown) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      std::string line = "|";
      for (const auto& cell : rows[i]) line += " " + cell + " |";
      out += line + "\n";
      if (i == 0) {
        std::string rule = "|";
        for (std::size_t k = 0; k < rows[0].size(); ++k) rule += k >= 2 ? " ---: |" : " --- |";
        out += rule + "\n";
      }
    }
    return out;
  }
  std::vector<std::size_t> width(rows[0].size(), 0);
  for (const auto& r : rows)
    for (std::size_t k = 0; k < r.size(); ++k) width[k] = std::max(width[k], r[k].size());
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t k = 0; k < r.size(); ++k) {
      std::string pad(width[k] - r[k].size(), ' ');
      line += (k >= 2 ? pad + r[k] : r[k] + pad) + (k + 1 < r.size() ? "  " : "");
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

int64_t readBaselineTotalCost(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw InputError({{path, 0, 0}, "cannot read baseline report"});
  } catch (const YAML::ParserException& e) {
    throw InputError({{path, e.mark.line + 1, e.mark.column + 1}, "baseline report: " + e.msg});
  }
  const YAML::Node total = root.IsMap() ? root["total_cost"] : YAML::Node();
  if (!total) throw InputError({{path, 1, 1}, "baseline report has no 'total_cost'"});
  try {
    int64_t v = total.as<int64_t>();
    if (v < 0) throw YAML::Exception(total.Mark(), "negative");
    return v;
  } catch (const YAML::Exception&) {
    throw InputError({{path, total.Mark().line + 1, total.Mark().column + 1}, "'total_cost' must be a non-negative integer"});
  }
}

bool regresses(int64_t cost, int64_t baseline, double tolerance) {
  return static_cast<long double>(cost) > static_cast<long double>(baseline) * (1.0L + tolerance);
}

}  // namespace eindecomp
