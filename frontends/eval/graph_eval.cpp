#include "frontends/eval/graph_eval.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <stdexcept>

#include <einrt/npy.h>

#include "frontends/eval/node_eval.h"
#include "planner/graph/diagnostic.h"
#include "planner/graph/micro_batches.h"
#include "planner/graph/tensor_types.h"
#include "planner/graph/units.h"

namespace eindecomp {

static void checkInputs(const Graph& graph, const std::map<std::string, Tensor>& inputs) {
  for (const auto& declared : graph.inputs) {
    auto it = inputs.find(declared.name);
    if (it == inputs.end()) throw std::invalid_argument("no value given for graph input '" + declared.name + "'");
    const Tensor& t = it->second;
    if (t.dtype != inputType(graph, declared))
      throw std::invalid_argument("graph input '" + declared.name + "' is " + dtypeName(t.dtype) + ", declared " +
                                  dtypeName(inputType(graph, declared)));
    if (t.shape != declared.shape || static_cast<int64_t>(t.values.size()) != elementCount(declared.shape))
      throw std::invalid_argument("graph input '" + declared.name + "' does not have its declared shape");
  }
  for (const auto& [name, tensor] : inputs)
    if (!findInput(graph, name)) throw std::invalid_argument("'" + name + "' is not an input of the graph");
}

namespace {

int64_t machineBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGE_SIZE);
  int64_t bytes = pages > 0 && pageSize > 0 ? static_cast<int64_t>(pages) * pageSize : INT64_MAX;
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    bytes = std::min<int64_t>(bytes, static_cast<int64_t>(std::min<rlim_t>(limit.rlim_cur, INT64_MAX)));
  return bytes;
}

// Saturating: element counts are checked to fit 63 bits, their sums and doublings may not.
int64_t addBytes(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }
int64_t doubles(int64_t elements) { return elements > INT64_MAX / 8 ? INT64_MAX : elements * 8; }

}  // namespace

void checkEvaluatorMemory(const Graph& graph, int64_t availableBytes) {
  if (availableBytes <= 0) availableBytes = machineBytes();
  struct Largest {
    std::string what;
    SourceLoc loc;
    std::vector<int64_t> shape;
    int64_t bytes = -1;
  } largest;
  int64_t kept = 0, largestNode = 0;
  for (const auto& in : graph.inputs) {
    const int64_t b = doubles(elementCount(stepShape(graph, in)));
    kept = addBytes(kept, b);
    if (b > largest.bytes) largest = {"input '" + in.name + "'", in.loc, in.shape, b};
  }
  for (const Node& n : graph.nodes) {
    const std::vector<int64_t> shape = outputShape(n);
    const int64_t b = doubles(elementCount(shape));
    kept = addBytes(kept, b);
    largestNode = std::max(largestNode, b);
    if (b > largest.bytes) largest = {"node '" + n.name + "'", n.loc, shape, b};
  }
  const int64_t needed = addBytes(kept, largestNode);
  if (needed <= availableBytes) return;
  throw InputError({largest.loc, largest.what + " (shape " + einrt::npyShapeText(largest.shape) + ") needs " +
                                     formatBytes(largest.bytes) + " as the evaluator's doubles, and the whole graph " +
                                     (needed == INT64_MAX ? "more than 8 EiB" : formatBytes(needed)) + "; this machine has " +
                                     formatBytes(availableBytes) + " (einplan eval keeps every tensor in memory)"});
}

