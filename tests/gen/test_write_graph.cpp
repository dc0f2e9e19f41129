// The graph writer: every family and some hand-made edge cases (broadcast labels,
// multi-character labels, scalar outputs, expression joins, non-default aggs, split
// graphs with sanitized names) written as YAML and JSON and loaded back by the loader
// give the same graph, and writing the loaded graph again gives the same text.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "frontends/gen/attention.h"
#include "frontends/gen/ffnn.h"
#include "frontends/gen/llama.h"
#include "frontends/gen/matrix_chain.h"
#include "frontends/gen/tensor_networks.h"
#include "frontends/gen/write_generated.h"
#include "planner/graph/load.h"
#include "planner/graph/write_graph.h"
#include "planner/paths/split_nary.h"

using namespace eindecomp;

namespace {

void requireSameGraph(const Graph& a, const Graph& b) {
  CHECK(a.name == b.name);
  CHECK(std::string(dtypeName(a.dtype)) == dtypeName(b.dtype));
  REQUIRE(a.inputs.size() == b.inputs.size());
  for (std::size_t i = 0; i < a.inputs.size(); ++i) {
    CHECK(a.inputs[i].name == b.inputs[i].name);
    CHECK(a.inputs[i].shape == b.inputs[i].shape);
  }
  REQUIRE(a.nodes.size() == b.nodes.size());
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    const Node &x = a.nodes[i], &y = b.nodes[i];
    CAPTURE(x.name);
    CHECK(x.name == y.name);
    CHECK(x.inputs == y.inputs);
    CHECK(x.operandLabels == y.operandLabels);
    CHECK(x.outputLabels == y.outputLabels);
    const bool sameJoin = x.join == y.join;
    CAPTURE(x.joinName);
    CHECK(sameJoin);
    CHECK(std::string(reduceName(x.agg)) == reduceName(y.agg));
    CHECK(x.labelSizes == y.labelSizes);
  }
  CHECK(a.outputs == b.outputs);
}

void roundTrip(const Graph& g) {
  for (GraphFormat format : {GraphFormat::Yaml, GraphFormat::Json}) {
    const std::string text = format == GraphFormat::Yaml ? writeGraphYaml(g) : writeGraphJson(g);
    CAPTURE(text);
    const Graph loaded = loadGraphText(text, "round-trip", format);
    requireSameGraph(g, loaded);
    CHECK((format == GraphFormat::Yaml ? writeGraphYaml(loaded) : writeGraphJson(loaded)) == text);
  }
}

std::vector<Graph> smallFamilies() {
  std::vector<Graph> graphs;
  for (const char* shape : {"square", "skewed"}) {
    gen::MatrixChainOptions o;
    o.shape = shape;
    o.scale = 20;
    graphs.push_back(gen::makeMatrixChain(o));
  }
  for (const char* loss : {"xent", "squared"}) {
    gen::FfnnOptions o;
    o.batch = 4;
    o.features = 6;
    o.hidden = {5, 3};
    o.classes = 4;
    o.loss = loss;
    o.common.dtype = DType::F64;
    graphs.push_back(gen::makeFfnn(o));
  }
  gen::AttentionOptions a;
  a.batch = 2;
  a.seq = 3;
  a.dim = 8;
  a.heads = 2;
  graphs.push_back(gen::makeAttention(a));
  gen::LlamaOptions l;
  l.layers = 1;
  l.dim = 16;
  l.heads = 2;
  l.ffn = 24;
  l.vocab = 11;
  l.seq = 4;
  graphs.push_back(gen::makeLlama(l));
  for (const auto& spec : gen::einsumTreesNetworks()) {
    gen::TensorNetworkOptions o;
    o.id = spec.id;
    graphs.push_back(gen::makeTensorNetwork(o));
  }
  return graphs;
}

}  // namespace

TEST_CASE("every family round-trips through YAML and JSON") {
  for (const Graph& g : smallFamilies()) {
    CAPTURE(g.name);
    roundTrip(g);
  }
}

TEST_CASE("edge cases round-trip: broadcast sizes, multi-character labels, scalar output, joins, aggs") {
  const std::string yaml = R"(name: edge_cases
dtype: f64
sizes: {z: 5}
inputs:
  - {name: A, shape: [3, 4]}
  - {name: V, shape: [4]}
nodes:
  - name: wide
    einsum: "row col, col -> row"
    inputs: [A, V]
  - name: bcast
    einsum: "i->iz"
    inputs: [wide]
    join: "exp(-x) * 2.5"
  - name: colmax
    einsum: "row col, col -> col"
    inputs: [A, V]
    join: sqdiff
    agg: max
  - name: total
    einsum: "ij->"
    inputs: [bcast]
    agg: prod
outputs: [total, colmax]
)";
  const Graph g = loadGraphText(yaml, "edge.yaml", GraphFormat::Yaml);
  roundTrip(g);
  const std::string written = writeGraphYaml(g);
  CHECK(written.find("sizes: {z: 5}") != std::string::npos);
  CHECK(written.find("\"row col, col -> row\"") != std::string::npos);
  CHECK(written.find("\"i->iz\"") != std::string::npos);
  CHECK(written.find("agg: prod") != std::string::npos);
}

