#include "planner/graph/micro_batches.h"

#include <unordered_map>

#include "planner/graph/diagnostic.h"
#include "planner/graph/excerpt.h"
#include "planner/graph/graph_document.h"
#include "planner/graph/write_graph.h"

namespace eindecomp {

int64_t microBatchCount(const Graph& g) { return g.microBatches ? g.microBatches->count : 1; }

int splitDimension(const Graph& g, const std::string& name) {
  if (!g.microBatches) return -1;
  for (const MicroBatchSplit& s : g.microBatches->split)
    if (s.input == name) return s.dimension;
  return -1;
}

std::vector<int64_t> stepShape(const Graph& g, const InputTensor& t) {
  std::vector<int64_t> shape = t.shape;
  if (const int d = splitDimension(g, t.name); d >= 0) shape[static_cast<std::size_t>(d)] *= g.microBatches->count;
  return shape;
}

std::vector<bool> accumulatedNodes(const Graph& g) {
  std::vector<bool> out(g.nodes.size(), false);
  if (!g.microBatches) return out;
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) index.emplace(g.nodes[i].name, i);
  for (const AccumulatedNode& a : g.microBatches->accumulate)
    if (const auto it = index.find(a.node); it != index.end()) out[it->second] = true;
  return out;
}

namespace {

// The phases by the rules of micro_batches.h, checking them; `invariant` (when given): per
// node whether it is an invariant.
std::vector<StepPhase> phasesChecked(const Graph& g, std::vector<bool>* invariant = nullptr) {
  const std::size_t n = g.nodes.size();
  std::vector<StepPhase> phase(n, StepPhase::PerMicroBatch);
  if (!g.microBatches) return phase;
  const MicroBatches& mb = *g.microBatches;
  std::unordered_map<std::string, int> node;
  for (std::size_t i = 0; i < n; ++i) node.emplace(g.nodes[i].name, static_cast<int>(i));
  std::unordered_map<std::string, bool> split;
  for (const MicroBatchSplit& s : mb.split) split.emplace(s.input, true);
  std::vector<bool> accumulated(n, false);
  std::vector<SourceLoc> listedAt(n);
  for (const AccumulatedNode& a : mb.accumulate) {
    const auto it = node.find(a.node);
    if (it == node.end())
      throw InputError({a.loc, "micro_batches: accumulate names " + quoted(a.node) + ", which is not a node of the graph"});
    if (accumulated[static_cast<std::size_t>(it->second)])
      throw InputError({a.loc, "micro_batches: " + quoted(a.node) + " is listed twice under accumulate"});
    accumulated[static_cast<std::size_t>(it->second)] = true;
    listedAt[static_cast<std::size_t>(it->second)] = a.loc;
  }
  // Forward: what depends on the split inputs, and what reads the sums.
  std::vector<bool> varies(n, false), after(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    const Node& nd = g.nodes[i];
    for (const std::string& in : nd.inputs) {
      if (split.count(in)) varies[i] = true;
      const auto it = node.find(in);
      if (it == node.end()) continue;
      const auto p = static_cast<std::size_t>(it->second);
      if (varies[p] && !accumulated[p]) varies[i] = true;
      if (accumulated[p] || after[p]) after[i] = true;
    }
    if (accumulated[i] && !varies[i])
      throw InputError({listedAt[i], "micro_batches: " + quoted(nd.name) + " reads nothing that changes between micro-batches "
                                     "(no split input reaches it); summing it over " + std::to_string(mb.count) +
                                     " micro-batches would only multiply it"});
    if (after[i] && varies[i]) {
      std::string bodyInput, sumInput;
      for (const std::string& in : nd.inputs) {
        const auto it = node.find(in);
        const bool isSplit = split.count(in) > 0;
        if (it == node.end() && !isSplit) continue;
        const auto p = it == node.end() ? n : static_cast<std::size_t>(it->second);
        if (isSplit || (varies[p] && !accumulated[p])) bodyInput = in;
        else if (accumulated[p] || after[p]) sumInput = in;
      }
      throw InputError({nd.loc, "node " + quoted(nd.name) + " reads " + quoted(bodyInput) + ", which changes with every "
                                "micro-batch, and " + quoted(sumInput) + ", which is summed over the micro-batches (or read "
                                "from such a sum): accumulate " + quoted(bodyInput) + " too, or read it only per micro-batch"});
    }
    if (accumulated[i] && nd.agg != Reduce::Sum)
      throw InputError({listedAt[i], "micro_batches: " + quoted(nd.name) + " aggregates by " + reduceName(nd.agg) +
                                     "; an accumulated node is summed over the micro-batches before its partial results "
                                     "are combined, which needs agg sum"});
  }
  // Backward: a node that varies with no micro-batch runs where all its readers run.
  std::vector<std::vector<int>> readers(n);
  for (std::size_t i = 0; i < n; ++i)
    for (const std::string& in : g.nodes[i].inputs)
      if (const auto it = node.find(in); it != node.end()) readers[static_cast<std::size_t>(it->second)].push_back(static_cast<int>(i));
  for (std::size_t i = n; i-- > 0;) {
    if (varies[i] || after[i]) continue;
    bool all = true;
    for (int r : readers[i]) all = all && after[static_cast<std::size_t>(r)];
    after[i] = all;  // no readers: a graph output made from inputs alone, made once
  }
  const std::vector<bool> isOutput = [&] {
    std::vector<bool> o(n, false);
    for (const std::string& name : g.outputs)
      if (const auto it = node.find(name); it != node.end()) o[static_cast<std::size_t>(it->second)] = true;
    return o;
  }();
  if (invariant) {
    invariant->assign(n, false);
    for (std::size_t i = 0; i < n; ++i) (*invariant)[i] = !varies[i] && !after[i];
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (after[i]) phase[i] = StepPhase::OncePerStep;
    if (accumulated[i] && readers[i].empty() && !isOutput[i])
      throw InputError({listedAt[i], "micro_batches: the sum of " + quoted(g.nodes[i].name) + " is read by no node and is no "
                                     "output"});
    if (isOutput[i] && varies[i] && !accumulated[i])
      throw InputError({g.nodes[i].loc, "output " + quoted(g.nodes[i].name) + " changes with every micro-batch: list it under "
                                        "micro_batches' accumulate (its sum over the micro-batches is the output) or do not "
                                        "output it"});
  }
  return phase;
}

}  // namespace

