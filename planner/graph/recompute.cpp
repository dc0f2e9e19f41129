#include "planner/graph/recompute.h"

#include <algorithm>
#include <cctype>
#include <map>
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

namespace {

// "L12_" of a node named L12_..., else empty.
std::string layerPrefix(const std::string& name) {
  if (name.size() < 3 || name[0] != 'L' || !std::isdigit(static_cast<unsigned char>(name[1]))) return {};
  std::size_t end = 1;
  while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
  return end < name.size() && name[end] == '_' ? name.substr(0, end + 1) : std::string{};
}

}  // namespace

std::size_t backwardStart(const Graph& g) {
  return static_cast<std::size_t>(std::find_if(g.nodes.begin(), g.nodes.end(), [](const Node& n) {
                                    return n.name.rfind("d_", 0) == 0 || n.name.rfind("grad_", 0) == 0;
                                  }) - g.nodes.begin());
}

std::vector<Recompute> layerRecompute(const Graph& g) {
  const std::size_t backward = backwardStart(g);
  std::set<std::string> forward;
  std::vector<std::string> layerOrder;
  std::map<std::string, std::vector<std::string>> layers;  // prefix -> its forward nodes, in order
  for (std::size_t i = 0; i < backward; ++i) {
    const std::string& name = g.nodes[i].name;
    forward.insert(name);
    const std::string prefix = layerPrefix(name);
    if (prefix.empty()) continue;
    if (!layers.count(prefix)) layerOrder.push_back(prefix);
    layers[prefix].push_back(name);
  }
  if (layers.empty() || backward == g.nodes.size())
    throw InputError({{}, "--recompute layers: the graph has no layers of a training step (forward nodes named L0_, L1_, ... "
                          "before the first d_ or grad_ node, as einplan gen llama --train writes them)"});
  const std::set<std::string> outputs(g.outputs.begin(), g.outputs.end());
  Graph work = g;
  std::vector<Recompute> entries;
  for (const std::string& prefix : layerOrder) {
    const std::vector<std::string>& members = layers[prefix];
    const std::set<std::string> inLayer(members.begin(), members.end());
    std::set<std::string> checkpoints;  // read by a forward node of another layer (or none)
    for (std::size_t i = 0; i < backward; ++i)
      if (!inLayer.count(g.nodes[i].name))
        for (const std::string& in : g.nodes[i].inputs)
          if (inLayer.count(in)) checkpoints.insert(in);
    for (auto node = members.rbegin(); node != members.rend(); ++node) {
      if (checkpoints.count(*node) || outputs.count(*node)) continue;
      // Its first reader past the forward: a backward node or a copy made before.
      auto reader = std::find_if(work.nodes.begin(), work.nodes.end(), [&](const Node& n) {
        return !forward.count(n.name) && std::find(n.inputs.begin(), n.inputs.end(), *node) != n.inputs.end();
      });
      if (reader == work.nodes.end()) continue;
      Recompute r{*node, reader->name, {}};
      applyOne(work, r);
      entries.push_back(std::move(r));
    }
  }
  return entries;
}

Graph withRecompute(const Graph& g, const std::vector<Recompute>& entries) {
  Graph out = g;
  for (const Recompute& r : entries) applyOne(out, r);
  return out;
}

}  // namespace eindecomp
