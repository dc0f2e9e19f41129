// The kernel model (planner/cost/kernel_model.h, time_model.h): the machine file's
// kernel_model section read and its errors named; the GEMM grid interpolated (a power law
// in m, n, k is reproduced exactly inside the grid, the edge's rate beyond it); and the
// estimate of each kernel class worked out by hand — a GEMM, an elementwise call bounded by
// its bytes or by its arithmetic, a fused group priced once at its first member — and the
// coarse model with its note for files without the section.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "planner/algorithms/planning.h"
#include "planner/cost/machine.h"
#include "planner/cost/plan_cost.h"
#include "planner/cost/residency.h"
#include "planner/graph/expr_parser.h"
#include "planner/graph/scalar_functions.h"
#include "planner/cost/time_model.h"
#include "planner/report/plan_file.h"
#include "planner/report/render.h"
#include "planner/report/report.h"
#include "random_graphs.h"
#include "test_graphs.h"

using namespace eindecomp;
using namespace eindecomp::testing;

namespace {

const double kBandwidth = 1e10, kPoint = 1e-10, kReducePoint = 2e-10, kRun = 5e-9, kExp = 1e-9, kAggMax = 3e-10;

// rate(m, n, k) = scale * 1e8 * (m n k)^(1/3) FLOP/s on the grid `sizes` (the file's [1, 16, 256]).
std::string rates(double scale = 1.0, const std::vector<int>& sizes = {1, 16, 256}) {
  std::string s = "[";
  for (int m : sizes)
    for (int n : sizes)
      for (int k : sizes) s += (s.size() > 1 ? ", " : "") + std::to_string(scale * 1e8 * std::cbrt(double(m) * n * k));
  return s + "]";
}

std::string elementwise() {
  std::string s = "{bandwidth: 1e10, reduce_bandwidth: 1e10, point: 1e-10, reduce_point: 2e-10, agg_max: 3e-10, agg_min: 0, run: 5e-9, div: 0";
  for (const ScalarFunctionInfo& f : scalarFunctions())
    s += ", " + std::string(f.name) + ": " + (f.function == ScalarFunction::Exp ? "1e-9" : f.function == ScalarFunction::Max ? "1e-11" : "0");
  return s + "}";
}

std::string kernelModelText(const std::string& replaceKey = "", const std::string& replacement = "") {
  std::string s = "latency: 1e-6\nbandwidth: 1e9\nflops: 1e12\nkernel_model:\n  gemm_sizes: [1, 16, 256]\n";
  auto line = [&](const std::string& key, const std::string& value) {
    if (key == replaceKey) s += replacement;
    else s += "  " + key + ": " + value + "\n";
  };
  for (const char* t : {"f32", "f64", "bf16", "f16"}) line(std::string("gemm_flops_") + t, rates());
  line("permute_sizes", "[1000, 1000000]");
  line("permute_bandwidth", "[5e9, 1e9]");
  line("permute_tile", "[1e-7, 1e-7]");
  line("permute_rows_bandwidth", "[1e10, 1e9]");
  line("permute_run", "[1e-8, 1e-8]");
  for (const char* t : {"f32", "f64", "bf16", "f16"}) line(std::string("elementwise_") + t, elementwise());
  return s;
}

Report reportOn(const Graph& g, const Machine& m, int64_t p = 1) {
  PlanOptions o;
  o.devices = p;
  o.machine = m;
  const Plan plan = planGraph("eindecomp", g, o);
  return makeReport(g, plan, costPlan(g, plan, m), {"einplan", "test", "einplan plan", "00"}, Objective::Traffic);
}

void setJoin(Graph& g, const std::string& node, const std::string& join) {
  for (Node& n : g.nodes)
    if (n.name == node) {
      n.join = parseExpr(join);
      n.joinName = join;
    }
}

// E[i, j] = join(X[i, j]) over 64 x 512: one contiguous run of 32768 points.
Graph unaryGraph(const std::string& join) {
  Graph g;
  addInput(g, "X", {64, 512});
  addNode(g, "E", "ij->ij", {"X"});
  sizeLabels(g, {{"i", 64}, {"j", 512}});
  g.outputs = {"E"};
  setJoin(g, "E", join);
  return g;
}

}  // namespace

