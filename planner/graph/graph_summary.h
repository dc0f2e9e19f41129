// What `einplan check` shows about a validated graph: every tensor (graph inputs and
// node outputs) with its shape and bytes, every node with its einsum, join, agg, output
// shape and FLOPs (SPEC 3, via nodeFlops), and the totals; rendered as an aligned text
// table with human units or as JSON with exact integers. Lives in the planner so the
// CLI only parses arguments and other tools can reuse the summary.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "planner/graph/graph.h"

namespace eindecomp {

struct TensorSummary {
  std::string name;
  std::string kind;  // "input" | "node"
  std::vector<int64_t> shape;
  int64_t elements = 0;
  int64_t bytes = 0;
  bool isOutput = false;
  std::string dtype;  // the graph's, or an index tensor's own (i32, i64)
};

struct NodeSummary {
  std::string name;
  std::string einsum;
  std::vector<std::string> inputs;
  std::string join;  // as written, or the default ("mul", or "x" for one input)
  std::string agg;
  std::vector<int64_t> outputShape;
  int64_t flops = 0;
  bool isOutput = false;
};

struct GraphSummary {
  std::string name;
  std::string dtype;
  std::string sourceFile;
  std::vector<TensorSummary> tensors;  // inputs in file order, then node outputs in evaluation order
  std::vector<NodeSummary> nodes;      // evaluation order
  std::vector<std::string> outputs;
  int64_t totalFlops = 0;
  int64_t totalBytes = 0;  // all tensors, inputs and node outputs
  // A step of micro-batches (micro_batches.h; count 1: none): shapes, FLOPs and bytes above
  // are one micro-batch's; the step runs the body `count` times.
  struct Steps {
    int64_t count = 1;
    std::vector<std::pair<std::string, int>> split;  // input, dimension
    std::vector<std::string> accumulate;
    int64_t perMicroBatchNodes = 0, oncePerStepNodes = 0;
    int64_t stepFlops = 0;  // the body's FLOPs x count + the rest's
  } microBatches;
};

// `flopsOverride` gives the FLOPs to report for particular nodes instead of nodeFlops:
// n-ary contractions run as binary steps along their contraction path, so the CLI passes
// the path's FLOPs for them (their naive count may not even fit in 64 bits).
GraphSummary summarizeGraph(const Graph& g, const std::map<std::string, int64_t>& flopsOverride = {});

// Aligned columns (planner/graph/text_table.h) with human units (KiB/MiB, MFLOP/GFLOP),
// ending in a totals line.
std::string renderSummaryTable(const GraphSummary& s);

// {"graph", "dtype", "file", "tensors": [...], "nodes": [...], "outputs": [...],
//  "totals": {"tensors", "nodes", "flops", "bytes"}} and, for a step of micro-batches,
//  "micro_batches": {"count", "split", "accumulate", "per_micro_batch_nodes",
//  "once_per_step_nodes", "step_flops"}; exact integers, pretty-printed.
std::string renderSummaryJson(const GraphSummary& s);

}  // namespace eindecomp
