// The workload families against numbers from the papers: the matrix chain's shapes
// (EinDecomp section 9), LLaMA's published parameter counts, the Table 5 networks'
// sizes; plus structural checks of the FFNN step and attention, and bad parameters.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "frontends/gen/attention.h"
#include "frontends/gen/ffnn.h"
#include "frontends/gen/llama.h"
#include "frontends/gen/matrix_chain.h"
#include "frontends/gen/tensor_networks.h"

using namespace eindecomp;
using namespace eindecomp::gen;

namespace {

std::vector<int64_t> shapeOf(const Graph& g, const std::string& name) { return tensorShape(g, name); }

int64_t inputElements(const Graph& g, const std::vector<std::string>& skip) {
  int64_t total = 0;
  for (const auto& t : g.inputs)
    if (std::find(skip.begin(), skip.end(), t.name) == skip.end()) total += elementCount(t.shape);
  return total;
}

}  // namespace

TEST_CASE("matrix chain: (A*B)+(C*(D*E)) with the paper's shapes") {
  struct Row {
    std::string shape;
    int64_t s;
    std::map<std::string, std::vector<int64_t>> shapes;
  };
  const std::vector<Row> rows{
      {"square", 1000, {{"A", {1000, 1000}}, {"B", {1000, 1000}}, {"C", {1000, 1000}}, {"D", {1000, 1000}},
                        {"E", {1000, 1000}}, {"Z", {1000, 1000}}}},
      {"skewed", 1000, {{"A", {1000, 100}}, {"B", {100, 1000}}, {"C", {1000, 100}}, {"D", {100, 10000}},
                        {"E", {10000, 1000}}, {"DE", {100, 1000}}, {"Z", {1000, 1000}}}},
  };
  for (const auto& r : rows) {
    CAPTURE(r.shape);
    MatrixChainOptions o;
    o.shape = r.shape;
    o.scale = r.s;
    const Graph g = makeMatrixChain(o);
    CHECK(g.nodes.size() == 4);
    CHECK(g.outputs == std::vector<std::string>{"Z"});
    for (const auto& [name, shape] : r.shapes) CHECK(shapeOf(g, name) == shape);
    CHECK(findNode(g, "Z")->joinName == "add");
  }
  MatrixChainOptions bad;
  bad.shape = "skewed";
  bad.scale = 15;
  CHECK_THROWS_AS(makeMatrixChain(bad), InputError);
  bad.shape = "round";
  bad.scale = 10;
  CHECK_THROWS_AS(makeMatrixChain(bad), InputError);
}

TEST_CASE("LLaMA presets have the published parameter counts") {
  // Weights of the graph plus the token-embedding table (vocab x dim), which the graph
  // takes as already-looked-up activations: 6.7B, 13.0B and 65.3B.
  struct Row {
    std::string preset;
    int64_t params, dim, layers;
  };
  for (const Row& r : {Row{"7b", 6738415616, 4096, 32}, Row{"13b", 13015864320, 5120, 40}, Row{"65b", 65285660672, 8192, 80}}) {
    CAPTURE(r.preset);
    LlamaOptions o;
    o.preset = r.preset;
    o.seq = 16;
    const Graph g = makeLlama(o);
    const int64_t weights = inputElements(g, {"embeddings", "rope_cos", "rope_sin", "rope_rot", "mask"});
    CHECK(weights + 32000 * r.dim == r.params);
    CHECK(g.nodes.size() == static_cast<std::size_t>(33 * r.layers + 5));
    CHECK(g.outputs == std::vector<std::string>{"logits"});
    CHECK(shapeOf(g, "logits") == std::vector<int64_t>{1, 16, 32000});
  }
  LlamaOptions small;
  small.layers = 2;
  small.dim = 16;
  small.heads = 2;
  small.ffn = 24;
  small.vocab = 11;
  small.seq = 5;
  small.batch = 3;
  const Graph g = makeLlama(small);
  CHECK(g.nodes.size() == 33 * 2 + 5);
  CHECK(shapeOf(g, "L1_q_rope") == std::vector<int64_t>{3, 5, 2, 2, 4});
  CHECK(shapeOf(g, "logits") == std::vector<int64_t>{3, 5, 11});
  small.heads = 3;
  CHECK_THROWS_AS(makeLlama(small), InputError);  // 16 / 3 is no head dimension
  small.heads = 16;
  CHECK_THROWS_AS(makeLlama(small), InputError);  // head dimension 1 cannot be rotated in pairs
  LlamaOptions badPreset;
  badPreset.preset = "70b";
  CHECK_THROWS_AS(makeLlama(badPreset), InputError);
}

