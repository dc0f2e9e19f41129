#include "planner/graph/index_nodes.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "planner/graph/excerpt.h"
#include "planner/graph/graph_index.h"

namespace eindecomp {

namespace {

bool has(const Labels& ls, const Label& l) { return std::find(ls.begin(), ls.end(), l) != ls.end(); }

std::string listed(const Labels& ls) {
  std::string s;
  for (const auto& l : ls) s += (s.empty() ? "" : ", ") + quoted(l);
  return s.empty() ? "none" : s;
}

// The label a gather selects (in the table, in neither the ids nor the output) or a
// scatter adds into (in the output, in no operand); labels of size 1 beside it are
// allowed there.
Label selectedLabel(const Node& n, const SourceLoc& joinLoc) {
  const bool gather = n.joinName == "gather";
  const Labels& ids = n.operandLabels[0];
  const Labels& values = n.operandLabels[1];
  Labels candidates;
  if (gather) {
    for (const auto& l : values)
      if (!has(ids, l) && !has(n.outputLabels, l) && !has(candidates, l)) candidates.push_back(l);
  } else {
    for (const auto& l : n.outputLabels)
      if (!has(ids, l) && !has(values, l)) candidates.push_back(l);
  }
  // A label of size 1 adds nothing up (an imported table's unit dimensions carry their own):
  // the one of a larger size is the selected one.
  Labels larger;
  for (const auto& l : candidates)
    if (n.labelSizes.at(l) > 1) larger.push_back(l);
  if (larger.size() == 1) return larger[0];
  if (candidates.size() != 1)
    throw InputError({joinLoc, "node " + quoted(n.name) + ": a " + n.joinName + " needs exactly one label " +
                                   (gather ? "of its second operand in neither the ids nor the output (the one the ids "
                                             "select, as v in \"bs,vd->bsd\")"
                                           : "of its output in no operand (the one the ids select, as v in "
                                             "\"bs,bsd->vd\", its size in 'sizes')") +
                                   "; its einsum " + quoted(n.einsum) + " has " + listed(candidates)});
  return candidates[0];
}

void checkIndexNode(Node& n, const SourceLoc& joinLoc, const std::vector<SourceLoc>& operands, const GraphIndex& index) {
  const std::string owner = "node " + quoted(n.name);
  if (n.inputs.size() != 2)
    throw InputError({joinLoc, owner + ": join " + quoted(n.joinName) + " reads two operands (the ids, then the " +
                                   (n.joinName == "gather" ? "table" : "rows") + "); it has " +
                                   std::to_string(n.inputs.size())});
  if (n.agg != Reduce::Sum)
    throw InputError({joinLoc, owner + ": a " + n.joinName + " sums (agg sum); it has agg " + quoted(reduceName(n.agg))});
  const InputTensor* ids = index.findInput(n.inputs[0]);
  if (!ids || !ids->indexType)
    throw InputError({operands[0], owner + ": the first operand of a " + n.joinName + " holds the ids: an input with " +
                                       "dtype i32 or i64, and " + quoted(n.inputs[0]) + " is " +
                                       (ids ? "a float input" : "a node's output")});
  const InputTensor* second = index.findInput(n.inputs[1]);
  if (second && second->indexType)
    throw InputError({operands[1], owner + ": the second operand of a " + n.joinName + " holds values, and " +
                                       quoted(n.inputs[1]) + " holds ids (dtype " + dtypeName(*second->indexType) + ")"});
  n.indexLabel = selectedLabel(n, joinLoc);
  const Labels& where = n.joinName == "gather" ? n.outputLabels : n.operandLabels[1];
  for (const auto& l : n.operandLabels[0])
    if (!has(where, l) && n.labelSizes.at(l) > 1)  // a size-1 label adds nothing up
      throw InputError({joinLoc, owner + ": label " + quoted(l) + " of the ids must also be in the " +
                                     (n.joinName == "gather" ? "output (each id gives one output row)"
                                                             : "second operand (each id places one of its rows)")});
}

}  // namespace

int64_t indexRange(const Graph& g, const std::string& ids) {
  int64_t range = 0;
  for (const Node& n : g.nodes)
    if (isIndexNode(n) && n.inputs[0] == ids) {
      const int64_t size = n.labelSizes.at(n.indexLabel);
      range = range ? std::min(range, size) : size;
    }
  return range ? range : 1;
}

bool isIndexJoinName(const std::string& join) { return join == "gather" || join == "scatter"; }

void resolveIndexNodes(Graph& g, const IndexNodeLocations& where) {
  // Most graphs have neither ids nor index nodes: nothing here may cost them a pass
  // that allocates per node (a 300,000-node gradient graph is built in seconds).
  std::unordered_map<std::string_view, const InputTensor*> ids;
  for (const auto& in : g.inputs)
    if (in.indexType) ids.emplace(in.name, &in);
  std::optional<GraphIndex> index;  // built at the first index node
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    if (isIndexJoinName(n.joinName)) {
      if (!index) index.emplace(g);
      checkIndexNode(n, where.join[i], where.operands[i], *index);
    }
    if (ids.empty()) continue;
    for (std::size_t k = isIndexNode(n) ? 1 : 0; k < n.inputs.size(); ++k) {
      const auto it = ids.find(n.inputs[k]);
      if (it == ids.end()) continue;
      const InputTensor* in = it->second;
      throw InputError({where.operands[i][k], "node " + quoted(n.name) + " reads " + quoted(in->name) + ", which holds ids " +
                                                  "(dtype " + dtypeName(*in->indexType) + "); ids are read only as the " +
                                                  "first operand of a gather or scatter node"});
    }
  }
}

}  // namespace eindecomp
