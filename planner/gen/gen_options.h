// What every workload family of `einplan gen` shares: the graph's name and dtype, and
// how a bad parameter is reported (an InputError naming the option, exit status 2).
#pragma once

#include <cstdint>
#include <string>

#include "planner/graph/graph.h"

namespace eindecomp::gen {

struct CommonOptions {
  std::string name;            // "" -> the family's default name
  DType dtype = DType::F32;
};

// Throws InputError "OPTION: MESSAGE" (no file position: the input is a command line).
[[noreturn]] void badOption(const std::string& option, const std::string& message);

// Throws unless value >= 1.
void requirePositive(const std::string& option, int64_t value);

}  // namespace eindecomp::gen
