#include "planner/graph/gradient_fusion.h"

#include <algorithm>
#include <map>
#include <set>

#include "planner/graph/excerpt.h"
#include "planner/graph/tensor_types.h"

namespace eindecomp {

namespace {

// What every entry's check reads, made once per graph: node types, readers per tensor,
// the graph's outputs and accumulated nodes.
struct FusionFacts {
  std::vector<DType> types;
  std::map<std::string, std::size_t> reads;
  std::set<std::string> outputs, accumulated;
  explicit FusionFacts(const Graph& g) : types(nodeOutputTypes(g)), outputs(g.outputs.begin(), g.outputs.end()) {
    for (const Node& n : g.nodes)
      for (const std::string& in : n.inputs) ++reads[in];
    if (g.microBatches)
      for (const AccumulatedNode& a : g.microBatches->accumulate) accumulated.insert(a.node);
  }
};

// Why node `cast` of g is not a fusible gradient cast, or empty when it is.
std::string whyNotFusible(const Graph& g, std::size_t cast, const FusionFacts& facts) {
  const Node& c = g.nodes[cast];
  if (c.castTo != DType::F32 || c.inputs.size() != 1 || c.join != Expr::x() || c.operandLabels[0] != c.outputLabels)
    return "is not a cast to f32 (an identity EinSum with `cast: f32`)";
  const int from = nodeIndex(g, c.inputs[0]);
  if (from < 0) return "casts a graph input, not a gradient contraction";
  const Node& gradient = g.nodes[static_cast<std::size_t>(from)];
  if (!canWidenContraction(gradient, facts.types[static_cast<std::size_t>(from)]))
    return "casts " + quoted(gradient.name) + ", which is not a contraction of two bf16 or f16 operands (join x * y, "
           "aggregation sum, no window)";
  if (facts.outputs.count(gradient.name)) return "casts " + quoted(gradient.name) + ", a graph output";
  // The micro-batches sum the gradient itself: its cast runs once, on the sum, and the
  // name `accumulate` gives would go with the rewrite.
  if (facts.accumulated.count(gradient.name))
    return "casts " + quoted(gradient.name) + ", which the micro-batches accumulate (micro_batches: accumulate)";
  if (facts.reads.at(gradient.name) != 1) return "casts " + quoted(gradient.name) + ", which other nodes read too";
  return {};
}

}  // namespace

bool canWidenContraction(const Node& n, DType type) {
  return (type == DType::BF16 || type == DType::F16) && n.inputs.size() == 2 && isContraction(n) && !isIndexNode(n) &&
         !n.windows && !n.castTo;
}

std::vector<std::size_t> fusibleGradientCasts(const Graph& g) {
  const FusionFacts facts(g);
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].castTo == DType::F32 && whyNotFusible(g, i, facts).empty()) out.push_back(i);
  return out;
}

Graph withFusedGradientCasts(const Graph& g, const std::vector<FusedGradientCast>& entries) {
  if (entries.empty()) return g;
  const FusionFacts facts(g);
  std::vector<bool> dropped(g.nodes.size(), false);
  std::vector<int> castOf(g.nodes.size(), -1);  // a widened contraction's cast
  std::set<std::string> seen;
  for (const FusedGradientCast& e : entries) {
    if (!seen.insert(e.cast).second) throw InputError({e.loc, "fused_gradient_casts: " + quoted(e.cast) + " is given twice"});
    const int cast = nodeIndex(g, e.cast);
    if (cast < 0) throw InputError({e.loc, "fused_gradient_casts: " + quoted(e.cast) + " is not a node of the graph"});
    if (const std::string why = whyNotFusible(g, static_cast<std::size_t>(cast), facts); !why.empty())
      throw InputError({e.loc, "fused_gradient_casts: node " + quoted(e.cast) + " " + why});
    dropped[static_cast<std::size_t>(cast)] = true;
    castOf[static_cast<std::size_t>(nodeIndex(g, g.nodes[static_cast<std::size_t>(cast)].inputs[0]))] = cast;
  }
  Graph out = g;
  out.nodes.clear();
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    if (dropped[i]) continue;
    Node n = g.nodes[i];
    if (castOf[i] >= 0) {
      // The contraction comes before its cast; the cast's readers, after both, read it by
      // the cast's name, and the name keeps the cast's place in outputs and `accumulate`
      // (and its output file's shape).
      const Node& cast = g.nodes[static_cast<std::size_t>(castOf[i])];
      n.name = cast.name;
      n.fileShape = cast.fileShape;
      n.castTo = DType::F32;
    }
    out.nodes.push_back(std::move(n));
  }
  return out;
}

}  // namespace eindecomp
