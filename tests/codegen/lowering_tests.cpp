// Placement and byte prediction (codegen/lower) against independent oracles: the
// assignment solver against brute force over all assignments; block overlaps against an
// element-by-element count; every node's predicted bytes against einrt's own traffic
// prediction (runtime/include/einrt/traffic.h) on the layouts the emitted program builds,
// for random partitions of several graphs and device counts (seeds printed).
#include <doctest/doctest.h>

#include <algorithm>
#include <iostream>
#include <numeric>
#include <random>
#include <set>

#include <einrt/layout.h>
#include <einrt/traffic.h>

#include "codegen/lower/block_geometry.h"
#include "codegen/lower/hungarian.h"
#include "codegen/lower/identifiers.h"
#include "codegen/lower/lower.h"
#include "planner/graph/load.h"

using namespace eindecomp;
using namespace eindecomp::codegen;

TEST_CASE("the assignment solver finds the brute-force optimum") {
  const unsigned seed = 20261122;
  std::cout << "assignment seed " << seed << "\n";
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 200; ++trial) {
    const int m = 1 + static_cast<int>(rng() % 6), n = 1 + static_cast<int>(rng() % m);
    std::vector<std::vector<int64_t>> cost(n, std::vector<int64_t>(m));
    for (auto& row : cost)
      for (auto& c : row) c = static_cast<int64_t>(rng() % 5) * 100;
    const std::vector<int> got = solveAssignment(cost);
    REQUIRE(got.size() == static_cast<std::size_t>(n));
    CHECK(std::set<int>(got.begin(), got.end()).size() == got.size());
    int64_t gotCost = 0;
    for (int i = 0; i < n; ++i) gotCost += cost[i][got[i]];
    std::vector<int> cols(m);
    std::iota(cols.begin(), cols.end(), 0);
    int64_t best = INT64_MAX;
    do {
      int64_t c = 0;
      for (int i = 0; i < n; ++i) c += cost[i][cols[i]];
      best = std::min(best, c);
    } while (std::next_permutation(cols.begin(), cols.end()));
    CAPTURE(trial);
    CHECK(gotCost == best);
  }
}

TEST_CASE("block overlaps match an element-by-element count") {
  const struct {
    std::vector<int64_t> shape, to, from;
  } cases[] = {{{8, 8}, {2, 4}, {4, 2}}, {{12}, {3}, {4}}, {{6, 10}, {6, 1}, {1, 5}}, {{4, 6, 6}, {2, 3, 2}, {1, 2, 3}}, {{}, {}, {}}};
  for (const auto& c : cases) {
    BlockGrid to{c.shape, c.to}, from{c.shape, c.from};
    for (int64_t b = 0; b < to.blockCount(); ++b) {
      std::map<int64_t, int64_t> got, want;
      forEachOverlap(to, b, from, [&](int64_t pb, int64_t n) { got[pb] += n; });
      int64_t total = 1;
      for (int64_t e : c.shape) total *= e;
      for (int64_t flat = 0; flat < total; ++flat) {
        std::vector<int64_t> idx(c.shape.size());
        int64_t rest = flat;
        for (std::size_t d = c.shape.size(); d-- > 0;) { idx[d] = rest % c.shape[d]; rest /= c.shape[d]; }
        std::vector<int64_t> tc, fc;
        for (std::size_t d = 0; d < idx.size(); ++d) {
          tc.push_back(idx[d] / to.blockExtent(d));
          fc.push_back(idx[d] / from.blockExtent(d));
        }
        if (to.index(tc) == b) want[from.index(fc)] += 1;
      }
      CHECK(got == want);
    }
  }
}

