// Reports and plan files: every rendering parses (JSON and YAML with nlohmann and
// yaml-cpp, CSV by column count), JSON carries SPEC 6's keys and numbers, a report read
// back as a plan costs the same, hand-written plans and their errors, compare's
// regression rule, and the --mem-limit / --fix constraints.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <yaml-cpp/yaml.h>

#include "planner/algorithms/pins.h"
#include "planner/algorithms/planning.h"
#include "planner/cost/machine.h"
#include "planner/report/compare.h"
#include "planner/report/explain.h"
#include "planner/report/plan_file.h"
#include "planner/report/render.h"
#include "test_graphs.h"

using namespace eindecomp;
using namespace eindecomp::testing;

namespace {

// A matmul feeding an elementwise op and a reduction.
Graph smallDag() {
  Graph g;
  g.name = "small";
  addInput(g, "A", {8, 6});
  addInput(g, "B", {6, 12});
  addNode(g, "AB", "ij,jk->ik", {"A", "B"});
  addNode(g, "S", "ik->i", {"AB"});
  addNode(g, "T", "ik,i->ik", {"AB", "S"});
  sizeLabels(g, {{"i", 8}, {"j", 6}, {"k", 12}});
  return g;
}

Report reportFor(const Graph& g, const std::string& algorithm, int64_t p) {
  PlanOptions o;
  o.devices = p;
  return makeReport(g, planGraph(algorithm, g, o), {"einplan", "test", "einplan plan", "00"});
}

}  // namespace

TEST_CASE("JSON report: SPEC 6 keys and the worked example's numbers") {
  Graph g = matmulGraph(8);
  PlanOptions o;
  o.devices = 16;
  o.pinned["Z"] = {4, 1, 4};
  Report r = makeReport(g, planGraph("eindecomp", g, o), {"einplan", "0.1.0", "cmd", "abc"});
  nlohmann::json j = nlohmann::json::parse(renderReport(r, ReportFormat::Json));
  for (const char* key : {"schema_version", "tool", "graph_sha256", "graph", "devices", "algorithm", "dtype", "nodes", "edges",
                          "total_cost", "total_bytes"})
    CHECK_MESSAGE(j.contains(key), key);
  CHECK(j["schema_version"] == 1);
  CHECK(j["tool"]["name"] == "einplan");
  const auto& node = j["nodes"][0];
  CHECK(node["partition"] == nlohmann::json({{"i", 4}, {"j", 1}, {"k", 4}}));
  CHECK(node["kernel_calls"] == 16);
  CHECK(node["output_partition"] == nlohmann::json({{"i", 4}, {"k", 4}}));
  CHECK(node["cost"] == nlohmann::json({{"join", 512}, {"agg", 0}, {"repart_in", 0}, {"total", 512}}));
  CHECK(node["flops"] == 1024);
  CHECK(node["bytes_per_device"] == 144);
  CHECK(j["total_cost"] == 512);
  CHECK(j["total_bytes"] == 2048);
}

TEST_CASE("every rendering parses") {
  Graph g = smallDag();
  for (const char* algorithm : {"eindecomp", "uniform", "balanced", "data"}) {
    CAPTURE(algorithm);
    Report r = reportFor(g, algorithm, 6);
    nlohmann::json j = nlohmann::json::parse(renderReport(r, ReportFormat::Json));
    YAML::Node y = YAML::Load(renderReport(r, ReportFormat::Yaml));
    CHECK(y["total_cost"].as<int64_t>() == j["total_cost"].get<int64_t>());
    CHECK(y["nodes"].size() == 3);
    CHECK(y["nodes"][0]["partition"]["i"].as<int64_t>() == j["nodes"][0]["partition"]["i"].get<int64_t>());
    // CSV: a header, one row per node and a total row, all with the same column count.
    std::istringstream csv(renderReport(r, ReportFormat::Csv));
    std::string line;
    std::vector<std::size_t> columns;
    while (std::getline(csv, line)) columns.push_back(std::count(line.begin(), line.end(), ',') + 1);
    CHECK(columns.size() == 5);
    CHECK(std::count(columns.begin(), columns.end(), columns[0]) == 5);
    std::string table = renderReport(r, ReportFormat::Table);
    CHECK(table.find("total cost " + std::to_string(r.totalCost)) != std::string::npos);
    std::string md = renderReport(r, ReportFormat::Markdown);
    CHECK(md.find("| node |") != std::string::npos);
  }
}