namespace {

// The nodes first..last-1 of `graph` on `inputs`, their outputs into `results`.
void evaluateNodes(const Graph& graph, std::size_t first, std::size_t last, const std::map<std::string, Tensor>& inputs,
                   std::map<std::string, Tensor>& results) {
  for (std::size_t i = first; i < last; ++i) {
    const Node& node = graph.nodes[i];
    std::vector<const Tensor*> operands;
    for (const auto& name : node.inputs) {
      auto in = inputs.find(name);
      if (in != inputs.end()) {
        operands.push_back(&in->second);
        continue;
      }
      auto produced = results.find(name);
      if (produced == results.end())
        throw std::invalid_argument("node '" + node.name + "' reads '" + name + "', which is not computed before it");
      operands.push_back(&produced->second);
    }
    results[node.name] = evaluateNode(graph, node, operands);
  }
}

// Micro-batch m of a split input: the m-th of `count` equal slices along `dimension`.
Tensor sliceOf(const Tensor& whole, int dimension, int64_t count, int64_t m) {
  Tensor slice{whole.dtype, whole.shape, {}};
  const auto d = static_cast<std::size_t>(dimension);
  slice.shape[d] /= count;
  int64_t outer = 1, inner = 1;
  for (std::size_t k = 0; k < d; ++k) outer *= whole.shape[k];
  for (std::size_t k = d + 1; k < whole.shape.size(); ++k) inner *= whole.shape[k];
  const int64_t run = slice.shape[d] * inner, stride = whole.shape[d] * inner;
  slice.values.reserve(static_cast<std::size_t>(outer * run));
  for (int64_t o = 0; o < outer; ++o) {
    const auto from = whole.values.begin() + static_cast<std::ptrdiff_t>(o * stride + m * run);
    slice.values.insert(slice.values.end(), from, from + static_cast<std::ptrdiff_t>(run));
  }
  return slice;
}

}  // namespace

std::map<std::string, Tensor> evaluateGraph(const Graph& graph, const std::map<std::string, Tensor>& inputs) {
  std::map<std::string, Tensor> results;
  if (!graph.microBatches) {
    checkInputs(graph, inputs);
    evaluateNodes(graph, 0, graph.nodes.size(), inputs, results);
    return results;
  }
  // Micro-batches (planner/graph/micro_batches.h): the nodes run per micro-batch come
  // first; each micro-batch reads its slice of the split inputs, and the accumulated
  // nodes' results are summed over the micro-batches, each sum rounded to the node's type
  // as the program's accumulator holds it; the nodes run once per step follow.
  const MicroBatches& mb = *graph.microBatches;
  const std::vector<StepPhase> phase = stepPhases(graph);
  const auto bodyEnd = static_cast<std::size_t>(std::find(phase.begin(), phase.end(), StepPhase::OncePerStep) - phase.begin());
  const std::vector<bool> accumulated = accumulatedNodes(graph);
  std::map<std::string, Tensor> sums;
  for (int64_t m = 0; m < mb.count; ++m) {
    std::map<std::string, Tensor> slice = inputs;
    for (const MicroBatchSplit& sp : mb.split) {
      const auto it = inputs.find(sp.input);
      if (it == inputs.end()) throw std::invalid_argument("no value given for graph input '" + sp.input + "'");
      if (it->second.shape != stepShape(graph, *findInput(graph, sp.input)))
        throw std::invalid_argument("graph input '" + sp.input + "' does not have its declared shape");
      slice[sp.input] = sliceOf(it->second, sp.dimension, mb.count, m);
    }
    if (m == 0) checkInputs(graph, slice);
    std::map<std::string, Tensor> run;
    evaluateNodes(graph, 0, bodyEnd, slice, run);
    for (std::size_t i = 0; i < bodyEnd; ++i) {
      if (!accumulated[i]) continue;
      Tensor& value = run.at(graph.nodes[i].name);
      const auto [it, first] = sums.emplace(graph.nodes[i].name, value);
      if (first) continue;
      for (std::size_t e = 0; e < value.values.size(); ++e)
        it->second.values[e] = roundToDType(it->second.values[e] + value.values[e], value.dtype);
    }
    if (m + 1 == mb.count)
      for (auto& [name, value] : run) results[name] = std::move(value);  // the last micro-batch's, for reading
  }
  for (auto& [name, value] : sums) results[name] = std::move(value);
  evaluateNodes(graph, bodyEnd, graph.nodes.size(), inputs, results);
  return results;
}

}  // namespace eindecomp