TEST_CASE("einsum formatting: compact for one-character labels, spaced otherwise") {
  CHECK(formatEinsum({{"i", "j"}, {"j", "k"}}, {"i", "k"}) == "ij,jk->ik");
  CHECK(formatEinsum({{"i", "j"}}, {}) == "ij->");
  CHECK(formatEinsum({{"b", "h1"}, {"h1", "c"}}, {"b", "c"}) == "b h1, h1 c -> b c");
  CHECK(formatEinsum({{"rows", "cols"}}, {}) == "rows cols ->");
  // No tensor with two labels: the loader could not tell "ab" from "a b".
  CHECK_THROWS_AS(formatEinsum({{"ab"}, {"ab"}}, {"ab"}), std::invalid_argument);
  CHECK(writeGraphForPath(Graph{}, "x.json").front() == '{');
  CHECK(writeGraphForPath(Graph{}, "x.JSON").front() == '{');
  CHECK(writeGraphForPath(Graph{}, "x.Yml").front() != '{');
  CHECK_THROWS_AS(writeGraphForPath(Graph{}, "x.txt"), std::invalid_argument);
}

TEST_CASE("generated files carry provenance, load back, and refuse sizes that overflow") {
  gen::MatrixChainOptions o;
  o.scale = 8;
  const Graph g = gen::makeMatrixChain(o);
  gen::GeneratedFile file{"g.yaml", {"einplan", "1.2.3", "einplan gen matrix-chain -o 'a\nb.yaml'"}, "--scale", false, {}};
  const std::string yaml = gen::generatedGraphText(g, file);
  CHECK(yaml.rfind("# generated by einplan 1.2.3\n# command: einplan gen matrix-chain -o 'a\\x0ab.yaml'\nname:", 0) == 0);
  requireSameGraph(loadGraphText(yaml, "g.yaml", GraphFormat::Yaml), g);
  file.path = "g.json";
  const std::string json = gen::generatedGraphText(g, file);
  CHECK(json.rfind("{\n  \"provenance\": {\n    \"tool\": \"einplan\",\n    \"version\": \"1.2.3\",", 0) == 0);
  requireSameGraph(loadGraphText(json, "g.json", GraphFormat::Json), g);
  // The loader checks only that provenance is a mapping.
  CHECK_THROWS_WITH_AS(loadGraphText("{\"provenance\": 3, \"inputs\": {}, \"nodes\": []}", "p.json", GraphFormat::Json),
                       doctest::Contains("'provenance' must be a mapping"), InputError);

  o.scale = int64_t{1} << 32;  // s x s elements of 4 bytes: 2^66 bytes
  file.path = "big.yaml";
  CHECK_THROWS_WITH_AS(gen::generatedGraphText(gen::makeMatrixChain(o), file),
                       doctest::Contains("--scale: too large: the graph would be refused by the loader"), InputError);
  file.path = "g.txt";
  CHECK_THROWS_WITH_AS(gen::generatedGraphText(g, file), doctest::Contains("must end in .yaml, .yml or .json"), InputError);
}

TEST_CASE("gen limits: names, extents and node counts are checked before building") {
  gen::MatrixChainOptions chain;
  chain.common.name = "../../evil;rm";
  CHECK_THROWS_WITH_AS(gen::makeMatrixChain(chain), doctest::Contains("--name: bad graph name '../../evil;rm'"), InputError);
  chain.common.name = "ok_name";
  CHECK(gen::makeMatrixChain(chain).name == "ok_name");
  chain.scale = gen::kMaxGeneratedExtent + 1;
  CHECK_THROWS_WITH_AS(gen::makeMatrixChain(chain), doctest::Contains("--scale: 1099511627777 is too large"), InputError);
  gen::LlamaOptions llama;
  llama.layers = 100000000;
  CHECK_THROWS_WITH_AS(gen::makeLlama(llama), doctest::Contains("--layers: 100000000 is too large"), InputError);
  gen::FfnnOptions ffnn;
  ffnn.hidden.assign(20000, 4);
  CHECK_THROWS_WITH_AS(gen::makeFfnn(ffnn), doctest::Contains("--hidden: 20000 is too large"), InputError);
}

TEST_CASE("a split graph written with sanitized names loads back") {
  gen::TensorNetworkOptions o;
  o.id = "trn";
  o.scale = 5;
  const Graph split = withSanitizedNames(splitNaryNodes(gen::makeTensorNetwork(o)));
  REQUIRE(split.nodes.size() == 8);
  CHECK(split.nodes[0].name == "trn__1");
  CHECK(split.nodes.back().name == "trn");
  roundTrip(split);
}
