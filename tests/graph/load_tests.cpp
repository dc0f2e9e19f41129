// Loading well-formed graphs: both file formats, both forms of `inputs`, multi-character
// labels, joins and aggs, broadcasts, output defaulting, topological reordering, the
// resolved label sizes, and format detection. Expected values are written out by hand.
#include <doctest/doctest.h>

#include <cstdio>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "planner/graph/expr_parser.h"
#include "planner/graph/graph_order.h"
#include "planner/graph/load.h"

using namespace eindecomp;

namespace {

std::vector<std::string> nodeNames(const Graph& g) {
  std::vector<std::string> out;
  for (const auto& n : g.nodes) out.push_back(n.name);
  return out;
}

const char* kChainYaml = R"(name: chain
dtype: f64
inputs:
  - {name: A, shape: [6, 4]}
  - name: B
    shape: [4, 8]
nodes:
  - name: AB
    einsum: "ij,jk->ik"
    inputs: [A, B]
)";

const char* kChainJson = R"({
  "name": "chain",
  "dtype": "f64",
  "inputs": [{"name": "A", "shape": [6, 4]}, {"name": "B", "shape": [4, 8]}],
  "nodes": [{"name": "AB", "einsum": "ij,jk->ik", "inputs": ["A", "B"]}]
})";

}  // namespace

TEST_CASE("YAML and JSON, list and map forms of inputs, load to the same graph") {
  const std::vector<std::pair<std::string, GraphFormat>> sources = {
      {kChainYaml, GraphFormat::Yaml},
      {kChainJson, GraphFormat::Json},
      {kChainJson, GraphFormat::Auto},
      {std::string(kChainYaml), GraphFormat::Auto},
      {"name: chain\ndtype: f64\ninputs: {A: [6, 4], B: [4, 8]}\nnodes:\n  - {name: AB, einsum: \"ij,jk->ik\", inputs: [A, B]}\n",
       GraphFormat::Yaml},
      {R"({"name":"chain","dtype":"f64","inputs":{"A":[6,4],"B":[4,8]},"nodes":[{"name":"AB","einsum":"ij,jk->ik","inputs":["A","B"]}]})",
       GraphFormat::Json},
      {"{\n\t\"name\": \"chain\", \"dtype\": \"f64\",\n\t\"inputs\": {\"A\": [6, 4], \"B\": [4, 8]},\n\t\"nodes\": [{\"name\": \"AB\", "
       "\"einsum\": \"ij,jk->ik\", \"inputs\": [\"A\", \"B\"]}]\n}\n",
       GraphFormat::Json},
  };
  for (const auto& [text, format] : sources) {
    CAPTURE(text);
    const Graph g = loadGraphText(text, "mem", format);
    CHECK(g.name == "chain");
    CHECK(g.dtype == DType::F64);
    REQUIRE(g.inputs.size() == 2);
    CHECK(g.inputs[0].name == "A");
    CHECK(g.inputs[0].shape == std::vector<int64_t>{6, 4});
    CHECK(g.inputs[1].shape == std::vector<int64_t>{4, 8});
    REQUIRE(g.nodes.size() == 1);
    const Node& n = g.nodes[0];
    CHECK(n.inputs == std::vector<std::string>{"A", "B"});
    CHECK(n.operandLabels == std::vector<Labels>{{"i", "j"}, {"j", "k"}});
    CHECK(n.outputLabels == Labels{"i", "k"});
    CHECK(n.joinName == "mul");
    CHECK_MESSAGE((n.join == parseExpr("x * y")), eindecomp::toString(n.join) << " vs " << eindecomp::toString(parseExpr("x * y")));
    CHECK(n.agg == Reduce::Sum);
    CHECK(isContraction(n));
    CHECK(n.labelSizes == std::map<Label, int64_t>{{"i", 6}, {"j", 4}, {"k", 8}});
    CHECK(g.outputs == std::vector<std::string>{"AB"});
    CHECK(nodeFlops(n) == 2 * 6 * 4 * 8);
  }
}

