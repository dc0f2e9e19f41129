// The lowered program's tables: a graph and its plan in positional form, the one form the
// planner's models, the code generator and the executor share (einrt's program model,
// program_model.h, is derived from them). Per tensor its shape and producer; per node the
// iteration labels' sizes and parts, which label each tensor dimension is, the rank of
// every kernel call and the owner of every output block (the plan's placement), its GEMM
// mapping, permutation or fused group, and the bytes the plan predicts for it. Nothing
// here is decided at run time: the planner fills the tables (planner/model), eincodegen
// writes them into the program (write_tables.h) and the executor follows them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "einrt/program/gemm.h"
#include "einrt/types.h"

namespace einrt::model {

// A contraction's GEMM mapping (the planner's planner/paths/gemm_mapping.h): the iteration
// labels of the C (batch), M, N and K groups in their chosen orders (a call's GEMM shape is
// the product of their extents), transposes, the stored dimension of each canonical
// dimension where a permutation is needed (else empty), and alpha (a scaled contraction,
// join c * x * y). batchLabels also holds M and N labels run as loops (a tensor without
// one steps over it with stride 0).
struct GemmSpec {
  std::vector<int> batchLabels, mLabels, nLabels, kLabels;
  bool transX = false, transY = false, transZ = false;
  std::vector<int> permX, permY, permZ;
  double alpha = 1.0;
  program::GemmPlanned path = program::GemmPlanned::Rule;  // the plan's path for the calls (gemm.h)
};

// A node's place in a fused group (the planner's planner/fusion/fusion.h decides the
// groups): members are consecutive nodes with the same group number; the group's
// dimensions are every member's first `tileDims` output dimensions. Which members' outputs
// live in tiles only is the model's rule (program_model.h, "scratch").
struct FusionSpec {
  int group = -1;  // -1: not fused
  int tileDims = 0;
};

struct TensorTable {
  std::string name;
  std::vector<int64_t> shape;
  bool isInput = false;
  bool isOutput = false;
  int producer = -1;  // node index, -1 for graph inputs
  // The shape of the tensor's .npy file (--inputs, --outputs): a reshape of `shape`, the
  // same elements in C order (an imported model's own shapes); empty: `shape`.
  std::vector<int64_t> fileShape;
  // An index tensor (a gather's ids, a graph input): its integer type; unset: the
  // program's element type.
  std::optional<DType> indexType;
  int64_t indexRange = 0;  // an index tensor's ids lie in [0, indexRange) (generated ones do)
  // A float tensor of another type than the program's (a mixed-precision graph, SPEC 8:
  // f32 master weights and their updates in a bf16 step); unset: the program's type.
  std::optional<DType> floatType = std::nullopt;
  // Micro-batches (program_model.h): the dimension of a graph input cut into the program's
  // micro-batches (-1: none). `shape` is one micro-batch's; the input's file, --inputs and
  // its generated values are the whole step's (stepShape).
  int splitDimension = -1;
  const std::vector<int64_t>& npyShape() const { return fileShape.empty() ? shape : fileShape; }
  // The whole step's shape of a tensor in a program of `microBatches`, and its .npy
  // file's (a split input has no fileShape of its own: eincodegen refuses one).
  std::vector<int64_t> stepShape(int64_t microBatches) const {
    std::vector<int64_t> s = shape;
    if (splitDimension >= 0) s[static_cast<std::size_t>(splitDimension)] *= microBatches;
    return s;
  }
  std::vector<int64_t> stepNpyShape(int64_t microBatches) const {
    return splitDimension >= 0 ? stepShape(microBatches) : npyShape();
  }
  // Bytes of one element: the tensor's own type's, else `elementSize` (the program's). The
  // one rule of a tensor's bytes for the planner's memory and traffic models and the program.
  std::size_t elementBytes(std::size_t elementSize) const {
    if (indexType) return dtypeSize(*indexType);
    return floatType ? dtypeSize(*floatType) : elementSize;
  }
  // Its element type in a program of `programType`.
  DType elementType(DType programType) const { return indexType ? *indexType : floatType.value_or(programType); }
  // A float tensor of another type than the program's (mixed precision).
  bool otherFloatType(DType programType) const { return !indexType && elementType(programType) != programType; }
};

// A node's iteration space in positional form: the size of each iteration label (labels
// in order of first appearance in the operands, then the output), and which label each
// dimension of every operand and of the output is. The planner's NodeSpace adds the
// labels' names.
struct NodeShape {
  std::vector<int64_t> sizes;                   // per iteration label
  std::vector<std::vector<int>> operandLabels;  // iteration label of each operand dimension
  std::vector<int> outputLabels;
  // Operands read through a window (SPEC 8.1: dimension d at `label + origin[d]`, what lies
  // outside [0, bound[d]) reads the node's fill): per operand, empty (the tensor itself) or
  // the origin and the tensor's extent per dimension. Empty: no operand is windowed.
  std::vector<std::vector<int64_t>> operandOrigin, operandBound;
  // A window over a tap label (a convolution, SPEC 8.1): operand k's dimension d is read at
  // `label + operandTapDilation[k][d] * tap + origin[d]`, tap = operandTap[k][d] (-1: none), an
  // iteration label no partition cuts (cuttableSizes). Empty where no operand has a tap.
  std::vector<std::vector<int>> operandTap;
  std::vector<std::vector<int64_t>> operandTapDilation;
  // A strided window (SPEC 8.1): operand k's dimension d is read at `operandStep[k][d] *
  // label + ...` (a strided convolution or pool); and a spread one, at `(label + origin[d])
  // / operandSpread[k][d]` where that divides, the fill between (a strided read's
  // gradient: only a copy node reads one, and its label is never cut). Per operand empty
  // (every step and spread 1), or one per dimension; empty where no operand has either.
  std::vector<std::vector<int64_t>> operandStep, operandSpread;