TEST_CASE("kernel model: the GEMM grid interpolated in log m, n, k") {
  const Machine m = parseMachineText(kernelModelText(), "m.yaml");
  REQUIRE(m.kernels);
  const KernelModel& k = *m.kernels;
  for (auto [a, b, c] : {std::tuple{1, 1, 1}, {16, 256, 1}, {64, 4, 100}, {200, 3, 17}, {256, 256, 256}})
    CHECK(k.gemmFlopsPerSecond(DType::F32, a, b, c) == doctest::Approx(1e8 * std::cbrt(double(a) * b * c)));
  // Beyond the grid: the edge's rate.
  CHECK(k.gemmFlopsPerSecond(DType::F32, 4096, 16, 16) == doctest::Approx(1e8 * std::cbrt(256.0 * 16 * 16)));
}

TEST_CASE("kernel model: each kernel class priced as the formulas say") {
  const Machine m = parseMachineText(kernelModelText(), "m.yaml");
  // A GEMM of 64^3 at p = 1: 2 * 64^3 / rate(64, 64, 64), nothing permuted.
  Graph mm = matmulGraph(64);
  CHECK(*reportOn(mm, m).estimatedTimeSeconds == doctest::Approx(2.0 * 64 * 64 * 64 / (1e8 * 64)).epsilon(1e-9));
  // exp(x) over 64 x 512: 32768 points, one inner run (the block is contiguous); its
  // arithmetic, 32768 * (1e-10 + 1e-9) + 5e-9, outlasts its bytes, 2 * 128 KiB / 1e10.
  Graph ew = unaryGraph("exp(x)");
  CHECK(*reportOn(ew, m).estimatedTimeSeconds == doctest::Approx(32768 * (kPoint + kExp) + kRun).epsilon(1e-9));
  // x + 1 is bounded by its bytes instead: 2 * 128 KiB / 1e10.
  setJoin(ew, "E", "x + 1");
  CHECK(*reportOn(ew, m).estimatedTimeSeconds == doctest::Approx(2.0 * 32768 * 4 / kBandwidth).epsilon(1e-9));
  // Permutation nodes, as einrt's permutation walks them, at the rates of their size (32768
  // elements: a third of the way from 1000 to 10^6 in log size, so bandwidths of
  // 1e10^(2/3) 1e9^(1/3) and 5e9^(2/3) 1e9^(1/3)): a copy in the same order is one row; a
  // transpose of 64 x 512 runs ceil(64/64) * ceil(512/64) = 8 blocks.
  const double w = (std::log(32768.0) - std::log(1000.0)) / (std::log(1e6) - std::log(1000.0));
  const double rowsBandwidth = std::pow(1e10, 1 - w) * std::pow(1e9, w), transposeBandwidth = std::pow(5e9, 1 - w) * std::pow(1e9, w);
  setJoin(ew, "E", "x");
  CHECK(*reportOn(ew, m).estimatedTimeSeconds == doctest::Approx(2.0 * 32768 * 4 / rowsBandwidth + 1e-8).epsilon(1e-9));
  Graph tr;
  addInput(tr, "X", {64, 512});
  addNode(tr, "T", "ij->ji", {"X"});
  sizeLabels(tr, {{"i", 64}, {"j", 512}});
  tr.outputs = {"T"};
  CHECK(*reportOn(tr, m).estimatedTimeSeconds == doctest::Approx(2.0 * 32768 * 4 / transposeBandwidth + 8 * 1e-7).epsilon(1e-9));
  // A softmax-like group (max over j, exp(x - y), the sum, the division) runs fused: its time
  // sits on its first member; it reads X and writes P (the others stay in tiles): 2 * 128 KiB
  // / 1e10 plus the members' arithmetic — max: 32768 * (2e-10 + 3e-10) + 64 runs;
  // exp(x - y): 32768 * (1e-10 + 1e-9) + 64 runs (y's rows break the runs); sum:
  // 32768 * 2e-10 + 64 runs; division: 32768 * 1e-10 + 64 runs.
  Graph sm;
  addInput(sm, "X", {64, 512});
  addNode(sm, "M", "ij->i", {"X"});
  addNode(sm, "E", "ij,i->ij", {"X", "M"});
  addNode(sm, "S", "ij->i", {"E"});
  addNode(sm, "P", "ij,i->ij", {"E", "S"});
  sizeLabels(sm, {{"i", 64}, {"j", 512}});
  sm.outputs = {"P"};
  sm.nodes[0].agg = Reduce::Max;
  setJoin(sm, "E", "exp(x - y)");
  setJoin(sm, "P", "x / y");
  const Report r = reportOn(sm, m);
  const double pts = 32768, runs = 64;
  const double arithmetic = pts * (kReducePoint + kAggMax) + pts * (kPoint + kExp) + pts * kReducePoint + pts * kPoint + 4 * runs * kRun;
  CHECK(*r.nodes[0].timeSeconds == doctest::Approx(arithmetic + 2.0 * pts * 4 / kBandwidth).epsilon(1e-9));
  for (std::size_t i = 1; i < 4; ++i) CHECK(*r.nodes[i].timeSeconds == 0);
}

