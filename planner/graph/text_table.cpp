#include "planner/graph/text_table.h"

#include <algorithm>

namespace eindecomp {

namespace {

bool isNumeric(const TextTable& t, std::size_t column) { return column < t.numeric.size() && t.numeric[column]; }

}  // namespace

std::string renderAligned(const TextTable& t, const std::string& indent) {
  std::vector<std::size_t> width(t.header.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], row[c].size());
    }
  };
  measure(t.header);
  for (const auto& row : t.rows) measure(row);
  std::string out;
  auto print = [&](const std::vector<std::string>& row) {
    std::string line = indent;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string pad(width[c] - row[c].size(), ' ');
      line += isNumeric(t, c) ? pad + row[c] : row[c] + pad;
      if (c + 1 < row.size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  };
  print(t.header);
  for (const auto& row : t.rows) print(row);
  return out;
}

std::string renderMarkdownTable(const TextTable& t) {
  auto line = [](const std::vector<std::string>& cells) {
    std::string s = "|";
    for (const auto& c : cells) {
      std::string escaped;
      for (char ch : c) escaped += ch == '|' ? std::string("\\|") : std::string(1, ch);
      s += " " + escaped + " |";
    }
    return s + "\n";
  };
  std::string out = line(t.header);
  std::vector<std::string> rule;
  for (std::size_t c = 0; c < t.header.size(); ++c) rule.push_back(isNumeric(t, c) ? "---:" : "---");
  out += line(rule);
  for (const auto& row : t.rows) out += line(row);
  return out;
}

std::string renderCsvTable(const TextTable& t) {
  auto cell = [](const std::string& c) {
    if (c.find_first_of(",\"\n\r") == std::string::npos) return c;
    std::string q = "\"";
    for (char ch : c) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  };
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (std::size_t c = 0; c < cells.size(); ++c) s += (c ? "," : "") + cell(cells[c]);
    return s + "\n";
  };
  std::string out = line(t.header);
  for (const auto& row : t.rows) out += line(row);
  return out;
}

}  // namespace eindecomp
