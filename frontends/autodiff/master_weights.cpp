#include "frontends/autodiff/master_weights.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "planner/graph/diagnostic.h"
#include "planner/graph/excerpt.h"
#include "planner/graph/gradient_fusion.h"
#include "planner/graph/tensor_types.h"
#include "planner/graph/write_graph.h"
#include "planner/paths/gemm_mapping.h"

namespace eindecomp::autodiff {

std::string castCopyName(const Graph& g, const std::string& input) { return input + "_" + dtypeName(g.dtype); }

namespace {

// The cast's labels: those its first reader reads the weight with (the model's own names,
// such as `a v` of the output projection, which the hand strategies cut by), where they
// are distinct single letters; else A, B, C, ...
const Labels* firstReading(const Graph& g, const std::string& input) {
  for (const Node& n : g.nodes)
    for (std::size_t k = 0; k < n.inputs.size(); ++k)
      if (n.inputs[k] == input) return &n.operandLabels[k];
  return nullptr;
}

Labels castLabels(const Graph& g, const std::string& input, std::size_t rank) {
  // Single letters only: a 1-d tensor's `dim -> dim` would read back as three labels.
  const auto letters = [](const Labels& ls) { return std::all_of(ls.begin(), ls.end(), [](const Label& l) { return l.size() == 1; }); };
  if (const Labels* ls = firstReading(g, input);
      ls && ls->size() == rank && std::set<Label>(ls->begin(), ls->end()).size() == rank && letters(*ls))
    return *ls;
  Labels out;
  for (std::size_t d = 0; d < rank; ++d) out.push_back(d < 26 ? std::string(1, static_cast<char>('A' + d)) : "L" + std::to_string(d));
  return out;
}

}  // namespace

bool canWriteMasterType(const Node& gradient, DType master, DType graphType) {
  // The form a plan's fusion rewrite accepts (planner/graph/gradient_fusion.h), and labels
  // that make a GEMM: the planner's one label classifier, which the program's tables ask
  // again (planner/model/program_tables.cpp).
  return master == DType::F32 && canWidenContraction(gradient, graphType) && runsAsGemm(gradient);
}

void refuseWideningContraction(const Node& n) {
  if (isWideningContraction(n))
    throw InputError({n.loc, "node " + quoted(n.name) + ": einplan grad differentiates no contraction with `cast: f32` (a "
                                 "widening contraction, SPEC 8): its gradients would mix types; write it as the "
                                 "contraction and a cast after it"});
}

Graph withMasterWeights(Graph g, std::vector<std::string> trained, DType master) {
  if (master == g.dtype)
    throw InputError({{}, "--master " + std::string(dtypeName(master)) + " is the graph's own type; master weights are of "
                          "a wider type than the graph computes in (--dtype bf16 --master f32)"});
  if (trained.empty())  // every input but ids (einplan grad's default --wrt)
    for (const InputTensor& in : g.inputs)
      if (!in.indexType) trained.push_back(in.name);
  std::unordered_set<std::string> names;
  for (const InputTensor& in : g.inputs) names.insert(in.name);
  for (const Node& n : g.nodes) names.insert(n.name);
  std::unordered_map<std::string, std::string> copyOf;
  std::vector<Node> casts;
  for (const std::string& name : trained) {
    InputTensor* in = nullptr;
    for (InputTensor& t : g.inputs)
      if (t.name == name) in = &t;
    if (!in) continue;  // differentiate reports a --wrt that is not an input
    if (inputType(g, *in) != g.dtype)
      throw InputError({in->loc, "--master: input " + quoted(name) + " is " + dtypeName(inputType(g, *in)) + ", not the graph's " +
                                     dtypeName(g.dtype) + "; only inputs of the graph's type get master weights"});
    const std::string copy = castCopyName(g, name);
    if (names.count(copy))
      throw InputError({in->loc, "--master: the graph already has a tensor named " + quoted(copy) + ", the name of " +
                                     quoted(name) + "'s " + dtypeName(g.dtype) + " copy; rename that tensor"});
    names.insert(copy);
    in->floatType = master;
    Node cast;
    cast.name = copy;
    cast.inputs = {name};
    const Labels labels = castLabels(g, name, in->shape.size());
    for (std::size_t d = 0; d < labels.size(); ++d) cast.labelSizes[labels[d]] = in->shape[d];
    cast.operandLabels = {labels};
    cast.outputLabels = labels;
    cast.einsum = formatEinsum(cast.operandLabels, cast.outputLabels);
    cast.joinName = "x";
    cast.join = Expr::x();
    cast.castTo = g.dtype;
    cast.loc = in->loc;
    casts.push_back(std::move(cast));
    copyOf.emplace(name, copy);
  }
  // Each cast goes just before its first reader. Then the reverse sweep reaches it right
  // after that reader's backward, when its bf16 gradient is complete: the cast back to
  // the master type follows the weight gradient at once (as FSDP reduces and casts each
  // gradient as soon as it is ready), where its reduction can be a reduce-scatter on the
  // way (einrt's reduced-at-read rule reaches kCopyReach nodes) and the bf16 partial sums
  // die. Casts all first put every cast back after the whole backward: each weight's
  // partials, full-sized on every rank, held to the end of it, and aggregated onto one
  // owner (MPT-70B's FSDP step on 64 GPUs: 1,251 s of exchanges estimated).
  std::unordered_map<std::string, std::size_t> castOf;  // copy name -> index in casts
  for (std::size_t c = 0; c < casts.size(); ++c) castOf.emplace(casts[c].name, c);
  std::vector<bool> placed(casts.size(), false);
  std::vector<Node> nodes;
  nodes.reserve(casts.size() + g.nodes.size());
  for (Node& n : g.nodes) {
    for (std::string& in : n.inputs) {
      const auto it = copyOf.find(in);
      if (it == copyOf.end()) continue;
      in = it->second;
      if (const std::size_t c = castOf.at(in); !placed[c]) {
        placed[c] = true;
        nodes.push_back(std::move(casts[c]));
      }
    }
    nodes.push_back(std::move(n));
  }
  for (std::size_t c = 0; c < casts.size(); ++c)  // a trained input no node reads
    if (!placed[c]) nodes.push_back(std::move(casts[c]));
  g.nodes = std::move(nodes);
  return g;
}

}  // namespace eindecomp::autodiff