TEST_CASE("kernel model: bad sections named by line and field; old files keep the coarse model") {
  struct Bad {
    std::string key, replacement, says;
  };
  const std::vector<Bad> bad{
      {"gemm_flops_f32", "  gemm_flops_f32: [1, 2, 3]\n", "list of 27 numbers"},
      {"gemm_flops_bf16", "", "missing field 'gemm_flops_bf16'"},
      {"permute_bandwidth", "  permute_bandwith: [5e9, 1e9]\n", "unknown field"},
      {"permute_run", "  permute_run: [1e-8]\n", "list of 2 numbers"},
      {"elementwise_f64", "  elementwise_f64: {bandwidth: 1e10}\n", "missing field 'reduce_bandwidth' in 'elementwise_f64'"},
      {"elementwise_f16", "  elementwise_f16: {bandwidth: fast}\n", "'elementwise_f16.bandwidth'"},
      {"permute_rows_bandwidth", "  permute_rows_bandwidth: [1e10, 0]\n", "must be a positive number"},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.key);
    try {
      parseMachineText(kernelModelText(b.key, b.replacement), "m.yaml");
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find(b.says) != std::string::npos);
      CHECK(std::string(e.what()).find("m.yaml:") != std::string::npos);
    }
  }
  std::string sizes = kernelModelText();
  sizes.replace(sizes.find("[1, 16, 256]"), 12, "[1, 256, 16]");
  CHECK_THROWS_WITH_AS(parseMachineText(sizes, "m.yaml"), doctest::Contains("increasing"), InputError);
  // A file of the coarse model plans, and says so.
  PlanOptions o;
  o.devices = 2;
  o.machine = parseMachineText("latency: 1e-6\nbandwidth: 1e9\nflops: 1e12\n", "old.yaml");
  const Plan plan = planGraph("eindecomp", matmulGraph(8), o);
  bool noted = false;
  for (const std::string& n : plan.notes) noted = noted || n.find("no kernel_model") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("kernel model: a GEMM on the primitive's tiles is floored by memory only beyond the cache") {
  // 64^3 goes to the primitive (scheduleGemm: few columns, a short reduction). Its time is
  // its tiles' arithmetic, 2 * 64^3 / rate(64, 64, 64), or, where longer, the share of its
  // streams (A, B, and C stored and read: 4 * 4096 elements of 4 bytes at 1e10 B/s) that
  // its working set (A, B, C: 48 KiB) holds beyond cache_bytes: all of it without the
  // field, none in a cache of 1 MB, half in a cache of 24 KiB. With the grid's rates
  // (rate 6.4e9) the arithmetic is the longer; with rates 100x those, the streams are,
  // except where the cache holds the call.
  const double stream = 4.0 * 4096 * 4 / kBandwidth;
  const Graph mm = matmulGraph(64);
  for (double scale : {1.0, 100.0}) {
    const std::string scaled = rates(scale);
    const std::string primitive = "  gemm_primitive: libxsmm\n  primitive_flops_f32: " + scaled + "\n  primitive_flops_f64: " + scaled + "\n";
    const std::string slowBlas = "  gemm_flops_f32: " + rates(scale / 100) + "\n";  // the primitive is the faster path
    const double compute = 2.0 * 64 * 64 * 64 / (scale * 1e8 * 64);
    for (auto [cache, share] : {std::pair{"", 1.0}, {"  cache_bytes: 1000000\n", 0.0}, {"  cache_bytes: 24576\n", 0.5}}) {
      const Machine m = parseMachineText(kernelModelText("gemm_flops_f32", slowBlas) + primitive + cache, "m.yaml");
      REQUIRE(m.kernels);
      CHECK(*reportOn(mm, m).estimatedTimeSeconds == doctest::Approx(std::max(compute, share * stream)).epsilon(1e-9));
    }
  }
}

