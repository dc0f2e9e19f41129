#include "frontends/gen/gen_options.h"

#include "planner/graph/identifiers.h"

namespace eindecomp::gen {

void badOption(const std::string& option, const std::string& message) {
  throw InputError({{"einplan gen", 0, 0}, option + ": " + message});
}

void requirePositive(const std::string& option, int64_t value) {
  if (value < 1) badOption(option, "must be a positive integer, got " + std::to_string(value));
}

void requireExtent(const std::string& option, int64_t value) {
  requirePositive(option, value);
  requireAtMost(option, value, kMaxGeneratedExtent, "a size parameter is at most 2^40 (docs/workloads.md)");
}

void requireAtMost(const std::string& option, int64_t value, int64_t max, const std::string& why) {
  if (value > max) badOption(option, std::to_string(value) + " is too large: " + why + "; the largest allowed is " + std::to_string(max));
}

std::string graphName(const CommonOptions& common, const std::string& familyDefault) {
  if (common.name.empty()) return familyDefault;
  try {
    requireIdentifier(common.name, "graph name", {});
  } catch (const InputError& e) {
    badOption("--name", e.diagnostic().message);
  }
  return common.name;
}

}  // namespace eindecomp::gen
