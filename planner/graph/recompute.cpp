#include "planner/graph/recompute.h"

#include <algorithm>
#include <set>

#include "planner/graph/identifiers.h"

namespace eindecomp {

namespace {

std::set<std::string> namesOf(const Graph& g) {
  std::set<std::string> names;
  for (const InputTensor& t : g.inputs) names.insert(t.name);
  for (const Node& n : g.nodes) names.insert(n.name);
  return names;
}

void applyOne(Graph& g, const Recompute& r) {
  const int v = nodeIndex(g, r.node);
  if (v < 0) throw InputError({r.loc, "recompute: " + quoted(r.node) + " is not a node of the graph"});
  if (std::find(g.outputs.begin(), g.outputs.end(), r.node) != g.outputs.end())
    throw InputError({r.loc, "recompute: " + quoted(r.node) + " is a graph output, which is held to the end anyway"});
  const int f = nodeIndex(g, r.from);
  const bool consumes = f >= 0 && std::find(g.nodes[static_cast<std::size_t>(f)].inputs.begin(),
                                            g.nodes[static_cast<std::size_t>(f)].inputs.end(), r.node) !=
                                      g.nodes[static_cast<std::size_t>(f)].inputs.end();
  if (!consumes)
    throw InputError({r.loc, "recompute: " + quoted(r.from) + " is not a node that reads " + quoted(r.node) +
                                 " ('from' names the first use that reads the copy)"});
  Node copy = g.nodes[static_cast<std::size_t>(v)];
  copy.name = recomputedName(g, r.node);
  for (std::size_t i = static_cast<std::size_t>(f); i < g.nodes.size(); ++i)
    for (std::string& in : g.nodes[i].inputs)
      if (in == r.node) in = copy.name;
  g.nodes.insert(g.nodes.begin() + f, std::move(copy));
}

}  // namespace

std::string recomputedName(const Graph& g, const std::string& node) {
  const std::set<std::string> taken = namesOf(g);
  std::string name = identifierFrom(node + "_again");
  for (int k = 2; taken.count(name); ++k) name = identifierFrom(node + "_again" + std::to_string(k));
  return name;
}

Graph withRecompute(const Graph& g, const std::vector<Recompute>& entries) {
  Graph out = g;
  for (const Recompute& r : entries) applyOne(out, r);
  return out;
}

}  // namespace eindecomp
