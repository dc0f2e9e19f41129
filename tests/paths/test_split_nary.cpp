// splitNaryNodes on hand-built graphs: names, labels kept by intermediates, references
// that still resolve, errors, sanitized names and the PathInfo-style report.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "planner/paths/split_nary.h"

using namespace eindecomp;

namespace {

Labels chars(const std::string& s) {
  Labels out;
  for (char c : s) out.push_back(std::string(1, c));
  return out;
}

// Gives every node the sizes of its own labels from one vocabulary.
void sizeLabels(Graph& g, const std::map<Label, int64_t>& sizes) {
  for (Node& n : g.nodes)
    for (const auto& l : iterationLabels(n)) n.labelSizes[l] = sizes.at(l);
}

Expr mulJoin() { return Expr::binary(Expr::Kind::Mul, Expr::x(), Expr::y()); }

Node contraction(const std::string& name, const std::vector<std::string>& inputs, const std::vector<std::string>& ops,
                 const std::string& out) {
  Node n;
  n.name = name;
  n.inputs = inputs;
  for (const auto& o : ops) n.operandLabels.push_back(chars(o));
  n.outputLabels = chars(out);
  n.joinName = "mul";
  n.join = inputs.size() == 1 ? Expr::x() : mulJoin();
  return n;
}

// A_ij B_jk C_kl -> il with a chain shape that makes (A B) C the cheap order, consumed by
// a node U (unary) that must still find T.
Graph chainGraph() {
  Graph g;
  g.name = "chain";
  g.inputs = {{"A", {10, 100}, {}}, {"B", {100, 5}, {}}, {"C", {5, 50}, {}}};
  g.nodes = {contraction("T", {"A", "B", "C"}, {"ij", "jk", "kl"}, "il"), contraction("U", {"T"}, {"il"}, "i")};
  sizeLabels(g, {{"i", 10}, {"j", 100}, {"k", 5}, {"l", 50}});
  g.outputs = {"U"};
  return g;
}

}  // namespace

TEST_CASE("a 3-operand chain becomes T.1 and T, in topological order, with the cheap order") {
  std::vector<ContractionPathInfo> infos;
  const Graph s = splitNaryNodes(chainGraph(), infos);
  REQUIRE(s.nodes.size() == 3);
  CHECK(s.nodes[0].name == "T.1");
  CHECK(s.nodes[1].name == "T");
  CHECK(s.nodes[2].name == "U");
  CHECK(s.nodes[2].inputs == std::vector<std::string>{"T"});
  // (A B) first: 2*10*100*5 = 10000, then (AB) C: 2*10*5*50 = 5000.
  CHECK(s.nodes[0].inputs == std::vector<std::string>{"A", "B"});
  CHECK(s.nodes[0].outputLabels == chars("ik"));
  CHECK(s.nodes[0].einsum == "ij,jk->ik");
  CHECK(s.nodes[1].inputs == std::vector<std::string>{"T.1", "C"});
  CHECK(s.nodes[1].outputLabels == chars("il"));
  for (const auto& n : s.nodes) CHECK(n.inputs.size() <= 2);
  REQUIRE(infos.size() == 1);
  const ContractionPathInfo& info = infos[0];
  CHECK(info.optimizedFlops == 15000);
  CHECK(info.naiveFlops == FlopCount{10 * 100 * 5 * 50} * 3);  // one loop nest, 2 mults + 1 add
  // NumPy's count: operands (A is 10 x 100), intermediates and the output.
  CHECK(info.largestIntermediate == 1000);
  CHECK(info.search.exact);
  CHECK(info.naiveScaling == 4);
  CHECK(info.optimizedScaling == 3);
  CHECK(info.path == std::vector<std::pair<int, int>>{{0, 1}, {0, 1}});
  REQUIRE(info.steps.size() == 2);
  CHECK(info.steps[0].kind == KernelMapping::Gemm);
  CHECK(info.steps[1].kind == KernelMapping::Gemm);
  // The report names every step, its FLOPs and its kernel.
  const std::string report = formatPathReport(infos);
  CAPTURE(report);
  CHECK(report.find("Contraction path of node T") != std::string::npos);
  CHECK(report.find("Naive FLOP count:      750000") != std::string::npos);
  CHECK(report.find("Optimized FLOP count:  15000") != std::string::npos);
  CHECK(report.find("Theoretical speedup:   50") != std::string::npos);
  CHECK(report.find("Complete contraction:  ij,jk,kl->il") != std::string::npos);
  CHECK(report.find("Naive scaling:         4") != std::string::npos);
  CHECK(report.find("Optimized scaling:     3") != std::string::npos);
  CHECK(report.find("Largest intermediate:  1000 elements") != std::string::npos);
  CHECK(report.find("Search:                exact") != std::string::npos);
  CHECK(report.find("T.1") != std::string::npos);
  CHECK(report.find("gemm") != std::string::npos);
  CHECK(formatPathReport({}).empty());
}

