// What every workload family of `einplan gen` shares: the graph's name and dtype, the
// limits on what a family may be asked to generate, and how a bad parameter is reported
// (an InputError naming the option, exit status 2). The limits keep `gen` from writing
// graphs that `check` would refuse or that take forever to write and load: every size
// parameter is at most kMaxGeneratedExtent, and a family refuses parameters (--layers,
// the number of --hidden layers) that would give more than kMaxGeneratedNodes nodes.
// Products of sizes that overflow are caught when the written graph is loaded back
// (frontends/gen/write_generated.h).
#pragma once

#include <cstdint>
#include <string>

#include "planner/graph/graph.h"

namespace eindecomp::gen {

// 2^40 (about 1.1e12): far beyond any real dimension, and small enough that the
// families' own arithmetic (10s for the skewed chain, dim / heads) cannot overflow.
inline constexpr int64_t kMaxGeneratedExtent = int64_t{1} << 40;

// The graph size every stage is tested at (docs/hardening.md: the 100,000-node chain).
inline constexpr int64_t kMaxGeneratedNodes = 100000;

struct CommonOptions {
  std::string name;            // "" -> the family's default name
  DType dtype = DType::F32;
};

// Throws InputError "OPTION: MESSAGE" (no file position: the input is a command line).
[[noreturn]] void badOption(const std::string& option, const std::string& message);

// Throws unless value >= 1.
void requirePositive(const std::string& option, int64_t value);

// Throws unless 1 <= value <= kMaxGeneratedExtent: a size parameter.
void requireExtent(const std::string& option, int64_t value);

// Throws unless value <= max; `why` explains the limit ("a generated graph has at most ...").
void requireAtMost(const std::string& option, int64_t value, int64_t max, const std::string& why);

// The graph's name: --name when given (it must be an identifier, SPEC 1), else `familyDefault`.
std::string graphName(const CommonOptions& common, const std::string& familyDefault);

}  // namespace eindecomp::gen