  friend bool operator==(const NodeShape&, const NodeShape&) = default;
  bool windowed(std::size_t operand) const { return operand < operandOrigin.size() && !operandOrigin[operand].empty(); }
  bool tapped(std::size_t operand) const { return operand < operandTap.size() && !operandTap[operand].empty(); }
  bool stepped(std::size_t operand) const { return operand < operandStep.size() && !operandStep[operand].empty(); }
  bool spreadOut(std::size_t operand) const { return operand < operandSpread.size() && !operandSpread[operand].empty(); }
  // The operand's block is not its labels' block (a halo, a step or a spread changes it).
  bool reshaped(std::size_t operand) const { return tapped(operand) || stepped(operand) || spreadOut(operand); }
};

// The label sizes partitions may divide: every tap label's is 1 (never cut, so that a
// block of a tapped operand is one interval per dimension: its step plus a halo), and so
// is every label a spread window reads along (its one block holds every row it reads).
std::vector<int64_t> cuttableSizes(const NodeShape& n);

// The labels a node aggregates: in some operand, not in the output (ascending, which is
// their order of first appearance).
std::vector<int> aggregatedLabels(const NodeShape& n);

struct NodeTable : NodeShape {
  std::string name;
  std::vector<int64_t> parts;                   // per iteration label: the partition
  std::vector<int> operandTensor;
  int outputTensor = -1;
  Reduce agg = Reduce::Sum;
  std::vector<int> callRank;                    // the plan's placement
  std::vector<int> blockOwner;
  int64_t bytesPredicted = 0;                   // the plan's traffic for the node
  int64_t interNodeBytesPredicted = 0;          // of it, between nodes (SPEC 9)
  int64_t flops = 0;
  int64_t reductionLength = 1;                  // product of the aggregated labels' sizes
  bool contraction = false;                     // join mul (or x alone), agg sum: a sum of products
  std::optional<GemmSpec> gemm;
  std::vector<int> permutation;                 // a copy into another order: the operand dimension
                                                // of each output dimension (permute.h), else empty
  FusionSpec fusion;
  // An index node (gather or scatter, SPEC 8.1): the iteration label its first operand's
  // ids select; each call adds y's row of id `ids - offset` where the id falls in its
  // block of that label. -1: not an index node.
  int indexLabel = -1;
  double fill = 0.0;                            // what a windowed operand reads outside its tensor
  std::string kernel;                           // what runs, for reports
  // Micro-batches (program_model.h): the node runs once per step, after the micro-batches
  // (else once per micro-batch); its results are summed over the micro-batches.
  bool oncePerStep = false;
  bool accumulated = false;
  // An invariant run once (the planner's planner/graph/micro_batches.h): a node of the body
  // whose value is the same in every micro-batch, run in the first only (program_model.h).
  bool runsOnce = false;
};

struct ProgramTables {
  std::vector<TensorTable> tensors;
  std::vector<NodeTable> nodes;
  std::vector<int> outputs;  // tensor indices of the graph outputs
  // The step's micro-batches (program_model.h): the nodes not oncePerStep, which come
  // first, run this many times, each on the next slice of the split inputs.
  int64_t microBatches = 1;
  // The ranks per node the plan's split by link assumes (0: one node): ranks k*K .. k*K+K-1
  // share node k. The reduced-at-read rule (program_model.h) reads it; a program's
  // --ranks-per-node changes only how its bytes are counted.
  int64_t ranksPerNode = 0;
  // Every aggregation onto its owners: the reduced-at-read rule off (a plan's choice, where
  // reading partials would hold them past its memory limit).
  bool partialsOnOwners = false;