TEST_CASE("plan round trip: a report read back as a plan costs the same") {
  Graph g = smallDag();
  for (ReportFormat format : {ReportFormat::Json, ReportFormat::Yaml}) {
    for (int64_t p : {1, 2, 3, 4, 6, 8, 12}) {
      CAPTURE(p);
      Report r = reportFor(g, "eindecomp", p);
      PlanFile file = parsePlanText(renderReport(r, format), "plan");
      REQUIRE(file.devices);
      CHECK(*file.devices == p);
      PlanOptions o;
      o.devices = *file.devices;
      o.pinned = resolvePlanFile(g, file, o.devices);
      Report again = makeReport(g, planGraph("fixed", g, o), {});
      CHECK(again.totalCost == r.totalCost);
      CHECK(again.peakBytesPerDevice == r.peakBytesPerDevice);
    }
  }
}

TEST_CASE("hand-written plans: minimal form, nodes left out are planned") {
  Graph g = smallDag();
  PlanFile file = parsePlanText(R"({"devices": 4, "nodes": [{"name": "AB", "partition": {"i": 2, "k": 2}}]})", "hand.json");
  PlanOptions o;
  o.devices = 4;
  o.pinned = resolvePlanFile(g, file, 4);
  Plan plan = planGraph("eindecomp", g, o);
  CHECK(plan.nodes[0].parts == Parts{2, 1, 2});
  CHECK(plan.nodes[1].kernelCalls == 4);
}

TEST_CASE("bad plan files are input errors naming the place") {
  Graph g = smallDag();
  struct Case { const char* text; const char* message; };
  const Case cases[] = {
      {R"({"devices": 4, "nodes": [{"name": "XX", "partition": {"i": 4}}]})", "unknown node 'XX'"},
      {R"({"devices": 4, "nodes": [{"name": "AB", "partition": {"q": 4}}]})", "has no label 'q'"},
      {R"({"devices": 4, "nodes": [{"name": "AB", "partition": {"j": 4}}]})", "do not divide label 'j'"},
      {R"({"devices": 4, "nodes": [{"name": "AB", "partition": {"i": 2}}]})", "multiply to 2 kernel calls, expected 4"},
      {R"({"devices": 4, "nodes": [{"name": "AB", "partition": {"i": 0}}]})", "must be a positive integer"},
      {R"({"devices": 4, "nodes": [{"name": "AB", "partition": {"i": "two"}}]})", "must be a positive integer"},
      {R"({"devices": 4, "nodes": [{"name": "AB", "partition": {"i": 4}}, {"name": "AB", "partition": {"k": 4}}]})", "appears twice"},
      {R"({"devices": 4, "nodes": {"AB": 1}})", "'nodes' must be a list"},
      {R"({"devices": -4, "nodes": []})", "'devices' must be a positive integer"},
      {R"({"devices": 4, "nodes": [{"name": "AB"}]})", "needs a 'partition'"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    try {
      PlanFile file = parsePlanText(c.text, "bad.json");
      resolvePlanFile(g, file, file.devices.value_or(4));
      FAIL("no error");
    } catch (const InputError& e) {
      CHECK(e.exitCode() == kExitBadInput);
      CHECK(std::string(e.what()).find(c.message) != std::string::npos);
      CHECK(std::string(e.what()).rfind("bad.json:1:", 0) == 0);
    }
  }
}

TEST_CASE("--fix parsing and validation") {
  Graph g = matmulGraph(8);
  CHECK(resolvePartitionRequest(g, parseFixOption("Z=i:4,k:2", {"--fix"}), 8) == Parts{4, 1, 2});
  for (const char* bad : {"Z", "Z=", "Z=i", "Z=i:x", "Z=i:-2", "Q=i:8", "Z=i:3", "Z=i:2", "Z=m:8"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(resolvePartitionRequest(g, parseFixOption(bad, {"--fix"}), 8), InputError);
  }
}

TEST_CASE("--mem-limit removes partitions; nothing fits is exit 3") {
  Graph g = matmulGraph(8);
  PlanOptions o;
  o.devices = 16;
  o.memLimitBytes = 128;  // {4,1,4} needs 144 bytes; {2,2,4} needs 128
  Plan plan = planGraph("eindecomp", g, o);
  Report r = makeReport(g, plan, {});
  CHECK(r.peakBytesPerDevice <= 128);
  o.memLimitBytes = 16;
  try {
    planGraph("eindecomp", g, o);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.exitCode() == kExitNoPlan);
  }
}

TEST_CASE("compare: best marked, regression rule") {
  Graph g = smallDag();
  std::vector<ComparisonEntry> entries;
  for (const char* a : {"eindecomp", "uniform", "data"}) entries.push_back({a, reportFor(g, a, 4), ""});
  Comparison c = makeComparison(entries);
  REQUIRE(c.best >= 0);
  for (const auto& e : c.entries) CHECK(c.entries[c.best].report->totalCost <= e.report->totalCost);
  nlohmann::json j = nlohmann::json::parse(renderComparison(c, ReportFormat::Json));
  CHECK(j["algorithms"].size() == 3);
  CHECK_FALSE(regresses(100, 100, 0.0));
  CHECK(regresses(101, 100, 0.0));
  CHECK_FALSE(regresses(105, 100, 0.05));
  CHECK(regresses(106, 100, 0.05));
}

TEST_CASE("explain names the TRA operators and layouts") {
  Graph g = smallDag();
  PlanOptions o;
  o.devices = 4;
  o.pinned["AB"] = {2, 2, 1};
  Plan plan = planGraph("eindecomp", g, o);
  std::string text = explainPlan(g, plan);
  CHECK(text.find("Shard(i:2)") != std::string::npos);
  CHECK(text.find("Partial(sum)") != std::string::npos);
  CHECK(text.find("local join") != std::string::npos);
  std::string candidates = explainNodeCandidates(g, plan, "AB");
  CHECK(candidates.find("*  i:2 j:2 k:1") != std::string::npos);
  CHECK(graphDot(g, &plan).find("\"AB\" -> \"S\"") != std::string::npos);
}

TEST_CASE("brute refuses above its stated limit with exit 2") {
  Graph g = smallDag();
  PlanOptions o;
  o.devices = 12;
  o.bruteLimit = 10;
  try {
    planGraph("brute", g, o);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.exitCode() == kExitBadInput);
    CHECK(std::string(e.what()).find("above the limit of 10") != std::string::npos);
  }
  o.bruteLimit = kBruteForceLimit;
  Plan brute = planGraph("brute", g, o);
  Plan dp = planGraph("eindecomp", g, o);
  CHECK(makeReport(g, brute, {}).totalCost == makeReport(g, dp, {}).totalCost);
}