TEST_CASE("defaults: name einprog, dtype f32, unary join identity, binary join mul, agg sum") {
  const Graph g = loadGraphText("inputs: {X: [3, 5]}\nnodes:\n  - {name: R, einsum: \"ij->i\", inputs: [X]}\n", "mem",
                                GraphFormat::Yaml);
  CHECK(g.name == "einprog");
  CHECK(g.dtype == DType::F32);
  CHECK_MESSAGE((g.nodes[0].join == Expr::x()), eindecomp::toString(g.nodes[0].join) << " vs " << eindecomp::toString(Expr::x()));
  CHECK(g.nodes[0].joinName == "x");
  CHECK(g.nodes[0].agg == Reduce::Sum);
  CHECK(g.inputs[0].loc.line == 1);
  CHECK(g.nodes[0].loc.line == 3);
}

TEST_CASE("YAML tags: a scalar tagged !!str keeps its text") {
  const Graph g = loadGraphText("name: !!str g1\ninputs: {X: [3, 5]}\nnodes:\n  - {name: !!str R, einsum: !!str \"ij->ji\", inputs: [X]}\n",
                                "mem", GraphFormat::Yaml);
  CHECK(g.name == "g1");
  CHECK(g.nodes[0].name == "R");
  CHECK(g.nodes[0].outputLabels == Labels{"j", "i"});
}

TEST_CASE("multi-character labels, joins, aggs and broadcasts") {
  const char* text = R"(name: mixed
sizes: {rep: 6}
inputs:
  X: [4, 10]
  W: [10, 3, 2]
nodes:
  - name: Y
    einsum: "seq model, model head dim -> seq head dim"
    inputs: [X, W]
  - name: M
    einsum: "seq head dim -> seq"
    agg: max
    inputs: [Y]
  - name: D
    einsum: "seq head dim, seq -> seq head dim"
    join: sqdiff
    inputs: [Y, M]
  - name: B
    einsum: "seq -> seq rep"
    join: "relu(x) * 2"
    inputs: [M]
  - name: P
    einsum: "seq rep -> rep"
    agg: prod
    inputs: [B]
)";
  const Graph g = loadGraphText(text, "mem", GraphFormat::Yaml);
  CHECK(nodeNames(g) == std::vector<std::string>{"Y", "M", "D", "B", "P"});
  CHECK(g.nodes[0].operandLabels[1] == Labels{"model", "head", "dim"});
  CHECK(g.nodes[1].agg == Reduce::Max);
  CHECK_MESSAGE((g.nodes[2].join == parseExpr("(x - y) * (x - y)")), eindecomp::toString(g.nodes[2].join) << " vs " << eindecomp::toString(parseExpr("(x - y) * (x - y)")));
  CHECK_MESSAGE((g.nodes[3].join == parseExpr("relu(x) * 2")), eindecomp::toString(g.nodes[3].join) << " vs " << eindecomp::toString(parseExpr("relu(x) * 2")));
  CHECK(broadcastLabels(g.nodes[3]) == Labels{"rep"});
  CHECK(g.nodes[4].agg == Reduce::Prod);
  CHECK(g.nodes[0].labelSizes == std::map<Label, int64_t>{{"seq", 4}, {"model", 10}, {"head", 3}, {"dim", 2}});
  CHECK(g.nodes[3].labelSizes == std::map<Label, int64_t>{{"seq", 4}, {"rep", 6}});
  CHECK(tensorShape(g, "B") == std::vector<int64_t>{4, 6});
  CHECK(tensorShape(g, "P") == std::vector<int64_t>{6});
  // Sinks in evaluation order: D and P; M and Y and B are consumed.
  CHECK(g.outputs == std::vector<std::string>{"D", "P"});
}

TEST_CASE("labels are local to their node, as in NumPy") {
  // The same einsum over differently shaped matrices in two nodes: unrelated labels.
  const Graph g = loadGraphText(R"(inputs: {A: [2, 3], B: [3, 5], C: [5, 7], D: [7, 11]}
nodes:
  - {name: AB, einsum: "ij,jk->ik", inputs: [A, B]}
  - {name: CD, einsum: "ij,jk->ik", inputs: [C, D]}
  - {name: Z, einsum: "ij,jk->ik", inputs: [AB, CD]}
)",
                                "mem", GraphFormat::Yaml);
  CHECK(g.nodes[0].labelSizes == std::map<Label, int64_t>{{"i", 2}, {"j", 3}, {"k", 5}});
  CHECK(g.nodes[1].labelSizes == std::map<Label, int64_t>{{"i", 5}, {"j", 7}, {"k", 11}});
  CHECK(g.nodes[2].labelSizes == std::map<Label, int64_t>{{"i", 2}, {"j", 5}, {"k", 11}});
  CHECK(tensorShape(g, "Z") == std::vector<int64_t>{2, 11});
}