  // What node i computes in (SPEC 8): its output's type. A node whose operand is of
  // another float type is a cast (the planner's planner/graph/tensor_types.h allows no
  // other: every other node's float operands are of its own type).
  DType nodeType(std::size_t i, DType programType) const {
    return tensors[static_cast<std::size_t>(nodes[i].outputTensor)].elementType(programType);
  }
  bool isCast(std::size_t i, DType programType) const { return isCastNode(tensors, nodes[i], programType); }
  // A widening contraction (SPEC 8; the planner's tensor_types.h): two operands of the
  // program's 2-byte type, an f32 result, computed as one GEMM.
  bool isWidening(std::size_t i, DType programType) const { return isWideningNode(tensors, nodes[i], programType); }
  static bool isWideningNode(const std::vector<TensorTable>& tensors, const NodeTable& n, DType programType) {
    return n.indexLabel < 0 && n.operandTensor.size() == 2 &&
           tensors[static_cast<std::size_t>(n.outputTensor)].elementType(programType) == DType::F32 &&
           tensors[static_cast<std::size_t>(n.operandTensor[0])].elementType(programType) != DType::F32;
  }
  static bool isCastNode(const std::vector<TensorTable>& tensors, const NodeTable& n, DType programType) {
    return n.indexLabel < 0 && n.operandTensor.size() == 1 &&
           tensors[static_cast<std::size_t>(n.operandTensor[0])].elementType(programType) !=
               tensors[static_cast<std::size_t>(n.outputTensor)].elementType(programType);
  }
};

// The one rule of block extents: a node cut by `parts` runs calls on blocks of
// sizes[l] / parts[l] along each iteration label (parts divide sizes: SPEC 2).
inline std::vector<int64_t> blockExtent(const std::vector<int64_t>& sizes, const std::vector<int64_t>& parts) {
  std::vector<int64_t> e(sizes.size());
  for (std::size_t l = 0; l < sizes.size(); ++l) e[l] = sizes[l] / parts[l];
  return e;
}

// Elements of the block of a tensor whose dimensions are the labels `labels`, given the
// block extent per label.
inline int64_t blockElements(const std::vector<int>& labels, const std::vector<int64_t>& extent) {
  int64_t n = 1;
  for (int l : labels) n *= extent[static_cast<std::size_t>(l)];
  return n;
}

}  // namespace einrt::model
