// Building EinGraphs in code, for the workload generators of `einplan gen`. Label sizes
// are declared once per builder (a generator's own vocabulary; in the graph every node
// gets its own labels' sizes, as labels are local to nodes); inputs take their shapes from their labels; nodes are written with
// the same einsum and join text a graph file would hold and go through the graph
// module's own einsum and expression parsers, so a generated graph means exactly what
// its written file means. Mistakes here are bugs in a generator, reported as
// std::logic_error; bad user parameters are the families' business (InputError).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "planner/graph/graph.h"

namespace eindecomp::gen {

class GraphBuilder {
 public:
  explicit GraphBuilder(std::string name, DType dtype = DType::F32);

  // Declares (or re-declares with the same value) the size of a label.
  void size(const Label& label, int64_t extent);

  // A graph input whose shape follows from its labels, given whitespace-separated ("b s a").
  void input(const std::string& name, const std::string& labels);

  // A node: `einsum` as in a graph file, `join` a named join or an expression over x and
  // y ("" for the default: mul for two operands, the identity for one).
  void node(const std::string& name, const std::string& einsum, const std::vector<std::string>& inputs,
            const std::string& join = "", Reduce agg = Reduce::Sum);

  void output(const std::string& name);

  // The finished graph. Outputs default to the nodes nothing consumes.
  Graph build() const;

 private:
  const Node& nodeNamed(const std::string& name) const;
  std::vector<int64_t> shapeOf(const std::string& tensor) const;
  Graph graph_;
  std::map<Label, int64_t> sizes_;
  // Name -> position in graph_.inputs / graph_.nodes: a 100,000-node graph builds in
  // linear time, not quadratic.
  std::map<std::string, std::size_t> inputIndex_, nodeIndex_;
};


}  // namespace eindecomp::gen