TEST_CASE("intermediates keep only labels needed later; broadcast labels reach the last step") {
  // X_ab Y_bc Z_cd W_d -> a z: b, c, d are summed; z is a broadcast label.
  Graph g;
  g.inputs = {{"X", {3, 4}, {}}, {"Y", {4, 5}, {}}, {"Z", {5, 6}, {}}, {"W", {6}, {}}};
  g.nodes = {contraction("N", {"X", "Y", "Z", "W"}, {"ab", "bc", "cd", "d"}, "az")};
  sizeLabels(g, {{"a", 3}, {"b", 4}, {"c", 5}, {"d", 6}, {"z", 7}});
  g.outputs = {"N"};
  const Graph s = splitNaryNodes(g);
  REQUIRE(s.nodes.size() == 3);
  CHECK(s.nodes[0].name == "N.1");
  CHECK(s.nodes[1].name == "N.2");
  CHECK(s.nodes[2].name == "N");
  CHECK(s.nodes[2].outputLabels == chars("az"));
  for (std::size_t k = 0; k + 1 < s.nodes.size(); ++k) {
    const Node& step = s.nodes[k];
    CAPTURE(step.name);
    // Every label an intermediate keeps is used by a later step or the output.
    for (const auto& l : step.outputLabels) {
      bool usedLater = l == "a";
      for (std::size_t j = k + 1; j < s.nodes.size(); ++j)
        for (std::size_t o = 0; o < s.nodes[j].inputs.size(); ++o)
          if (s.nodes[j].inputs[o] != step.name)
            for (const auto& m : s.nodes[j].operandLabels[o]) usedLater = usedLater || m == l;
      CHECK(usedLater);
    }
    CHECK(std::find(step.outputLabels.begin(), step.outputLabels.end(), "z") == step.outputLabels.end());
  }
}

TEST_CASE("nodes with one or two operands are copied unchanged") {
  Graph g = chainGraph();
  g.nodes[0] = contraction("T", {"A", "B"}, {"ij", "jk"}, "ik");
  g.nodes[1] = contraction("U", {"T"}, {"ik"}, "i");
  const Graph s = splitNaryNodes(g);
  REQUIRE(s.nodes.size() == 2);
  CHECK(s.nodes[0].name == "T");
  CHECK(s.nodes[0].inputs == g.nodes[0].inputs);
  CHECK(contractionPathInfos(g).empty());
}

TEST_CASE("errors: n-ary nodes that are not pure contractions; sanitized names that collide") {
  Graph g = chainGraph();
  g.nodes[0].agg = Reduce::Max;
  CHECK_THROWS_AS(splitNaryNodes(g), InputError);
  g = chainGraph();
  g.nodes[0].join = Expr::binary(Expr::Kind::Add, Expr::x(), Expr::y());
  CHECK_THROWS_AS(splitNaryNodes(g), InputError);
  g = chainGraph();
  g.inputs.push_back({"T__1", {10}, {}});
  try {
    splitNaryNodes(g);
    FAIL("expected a collision error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("T__1") != std::string::npos);
  }
}

TEST_CASE("sanitized names: NODE.k -> NODE__k everywhere") {
  CHECK(sanitizedInternalName("attn.3") == "attn__3");
  CHECK(sanitizedInternalName("plain") == "plain");
  const Graph s = withSanitizedNames(splitNaryNodes(chainGraph()));
  CHECK(s.nodes[0].name == "T__1");
  CHECK(s.nodes[1].inputs == std::vector<std::string>{"T__1", "C"});
  CHECK(s.outputs == std::vector<std::string>{"U"});
}

TEST_CASE("more operands than the exact limit use the budgeted search, and its report says what it spent") {
  Graph g;
  std::vector<std::string> inputs, ops;
  std::string labels = "abcdefghijklmnop";
  std::map<Label, int64_t> sizes;
  for (std::size_t i = 0; i < labels.size(); ++i) sizes[std::string(1, labels[i])] = 2 + static_cast<int64_t>(i % 3);
  for (std::size_t i = 0; i + 1 < labels.size(); ++i) {
    const std::string name = "M" + std::to_string(i);
    g.inputs.push_back({name, {sizes[std::string(1, labels[i])], sizes[std::string(1, labels[i + 1])]}, {}});
    inputs.push_back(name);
    ops.push_back(labels.substr(i, 2));
  }
  g.nodes = {contraction("P", inputs, ops, "ap")};
  sizeLabels(g, sizes);
  g.outputs = {"P"};
  PathOptions opts;
  opts.maxExactOperands = 4;
  opts.budget.trials = 40;
  std::vector<ContractionPathInfo> infos;
  const Graph s = splitNaryNodes(g, infos, opts);
  CHECK(s.nodes.size() == inputs.size() - 1);
  CHECK(s.nodes.back().name == "P");
  CHECK(s.nodes[0].name == "P.1");
  REQUIRE(infos.size() == 1);
  const ContractionPathInfo& info = infos[0];
  CHECK_FALSE(info.search.exact);
  CHECK(info.search.trials == 40);
  CHECK(info.optimizedFlops < info.naiveFlops);
  CHECK(info.optimizedFlops <= info.search.first.flops);
  const std::string report = formatPathReport(infos);
  CAPTURE(report);
  CHECK(report.find("Search:                40 trials in ") != std::string::npos);
  CHECK(report.find("(budget 40 trials, seed 0, objective flops)") != std::string::npos);
  CHECK(report.find("First path:") != std::string::npos);
  CHECK(report.find("fewer FLOPs than the first path") != std::string::npos);
  // The same options give the same path: the budget is counted in trials, not time.
  CHECK(contractionPathInfos(g, opts)[0].path == info.path);
}