TEST_CASE("identifiers: the SPEC 1 rule, internal names and deterministic C++ names") {
  const struct {
    const char* name;
    bool identifier, internal;
  } cases[] = {{"A", true, true},          {"_x9", true, true},        {"9a", false, false},   {"a-b", false, false},
               {"a\"b", false, false},     {"a;b", false, false},      {"a\nb", false, false}, {"#include", false, false},
               {"", false, false},         {"AB.1", false, true},      {"AB.1.2", false, true}, {"AB.", false, false},
               {"AB.x", false, false},     {".1", false, false}};
  for (const auto& c : cases) {
    CAPTURE(c.name);
    CHECK(isValidIdentifier(c.name) == c.identifier);
    CHECK(isValidInternalName(c.name) == c.internal);
  }
  CHECK(isValidIdentifier(std::string(64, 'a')));
  CHECK_FALSE(isValidIdentifier(std::string(65, 'a')));
  CHECK(cppIdentifier(3, "AB.1") == "t3_AB_1");
  CHECK(cppIdentifier(4, "AB_1") == "t4_AB_1");
  CHECK(commentSafe("a\nb\r*/") == "a?b?*/");
}

namespace {

// The layouts the emitted program builds (templates/ein_program.cpp.tpl), rebuilt here
// from the RankProgram, fed to einrt's predictor.
std::vector<int64_t> cell(const NodeProgram& n, int64_t call) {
  std::vector<int64_t> c(n.labels.size());
  for (std::size_t l = n.labels.size(); l-- > 0;) { c[l] = call % n.parts[l]; call /= n.parts[l]; }
  return c;
}
int64_t blockOf(const NodeProgram& n, const std::vector<int>& dims, const std::vector<int64_t>& c) {
  int64_t b = 0;
  for (int l : dims) b = b * n.parts[l] + c[l];
  return b;
}
std::vector<int64_t> partsOf(const NodeProgram& n, const std::vector<int>& dims) {
  std::vector<int64_t> p;
  for (int l : dims) p.push_back(n.parts[l]);
  return p;
}
std::vector<std::vector<int>> holders(const NodeProgram& n, const std::vector<int>& dims) {
  std::vector<std::set<int>> h(BlockGrid{{}, partsOf(n, dims)}.blockCount());
  for (int64_t c = 0; c < n.calls; ++c) h[blockOf(n, dims, cell(n, c))].insert(n.callRank[c]);
  std::vector<std::vector<int>> out;
  for (const auto& s : h) out.emplace_back(s.begin(), s.end());
  return out;
}
einrt::Layout ownedLayout(const RankProgram& rp, const NodeProgram& n) {
  std::vector<std::vector<int>> owners;
  for (int o : n.blockOwner) owners.push_back({o});
  return einrt::Layout::grid(rp.tensors[n.outputTensor].shape, partsOf(n, n.outputLabelOfDim), owners);
}

const char* kChain = R"(
name: chain
inputs: {A: [12, 8], B: [8, 6], C: [6, 12]}
nodes:
  - {name: AB, einsum: "ij,jk->ik", inputs: [A, B]}
  - {name: ABC, einsum: "ik,kl->il", inputs: [AB, C]}
  - {name: M, einsum: "il->l", agg: max, inputs: [ABC]}
  - {name: D, einsum: "il,l->il", join: "x - y", inputs: [ABC, M]}
  - {name: T, einsum: "il,ik->lk", inputs: [D, AB]}
)";

const char* kBatched = R"(
name: batched
dtype: f64
inputs: {Q: [4, 6, 2], K: [4, 6, 2]}
nodes:
  - {name: S, einsum: "b q d, b k d -> b q k", inputs: [Q, K]}
  - {name: P, einsum: "b q k -> q b", agg: sum, inputs: [S]}
)";

}  // namespace

