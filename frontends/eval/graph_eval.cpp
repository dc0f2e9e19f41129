#include "frontends/eval/graph_eval.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <stdexcept>

#include <einrt/npy.h>

#include "frontends/eval/node_eval.h"
#include "planner/graph/diagnostic.h"
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
    const int64_t b = doubles(elementCount(in.shape));
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

std::map<std::string, Tensor> evaluateGraph(const Graph& graph, const std::map<std::string, Tensor>& inputs) {
  checkInputs(graph, inputs);
  std::map<std::string, Tensor> results;
  for (const Node& node : graph.nodes) {
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
  return results;
}

}  // namespace eindecomp
