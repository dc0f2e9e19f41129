#include "einrt/program/options.h"

#include <cerrno>
#include <cstdlib>
#include <set>

namespace einrt::program {

namespace {

// A whole number in [minimum, maximum] written in decimal and nothing else.
uint64_t wholeNumber(const std::string& flag, const std::string& text, uint64_t minimum, uint64_t maximum) {
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  errno = 0;
  const unsigned long long v = digits ? std::strtoull(text.c_str(), nullptr, 10) : 0;
  if (!digits || errno == ERANGE || v < minimum || v > maximum)
    throw UsageError(flag + " expects a whole number from " + std::to_string(minimum) + " to " + std::to_string(maximum) +
                     ", got '" + text + "'");
  return v;
}

}  // namespace

const char* programUsage() {
  return "usage: mpirun -np P PROGRAM [--check] [--iters N] [--warmup N] [--seed S] [--inputs DIR]\n"
         "                            [--outputs DIR] [--report FILE] [--timeout SECONDS] [--threads N]\n"
         "                            [--ranks-per-node K]\n"
         "  --check        compute the outputs again on rank 0 (the same kernels over whole tensors, and the\n"
         "                 plain reference loops on small graphs) and compare; exit 1 on a mismatch\n"
         "  --iters N      timed iterations (default 1, at most 1000000); times are medians\n"
         "  --warmup N     untimed iterations before them (default 0)\n"
         "  --seed S       seed of the deterministic input generator (default 0)\n"
         "  --inputs DIR   read every graph input from DIR/NAME.npy instead of generating it\n"
         "  --outputs DIR  write every graph output to DIR/NAME.npy (the folder is made first)\n"
         "  --report FILE  write the report as JSON (its folder is made first)\n"
         "  --timeout S    a rank still running after S seconds reports it and ends the job (exit 124)\n"
         "  --threads N    threads per rank for the kernels and the BLAS (default 1; use when ranks < cores)\n"
         "  --ranks-per-node K  count bytes by link as if ranks k*K .. k*K+K-1 shared node k (default: the\n"
         "                 plan's machine; reported as intra_node_bytes and inter_node_bytes)\n"
         "  --version      print the tool version and the graph's and plan's hashes\n";
}

ProgramOptions parseProgramOptions(int argc, const char* const* argv) {
  ProgramOptions o;
  std::set<std::string> seen;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h") {
      o.help = true;
      continue;
    }
    if (!seen.insert(a).second) throw UsageError(a + " is given twice");
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(a + " needs a value");
      return argv[++i];
    };
    if (a == "--check") o.check = true;
    else if (a == "--iters") o.iters = static_cast<int>(wholeNumber(a, value(), 1, kMaxIters));
    else if (a == "--warmup") o.warmup = static_cast<int>(wholeNumber(a, value(), 0, kMaxIters));
    else if (a == "--seed") o.seed = wholeNumber(a, value(), 0, UINT64_MAX);
    else if (a == "--inputs") o.inputs = value();
    else if (a == "--outputs") o.outputs = value();
    else if (a == "--report") o.report = value();
    else if (a == "--timeout") o.timeoutSeconds = static_cast<int>(wholeNumber(a, value(), 1, kMaxTimeoutSeconds));
    else if (a == "--threads") o.threads = static_cast<int>(wholeNumber(a, value(), 1, kMaxThreads));
    else if (a == "--ranks-per-node") o.ranksPerNode = static_cast<int>(wholeNumber(a, value(), 1, INT32_MAX));
    else if (a == "--help") o.help = true;
    else if (a == "--version") o.version = true;
    else throw UsageError("unknown option '" + a + "'");
    if ((a == "--inputs" || a == "--outputs" || a == "--report") && (a == "--inputs" ? o.inputs : a == "--outputs" ? o.outputs : o.report).empty())
      throw UsageError(a + " needs a non-empty value");
  }
  return o;
}

}  // namespace einrt::program