TEST_CASE("kernel model: a GEMM whose C is past gemm_spill_from pays the path's spill per element of C") {
  // 64^3 on the BLAS: 2 * 64^3 / rate(64, 64, 64) in cache; a C of 4096 elements past
  // gemm_spill_from adds 4096 x the BLAS's spill (the list's first), one not past it
  // nothing. With a primitive faster than the BLAS, the primitive's (the second) is paid.
  const Graph mm = matmulGraph(64);
  const double compute = 2.0 * 64 * 64 * 64 / (1e8 * 64);
  const std::string spill = "  gemm_spill_f32: [1e-8, 3e-8]\n  gemm_spill_f64: [0, 0]\n";
  const std::string primitive = "  gemm_primitive: libxsmm\n  primitive_flops_f32: " + rates() + "\n  primitive_flops_f64: " + rates() + "\n";
  const std::string slowBlas = "  gemm_flops_f32: " + rates(0.01) + "\n";
  struct Case {
    std::string file;
    double seconds;
  };
  const std::vector<Case> cases{
      {kernelModelText() + "  gemm_spill_from: 4095\n  gemm_spill_f32: [1e-8]\n  gemm_spill_f64: [0]\n", compute + 4096 * 1e-8},
      {kernelModelText() + "  gemm_spill_from: 4096\n  gemm_spill_f32: [1e-8]\n  gemm_spill_f64: [0]\n", compute},
      {kernelModelText("gemm_flops_f32", slowBlas) + primitive + "  cache_bytes: 1000000\n  gemm_spill_from: 4095\n" + spill,
       compute + 4096 * 3e-8},
  };
  for (const Case& c : cases) {
    const Machine m = parseMachineText(c.file, "m.yaml");
    CHECK(*reportOn(mm, m).estimatedTimeSeconds == doctest::Approx(c.seconds).epsilon(1e-9));
  }
  // A list that does not name one figure per path, or a missing type, is named.
  CHECK_THROWS_WITH_AS(parseMachineText(kernelModelText() + primitive + "  gemm_spill_from: 10\n  gemm_spill_f32: [1e-8]\n  gemm_spill_f64: [0, 0]\n", "m.yaml"),
                       doctest::Contains("'gemm_spill_f32' must be a list of 2 numbers"), InputError);
  CHECK_THROWS_WITH_AS(parseMachineText(kernelModelText() + "  gemm_spill_from: 10\n  gemm_spill_f32: [1e-8]\n", "m.yaml"),
                       doctest::Contains("missing field 'gemm_spill_f64'"), InputError);
  CHECK_THROWS_WITH_AS(parseMachineText(kernelModelText() + "  gemm_spill_from: 1.5\n  gemm_spill_f32: [0]\n  gemm_spill_f64: [0]\n", "m.yaml"),
                       doctest::Contains("whole number"), InputError);
}

TEST_CASE("kernel model: a call with A transposed is priced by the A^T grids and runs on the faster path") {
  // Z[i,k] = sum_j X[j,i] Y[j,k], 64^3: A (X) transposed, no permutation. The A^T grids
  // (on [1, 16, 256], sizes of gemm_sizes) give a scale of the main grid's rate: here half
  // on one path and the same on the other, so the call runs on the other, at compute.
  Graph g;
  addInput(g, "X", {64, 64});
  addInput(g, "Y", {64, 64});
  addNode(g, "Z", "ji,jk->ik", {"X", "Y"});
  sizeLabels(g, {{"i", 64}, {"j", 64}, {"k", 64}});
  g.outputs = {"Z"};
  const double compute = 2.0 * 64 * 64 * 64 / (1e8 * 64);
  const std::string primitive = "  gemm_primitive: libxsmm\n  primitive_flops_f32: " + rates() + "\n  primitive_flops_f64: " + rates() +
                                "\n  cache_bytes: 1000000000\n  gemm_at_sizes: [1, 16, 256]\n";
  for (auto [blasScale, path] : {std::pair{0.5, einrt::program::GemmPlanned::Primitive}, {1.0, einrt::program::GemmPlanned::Blas}}) {
    CAPTURE(blasScale);
    const double primitiveScale = 1.5 - blasScale;
    const std::string at = "  gemm_at_flops_f32: " + rates(blasScale) + "\n  gemm_at_flops_f64: " + rates(blasScale) +
                           "\n  primitive_at_flops_f32: " + rates(primitiveScale) + "\n  primitive_at_flops_f64: " + rates(primitiveScale) + "\n";
    const Report r = reportOn(g, parseMachineText(kernelModelText() + primitive + at, "m.yaml"));
    CHECK(r.nodes[0].gemmPath == path);
    CHECK(*r.estimatedTimeSeconds == doctest::Approx(compute).epsilon(1e-6));
  }
  // Without a primitive the BLAS's A^T scale prices the call (half the rate: twice the time).
  const std::string half = rates(0.5, {1, 256});
  const Machine blasOnly = parseMachineText(kernelModelText() + "  gemm_at_sizes: [1, 256]\n  gemm_at_flops_f32: " + half +
                                                "\n  gemm_at_flops_f64: " + half + "\n",
                                            "m.yaml");
  CHECK(*reportOn(g, blasOnly).estimatedTimeSeconds == doctest::Approx(2 * compute).epsilon(1e-6));
  // Sizes outside gemm_sizes, or a missing list, are named.
  CHECK_THROWS_WITH_AS(parseMachineText(kernelModelText() + "  gemm_at_sizes: [2, 16]\n", "m.yaml"), doctest::Contains("sizes of 'gemm_sizes'"),
                       InputError);
  CHECK_THROWS_WITH_AS(parseMachineText(kernelModelText() + primitive + "  gemm_at_flops_f32: " + rates() + "\n", "m.yaml"),
                       doctest::Contains("missing field 'primitive_at_flops_f32'"), InputError);
}

