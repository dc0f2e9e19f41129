#include "planner/paths/path_options.h"

#include <charconv>
#include <cstdio>

#include "planner/graph/diagnostic.h"

namespace eindecomp {

namespace {

// Digits with at most one decimal point, and nothing else.
bool parseDecimal(const std::string& text, double& value) {
  if (text.empty() || text.size() > 20) return false;
  int points = 0;
  for (char c : text) {
    if (c == '.') ++points;
    else if (c < '0' || c > '9') return false;
  }
  if (points > 1 || text == ".") return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && ptr == text.data() + text.size();
}

}  // namespace

PathBudget parsePathBudget(const std::string& text, const std::string& option) {
  const std::string hint = option + ": '" + text + "' is not a number of trials (e.g. 256) or a time (e.g. 500ms, 5s)";
  PathBudget b;
  const bool ms = text.size() > 2 && text.compare(text.size() - 2, 2, "ms") == 0;
  const bool s = !ms && text.size() > 1 && text.back() == 's';
  if (ms || s) {
    double value = 0;
    if (!parseDecimal(text.substr(0, text.size() - (ms ? 2 : 1)), value)) throw InputError({{}, hint});
    b.seconds = ms ? value / 1000 : value;
    // A day is far beyond any sensible search; the bound keeps the clock arithmetic safe.
    if (!(b.seconds >= 0.001) || b.seconds > 86400)
      throw InputError({{}, option + ": '" + text + "' is not a time from 1ms to 86400s"});
    return b;
  }
  int64_t trials = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), trials);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) throw InputError({{}, hint});
  if (trials < 1 || trials > 100000000)
    throw InputError({{}, option + ": '" + text + "' is not a number of trials from 1 to 100000000"});
  b.trials = trials;
  return b;
}

PathObjective parsePathObjective(const std::string& text, const std::string& option) {
  if (text == "flops") return PathObjective::Flops;
  if (text == "memory") return PathObjective::Memory;
  throw InputError({{}, option + ": '" + text + "' is not an objective (flops or memory)"});
}

uint64_t parsePathSeed(const std::string& text, const std::string& option) {
  uint64_t seed = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
    throw InputError({{}, option + ": '" + text + "' is not an integer from 0 to 2^64 - 1"});
  return seed;
}

PathOptions parsePathOptions(const std::string& budget, const std::string& objective, const std::string& seed) {
  PathOptions o;
  if (!budget.empty()) o.budget = parsePathBudget(budget, "--path-budget");
  if (!objective.empty()) o.objective = parsePathObjective(objective, "--path-objective");
  if (!seed.empty()) o.seed = parsePathSeed(seed, "--path-seed");
  return o;
}

std::string describePathBudget(const PathBudget& b) {
  if (b.seconds > 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g s", b.seconds);
    return buf;
  }
  return std::to_string(b.trials) + (b.trials == 1 ? " trial" : " trials");
}

const char* pathObjectiveName(PathObjective o) { return o == PathObjective::Flops ? "flops" : "memory"; }

}  // namespace eindecomp
