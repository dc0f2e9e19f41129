// Renderings of a Report: table (default; aligned columns, human units such as 1.2 MiB
// and 3.4 GFLOP), markdown, csv (one row per node plus a total row, same columns), json
// (SPEC 6's keys, in SPEC 6's order, provenance first; extra keys after them) and yaml
// (the same tree). Human units come from planner/graph/units.h, tables from text_table.h.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "planner/report/report.h"

namespace eindecomp {

enum class ReportFormat { Table, Markdown, Csv, Json, Yaml };

// "table" | "markdown" | "csv" | "json" | "yaml"; InputError (exit 2) otherwise.
ReportFormat parseReportFormat(const std::string& name);
// By extension, in any case: .json, .yaml/.yml, .md, .csv, anything else -> table.
ReportFormat reportFormatForPath(const std::string& path);

// The report as a JSON tree; without placements, each node's "placement" is null (what
// renderReport fills in as it writes, not holding p numbers per node as tree values).
nlohmann::ordered_json reportJson(const Report& r, bool withPlacements = true);
std::string renderReport(const Report& r, ReportFormat format);

// JSON text as dump(2) writes it, except that an array of numbers is written on one line
// ([0, 1, 2]): a plan's placements are p numbers per node, one line each instead of one
// line per rank (a plan of LLaMA-65B at p = 4096 was 145 MB, mostly indentation). The
// document read back is the same.
std::string prettyJson(const nlohmann::ordered_json& j);

// JSON -> YAML text (block style, keys in order).
std::string jsonToYaml(const nlohmann::ordered_json& j);

// "i:4 j:1 k:4"
std::string partitionText(const Labels& labels, const Parts& parts);

}  // namespace eindecomp
