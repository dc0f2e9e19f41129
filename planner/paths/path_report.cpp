// formatPathReport (declared in split_nary.h): the per-node contraction path table that
// `einplan check` prints, modelled on opt_einsum's PathInfo.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "planner/paths/split_nary.h"

namespace eindecomp {

namespace {

std::string joinNames(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::string positional(const std::vector<std::pair<int, int>>& path) {
  std::string s;
  for (const auto& [a, b] : path) s += (s.empty() ? "" : ", ") + ("(" + std::to_string(a) + ", " + std::to_string(b) + ")");
  return "[" + s + "]";
}

std::string padRight(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

}  // namespace

std::string formatPathReport(const std::vector<ContractionPathInfo>& infos) {
  std::ostringstream os;
  for (const auto& info : infos) {
    char speedup[32];
    std::snprintf(speedup, sizeof speedup, "%.4g", info.speedup);
    os << "Contraction path of node " << info.node << ": " << info.einsum << "\n";
    os << "  Operands:              " << info.operandCount << " ("
       << (info.exact ? "exact search" : "greedy search") << ")\n";
    os << "  Path:                  " << positional(info.path) << "\n";
    os << "  Naive FLOP count:      " << flopCountShort(info.naiveFlops) << "\n";
    os << "  Optimized FLOP count:  " << flopCountShort(info.optimizedFlops) << "\n";
    os << "  Theoretical speedup:   " << speedup << "\n";
    os << "  Largest intermediate:  " << flopCountShort(info.largestIntermediate) << " elements\n";

    const std::vector<std::string> header{"step", "operands", "einsum", "FLOPs", "kernel", "label types"};
    std::vector<std::vector<std::string>> rows;
    for (const auto& s : info.steps)
      rows.push_back({s.name, joinNames(s.operands), s.einsum, flopCountShort(s.flops),
                      kernelMappingName(s.kind), describeLabelClasses(s.classes)});
    std::vector<std::size_t> width(header.size());
    for (std::size_t c = 0; c < header.size(); ++c) {
      width[c] = header[c].size();
      for (const auto& r : rows) width[c] = std::max(width[c], r[c].size());
    }
    auto printRow = [&](const std::vector<std::string>& r) {
      std::string line = "  ";
      for (std::size_t c = 0; c < r.size(); ++c) line += (c + 1 < r.size() ? padRight(r[c], width[c] + 2) : r[c]);
      os << line << "\n";
    };
    printRow(header);
    for (const auto& r : rows) printRow(r);
  }
  return os.str();
}

}  // namespace eindecomp
