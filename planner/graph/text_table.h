// The one table renderer of the tools: a header and rows of cells, rendered as aligned
// text (numeric columns right-aligned, two spaces between columns, an optional indent),
// as a Markdown table or as CSV (cells quoted where they hold a comma, a quote or a line
// break). Every table einplan and eincodegen print goes through it — check's summary,
// the path report, plan reports and comparisons — so they look alike.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace eindecomp {

struct TextTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> numeric;  // per column: right-aligned (default false)
};

std::string renderAligned(const TextTable& t, const std::string& indent = "");
std::string renderMarkdownTable(const TextTable& t);
std::string renderCsvTable(const TextTable& t);

}  // namespace eindecomp