TEST_CASE("kernel model: functions added after a file was written (sin, cos) are priced as exp") {
  std::string old = kernelModelText();
  for (const char* added : {", sin: 0", ", cos: 0"})
    for (std::size_t at; (at = old.find(added)) != std::string::npos;) old.erase(at, std::string(added).size());
  const Machine m = parseMachineText(old, "m.yaml");
  REQUIRE(m.kernels);
  const ElementwiseRates& r = m.kernels->rates(einrt::DType::F32);
  CHECK(r.functionSeconds.at(static_cast<std::size_t>(ScalarFunction::Sin)) == kExp);
  CHECK(r.functionSeconds.at(static_cast<std::size_t>(ScalarFunction::Cos)) == kExp);
  // One measured before them is still required.
  std::string noTanh = kernelModelText();
  for (std::size_t at; (at = noTanh.find(", tanh: 0")) != std::string::npos;) noTanh.erase(at, 9);
  CHECK_THROWS_WITH_AS(parseMachineText(noTanh, "m.yaml"), doctest::Contains("missing field 'tanh'"), InputError);
}

TEST_CASE("kernel model: --objective time keeps the traffic plan unless a plan is faster by more than the margin") {
  const Machine machine = parseMachineText(kernelModelText(), "m.yaml");
  RandomGraphs gen{std::mt19937(2027), 0, {}};
  auto notes = [](const Plan& plan, const std::string& text) {
    for (const std::string& n : plan.notes)
      if (n.find(text) != std::string::npos) return true;
    return false;
  };
  int differing = 0, sameBytes = 0;
  for (int c = 0; c < 300 && (differing < 6 || sameBytes < 3); ++c) {
    const int64_t p = 2 + c % 7;
    const Graph g = gen.make(2 + c % 4, c % 2 == 1);
    PlanOptions o;
    o.devices = p;
    o.machine = machine;
    o.objective = Objective::Traffic;
    const Plan traffic = planGraph("eindecomp", g, o);
    const PlanCost trafficCost = costPlan(g, traffic, machine);
    o.objective = Objective::Time;
    o.timeMargin = 0;  // the least estimated time of the search's plan and the traffic plan
    const PlanCost fastest = costPlan(g, planGraph("eindecomp", g, o), machine);
    if (fastest.trafficBytes == trafficCost.trafficBytes) {
      // The same bytes, another estimate: within the margin the traffic plan is returned
      // all the same (a gain inside the model's error is no reason to leave it).
      if (*fastest.timePs == *trafficCost.timePs) continue;
      ++sameBytes;
      CAPTURE(c);
      REQUIRE(*fastest.timePs < *trafficCost.timePs);
      const bool within = static_cast<double>(*trafficCost.timePs) <= static_cast<double>(*fastest.timePs) * 1.05;
      o.timeMargin = 0.05;
      const Plan plan = planGraph("eindecomp", g, o);
      CHECK(*costPlan(g, plan, machine).timePs == (within ? *trafficCost.timePs : *fastest.timePs));
      CHECK(notes(plan, "sends as many bytes") == within);
      continue;
    }
    ++differing;
    CAPTURE(c);
    REQUIRE(*fastest.timePs <= *trafficCost.timePs);
    // Any margin: the plan returned is within it of the least estimated time; where the
    // traffic plan is, it is the traffic plan (with a note saying so).
    for (double margin : {0.05, 0.5}) {
      o.timeMargin = margin;
      const Plan plan = planGraph("eindecomp", g, o);
      const PlanCost cost = costPlan(g, plan, machine);
      CHECK(static_cast<double>(*cost.timePs) <= static_cast<double>(*fastest.timePs) * (1 + margin));
      const bool within = static_cast<double>(*trafficCost.timePs) <= static_cast<double>(*fastest.timePs) * (1 + margin);
      CHECK((cost.trafficBytes == trafficCost.trafficBytes) == within);
      CHECK(notes(plan, "within --time-margin") == within);
    }
  }
  CHECK(differing >= 3);
  CHECK(sameBytes >= 1);
}

