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
#include "planner/cost/plan_cost.h"
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

const Provenance kProvenance{"einplan", "test", "einplan plan", "00"};

Report reportOf(const Graph& g, const Plan& plan, const std::optional<Machine>& machine = std::nullopt) {
  return makeReport(g, plan, costPlan(g, plan, machine), kProvenance, Objective::Traffic);
}

Report reportFor(const Graph& g, const std::string& algorithm, int64_t p) {
  PlanOptions o;
  o.devices = p;
  return reportOf(g, planGraph(algorithm, g, o));
}

}  // namespace

TEST_CASE("JSON report: SPEC 6 keys and the worked example's numbers") {
  Graph g = matmulGraph(8);
  PlanOptions o;
  o.devices = 16;
  o.pinned["Z"] = {4, 1, 4};
  Report r = reportOf(g, planGraph("eindecomp", g, o));
  nlohmann::json j = nlohmann::json::parse(renderReport(r, ReportFormat::Json));
  for (const char* key : {"schema_version", "tool", "graph_sha256", "graph", "devices", "algorithm", "objective", "dtype",
                          "nodes", "edges", "total_cost", "total_bytes", "total_traffic_bytes"})
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
  CHECK(node["placement"].size() == 16);
  CHECK(node["traffic_bytes"] == 0);  // graph inputs are free and nothing is aggregated
  CHECK(j["total_cost"] == 512);
  CHECK(j["total_bytes"] == 2048);
  CHECK(j["total_traffic_bytes"] == 0);
  CHECK(j["objective"] == "traffic");
  // {i:2, j:2, k:4}: every 2x2 output block (8 of them) gets the partial sum of one other
  // rank: 8 blocks x 8 elements x 4 bytes.
  o.pinned["Z"] = {2, 2, 4};
  const Report agg = reportOf(g, planGraph("eindecomp", g, o));
  CHECK(agg.nodes[0].agg == 64);
  CHECK(agg.totalTrafficBytes == 8 * 8 * 4);
}

TEST_CASE("every rendering parses") {
  Graph g = smallDag();
  for (const std::string& algorithm : comparedAlgorithmNames()) {
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
    CHECK(table.find("paper cost " + std::to_string(r.totalCost)) != std::string::npos);
    std::string md = renderReport(r, ReportFormat::Markdown);
    CHECK(md.find("| node |") != std::string::npos);
  }
}

TEST_CASE("JSON text: dump(2)'s, with arrays of numbers on one line") {
  // The oracle is nlohmann's own dump(2), and its parser for the round trip.
  const auto j = nlohmann::ordered_json::parse(R"({"a": [3, -1, 18446744073709551615, 0.5, 1e300], "b": [[1, 2], [], [7]],
      "c": {"d": "\u00e9 \"q\" \n", "e": {}, "f": [true, null, "x"], "g": -0.0}, "h": [{"i": [4]}], "k": 2.5})");
  const std::string text = prettyJson(j);
  CHECK(nlohmann::ordered_json::parse(text) == j);
  CHECK(text.find(R"("a": [3, -1, 18446744073709551615, 0.5, 1e+300])") != std::string::npos);
  CHECK(text.find("[1, 2],\n    [],\n    [7]") != std::string::npos);
  // With every number array spread over lines as dump(2) does, the texts are the same.
  nlohmann::ordered_json spread = j;
  spread.erase("a");
  spread.erase("b");
  spread["c"].erase("e");
  spread.erase("h");
  CHECK(prettyJson(spread) == spread.dump(2));
  nlohmann::ordered_json empty = {{"e", nlohmann::ordered_json::array()}, {"o", nlohmann::ordered_json::object()}};
  CHECK(prettyJson(empty) == empty.dump(2));
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
      ResolvedPlanFile resolved = resolvePlanFile(g, file, o.devices, "00");
      o.pinned = resolved.partitions;
      o.pinnedPlacements = resolved.placements;
      Report again = reportOf(g, planGraph("fixed", g, o));
      CHECK(again.totalCost == r.totalCost);
      CHECK(again.totalTrafficBytes == r.totalTrafficBytes);
      CHECK(again.peakBytesPerDevice == r.peakBytesPerDevice);
      for (std::size_t i = 0; i < r.nodes.size(); ++i) CHECK(again.nodes[i].placement == r.nodes[i].placement);
    }
  }
}

