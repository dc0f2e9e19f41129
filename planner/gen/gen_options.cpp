#include "planner/gen/gen_options.h"

namespace eindecomp::gen {

void badOption(const std::string& option, const std::string& message) {
  throw InputError({{"einplan gen", 0, 0}, option + ": " + message});
}

void requirePositive(const std::string& option, int64_t value) {
  if (value < 1) badOption(option, "must be a positive integer, got " + std::to_string(value));
}

}  // namespace eindecomp::gen