TEST_CASE("kernel model: the primitive's 64-wide tiles are read among the grid's wider points") {
  // X (64 x 16) Y (16 x n) on the primitive (a short reduction): 160 and 256 columns both
  // run as 64-wide tiles, so both take rate(64, 256, 16), the grid's first point wider than
  // one tile (128 columns), and their times go as their columns (up to the panels' copies,
  // a few per cent). Interpolating at 160 itself (rate(64, 160, 16), between the one-tile
  // point 16 and 256) would make the narrower call 17 % slower per column.
  const std::string primitive = "  gemm_primitive: libxsmm\n  primitive_flops_f32: " + rates() + "\n  primitive_flops_f64: " + rates() +
                                "\n  cache_bytes: 1000000000\n";
  const Machine m = parseMachineText(kernelModelText("gemm_flops_f32", "  gemm_flops_f32: " + rates(0.01) + "\n") + primitive,
                                     "m.yaml");
  auto seconds = [&](int64_t n) {
    Graph g;
    addInput(g, "X", {64, 16});
    addInput(g, "Y", {16, n});
    addNode(g, "Z", "ik,kj->ij", {"X", "Y"});
    sizeLabels(g, {{"i", 64}, {"k", 16}, {"j", n}});
    g.outputs = {"Z"};
    return *reportOn(g, m).estimatedTimeSeconds;
  };
  CHECK(seconds(160) / seconds(256) == doctest::Approx(160.0 / 256).epsilon(0.05));
}

TEST_CASE("kernel model: outputs over stream_bytes priced at stream_bandwidth where einrt streams them") {
  std::string streamed = elementwise();
  streamed.insert(streamed.find(", reduce_bandwidth"), ", stream_bandwidth: 2e10");
  const std::string text = kernelModelText("elementwise_f32", "  elementwise_f32: " + streamed + "\n");
  const Machine withStreams = parseMachineText(text + "  stream_bytes: 100000\n", "m.yaml");
  const Machine without = parseMachineText(text, "m.yaml");  // a file from before: no stream_bytes
  // x + 1 over 64 x 512: a 128 KiB output in one contiguous run, over stream_bytes.
  const Graph ew = unaryGraph("x + 1");
  CHECK(*reportOn(ew, withStreams).estimatedTimeSeconds == doctest::Approx(2.0 * 32768 * 4 / 2e10).epsilon(1e-9));
  CHECK(*reportOn(ew, without).estimatedTimeSeconds == doctest::Approx(2.0 * 32768 * 4 / kBandwidth).epsilon(1e-9));
  // Split in two calls at p = 2, each output (64 KiB) is under stream_bytes: plain stores.
  CHECK(*reportOn(ew, withStreams, 2).estimatedTimeSeconds == doctest::Approx(2.0 * 16384 * 4 / kBandwidth).epsilon(1e-9));
  // x * w[j] over 4096 x 8: 128 KiB again, but in runs of 8 elements (w's stride breaks
  // them), too short to stream.
  Graph bc;
  addInput(bc, "X", {4096, 8});
  addInput(bc, "W", {8});
  addNode(bc, "B", "ij,j->ij", {"X", "W"});
  sizeLabels(bc, {{"i", 4096}, {"j", 8}});
  bc.outputs = {"B"};
  const Report r = reportOn(bc, withStreams);
  CHECK(*r.estimatedTimeSeconds >= (2.0 * 32768 + 8) * 4 / kBandwidth * (1 - 1e-9));
}

