// formatPathReport and renderPathReportJson (declared in split_nary.h): the per-node
// contraction path report that `einplan check` prints, in the vocabulary of opt_einsum's
// PathInfo, with how the path was searched.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "planner/graph/text_table.h"
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

std::string number(const char* format, double value) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

// How many times better the best path is than the first, under the objective.
double improvement(const ContractionPathInfo& info) {
  const PathSearchStats& s = info.search;
  const bool memory = s.options.objective == PathObjective::Memory;
  const FlopCount first = memory ? s.first.largest : s.first.flops;
  const FlopCount best = memory ? info.largestIntermediate : info.optimizedFlops;
  return best == 0 ? 1.0 : flopCountToDouble(first) / flopCountToDouble(best);
}

// The search's lines of the report: exact, or the budget spent and what it gained.
void describeSearch(const ContractionPathInfo& info, std::vector<std::pair<std::string, std::string>>& fields) {
  const PathSearchStats& s = info.search;
  const std::string objective = pathObjectiveName(s.options.objective);
  if (s.exact) {
    fields.push_back({"Search", "exact (dynamic program over " + std::to_string(info.operandCount) +
                                    " operands, objective " + objective + ")"});
    return;
  }
  fields.push_back({"Search", std::to_string(s.trials) + " trials in " + number("%.3g", s.seconds) + " s (budget " +
                                  describePathBudget(s.options.budget) + ", seed " + std::to_string(s.options.seed) +
                                  ", objective " + objective + ")"});
  fields.push_back({"Best from", s.bestStrategy + " (trial " + std::to_string(s.bestTrial) + "), reconfigured in " +
                                     std::to_string(s.finalWindow) + "-leaf windows"});
  fields.push_back({"First path", flopCountShort(s.first.flops) + " FLOPs, largest intermediate " +
                                      flopCountShort(s.first.largest) + " (trial 0: greedy by FLOPs + reconfiguration)"});
  fields.push_back({"Improvement", number("%.3g", improvement(info)) + "x " +
                                       (s.options.objective == PathObjective::Memory ? "smaller largest intermediate"
                                                                                     : "fewer FLOPs") +
                                       " than the first path"});
}

}  // namespace

std::string formatPathReport(const std::vector<ContractionPathInfo>& infos) {
  std::ostringstream os;
  for (const auto& info : infos) {
    std::vector<std::pair<std::string, std::string>> fields{
        {"Complete contraction", info.einsum},
        {"Operands", std::to_string(info.operandCount)},
        {"Naive scaling", std::to_string(info.naiveScaling)},
        {"Optimized scaling", std::to_string(info.optimizedScaling)},
        {"Naive FLOP count", flopCountShort(info.naiveFlops)},
        {"Optimized FLOP count", flopCountShort(info.optimizedFlops)},
        {"Theoretical speedup", number("%.4g", info.speedup)},
        {"Largest intermediate", flopCountShort(info.largestIntermediate) + " elements"},
    };
    describeSearch(info, fields);
    fields.push_back({"Path", positional(info.path)});
    os << "Contraction path of node " << info.node << "\n";
    for (const auto& [label, value] : fields) os << "  " << padRight(label + ":", 23) << value << "\n";

    TextTable steps;
    steps.header = {"step", "operands", "einsum", "scaling", "FLOPs", "kernel", "label types"};
    steps.numeric = {false, false, false, true, true, false, false};
    for (const auto& s : info.steps)
      steps.rows.push_back({s.name, joinNames(s.operands), s.einsum, std::to_string(s.scaling), flopCountShort(s.flops),
                            kernelMappingName(s.kind), describeLabelClasses(s.classes)});
    os << renderAligned(steps, "  ");
  }
  return os.str();
}

std::string renderPathReportJson(const std::vector<ContractionPathInfo>& infos) {
  using nlohmann::ordered_json;
  ordered_json all = ordered_json::array();
  for (const auto& info : infos) {
    const PathSearchStats& s = info.search;
    ordered_json j;
    j["node"] = info.node;
    j["complete_contraction"] = info.einsum;
    j["operands"] = info.operandCount;
    j["naive_scaling"] = info.naiveScaling;
    j["optimized_scaling"] = info.optimizedScaling;
    j["naive_flops"] = flopCountDecimal(info.naiveFlops);
    j["optimized_flops"] = flopCountDecimal(info.optimizedFlops);
    j["speedup"] = info.speedup;
    j["largest_intermediate"] = flopCountDecimal(info.largestIntermediate);
    ordered_json search;
    search["method"] = s.exact ? "exact" : "search";
    search["objective"] = pathObjectiveName(s.options.objective);
    if (s.options.budget.seconds > 0) search["budget_seconds"] = s.options.budget.seconds;
    else search["budget_trials"] = s.options.budget.trials;
    search["seed"] = s.options.seed;
    search["trials"] = s.trials;
    search["seconds"] = s.seconds;
    search["first_flops"] = flopCountDecimal(s.first.flops);
    search["first_largest_intermediate"] = flopCountDecimal(s.first.largest);
    search["improvement"] = improvement(info);
    search["best_strategy"] = s.bestStrategy;
    search["best_trial"] = s.bestTrial;
    search["final_window"] = s.finalWindow;
    j["search"] = search;
    j["path"] = ordered_json::array();
    for (const auto& [a, b] : info.path) j["path"].push_back({a, b});
    j["steps"] = ordered_json::array();
    for (const auto& st : info.steps)
      j["steps"].push_back({{"name", st.name},
                            {"operands", st.operands},
                            {"einsum", st.einsum},
                            {"scaling", st.scaling},
                            {"flops", flopCountDecimal(st.flops)},
                            {"result_size", flopCountDecimal(st.resultSize)},
                            {"kernel", kernelMappingName(st.kind)}});
    all.push_back(j);
  }
  return all.dump(2);
}

}  // namespace eindecomp
