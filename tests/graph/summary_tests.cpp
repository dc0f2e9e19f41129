// `einplan check` on good graphs: the summary's numbers against values computed by hand
// from SPEC 3 (a matmul is 2mnk FLOPs; bytes are elements times the dtype size), the
// human units, and the JSON and table renderings through the built CLI.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "planner/graph/graph_summary.h"
#include "planner/graph/units.h"
#include "planner/graph/load.h"

using namespace eindecomp;
namespace fs = std::filesystem;

namespace {

const char* kSoftmaxChain = R"yaml(name: sm
dtype: f64
inputs: {A: [6, 4], B: [4, 10]}
nodes:
  - {name: AB, einsum: "ij,jk->ik", inputs: [A, B]}
  - {name: C, einsum: "ik->i", agg: max, inputs: [AB]}
  - {name: E, einsum: "ik,i->ik", join: "exp(x - y)", inputs: [AB, C]}
)yaml";

}  // namespace

TEST_CASE("summary: shapes, bytes and FLOPs per SPEC 3") {
  const GraphSummary s = summarizeGraph(loadGraphText(kSoftmaxChain, "sm.yaml", GraphFormat::Yaml));
  REQUIRE(s.tensors.size() == 5);
  CHECK(s.tensors[0].bytes == 6 * 4 * 8);
  CHECK(s.tensors[2].name == "AB");
  CHECK(s.tensors[2].shape == std::vector<int64_t>{6, 10});
  CHECK(s.tensors[3].shape == std::vector<int64_t>{6});
  REQUIRE(s.nodes.size() == 3);
  CHECK(s.nodes[0].flops == 2 * 6 * 4 * 10);  // matmul: 2mnk
  CHECK(s.nodes[1].flops == 6 * 10 * 2);      // unary with aggregation: 1 + 1 per point
  CHECK(s.nodes[2].flops == 6 * 10 * 1);      // binary element-wise: 1 per point
  CHECK(s.totalFlops == 480 + 120 + 60);
  CHECK(s.totalBytes == (24 + 40 + 60 + 6 + 60) * 8);
  CHECK(s.outputs == std::vector<std::string>{"E"});
  CHECK_FALSE(s.tensors[2].isOutput);
  CHECK(s.tensors[4].isOutput);
}

TEST_CASE("summary table: the shared renderer, numbers right-aligned, no trailing blanks") {
  const std::string table = renderSummaryTable(summarizeGraph(loadGraphText(kSoftmaxChain, "sm.yaml", GraphFormat::Yaml)));
  CHECK(table.find("  tensor  kind          shape    dtype  bytes\n"
                   "  A       input         [6, 4]   f64    192 B\n") != std::string::npos);
  CHECK(table.find("  C       node          [6]      f64     48 B\n") != std::string::npos);
  CHECK(table.find("  node  einsum     inputs  join        agg  output shape     FLOPs\n"
                   "  AB    ij,jk->ik  A, B    mul         sum  [6, 10]       480 FLOP\n") != std::string::npos);
  CHECK(table.find(" \n") == std::string::npos);
}

TEST_CASE("human units") {
  struct Case {
    int64_t value;
    const char* bytes;
    const char* flops;
  };
  const std::vector<Case> cases = {
      {0, "0 B", "0 FLOP"},
      {999, "999 B", "999 FLOP"},
      {1536, "1.50 KiB", "1.54 kFLOP"},
      {294912, "288 KiB", "295 kFLOP"},
      {3 * 1024 * 1024, "3.00 MiB", "3.15 MFLOP"},
      {int64_t(5) << 40, "5.00 TiB", "5.50 TFLOP"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.value);
    CHECK(formatBytes(c.value) == c.bytes);
    CHECK(formatFlops(c.value) == c.flops);
  }
}

TEST_CASE("cli: einplan check prints the table and the JSON summary" * doctest::test_suite("cli")) {
  const fs::path dir = fs::temp_directory_path() / ("eindecomp-check-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "sm.yaml") << kSoftmaxChain;
  auto run = [&](const std::string& args, std::string& output) {
    const std::string command = std::string("'") + EINPLAN_EXE + "' check " + args + " >'" + (dir / "out").string() + "'";
    const int status = std::system(command.c_str());
    std::ifstream in(dir / "out");
    std::ostringstream s;
    s << in.rdbuf();
    output = s.str();
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  std::string out;
  REQUIRE(run("'" + (dir / "sm.yaml").string() + "' --format json", out) == 0);
  const auto j = nlohmann::json::parse(out);
  CHECK(j["graph"] == "sm");
  CHECK(j["dtype"] == "f64");
  CHECK(j["totals"]["flops"] == 660);
  CHECK(j["totals"]["bytes"] == 190 * 8);
  CHECK(j["totals"]["tensors"] == 5);
  CHECK(j["totals"]["nodes"] == 3);
  CHECK(j["nodes"][2]["join"] == "exp(x - y)");
  CHECK(j["nodes"][1]["agg"] == "max");
  CHECK(j["tensors"][2]["shape"] == nlohmann::json::array({6, 10}));

  REQUIRE(run("'" + (dir / "sm.yaml").string() + "'", out) == 0);
  CHECK(out.find("AB    ij,jk->ik  A, B") != std::string::npos);
  CHECK(out.find("totals: 5 tensors, 3 nodes, 660 FLOP, 1.48 KiB") != std::string::npos);

  // Standard input, with the format given or sniffed.
  REQUIRE(run("- --input-format yaml <'" + (dir / "sm.yaml").string() + "'", out) == 0);
  CHECK(out.find("graph sm (f64) from -") == 0);
  REQUIRE(run("- <'" + (dir / "sm.yaml").string() + "'", out) == 0);
  // Usage errors exit 2 too.
  CHECK(run("'" + (dir / "sm.yaml").string() + "' --format xml 2>/dev/null", out) == 2);
  CHECK(run("'" + (dir / "missing.yaml").string() + "' 2>/dev/null", out) == 2);
  fs::remove_all(dir);
}
