// The emitted program's command line (SPEC 7):
//   [--check] [--iters N] [--warmup N] [--seed S] [--inputs DIR] [--outputs DIR]
//   [--report FILE] [--timeout SECONDS] [--threads N] [--ranks-per-node K] [--version] [--help]
// parsed strictly: every count is a whole number in its range (no wrap-around: --iters
// 2147483648 is an error, not a run of nothing), every option once, values present.
// Problems are UsageError (exit 2 with the usage text).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace einrt::program {

struct ProgramOptions {
  bool check = false;
  int iters = 1;
  int warmup = 0;
  uint64_t seed = 0;
  std::string inputs, outputs, report;
  int timeoutSeconds = 0;  // 0: no watchdog
  int threads = 1;         // threads per rank for the kernels (OpenMP) and the BLAS
  int ranksPerNode = 0;    // count bytes by link as if ranks k*K .. k*K+K-1 shared node k (0: the plan's)
  bool help = false;
  bool version = false;
};

class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

inline constexpr int kMaxIters = 1000000;
inline constexpr int kMaxThreads = 1024;
inline constexpr int kMaxTimeoutSeconds = 7 * 24 * 3600;

ProgramOptions parseProgramOptions(int argc, const char* const* argv);

const char* programUsage();

}  // namespace einrt::program