TEST_CASE("hand-written plans: minimal form, nodes left out are planned") {
  Graph g = smallDag();
  PlanFile file = parsePlanText(R"({"devices": 4, "nodes": [{"name": "AB", "partition": {"i": 2, "k": 2}}]})", "hand.json");
  PlanOptions o;
  o.devices = 4;
  o.pinned = resolvePlanFile(g, file, 4, "any").partitions;
  Plan plan = planGraph("eindecomp", g, o);
  CHECK(plan.nodes[0].parts == Parts{2, 1, 2});
  CHECK(plan.nodes[1].kernelCalls == 4);
  // A placement written by hand is executed as written, even two calls on one rank.
  file = parsePlanText(R"({"devices": 4, "nodes": [{"name": "AB", "partition": {"i": 2, "k": 2}, "placement": [3, 3, 0, 1]}]})",
                       "hand.json");
  ResolvedPlanFile resolved = resolvePlanFile(g, file, 4, "any");
  o.pinned = resolved.partitions;
  o.pinnedPlacements = resolved.placements;
  plan = planGraph("eindecomp", g, o);
  CHECK(plan.nodes[0].placement.callRank == std::vector<int>{3, 3, 0, 1});
  CHECK(plan.nodes[0].placement.blockOwner == std::vector<int>{3, 3, 0, 1});
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
      {R"({"devices": 4, "nodes": [{"name": "AB", "partition": {"i": "two"}}]})", "must be an integer, not a string ('two')"},
      {R"({"devices": "4", "nodes": []})", "'devices' must be an integer, not a string ('4')"},
      {R"({"devices": 4, "nodes": [], "color": 1})", "unknown field 'color' in the plan file"},
      {R"({"devices": 4, "devices": 4, "nodes": []})", "field 'devices' appears twice"},
      {R"({"schema_version": 2, "devices": 4, "nodes": []})", "'schema_version' 2 is not supported"},
      {R"({"graph_sha256": "ff", "devices": 4, "nodes": []})", "the plan was made for another graph"},
      {R"({"devices": 4, "nodes": [{"name": "AB", "partition": {"i": 4}, "placement": [0, 1]}]})", "gives 2 ranks for 4 kernel calls"},
      {R"({"devices": 4, "nodes": [{"name": "AB", "partition": {"i": 4}, "placement": [0, 1, 2, 4]}]})", "on rank 4, outside 0..3"},
      {R"({"devices": 4, "nodes": [{"name": "AB", "partition": {"i": 4}, "rank": 1}]})", "unknown field 'rank'"},
      {R"({"devices": 4, "nodes": [{"name": "AB", "partition": {"i": 4}}, {"name": "AB", "partition": {"k": 4}}]})", "appears twice"},
      {R"({"devices": 4, "nodes": {"AB": 1}})", "'nodes' must be a list"},
      {R"({"devices": -4, "nodes": []})", "'devices' must be a positive integer"},
      {R"({"devices": 4, "nodes": [{"name": "AB"}]})", "needs a 'partition'"},
      {R"({"devices": 4, "nodes": [{"name": "AB", "partition": {"i": 4}, "gemm_path": "gpu"}]})",
       "'gemm_path' must be \"blas\" or \"primitive\", not 'gpu'"},
      {R"({"devices": 4, "nodes": [{"name": "S", "partition": {"i": 4}, "gemm_path": "blas"}]})", "does not run as a GEMM"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    try {
      PlanFile file = parsePlanText(c.text, "bad.json");
      resolvePlanFile(g, file, file.devices.value_or(4), "00");
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

TEST_CASE("--mem-limit bounds every rank's whole-program peak; nothing fits is exit 3") {
  Graph g = matmulGraph(64);
  PlanOptions o;
  o.devices = 4;
  const Plan free = planGraph("eindecomp", g, o);
  const int64_t freePeak = reportOf(g, free).peakBytesPerDevice;
  // Below the unconstrained peak the planner must trade traffic for memory, or say exit 3.
  for (int64_t limit : {freePeak, freePeak - 1, freePeak * 3 / 4}) {
    CAPTURE(limit);
    o.memLimitBytes = limit;
    try {
      const Plan plan = planGraph("eindecomp", g, o);
      const Report r = reportOf(g, plan);
      CHECK(r.peakBytesPerDevice <= limit);
      for (int64_t peak : r.peakBytesPerRank) CHECK(peak <= limit);
      if (limit == freePeak) CHECK(r.totalTrafficBytes == reportOf(g, free).totalTrafficBytes);
    } catch (const InputError& e) {
      CHECK(e.exitCode() == kExitNoPlan);
      CHECK(limit < freePeak);
    }
  }
  o.memLimitBytes = 16;
  try {
    planGraph("eindecomp", g, o);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.exitCode() == kExitNoPlan);
    CHECK(std::string(e.what()).find("no plan fits --mem-limit") != std::string::npos);
  }
  for (const std::string& baseline : baselineAlgorithmNames()) {
    CAPTURE(baseline);
    CHECK_THROWS_AS(planGraph(baseline, g, o), InputError);
  }
}

TEST_CASE("compare: best marked, regression rule") {
  Graph g = smallDag();
  std::vector<ComparisonEntry> entries;
  for (const char* a : {"eindecomp", "uniform", "data"}) entries.push_back({a, reportFor(g, a, 4), ""});
  Comparison c = makeComparison(Objective::Traffic, entries);
  REQUIRE(c.best >= 0);
  for (const auto& e : c.entries) CHECK(c.entries[c.best].report->totalTrafficBytes <= e.report->totalTrafficBytes);
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
  const PlanCost cost = costPlan(g, plan, std::nullopt);
  std::string text = explainPlan(g, plan, cost);
  CHECK(text.find("Shard(i:2)") != std::string::npos);
  CHECK(text.find("Partial(sum)") != std::string::npos);
  CHECK(text.find("local join") != std::string::npos);
  CHECK(text.find("placement: kernel calls on ranks") != std::string::npos);
  std::string candidates = explainNodeCandidates(g, plan, "AB", ObjectiveModel{});
  CHECK(candidates.find("*  i:2 j:2 k:1") != std::string::npos);
  CHECK(graphDot(g, &plan, &cost).find("\"AB\" -> \"S\"") != std::string::npos);
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
  CHECK(reportOf(g, brute).totalTrafficBytes == reportOf(g, dp).totalTrafficBytes);
}

TEST_CASE("machine files: alpha-beta time per node, bad fields named") {
  const std::string dir = std::filesystem::temp_directory_path() / "planner_machine_test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir + "/m.yaml") << "bandwidth: 1.0e9\nlatency: 1.0e-6\nflops: 1.0e12\n";
    std::ofstream(dir + "/units.yaml") << "bandwidth: 1 GB/s\nlatency: 1 us\nflops: 1 TFLOP/s\nmemory_bandwidth: 2 GB/s\nranks: 16\n";
    std::ofstream(dir + "/bad.yaml") << "bandwidth: fast\nlatency: 1.0e-6\nflops: 1.0e12\n";
    std::ofstream(dir + "/neg.json") << "{\"bandwidth\": 1e9, \"latency\": -1, \"flops\": 1e12}";
    std::ofstream(dir + "/unknown.yaml") << "bandwidth: 1e9\nlatency: 1e-6\nflops: 1e12\nbandwith: 2e9\n";
    std::ofstream(dir + "/unit.yaml") << "bandwidth: 1 GFLOP/s\nlatency: 1e-6\nflops: 1e12\n";
    const std::string base = "bandwidth: 1e9\nlatency: 1e-6\nflops: 1e12\n";
    std::ofstream(dir + "/cluster.yaml") << base << "ranks_per_node: 8\ninter_node_latency: 10 us\ninter_node_bandwidth: 100 MB/s\n";
    std::ofstream(dir + "/singles.yaml") << base << "ranks_per_node: 1\ninter_node_latency: 10 us\ninter_node_bandwidth: 100 MB/s\n";
    std::ofstream(dir + "/no_link.yaml") << base << "ranks_per_node: 8\ninter_node_latency: 10 us\n";
    std::ofstream(dir + "/no_nodes.yaml") << base << "inter_node_bandwidth: 1e8\ninter_node_latency: 1e-5\n";
    std::ofstream(dir + "/zero_nodes.yaml") << base << "ranks_per_node: 0\ninter_node_latency: 1e-5\ninter_node_bandwidth: 1e8\n";
    std::ofstream(dir + "/word_nodes.yaml") << base << "ranks_per_node: eight\ninter_node_latency: 1e-5\ninter_node_bandwidth: 1e8\n";
  }
  Machine m = loadMachineFile(dir + "/m.yaml");
  const Machine u = loadMachineFile(dir + "/units.yaml");
  CHECK(u.bandwidthBytesPerSecond == 1e9);
  CHECK(u.latencySeconds == doctest::Approx(1e-6));
  CHECK(u.flopsPerSecond == 1e12);
  CHECK(*u.memoryBytesPerSecond == 2e9);
  Graph g = matmulGraph(8);
  PlanOptions o;
  o.devices = 16;
  o.pinned["Z"] = {4, 1, 4};
  Report r = reportOf(g, planGraph("eindecomp", g, o), m);
  // Nothing moves (graph inputs are free, nothing aggregated): 1024 FLOP over 16 calls at 1e12.
  REQUIRE(r.nodes[0].timeSeconds);
  CHECK(*r.nodes[0].timeSeconds == doctest::Approx(64.0 / 1e12));
  // {i:2, j:2, k:4}: the busiest ranks send or receive one partial block of 8 elements (one
  // message): 1e-6 + 32 B / 1e9 B/s, plus the compute.
  o.pinned["Z"] = {2, 2, 4};
  o.placementRules = {PlacementRule::Canonical};
  r = reportOf(g, planGraph("eindecomp", g, o), m);
  CHECK(*r.estimatedTimeSeconds == doctest::Approx(1e-6 + 32.0 / 1e9 + 64.0 / 1e12));
  // Split by what runs: the kernels' 64 / 1e12 s, the aggregation's message the rest.
  REQUIRE(r.kernelTimeSeconds);
  REQUIRE(r.exchangeTimeSeconds);
  CHECK(*r.kernelTimeSeconds == doctest::Approx(64.0 / 1e12));
  CHECK(*r.exchangeTimeSeconds == doctest::Approx(1e-6 + 32.0 / 1e9));
  CHECK(*r.nodes[0].kernelTimeSeconds + *r.nodes[0].exchangeTimeSeconds == doctest::Approx(*r.nodes[0].timeSeconds));
  CHECK(r.totalInterNodeBytes == 0);
  // The same plan on two nodes of 8 ranks (SPEC 9): the canonical rule's cluster form runs
  // the two partial sums of block b on ranks 2b and 2b+1, one node: 8 blocks of 32 B move,
  // none between nodes, and the phase is priced on the intra-node link.
  auto onMachine = [&](const Machine& m) {
    PlanOptions oc = o;
    oc.machine = m;
    return reportOf(g, planGraph("eindecomp", g, oc), m);
  };
  const Machine c = loadMachineFile(dir + "/cluster.yaml");
  REQUIRE(c.ranksPerNode == 8);
  r = onMachine(c);
  CHECK(r.ranksPerNode == 8);
  CHECK(r.totalTrafficBytes == 256);
  CHECK(r.totalInterNodeBytes == 0);
  CHECK(*r.estimatedTimeSeconds == doctest::Approx(1e-6 + 32.0 / 1e9 + 64.0 / 1e12));
  // One rank per node: every partial crosses the network, priced on its link.
  r = onMachine(loadMachineFile(dir + "/singles.yaml"));
  CHECK(r.totalTrafficBytes == 256);
  CHECK(r.totalInterNodeBytes == 256);
  CHECK(*r.estimatedTimeSeconds == doctest::Approx(1e-5 + 32.0 / 1e8 + 64.0 / 1e12));
  for (const char* bad : {"/bad.yaml", "/neg.json", "/missing.yaml", "/unknown.yaml", "/unit.yaml", "/no_link.yaml",
                          "/no_nodes.yaml", "/zero_nodes.yaml", "/word_nodes.yaml"}) {
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