TEST_CASE("FFNN training step: forward, loss, backward, update") {
  FfnnOptions o;
  o.batch = 8;
  o.features = 10;
  o.hidden = {6, 5, 4};
  o.classes = 3;
  const Graph g = makeFfnn(o);
  const std::size_t k = o.hidden.size();
  // forward (k+1 products, k relus), softmax (4), loss, dL, backward (k+1 dW, k dA, k dZ),
  // and k+1 updates
  CHECK(g.nodes.size() == (2 * k + 1) + 4 + 2 + (3 * k + 1) + (k + 1));
  std::vector<std::string> outputs{"loss", "W1_new", "W2_new", "W3_new", "W4_new"};
  CHECK(g.outputs == outputs);
  CHECK(shapeOf(g, "loss") == std::vector<int64_t>{8});
  CHECK(shapeOf(g, "W1_new") == std::vector<int64_t>{10, 6});
  CHECK(shapeOf(g, "W4_new") == std::vector<int64_t>{4, 3});
  CHECK(shapeOf(g, "dW2") == shapeOf(g, "W2"));
  o.loss = "squared";
  CHECK(makeFfnn(o).nodes.size() == (2 * k + 1) + 2 + (3 * k + 1) + (k + 1));
  o.loss = "hinge";
  CHECK_THROWS_AS(makeFfnn(o), InputError);
  o.loss = "xent";
  o.hidden = {6, 0};
  CHECK_THROWS_AS(makeFfnn(o), InputError);
}

TEST_CASE("attention follows EinDecomp section 3") {
  AttentionOptions o;
  o.batch = 2;
  o.seq = 7;
  o.dim = 12;
  o.heads = 3;
  const Graph g = makeAttention(o);
  CHECK(g.nodes.size() == 11);
  CHECK(shapeOf(g, "WQ") == std::vector<int64_t>{12, 3, 4});  // rank-3 projection weights
  CHECK(shapeOf(g, "T1") == std::vector<int64_t>{2, 3, 7, 7});
  CHECK(shapeOf(g, "Y") == std::vector<int64_t>{2, 7, 12});
  CHECK(std::string(reduceName(findNode(g, "C")->agg)) == "max");
  CHECK(findNode(g, "T2")->joinName == "x * 0.5");  // 1 / sqrt(4)
  o.heads = 5;
  CHECK_THROWS_AS(makeAttention(o), InputError);
}

TEST_CASE("Table 5 networks: operands and sizes (upper case labels first); --scale divides") {
  struct Row {
    std::string id;
    std::size_t operands;
    std::map<std::string, int64_t> sizes;
  };
  const std::vector<Row> rows{
      {"syn", 5, {{"a", 24}, {"e", 32}, {"j", 72}}},
      {"tt", 5, {{"a", 100}, {"e", 3}, {"g", 305}, {"i", 3}}},
      {"fctn", 4, {{"a", 60}, {"d", 20}, {"j", 8}}},
      {"tw", 5, {{"a", 40}, {"h", 6}, {"i", 4}, {"l", 4}}},
      {"getd", 5, {{"a", 40}, {"e", 40}, {"i", 25}, {"m", 25}}},
      {"trn", 9, {{"B", 128}, {"a", 4}, {"b", 7}, {"e", 3}, {"h", 5}, {"i", 50}, {"p", 50}}},
  };
  for (const auto& r : rows) {
    CAPTURE(r.id);
    TensorNetworkOptions o;
    o.id = r.id;
    const Graph g = makeTensorNetwork(o);
    REQUIRE(g.nodes.size() == 1);
    CHECK(g.nodes[0].name == r.id);
    CHECK(g.nodes[0].inputs.size() == r.operands);
    CHECK(g.inputs.size() == r.operands);
    for (const auto& [label, size] : r.sizes) CHECK(g.nodes[0].labelSizes.at(label) == size);
    o.scale = 4;
    const Graph scaled = makeTensorNetwork(o);
    for (const auto& [label, size] : r.sizes) CHECK(scaled.nodes[0].labelSizes.at(label) == std::max<int64_t>(1, size / 4));
  }
  TensorNetworkOptions o;
  o.id = "mera";
  CHECK_THROWS_AS(makeTensorNetwork(o), InputError);
  o.id = "tt";
  o.scale = 0;
  CHECK_THROWS_AS(makeTensorNetwork(o), InputError);
}
