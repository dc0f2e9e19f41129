// The EinGraph model (SPEC 1): graph inputs (tensors with shapes), nodes (extended
// EinSums: operand label lists, output labels, a scalar join and an associative
// aggregation, the resolved size of each of its labels), and outputs. Labels are local
// to their node, as in NumPy: `ij,jk->ik` in two nodes names unrelated dimensions. This
// is plain data; the loaders build it and validate it completely, so every later stage
// (paths, partitions, cost, evaluator, code generator) may assume a well-formed graph:
// every name resolves, a label has one size within its node, the nodes form a DAG and
// are stored in a topological order.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "einrt/types.h"
#include "planner/graph/diagnostic.h"
#include "planner/graph/expr.h"

namespace eindecomp {

// Element types and aggregations are einrt's (einrt/types.h): one vocabulary from the
// graph file to the emitted program.
using einrt::DType;
using einrt::dtypeName;
using einrt::dtypeSize;
using einrt::Reduce;
using einrt::reduceName;

using Label = std::string;
using Labels = std::vector<Label>;

// `fileShape`: the shape of the tensor's NAME.npy when it differs from `shape` by a
// reshape only (the same elements in C order; empty: the shape itself). An imported
// model keeps its inputs' and outputs' shapes there while the graph splits or merges
// their dimensions (docs/graph-format.md, docs/import.md).
// `indexType`: set for an index tensor (i32 or i64: a gather's ids, SPEC 8), which only
// the first operand of a gather or scatter node may read; unset: the graph's dtype.
// `floatType`: a float input of another type than the graph's (a mixed-precision graph's
// f32 master weights in a bf16 graph, SPEC 8); unset: the graph's dtype.
struct InputTensor {
  std::string name;
  std::vector<int64_t> shape;
  SourceLoc loc;
  std::vector<int64_t> fileShape{};
  std::optional<DType> indexType{};
  std::optional<DType> floatType{};
  // The type the input states for itself (written back as its `dtype`), if any.
  std::optional<DType> ownType() const { return indexType ? indexType : floatType; }
};

// Operand k's dimension d is read at `label + offsets[k][d]` (offsets[k] empty: operand k is
// read as it is), and a position outside the tensor reads `fill`. The tensor's extent there,
// bounds[k][d], need not be the label's size (a slice, a padded concatenation part).
// A dimension may also move with a tap label (a convolution, SPEC 8.1): operand k's
// dimension d is then read at `label + dilations[k][d] * taps[k][d] + offsets[k][d]`.
// taps is empty where no operand has one, taps[k] empty where operand k has none, and an
// empty label marks a dimension without one. No partition cuts a tap label.
// A dimension may also have a step (a strided convolution or pool): it is then read at
// `steps[k][d] * label + ...`; or a spread (a strided read's gradient, in a copy node
// only): read at `(label + offsets[k][d]) / spreads[k][d]` where that divides, the fill
// between. steps and spreads are empty where no operand has one (else per operand empty
// or one per dimension, 1 where a dimension has none); no partition cuts a spread label.
struct NodeWindows {
  std::vector<std::vector<int64_t>> offsets;
  std::vector<std::vector<int64_t>> bounds;  // the windowed operands' shapes (else empty)
  double fill = 0.0;
  std::vector<Labels> taps{};
  std::vector<std::vector<int64_t>> dilations{};
  std::vector<std::vector<int64_t>> steps{}, spreads{};