TEST_CASE("predicted bytes equal einrt's traffic prediction on the program's layouts") {
  const unsigned seed = 777;
  std::cout << "partition seed " << seed << "\n";
  std::mt19937 rng(seed);
  for (const char* text : {kChain, kBatched}) {
    const Graph g = loadGraphText(text, "test.yaml", GraphFormat::Yaml);
    for (int devices : {1, 2, 3, 4, 6, 8}) {
      for (int trial = 0; trial < 6; ++trial) {
        PlanPartitions pp;
        pp.devices = devices;
        for (const Node& node : g.nodes) {
          // A random partition whose kernel calls do not exceed the devices.
          auto& parts = pp.partitions[node.name];
          int64_t calls = 1;
          for (const auto& l : iterationLabels(node)) {
            std::vector<int64_t> options;
            for (int64_t d = 1; d <= node.labelSizes.at(l); ++d)
              if (node.labelSizes.at(l) % d == 0 && calls * d <= devices) options.push_back(d);
            parts[l] = options[rng() % options.size()];
            calls *= parts[l];
          }
        }
        const RankProgram rp = lowerPlan(g, pp);
        int64_t total = 0;
        for (const NodeProgram& n : rp.nodes) {
          CAPTURE(n.name);
          CAPTURE(devices);
          const einrt::DType dt = g.dtype == DType::F64 ? einrt::DType::F64 : einrt::DType::F32;
          uint64_t expected = 0;
          for (const auto& op : n.operands) {
            const TensorProgram& t = rp.tensors[op.tensor];
            if (t.producer < 0) continue;
            const einrt::Layout need = einrt::Layout::grid(t.shape, partsOf(n, op.labelOfDim), holders(n, op.labelOfDim));
            expected += einrt::predictTraffic(ownedLayout(rp, rp.nodes[t.producer]), need, dt, devices).totalBytes;
          }
          const einrt::Layout partial = einrt::Layout::grid(rp.tensors[n.outputTensor].shape, partsOf(n, n.outputLabelOfDim),
                                                            holders(n, n.outputLabelOfDim), einrt::Holding::Partial);
          expected += einrt::predictTraffic(partial, ownedLayout(rp, n), dt, devices).totalBytes;
          CHECK(static_cast<uint64_t>(n.bytesPredicted) == expected);
          total += n.bytesPredicted;
          // Calls sit on distinct ranks and every output block lives with one of its contributors.
          CHECK(std::set<int>(n.callRank.begin(), n.callRank.end()).size() == n.callRank.size());
        }
        CHECK(rp.bytesPredicted == total);
        if (devices == 1) CHECK(total == 0);
      }
    }
  }
}

TEST_CASE("lowering rejects partitions that do not fit") {
  const Graph g = loadGraphText(kChain, "test.yaml", GraphFormat::Yaml);
  PlanPartitions pp;
  pp.devices = 4;
  for (const Node& n : g.nodes) pp.partitions[n.name] = {};
  pp.partitions["AB"] = {{"i", 5}};
  CHECK_THROWS_AS(lowerPlan(g, pp), InputError);
  pp.partitions["AB"] = {{"i", 4}, {"j", 2}};
  CHECK_THROWS_AS(lowerPlan(g, pp), InputError);
  pp.partitions["AB"] = {{"zz", 2}};
  CHECK_THROWS_AS(lowerPlan(g, pp), InputError);
  pp.partitions["AB"] = {{"i", 2}};
  CHECK_NOTHROW(lowerPlan(g, pp));
}

TEST_CASE("hostile names are rejected before lowering") {
  Graph g = loadGraphText(kChain, "test.yaml", GraphFormat::Yaml);
  for (const std::string& bad : std::vector<std::string>{"x\"; system(\"rm\"); //", "a\nb", "#include <x>", std::string(80, 'n'), "a b"}) {
    Graph h = g;
    h.nodes[0].name = bad;
    CHECK_THROWS_AS(validateGraphForCodegen(h), InputError);
    h = g;
    h.name = bad;
    CHECK_THROWS_AS(validateGraphForCodegen(h), InputError);
    h = g;
    h.inputs[0].name = bad;
    CHECK_THROWS_AS(validateGraphForCodegen(h), InputError);
  }
  CHECK_NOTHROW(validateGraphForCodegen(g));
}
