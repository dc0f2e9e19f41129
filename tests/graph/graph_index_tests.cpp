// GraphIndex must answer every lookup exactly as the linear queries of graph.h do (they
// are its oracle): node indexes, inputs, shapes, consumers with operand positions, and
// outputs, for every name in a graph with shared inputs, a repeated operand, an explicit
// output list and an unknown name.
#include <doctest/doctest.h>

#include <stdexcept>

#include "planner/graph/graph_index.h"
#include "planner/graph/load.h"

using namespace eindecomp;

TEST_CASE("GraphIndex answers as the linear graph queries do") {
  const Graph g = loadGraphText(
      "inputs: {A: [4, 6], B: [6, 5], C: [5]}\n"
      "outputs: [S, T]\n"
      "nodes:\n"
      "  - {name: T, einsum: 'ij,jk->ik', inputs: [A, B]}\n"
      "  - {name: U, einsum: 'ik,ik->ik', join: add, inputs: [T, T]}\n"
      "  - {name: S, einsum: 'ik,k->i', inputs: [U, C]}\n",
      "mem", GraphFormat::Yaml);
  const GraphIndex index(g);
  for (const std::string name : {"A", "B", "C", "T", "U", "S", "nope"}) {
    CAPTURE(name);
    CHECK(index.nodeIndex(name) == nodeIndex(g, name));
    CHECK(index.findNode(name) == findNode(g, name));
    CHECK(index.findInput(name) == findInput(g, name));
    const std::vector<Use> want = consumers(g, name);
    const std::vector<Use>& got = index.consumers(name);
    REQUIRE(got.size() == want.size());
    for (std::size_t u = 0; u < want.size(); ++u) {
      CHECK(got[u].node == want[u].node);
      CHECK(got[u].operand == want[u].operand);
    }
    CHECK(index.isOutput(name) == (name == "S" || name == "T"));
    if (name == "nope") {
      CHECK_THROWS_AS(index.tensorShape(name), std::out_of_range);
    } else {
      CHECK(index.tensorShape(name) == tensorShape(g, name));
    }
  }
  CHECK(index.consumers("T").size() == 2);  // U reads T twice, as operands 0 and 1
}