std::vector<StepPhase> stepPhases(const Graph& g) { return phasesChecked(g); }

std::vector<NodeRuns> nodeRuns(const Graph& g, Invariants invariants) {
  const int64_t count = microBatchCount(g);
  std::vector<NodeRuns> runs(g.nodes.size());
  if (count == 1) return runs;
  std::vector<bool> invariant;
  const std::vector<StepPhase> phase = phasesChecked(g, &invariant);
  const std::vector<bool> accumulated = accumulatedNodes(g);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (phase[i] != StepPhase::PerMicroBatch) continue;
    if (invariant[i] && invariants == Invariants::OncePerStep) {
      runs[i].once = true;
      continue;
    }
    runs[i].calls = count;
    runs[i].aggregation = accumulated[i] ? 1 : count;
  }
  return runs;
}

void orderByStepPhase(Graph& g) {
  if (!g.microBatches) return;
  const std::vector<StepPhase> phase = phasesChecked(g);
  std::vector<Node> perMicroBatch, once;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    (phase[i] == StepPhase::PerMicroBatch ? perMicroBatch : once).push_back(std::move(g.nodes[i]));
  perMicroBatch.insert(perMicroBatch.end(), std::make_move_iterator(once.begin()), std::make_move_iterator(once.end()));
  g.nodes = std::move(perMicroBatch);
}

Graph slicedForMicroBatches(const Graph& g, int64_t count, const std::vector<MicroBatchSplit>& split) {
  MicroBatches mb;
  mb.count = count;
  mb.split = split;
  GraphDocument d = documentOf(g, g.sourceFile);
  // One micro-batch's shapes, as a graph of its own (no micro_batches yet: the phases are
  // checked by withMicroBatches, once the step's accumulated nodes exist).
  for (const MicroBatchSplit& sp : split) {
    bool found = false;
    for (DocInput& in : d.inputs) {
      if (in.name.text != sp.input) continue;
      found = true;
      if (sp.dimension < 0 || static_cast<std::size_t>(sp.dimension) >= in.shape.size())
        throw InputError({in.loc, "--split " + sp.input + ":" + std::to_string(sp.dimension) + ": input " + quoted(sp.input) +
                                      " has " + std::to_string(in.shape.size()) + " dimension(s) (0 is the first)"});
      if (in.shape[static_cast<std::size_t>(sp.dimension)].value % count != 0)
        throw InputError({in.loc, "--micro-batches " + std::to_string(count) + ": dimension " + std::to_string(sp.dimension) +
                                      " of input " + quoted(sp.input) + " is " +
                                      std::to_string(in.shape[static_cast<std::size_t>(sp.dimension)].value) +
                                      ", which it does not divide"});
      in.shape[static_cast<std::size_t>(sp.dimension)].value /= count;
    }
    if (!found) throw InputError({g.nodes.empty() ? SourceLoc{} : g.nodes.front().loc, "--split: " + quoted(sp.input) + " is not a graph input"});
  }
  Graph sliced = buildGraph(d);
  sliced.sourceFile = g.sourceFile;
  return sliced;
}

Graph withMicroBatches(const Graph& g, MicroBatches mb) {
  GraphDocument d = documentOf(g, g.sourceFile);
  DocMicroBatches dm{{mb.count, d.loc}, {}, {}, d.loc};
  for (const MicroBatchSplit& sp : mb.split) {
    dm.split.push_back({{sp.input, d.loc, false}, {sp.dimension, d.loc}});
    for (DocInput& in : d.inputs)
      if (in.name.text == sp.input) in.shape.at(static_cast<std::size_t>(sp.dimension)).value *= mb.count;
  }
  for (const AccumulatedNode& a : mb.accumulate) dm.accumulate.push_back({a.node, d.loc, false});
  d.microBatches = std::move(dm);
  Graph out = buildGraph(d);
  out.sourceFile = g.sourceFile;
  return out;
}

}  // namespace eindecomp