TEST_CASE("kernel model: each GEMM runs on the path its grids price faster, and the plan says which") {
  // 64^3 f32 (the rule would send it to the primitive: a short reduction, few columns) on
  // grids where the primitive's rates are twice the BLAS's, then half: the plan records
  // the faster path (gemm_path, which the program runs), the estimate is that path's, and
  // a plan file's gemm_path is kept and priced even where the other path is faster.
  const Graph mm = matmulGraph(64);
  const double compute = 2.0 * 64 * 64 * 64 / (1e8 * 64);  // at rates(), rate(64, 64, 64) = 6.4e9
  for (auto [scale, path] : {std::pair{2.0, einrt::program::GemmPlanned::Primitive}, {0.5, einrt::program::GemmPlanned::Blas}}) {
    CAPTURE(scale);
    const std::string primitive = "  gemm_primitive: libxsmm\n  primitive_flops_f32: " + rates(scale) +
                                  "\n  primitive_flops_f64: " + rates(scale) + "\n  cache_bytes: 1000000000\n";
    const Machine m = parseMachineText(kernelModelText() + primitive, "m.yaml");
    const Report r = reportOn(mm, m);
    CHECK(r.nodes[0].gemmPath == path);
    CHECK(*r.estimatedTimeSeconds == doctest::Approx(compute / std::max(scale, 1.0)).epsilon(0.02));
    const std::string json = renderReport(r, ReportFormat::Json);
    CHECK(json.find(std::string("\"gemm_path\": \"") + einrt::program::gemmPlannedName(path) + "\"") != std::string::npos);
    // The other path, pinned by a plan file, is kept and priced.
    const einrt::program::GemmPlanned other =
        path == einrt::program::GemmPlanned::Blas ? einrt::program::GemmPlanned::Primitive : einrt::program::GemmPlanned::Blas;
    const PlanFile file = parsePlanText(std::string(R"({"devices": 1, "nodes": [{"name": "Z", "partition": {"i": 1}, "gemm_path": ")") +
                                            einrt::program::gemmPlannedName(other) + "\"}]}",
                                        "plan.json");
    PlanOptions o;
    o.machine = m;
    const ResolvedPlanFile resolved = resolvePlanFile(mm, file, 1, "00");
    o.pinned = resolved.partitions;
    o.pinnedGemmPaths = resolved.gemmPaths;
    const Plan pinned = planGraph("fixed", mm, o);
    CHECK(pinned.nodes[0].gemmPath == other);
    CHECK(picosecondsToSeconds(*costPlan(mm, pinned, m).timePs) == doctest::Approx(compute * std::max(scale, 1.0) / scale).epsilon(0.02));
  }
  // Without a primitive in the file there is nothing to choose: einrt's rule, no key.
  const Report r = reportOn(mm, parseMachineText(kernelModelText(), "m.yaml"));
  CHECK(r.nodes[0].gemmPath == einrt::program::GemmPlanned::Rule);
  CHECK(renderReport(r, ReportFormat::Json).find("gemm_path") == std::string::npos);
}

TEST_CASE("kernel model: a call with B transposed is priced on the BLAS by the B^T grid") {
  // Z[i,k] = sum_j X[i,j] Y[k,j], 64^3: B (Y) read transposed, no permutation. A B^T grid at
  // half the main grid's rates halves the BLAS's rate; a file without one (earlier
  // einrt-calibrate) prices it at the main grid's; a B^T grid without its sizes is named.
  Graph g;
  addInput(g, "X", {64, 64});
  addInput(g, "Y", {64, 64});
  addNode(g, "Z", "ij,kj->ik", {"X", "Y"});
  sizeLabels(g, {{"i", 64}, {"j", 64}, {"k", 64}});
  g.outputs = {"Z"};
  const double compute = 2.0 * 64 * 64 * 64 / (1e8 * 64);
  const std::string sizes = "  gemm_at_sizes: [1, 256]\n  gemm_at_flops_f32: " + rates(1, {1, 256}) + "\n  gemm_at_flops_f64: " + rates(1, {1, 256}) + "\n";
  const std::string bt = "  gemm_bt_flops_f32: " + rates(0.5, {1, 256}) + "\n  gemm_bt_flops_f64: " + rates(0.5, {1, 256}) + "\n";
  CHECK(*reportOn(g, parseMachineText(kernelModelText() + sizes + bt, "m.yaml")).estimatedTimeSeconds ==
        doctest::Approx(2 * compute).epsilon(1e-6));
  CHECK(*reportOn(g, parseMachineText(kernelModelText() + sizes, "m.yaml")).estimatedTimeSeconds == doctest::Approx(compute).epsilon(1e-6));
  // A^T's grid does not apply to it, nor B^T's to a call with B as stored.
  CHECK(*reportOn(matmulGraph(64), parseMachineText(kernelModelText() + sizes + bt, "m.yaml")).estimatedTimeSeconds ==
        doctest::Approx(compute).epsilon(1e-6));
  CHECK_THROWS_WITH_AS(parseMachineText(kernelModelText() + bt, "m.yaml"), doctest::Contains("needs 'gemm_at_sizes'"), InputError);
}

