#include "planner/algorithms/planning.h"

#include <chrono>

namespace eindecomp {

const std::vector<std::string>& algorithmNames() {
  static const std::vector<std::string> names{"eindecomp", "uniform", "balanced", "data", "brute", "fixed"};
  return names;
}

Plan planGraph(const std::string& algorithm, const Graph& g, const PlanOptions& options) {
  if (options.devices <= 0) throw InputError({{}, "the device count must be a positive integer"});
  auto start = std::chrono::steady_clock::now();
  Plan plan;
  if (algorithm == "eindecomp") plan = planEindecomp(g, options);
  else if (algorithm == "uniform") plan = planUniform(g, options);
  else if (algorithm == "balanced") plan = planBalanced(g, options);
  else if (algorithm == "data") plan = planData(g, options);
  else if (algorithm == "brute") plan = planBrute(g, options);
  else if (algorithm == "fixed") plan = planFixed(g, options);
  else {
    std::string known;
    for (const auto& n : algorithmNames()) known += (known.empty() ? "" : ", ") + n;
    throw InputError({{}, "unknown algorithm '" + algorithm + "' (known: " + known + ")"});
  }
  plan.searchSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return plan;
}

}  // namespace eindecomp
