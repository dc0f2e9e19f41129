// Splitting n-ary contractions into binary ones before planning (SPEC 1 and 5; the Einsum
// Trees paper, section 2.2). A node with three or more operands — always a pure
// contraction, join mul and agg sum — becomes a chain of binary contraction nodes along
// the contraction path that optimizePath (path_search.h) finds under the PathOptions:
// exact (dynamic programming over subsets of operands) up to maxExactOperands operands,
// a budgeted search beyond. Every intermediate keeps only the labels needed later; the
// last step produces the node's own output labels in the node's order.
//
// Naming: the steps of node NODE are named NODE.1, NODE.2, ... and the last step keeps the
// name NODE, so every reference to NODE still resolves. Names with a dot are internal:
// they cannot appear in graph files, and they are not identifiers for emitted code. Where
// an identifier is needed use `sanitizedInternalName` (NODE.3 -> NODE__3) or write the
// whole graph through `withSanitizedNames`; splitNaryNodes refuses a graph in which these
// sanitized names would collide with an existing tensor name.
#pragma once

#include <string>
#include <vector>

#include "planner/graph/graph.h"
#include "planner/paths/contraction_path.h"
#include "planner/paths/flop_count.h"
#include "planner/paths/gemm_mapping.h"
#include "planner/paths/path_options.h"
#include "planner/paths/path_search.h"

namespace eindecomp {

// One binary step of a split node, as `einplan check` reports it.
struct ContractionStepInfo {
  std::string name;                   // NODE.k, or NODE for the last step
  std::vector<std::string> operands;  // the two tensors it contracts
  Labels resultLabels;                // in the order of the generated node
  std::string einsum;                 // the binary einsum, e.g. "abc,cd->abd"
  FlopCount flops = 0;
  FlopCount resultSize = 0;           // elements
  int scaling = 0;                    // distinct labels of its loop nest (NumPy's "scaling")
  LabelClasses classes;
  KernelMapping kind = KernelMapping::Permutation;
};

// The contraction path chosen for one n-ary node, in the vocabulary of opt_einsum's PathInfo.
struct ContractionPathInfo {
  std::string node;
  std::string einsum;                  // the node's einsum as written (the complete contraction)
  int operandCount = 0;
  FlopCount naiveFlops = 0;            // the whole einsum as one loop nest
  FlopCount optimizedFlops = 0;        // the sum over the steps
  double speedup = 1.0;                // naive / optimized
  int naiveScaling = 0;                // distinct labels of the whole einsum
  int optimizedScaling = 0;            // most distinct labels of any step
  // Elements of the largest tensor, counted as NumPy counts its "largest intermediate":
  // operands, every step's result and the output.
  FlopCount largestIntermediate = 0;
  std::vector<std::pair<int, int>> path;  // opt_einsum's positional form
  std::vector<ContractionStepInfo> steps;
  PathSearchStats search;              // exact or searched, budget, trials, time, first vs best
};

// The graph with every node of three or more operands replaced by its binary steps, in
// place (topological order is kept). Nodes with one or two operands are copied unchanged.
// Throws InputError at the node when an n-ary node is not a pure contraction or when a
// sanitized step name would collide with an existing name.
Graph splitNaryNodes(const Graph& g, const PathOptions& opts = {});

// The same, also returning the path of every split node, in node order.
Graph splitNaryNodes(const Graph& g, std::vector<ContractionPathInfo>& infos, const PathOptions& opts = {});

// Only the paths (what `einplan check` prints), without building the split graph.
std::vector<ContractionPathInfo> contractionPathInfos(const Graph& g, const PathOptions& opts = {});

// The binary nodes one n-ary node becomes (NODE.1, ..., NODE), as splitNaryNodes makes
// them; throws InputError when the node is not a pure contraction.
std::vector<Node> contractionSteps(const Node& n, const PathOptions& opts = {});

// A human-readable report in opt_einsum's PathInfo vocabulary: per n-ary node the
// complete contraction, naive and optimized scaling and FLOPs, the speedup, the largest
// intermediate, how the path was searched (budget, trials, time, first vs best) and one
// row per step (operands, einsum, scaling, FLOPs, kernel). Empty when there are no n-ary
// nodes.
std::string formatPathReport(const std::vector<ContractionPathInfo>& infos);

// The same as a JSON array (one object per node, exact integers as decimal strings where
// they may exceed 64 bits), for `einplan check --format json`.
std::string renderPathReportJson(const std::vector<ContractionPathInfo>& infos);

// NODE.3 -> NODE__3: the identifier form of an internal step name (other names unchanged).
std::string sanitizedInternalName(const std::string& name);

// The graph with every internal name replaced by its sanitized form (inputs, node names,
// operand references and outputs), ready for the graph writer or the code generator.
Graph withSanitizedNames(const Graph& g);

}  // namespace eindecomp