TEST_CASE("broadcast labels: the node's own sizes first, then the graph's") {
  const Graph g = loadGraphText(R"(sizes: {r: 4}
inputs: {X: [3]}
nodes:
  - {name: A, einsum: "i->ir", inputs: [X]}
  - {name: B, einsum: "i->ir", inputs: [X], sizes: {r: 9}}
)",
                                "mem", GraphFormat::Yaml);
  CHECK(tensorShape(g, "A") == std::vector<int64_t>{3, 4});
  CHECK(tensorShape(g, "B") == std::vector<int64_t>{3, 9});
}

TEST_CASE("n-ary contractions stay one node") {
  const Graph g = loadGraphText(R"(inputs: {A: [2, 3], B: [3, 4], C: [4, 5], D: [5, 6]}
nodes:
  - {name: Z, einsum: "ab,bc,cd,de->ae", inputs: [A, B, C, D]}
)",
                                "mem", GraphFormat::Yaml);
  REQUIRE(g.nodes.size() == 1);
  CHECK(g.nodes[0].inputs.size() == 4);
  CHECK(isContraction(g.nodes[0]));
  // opt_einsum's count for a direct evaluation: 2*3*4*5*6 points, 3 multiplies + 1 add each.
  CHECK(nodeFlops(g.nodes[0]) == 2 * 3 * 4 * 5 * 6 * 4);
}

TEST_CASE("nodes are reordered topologically, stably") {
  struct Case {
    const char* nodes;  // YAML list items, in file order
    std::vector<std::string> order;
  };
  const std::vector<Case> cases = {
      {"  - {name: P, einsum: \"ij->ij\", inputs: [X]}\n  - {name: Q, einsum: \"ij->ij\", inputs: [P]}\n",
       {"P", "Q"}},
      {"  - {name: Q, einsum: \"ij->ij\", inputs: [P]}\n  - {name: P, einsum: \"ij->ij\", inputs: [X]}\n",
       {"P", "Q"}},
      {"  - {name: C, einsum: \"ij,ij->ij\", inputs: [A, B]}\n  - {name: B, einsum: \"ij->ij\", inputs: [A]}\n"
       "  - {name: U, einsum: \"ij->ij\", inputs: [X]}\n  - {name: A, einsum: \"ij->ij\", inputs: [X]}\n",
       {"U", "A", "B", "C"}},
      {"  - {name: A, einsum: \"ij->ij\", inputs: [X]}\n  - {name: B, einsum: \"ij->ij\", inputs: [X]}\n"
       "  - {name: C, einsum: \"ij->ij\", inputs: [X]}\n",
       {"A", "B", "C"}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.nodes);
    const Graph g = loadGraphText(std::string("inputs: {X: [2, 2]}\nnodes:\n") + c.nodes, "mem", GraphFormat::Yaml);
    CHECK(nodeNames(g) == c.order);
  }
}

TEST_CASE("stableTopologicalOrder: orders, and names a cycle in data-flow direction") {
  struct Case {
    std::vector<std::vector<int>> deps;
    std::vector<int> order;
    std::vector<int> cycle;
  };
  const std::vector<Case> cases = {
      {{{}, {0}, {1}}, {0, 1, 2}, {}},
      {{{2}, {}, {1}}, {1, 2, 0}, {}},
      {{{1}, {0}}, {}, {0, 1}},
      {{{}, {3}, {1}, {2}}, {}, {1, 2, 3}},  // 1 reads 3, 3 reads 2, 2 reads 1: 1 -> 2 -> 3 -> 1
      {{{1}, {2}, {1}}, {}, {1, 2}},         // 0 hangs off the cycle 1 <-> 2
  };
  for (const auto& c : cases) {
    const NodeOrder o = stableTopologicalOrder(c.deps);
    CHECK(o.order == c.order);
    CHECK(o.cycle == c.cycle);
  }
}

