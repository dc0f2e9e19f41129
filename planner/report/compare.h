// `einplan compare`: several algorithms' reports side by side — traffic, the paper's
// cost and (with a machine) the estimated time — the cheapest under the objective marked
// (plans that leave devices idle on some node are flagged and only win when all do), and
// the CI gate against a baseline: the chosen plan (the first algorithm listed) regresses
// when its objective value exceeds the baseline's by more than the tolerance. A baseline
// is a plan report (`einplan plan --format json`, a plan file) or compare's own JSON or
// YAML output (its first algorithm); it must be for the same graph (graph_sha256) and
// device count, else it is refused (exit 2) naming the difference.
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
  bool noPlan = false;           // it failed because no plan fits --mem-limit (exit 3)
};

struct Comparison {
  Objective objective = Objective::Traffic;
  std::vector<ComparisonEntry> entries;
  // The cheapest successful entry under the objective (first on ties) among those whose
  // every node runs the full device count where it can; among all entries when none does.
  int best = -1;
};

// Nodes running fewer kernel calls than they could (the device count, or the largest
// feasible count below it), e.g. `data` on a batch of 1.
int reducedParallelismNodes(const Report& r);

Comparison makeComparison(Objective objective, std::vector<ComparisonEntry> entries);

// table | markdown | csv | json | yaml
std::string renderComparison(const Comparison& c, ReportFormat format);

struct Baseline {
  std::string path;
  std::string graphSha256;
  int64_t devices = 0;
  std::optional<int64_t> totalCost, totalTrafficBytes;
  std::optional<double> estimatedTimeSeconds;
};

// Reads a baseline report; InputError (exit 2) naming the file, line and field otherwise.
Baseline readBaseline(const std::string& path);

// The baseline's number for the objective, after checking that it was made for the same
// graph and device count (InputError, exit 2, naming the difference or the missing key).
double baselineValue(const Baseline& baseline, Objective objective, const std::string& graphSha256, int64_t devices);

// True when `value` is worse than `baseline` by more than `tolerance` (relative, >= 0).
bool regresses(double value, double baseline, double tolerance);

}  // namespace eindecomp