TEST_CASE("kernel model: the BLAS computes C's rows in whole cache lines") {
  // X (64 x 64) Y (64 x n) on the BLAS: n = 50 f32 columns cost what 64 do (four lines of
  // 16), read at the grid's rate for 64; n = 8 (under a line) at its own rate, as the grid's
  // points under a line were measured.
  const Machine m = parseMachineText(kernelModelText(), "m.yaml");
  auto seconds = [&](int64_t n) {
    Graph g;
    addInput(g, "X", {64, 64});
    addInput(g, "Y", {64, n});
    addNode(g, "Z", "ik,kj->ij", {"X", "Y"});
    sizeLabels(g, {{"i", 64}, {"k", 64}, {"j", n}});
    g.outputs = {"Z"};
    return *reportOn(g, m).estimatedTimeSeconds;
  };
  CHECK(seconds(50) == doctest::Approx(2.0 * 64 * 64 * 64 / (1e8 * 64)).epsilon(1e-6));
  CHECK(seconds(8) == doctest::Approx(2.0 * 64 * 8 * 64 / (1e8 * std::cbrt(64.0 * 8 * 64))).epsilon(1e-6));
}

TEST_CASE("residency: a result comes from memory where the nodes since its last use touched more than the cache") {
  // A chain A -> B -> C, 10 bytes touched by each node's calls. A's result, last read by B:
  // C's 10 bytes after B, none before A. B's, read by C: A's 10 before it. C's (nothing
  // reads it): A's and B's 20. In a cache of 15 bytes only C's result is gone; in one of 5
  // all are; an unknown cache (0) keeps them all. Last readers: A's is B, B's is C, C's is C.
  const std::vector<int> g{1, 2, 2};
  const std::vector<double> touched{10, 10, 10};
  CHECK(resultsFromMemory(g, touched, 15) == std::vector<bool>{false, false, true});
  CHECK(resultsFromMemory(g, touched, 5) == std::vector<bool>{true, true, true});
  CHECK(resultsFromMemory(g, touched, 0) == std::vector<bool>{false, false, false});
}

TEST_CASE("residency: the primitive's C from memory is read and written back at the copy bandwidth") {
  // Z = X Y (64^3, on the primitive: its grid 100x the BLAS's) and E = W + 1 over 2^20
  // elements: E's calls touch 8 MiB between Z's runs. The caches keep the grid's largest C
  // (gemm_spill_from elements of f32): 10^7 elements hold E's bytes and Z's C stays cached;
  // 10^5 (400 kB) do not, and Z pays its C's 4096 elements read and written, 2 * 16 KiB at
  // the copy's 1e10 B/s (a C past gemm_spill_from pays the spill instead: not here).
  Graph g;
  addInput(g, "X", {64, 64});
  addInput(g, "Y", {64, 64});
  addInput(g, "W", {1 << 20});
  addNode(g, "Z", "ik,kj->ij", {"X", "Y"});
  addNode(g, "E", "a->a", {"W"});
  sizeLabels(g, {{"i", 64}, {"k", 64}, {"j", 64}, {"a", 1 << 20}});
  g.outputs = {"Z", "E"};
  setJoin(g, "E", "x + 1");
  const std::string primitive = "  gemm_primitive: libxsmm\n  primitive_flops_f32: " + rates() + "\n  primitive_flops_f64: " + rates() +
                                "\n  cache_bytes: 1000000000\n  gemm_spill_f32: [0, 0]\n  gemm_spill_f64: [0, 0]\n";
  const std::string slowBlas = "  gemm_flops_f32: " + rates(0.01) + "\n";
  const double compute = 2.0 * 64 * 64 * 64 / (1e8 * 64);
  for (auto [spillFrom, extra] : {std::pair{"10000000", 0.0}, {"100000", 2.0 * 4096 * 4 / kBandwidth}}) {
    CAPTURE(spillFrom);
    const Machine m = parseMachineText(kernelModelText("gemm_flops_f32", slowBlas) + primitive + "  gemm_spill_from: " + spillFrom + "\n", "m.yaml");
    const Report r = reportOn(g, m);
    REQUIRE(r.nodes[0].gemmPath == einrt::program::GemmPlanned::Primitive);
    CHECK(*r.nodes[0].timeSeconds == doctest::Approx(compute + extra).epsilon(1e-6));
    // explain's "one call" says so where the plan charges it.
    const NodeSpace space = nodeSpace(g.nodes[0]);
    const std::string said = describeCallTime(m, g.nodes[0], space, Parts(space.labels.size(), 1), DType::F32, extra > 0);
    CHECK((said.find("+ its result from memory (16.0 KiB read and written back)") != std::string::npos) == (extra > 0));
  }
}