TEST_CASE("machine files: alpha-beta time per node, bad fields named") {
  const std::string dir = std::filesystem::temp_directory_path() / "planner_machine_test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir + "/m.yaml") << "bandwidth: 1.0e9\nlatency: 1.0e-6\nflops: 1.0e12\n";
    std::ofstream(dir + "/bad.yaml") << "bandwidth: fast\nlatency: 1.0e-6\nflops: 1.0e12\n";
    std::ofstream(dir + "/neg.json") << "{\"bandwidth\": 1e9, \"latency\": -1, \"flops\": 1e12}";
  }
  Machine m = loadMachineFile(dir + "/m.yaml");
  Graph g = matmulGraph(8);
  PlanOptions o;
  o.devices = 16;
  o.pinned["Z"] = {4, 1, 4};
  Report r = makeReport(g, planGraph("eindecomp", g, o), {}, m);
  // join 512 elements = 2048 bytes over 16 devices at 1e9 B/s, one phase, 1024 FLOP over 16 x 1e12.
  REQUIRE(r.nodes[0].timeSeconds);
  CHECK(*r.nodes[0].timeSeconds == doctest::Approx(1e-6 + 2048.0 / 16e9 + 1024.0 / 16e12));
  for (const char* bad : {"/bad.yaml", "/neg.json", "/missing.yaml"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(loadMachineFile(dir + bad), InputError);
  }
  try {
    loadMachineFile(dir + "/bad.yaml");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("bad.yaml:1:") != std::string::npos);
    CHECK(std::string(e.what()).find("'bandwidth'") != std::string::npos);
  }
  std::filesystem::remove_all(dir);
}
