#include "planner/graph/gradient_fusion.h"

#include <algorithm>
#include <set>

#include "planner/graph/excerpt.h"
#include "planner/graph/tensor_types.h"

namespace eindecomp {

namespace {

// Why node `cast` of g is not a fusible gradient cast, or empty when it is.
std::string whyNotFusible(const Graph& g, std::size_t cast, const std::vector<DType>& types) {
  const Node& c = g.nodes[cast];
  if (c.castTo != DType::F32 || c.inputs.size() != 1 || c.join != Expr::x() || c.operandLabels[0] != c.outputLabels)
    return "is not a cast to f32 (an identity EinSum with `cast: f32`)";
  const int from = nodeIndex(g, c.inputs[0]);
  if (from < 0) return "casts a graph input, not a gradient contraction";
  const Node& gradient = g.nodes[static_cast<std::size_t>(from)];
  if (!canWidenContraction(gradient, types[static_cast<std::size_t>(from)]))
    return "casts " + quoted(gradient.name) + ", which is not a contraction of two bf16 or f16 operands (join x * y, "
           "aggregation sum, no window)";
  if (std::find(g.outputs.begin(), g.outputs.end(), gradient.name) != g.outputs.end())
    return "casts " + quoted(gradient.name) + ", a graph output";
  std::size_t reads = 0;
  for (const Node& n : g.nodes) reads += static_cast<std::size_t>(std::count(n.inputs.begin(), n.inputs.end(), gradient.name));
  if (reads != 1) return "casts " + quoted(gradient.name) + ", which other nodes read too";
  return {};
}

}  // namespace

bool canWidenContraction(const Node& n, DType type) {
  return (type == DType::BF16 || type == DType::F16) && n.inputs.size() == 2 && isContraction(n) && !isIndexNode(n) &&
         !n.windows && !n.castTo;
}

bool isFusibleGradientCast(const Graph& g, std::size_t cast) {
  return g.nodes[cast].castTo == DType::F32 && whyNotFusible(g, cast, nodeOutputTypes(g)).empty();
}

Graph withFusedGradientCasts(const Graph& g, const std::vector<FusedGradientCast>& entries) {
  if (entries.empty()) return g;
  const std::vector<DType> types = nodeOutputTypes(g);
  std::vector<bool> dropped(g.nodes.size(), false);
  std::vector<std::string> renamed(g.nodes.size());  // a widened contraction's new name
  std::set<std::string> seen;
  for (const FusedGradientCast& e : entries) {
    if (!seen.insert(e.cast).second) throw InputError({e.loc, "fused_gradient_casts: " + quoted(e.cast) + " is given twice"});
    const int cast = nodeIndex(g, e.cast);
    if (cast < 0) throw InputError({e.loc, "fused_gradient_casts: " + quoted(e.cast) + " is not a node of the graph"});
    if (const std::string why = whyNotFusible(g, static_cast<std::size_t>(cast), types); !why.empty())
      throw InputError({e.loc, "fused_gradient_casts: node " + quoted(e.cast) + " " + why});
    dropped[static_cast<std::size_t>(cast)] = true;
    renamed[static_cast<std::size_t>(nodeIndex(g, g.nodes[static_cast<std::size_t>(cast)].inputs[0]))] = e.cast;
  }
  Graph out = g;
  out.nodes.clear();
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    if (dropped[i]) continue;
    Node n = g.nodes[i];
    if (!renamed[i].empty()) {
      // The contraction comes before its cast; the cast's readers, after both, read it by
      // the cast's name, and the name keeps the cast's place in outputs and `accumulate`.
      n.name = renamed[i];
      n.castTo = DType::F32;
    }
    out.nodes.push_back(std::move(n));
  }
  return out;
}

}  // namespace eindecomp