  // Whether operand k has steps (spreads), and dimension d's (1 where none).
  bool stepped(std::size_t k) const { return k < steps.size() && !steps[k].empty(); }
  bool spreadOut(std::size_t k) const { return k < spreads.size() && !spreads[k].empty(); }
  int64_t stepOf(std::size_t k, std::size_t d) const { return stepped(k) ? steps[k][d] : 1; }
  int64_t spreadOf(std::size_t k, std::size_t d) const { return spreadOut(k) ? spreads[k][d] : 1; }
};

struct Node {
  std::string name;
  std::vector<std::string> inputs;  // operand tensor names (graph inputs or nodes), in order
  std::vector<Labels> operandLabels;  // one label list per operand
  Labels outputLabels;
  std::string einsum;       // the einsum text as written, for reports
  std::string joinName;     // "mul", "add", ... or the expression text as written
  Expr join;                // the join as an expression tree over x (and y)
  Reduce agg = Reduce::Sum;
  std::map<Label, int64_t> labelSizes;  // every iteration label of this node, resolved
  SourceLoc loc;
  std::vector<int64_t> fileShape{};     // graph outputs only: the shape of NAME.npy (see InputTensor)
  // An index node (join `gather` or `scatter`, SPEC 8.1): the label the first operand's
  // ids select. Its term is y where x == the label's position and 0 elsewhere, summed:
  // a gather `bs,vd->bsd` sums over v (one nonzero term: Z[b,s,d] = E[ids[b,s], d]), a
  // scatter `bs,bsd->vd` adds each row into row ids[b,s] (the gather's gradient).
  // Empty for every other node.
  Label indexLabel{};
  // Operands read through windows (SPEC 8.1; NodeWindows); null: none. Shared and never
  // changed once made (a node is copied freely; a 100,000-node chain's gradient keeps
  // 300,000 of them).
  std::shared_ptr<const NodeWindows> windows{};
  // A cast node (SPEC 8, `cast: bf16`): its output is of this float type, its one operand
  // of any float type, read elementwise in the output's label order (tensor_types.h).
  // Unset: the node computes in, and writes, its float operands' type.
  std::optional<DType> castTo{};
};

// Micro-batches (docs/graph-format.md "Micro-batches"; micro_batches.h): the step runs the
// nodes that depend on the `split` inputs `count` times, each time over the next 1/count of
// each split input along its dimension, and sums the `accumulate` nodes' results over
// those runs; the nodes that read the sums run once, after them. A split input's `shape`
// here is one micro-batch's (its file, --inputs and the generated values are the whole
// step's: the dimension times `count`).
struct MicroBatchSplit {
  std::string input;
  int dimension = 0;
  SourceLoc loc;
};

struct AccumulatedNode {
  std::string node;
  SourceLoc loc;
};

struct MicroBatches {
  int64_t count = 1;
  std::vector<MicroBatchSplit> split;
  std::vector<AccumulatedNode> accumulate;
  SourceLoc loc;
};

struct Graph {
  std::string name = "einprog";
  DType dtype = DType::F32;
  std::string sourceFile;                // where it was loaded from ("-" for stdin)
  std::vector<InputTensor> inputs;
  std::vector<Node> nodes;               // topologically ordered
  std::vector<std::string> outputs;      // node names (defaults to the sinks)
  std::optional<MicroBatches> microBatches;  // none: the step is one pass over its inputs
};

// ---- queries used throughout the planner (graph_queries.cpp) ----
// The name lookups below search the lists: a stage that asks once per node builds a
// GraphIndex (graph_index.h) instead.

// The node's iteration labels: distinct labels in order of first appearance in the
// operands, then the output (broadcast labels last). Partitions are given over these.
Labels iterationLabels(const Node& n);
// Labels in some operand but not in the output.
Labels aggregatedLabels(const Node& n);
// Labels in the output but in no operand.
Labels broadcastLabels(const Node& n);
// True for join mul / agg sum (the GEMM-able contractions).
bool isContraction(const Node& n);
// True for a gather or scatter node (Node::indexLabel).
inline bool isIndexNode(const Node& n) { return !n.indexLabel.empty(); }
// True when operand k is read through a window (Node::windows).
inline bool isWindowed(const Node& n, std::size_t k) {
  return n.windows && k < n.windows->offsets.size() && !n.windows->offsets[k].empty();
}

// True when some operand of n is read through a window over a tap label (a convolution).
inline bool hasTaps(const Node& n) { return n.windows && !n.windows->taps.empty(); }
// True when some operand of n is read through a window with a step or a spread.
inline bool hasSteps(const Node& n) { return n.windows && (!n.windows->steps.empty() || !n.windows->spreads.empty()); }

const Node* findNode(const Graph& g, const std::string& name);
const InputTensor* findInput(const Graph& g, const std::string& name);
// Index of the node in g.nodes, or -1.
int nodeIndex(const Graph& g, const std::string& name);

// Shape of a tensor (input or node output) by name; throws std::out_of_range if unknown.
std::vector<int64_t> tensorShape(const Graph& g, const std::string& name);
// Shape of a node's output (its output labels' sizes).
std::vector<int64_t> outputShape(const Node& n);
// Sizes of the node's iteration labels, in iterationLabels(n) order.
std::vector<int64_t> iterationSizes(const Node& n);
int64_t elementCount(const std::vector<int64_t>& shape);
// The shape a tensor's .npy file has: its fileShape when set, else its shape.
std::vector<int64_t> fileShapeOf(const Graph& g, const std::string& name);

// The nodes that consume `name`, with the operand position, in node order.
struct Use {
  int node;
  int operand;
};
std::vector<Use> consumers(const Graph& g, const std::string& name);

// FLOPs of a node per SPEC 3: prod(sizes of all labels) * (max(1, operands-1) + (agg ? 1 : 0));
// an index node's: one per point of its labels other than the selected one.
// Throws InputError (overflow) when the count does not fit in 63 bits.
int64_t nodeFlops(const Node& n);

}  // namespace eindecomp
