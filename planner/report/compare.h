// `einplan compare`: several algorithms' reports side by side, the cheapest marked (plans
// that leave devices idle on some node are flagged and only win when all do), and
// the CI check against a baseline report: the chosen plan (the first algorithm listed)
// regresses when its total cost exceeds the baseline's total_cost * (1 + tolerance).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/report/render.h"
#include "planner/report/report.h"

namespace eindecomp {

struct ComparisonEntry {
  std::string algorithm;
  std::optional<Report> report;  // absent when the algorithm failed
  std::string error;             // why it failed (e.g. brute above its limit, nothing fits)
};

struct Comparison {
  std::vector<ComparisonEntry> entries;
  // The cheapest successful entry (first on ties) among those whose every node runs the
  // full device count where it can; among all entries when none does.
  int best = -1;
};

// Nodes running fewer kernel calls than the device count although a partition with the
// full count exists (e.g. `data` on a batch of 1).
int reducedParallelismNodes(const Report& r);

Comparison makeComparison(std::vector<ComparisonEntry> entries);

// table | markdown | csv | json | yaml
std::string renderComparison(const Comparison& c, ReportFormat format);

// total_cost of a report file (JSON or YAML); InputError naming file and line otherwise.
int64_t readBaselineTotalCost(const std::string& path);

// True when `cost` is worse than `baseline` by more than `tolerance` (relative).
bool regresses(int64_t cost, int64_t baseline, double tolerance);

}  // namespace eindecomp