TEST_CASE("explicit outputs, scalars and f64") {
  const Graph g = loadGraphText(R"({"dtype": "f64", "inputs": {"v": [8]},
 "nodes": [{"name": "s", "einsum": "i->", "inputs": ["v"]},
           {"name": "t", "einsum": "i,->i", "join": "x / y", "inputs": ["v", "s"]}],
 "outputs": ["s", "t"]})",
                                "mem", GraphFormat::Json);
  CHECK(g.outputs == std::vector<std::string>{"s", "t"});
  CHECK(tensorShape(g, "s").empty());
  CHECK(g.nodes[1].operandLabels[1].empty());
}

TEST_CASE("loadGraphFile picks the format by extension, then by content") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("eindecomp-load-tests-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::vector<std::pair<std::string, std::string>> files = {
      {"g.json", kChainJson}, {"g.yaml", kChainYaml}, {"g.yml", kChainYaml},
      {"g.graph", kChainJson}, {"h.graph", kChainYaml}};
  for (const auto& [name, text] : files) {
    CAPTURE(name);
    std::ofstream(dir / name) << text;
    const Graph g = loadGraphFile((dir / name).string());
    CHECK(g.nodes.size() == 1);
    CHECK(g.sourceFile == (dir / name).string());
  }
  // A .json file that holds YAML is an error when the format follows the extension.
  std::ofstream(dir / "yaml.json") << kChainYaml;
  CHECK_THROWS_AS(loadGraphFile((dir / "yaml.json").string()), InputError);
  CHECK(loadGraphFile((dir / "yaml.json").string(), GraphFormat::Yaml).nodes.size() == 1);
  CHECK_THROWS_AS(loadGraphFile((dir / "missing.yaml").string()), InputError);
  CHECK_THROWS_WITH_AS(loadGraphFile(dir.string()), doctest::Contains("is a directory"), InputError);
  CHECK(parseGraphFormat("json") == GraphFormat::Json);
  CHECK_THROWS_AS(parseGraphFormat("xml"), InputError);
  fs::remove_all(dir);
}

TEST_CASE("JSON syntax errors inside long strings keep the diagnostic short") {
  const std::string text = "{\"name\": \"" + std::string(100000, 'x') + "\x01\"}";
  try {
    loadGraphText(text, "long.json", GraphFormat::Json);
    FAIL("accepted a control character in a JSON string");
  } catch (const InputError& e) {
    CHECK(e.diagnostic().loc.line == 1);
    CHECK(e.diagnostic().loc.col == 100011);
    CHECK(e.diagnostic().message.size() < 300);
    CHECK(e.diagnostic().message.find("JSON syntax error") != std::string::npos);
  }
}

TEST_CASE("randomly damaged graph files load or fail with an InputError, nothing else (seeded)") {
  const uint64_t seed = std::random_device{}();
  MESSAGE("seed " << seed);
  std::mt19937_64 rng(seed);
  const std::vector<std::pair<std::string, GraphFormat>> originals = {{kChainYaml, GraphFormat::Yaml},
                                                                      {kChainJson, GraphFormat::Json}};
  const std::string alphabet = "{}[]:,-\"' \n\tijk->0123456789xyz#&*!|>";
  int loaded = 0, refused = 0;
  for (int i = 0; i < 3000; ++i) {
    const auto& [original, format] = originals[static_cast<std::size_t>(i % 2)];
    std::string text = original;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const std::size_t at = rng() % text.size();
      const char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0: text[at] = c; break;
        case 1: text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c); break;
        default: text.erase(at, 1); break;
      }
    }
    CAPTURE(text);
    try {
      loadGraphText(text, "damaged", format);
      ++loaded;
    } catch (const InputError& e) {
      CHECK(e.exitCode() == kExitBadInput);
      CHECK(e.diagnostic().loc.file == "damaged");
      ++refused;
    }
  }
  CHECK(refused > 0);
  MESSAGE("loaded " << loaded << ", refused " << refused);
}
