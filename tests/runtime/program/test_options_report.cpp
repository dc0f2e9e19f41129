// The emitted program's command line (strict: ranges, repeats, missing values), its report
// as JSON, and the --check tolerance rule, as tables.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <limits>
#include <string>
#include <vector>

#include "einrt/program/options.h"
#include "einrt/program/report.h"
#include "runtime/src/program/check.h"

using namespace einrt::program;

namespace {

ProgramOptions parse(std::vector<std::string> args) {
  args.insert(args.begin(), "prog");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  return parseProgramOptions(static_cast<int>(argv.size()), argv.data());
}

}  // namespace

TEST_CASE("program options: accepted values") {
  const ProgramOptions o = parse({"--check", "--iters", "5", "--warmup", "0", "--seed", "18446744073709551615",
                                  "--inputs", "in", "--outputs", "out dir", "--report", "r.json", "--timeout", "60",
                                  "--threads", "4"});
  CHECK(o.check);
  CHECK(o.iters == 5);
  CHECK(o.warmup == 0);
  CHECK(o.seed == UINT64_MAX);
  CHECK(o.outputs == "out dir");
  CHECK(o.timeoutSeconds == 60);
  CHECK(o.threads == 4);
  CHECK(parse({"--version"}).version);
  CHECK(parse({"-h"}).help);
}

TEST_CASE("program options: refused values name the option") {
  const struct {
    std::vector<std::string> args;
    const char* message;
  } cases[] = {
      {{"--iters", "2147483648"}, "--iters expects a whole number from 1 to 1000000, got '2147483648'"},
      {{"--iters", "0"}, "--iters expects a whole number from 1"},
      {{"--iters", "-3"}, "got '-3'"},
      {{"--iters", "3x"}, "got '3x'"},
      {{"--warmup", "1e3"}, "got '1e3'"},
      {{"--seed", "18446744073709551616"}, "--seed expects a whole number"},
      {{"--timeout", "0"}, "--timeout expects a whole number from 1"},
      {{"--threads", "0"}, "--threads expects"},
      {{"--iters"}, "--iters needs a value"},
      {{"--outputs", ""}, "--outputs needs a non-empty value"},
      {{"--iters", "2", "--iters", "3"}, "--iters is given twice"},
      {{"--frobnicate"}, "unknown option '--frobnicate'"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.message);
    CHECK_THROWS_WITH_AS(parse(c.args), doctest::Contains(c.message), UsageError);
  }
}

TEST_CASE("the report is JSON with SPEC 7's keys and the provenance") {
  Report r;
  r.program = "p";
  r.toolVersion = "0.1.0";
  r.graphSha256 = "ab";
  r.planSha256 = "cd";
  r.nodes.push_back({"N\"1", "GEMM", 0.5, 16, 16});
  r.check.ran = true;
  r.check.reference = "whole-tensor kernels";
  const nlohmann::json j = nlohmann::json::parse(reportJson(r));
  for (const char* key : {"ranks", "backend", "dtype", "iters", "time_s", "gflops", "bytes_sent", "bytes_predicted", "nodes",
                          "check", "graph_sha256", "plan_sha256", "tool", "threads"})
    CHECK_MESSAGE(j.contains(key), key);
  CHECK(j["nodes"][0]["name"] == "N\"1");
  CHECK(j["check"]["passed"] == true);
}

TEST_CASE("--check tolerance: 2 eps times the longest sum of reduction lengths") {
  ProgramSpec<float> spec;
  spec.tensors.resize(5);
  NodeTable a, b;
  a.operandTensor = {0, 1};
  a.outputTensor = 2;
  a.reductionLength = 100;
  b.operandTensor = {2};
  b.outputTensor = 3;
  b.reductionLength = 1;
  spec.nodes = {a, b};
  CHECK(detail::checkTolerance(spec, 2) == doctest::Approx(2 * 1.1920929e-7 * 100));
  CHECK(detail::checkTolerance(spec, 3) == doctest::Approx(2 * 1.1920929e-7 * 101));
}

TEST_CASE("--check compares NaN and infinities as values, in place") {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    std::vector<double> got, want;
    bool passed;
    const char* why;
  };
  const Case cases[] = {
      {{1, inf, 3}, {1, inf, 3}, true, "the same +inf in the same place (min-plus: no edge)"},
      {{-inf, 2}, {-inf, 2}, true, "the same -inf"},
      {{nan, 2}, {nan, 2}, true, "NaN where the reference has NaN"},
      {{nan, 2}, {1, 2}, false, "NaN where the reference has none"},
      {{1, -inf}, {1, inf}, false, "an infinity of the other sign"},
      {{inf, 2}, {1, 2}, false, "an infinity where the reference is finite"},
      {{1, 2}, {inf, 2}, false, "a finite value where the reference is infinite"},
      {{1, 2 + 1e-13}, {1, 2}, true, "finite values within the tolerance"},
      {{1, 2.1}, {1, 2}, false, "finite values beyond it"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.why);
    CheckReport r;
    detail::compareOutput<double>("Z", c.got, c.want, 1e-10, "test", r);
    CHECK(r.passed == c.passed);
  }
}
