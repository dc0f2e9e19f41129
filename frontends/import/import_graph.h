// The graph `einplan import` builds: tensors whose dimensions can be refined after they
// exist, einsum nodes over them, and views through which ONNX values see them.
//
// Why views and refinement: ONNX moves data between shapes with Reshape, Transpose,
// Squeeze, Unsqueeze, Flatten, Split and Slice, and an EinGraph has no such nodes; a
// copy node for each would make the plan pay for work the model never does. So an ONNX
// value is a View: a tensor of this graph plus, for each ONNX dimension, the tensor
// dimensions it spans (outer first; none for a unit dimension). A Transpose permutes
// the groups, a Reshape that merges dimensions regroups them, and a Reshape that splits
// one (a fused projection split into heads) refines the tensor's dimension into two:
// the dimension, the label of every node that reads or writes it, and through those
// labels every other tensor dimension carrying them are split alike (C order keeps a
// weight's bytes as they are). A Slice of a computed tensor is pushed into its producer
// (the producer is computed again on the slice of its operands; sliced weights are new
// weights), so the Split of a fused QKV projection becomes three projections. What
// cannot be expressed this way — splitting a model input's dimension, a Reshape across
// incompatible boundaries, slicing a model input — is an Unsupported error, never a
// graph that computes something else. Model inputs and outputs may be split or merged
// too: the graph records their ONNX shape as the tensor's file_shape (the same elements
// in C order), so their .npy files keep the model's shapes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "planner/graph/graph.h"
#include "frontends/import/onnx_model.h"

namespace eindecomp::onnx_import {

// What an ONNX node needs that the EinGraph cannot express; the importer adds the node's
// name and operator type and exits 2.
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using DimId = int;
using LabelId = int;

struct View {
  int tensor = -1;
  std::vector<std::vector<DimId>> groups;  // per ONNX dimension, tensor dimensions, outer first
  std::vector<DimId> hidden;               // size-1 tensor dimensions no ONNX dimension shows
};

enum class TensorKind { ModelInput, Weight, Computed };

class ImportGraph {
 public:
  // Inputs keep their shape; weights hold their values (in C order over their dimensions).
  // `indexType`: an int32/int64 model input, which only gathers read (as their ids).
  View addModelInput(const std::string& onnxName, const std::vector<int64_t>& shape,
                     std::optional<DType> indexType = std::nullopt);
  // `onnxNamed`: the hint is the initializer's ONNX name (reported when it must change);
  // such a weight that is an earlier one's transpose is that one (transposedWeight).
  View addWeight(const std::string& hint, HostTensor value, bool onnxNamed = true);

  // A weight added earlier whose values are `value`'s transposed, seen as `value` (its
  // transpose view), and its name in `twin`: the second initializer an exporter writes for
  // a shared parameter (torch folds F.linear(h, wte.weight)'s transpose of a tied embedding
  // into one), which then is the one input it is — its bytes held once, its gradient one.
  // Nothing for a tensor of fewer than two distinct values (zeros, ones: equal by
  // initialization, not by being one parameter).
  std::optional<View> transposedWeight(const HostTensor& value, std::string& twin) const;

  std::vector<int64_t> shape(const View& v) const;
  bool isModelInput(const View& v) const { return tensors_[v.tensor].kind == TensorKind::ModelInput; }
  bool isIndexInput(const View& v) const { return tensors_[v.tensor].indexType.has_value(); }

  // One operand of an einsum: its view and a symbol per ONNX dimension. Operand ONNX
  // dimensions with one symbol are one index (equal sizes, or size 1: broadcast).
  struct Operand {
    View view;
    std::vector<int> symbols;
  };
  // A node computing `join` of the operands aggregated with `agg` over the symbols not
  // in `outSymbols`; the output has one plain dimension per output symbol, in order. A
  // symbol no operand has at a size above 1 is a broadcast dimension: of size 1
  // (keepdims), or of the size `broadcast` gives it (Expand).
  // `hint` names the node (made a valid, unique name when the graph is written).
  View einsum(const std::vector<Operand>& operands, const std::vector<int>& outSymbols, const Expr& join, Reduce agg,
              const std::string& hint, const std::map<int, int64_t>& broadcast = {});

  // ONNX Gather of computed indices: the rows of `data` along `axis` that the ids (an
  // index model input) select; the output's dimensions are data's before the axis, the
  // ids', then data's after it. A gather node (planner/graph/index_nodes.h).
  View gather(const View& data, int64_t axis, const View& ids, const std::string& hint);
  // The same with constant ids (0 <= id < the axis's size, in C order over `shape`): they
  // become an i64 weight `<hint>_ids` (written with the other weights). Nothing where the
  // axis spans several dimensions of data's tensor (a merged dimension).
  std::optional<View> gather(const View& data, int64_t axis, const std::vector<int64_t>& ids, const std::vector<int64_t>& shape,
                             const std::string& hint);

  View transpose(const View& v, const std::vector<int64_t>& perm) const;
  View reshape(const View& v, const std::vector<int64_t>& newShape);
  // The same, or nothing — the graph left as it was — where the split it makes cannot
  // reach every node (a window elsewhere that would not fall on the split).
  std::optional<View> tryReshape(const View& v, const std::vector<int64_t>& newShape);
  View squeeze(const View& v, const std::vector<int64_t>& axes) const;    // axes normalised, sizes 1
  View unsqueeze(const View& v, const std::vector<int64_t>& axes) const;  // axes of the result, normalised
  View slice(const View& v, int64_t axis, int64_t start, int64_t end);    // step 1, 0 <= start < end <= size
  // The same slice taken from the tensor, not from its producer: where its bounds and the
  // size share a block b (of at most kMaxBlocks blocks), the dimension is viewed as
  // (size/b, b) and the blocks selected (`select` over size/b: that many multiply-adds an
  // element — 2 for a half, rotate_half's); else slice().
  View sliceBlocks(const View& v, int64_t axis, int64_t start, int64_t end, const std::string& hint);
  // Parts laid side by side along `axis` (Concat of computed tensors): where their sizes
  // share a block b, each is placed by a selection over the total/b blocks, then added;
  // else each is selected into the full width (`select`, quadratic). Nothing if one part.
  View concat(const std::vector<View>& parts, int64_t axis, const std::string& hint);
  // A window node (SPEC 8.1): dimension `axis` of the result, of size `outSize`, reads
  // position i + offset of v's, `fill` outside it (a slice, a padded part, a Pad). A copy
  // of v's elements, no selection; nothing where that axis spans several dimensions of
  // v's tensor (a merged dimension: the callers fall back to selections).
  std::optional<View> window(const View& v, int64_t axis, int64_t offset, int64_t outSize, double fill, const std::string& hint);
  // Whether some node reads v's tensor through a window (a split of its dimensions may then
  // be refused: ImportGraph::syncWindowDim).
  bool readThroughWindows(const View& v) const;
  // The same along several axes at once (one node): a convolution's shifted input.
  // `step`: position i reads step * i + offset (a strided pool's tap).
  struct WindowAxis {
    int64_t axis, offset, outSize, step = 1;
  };
  std::optional<View> window(const View& v, const std::vector<WindowAxis>& axes, double fill, const std::string& hint);
  // A convolution node (SPEC 8.1, a window over tap labels with a step): x [N, C, S...]
  // and w [O, C, K...] make [N, O, out...], where output position y of spatial axis d reads
  // x at step * y + dilation * i - padBefore for tap i < K (0 outside x); `grouped`: x [N,
  // G, C, S...] and w [G, O, C, K...] make [N, G, O, out...]. Nothing where a spatial axis
  // of x spans several dimensions of its tensor.
  struct ConvolutionAxis {
    int64_t outSize, dilation, padBefore, step = 1;
  };
  std::optional<View> convolution(const View& x, const View& w, const std::vector<ConvolutionAxis>& axes, const std::string& hint,
                                  bool grouped = false);
  // A pooling node the same way (SPEC 8.1): x [lead..., S...] and `taps` [K...] (a weight
  // carrying the tap labels: a max pool's zeros under join x + y) make [lead..., out...],
  // the taps aggregated by `agg`, `fill` outside x.
  std::optional<View> tapReduction(const View& x, const View& taps, const std::vector<ConvolutionAxis>& axes, const Expr& join,
                                   Reduce agg, double fill, const std::string& hint);
  static constexpr int64_t kMaxBlocks = 64;
  // Elements `indices` of dimension `axis`, as an einsum with a constant 0/1 selection
  // matrix S (S[indices[k], k] = 1) joined by where(S, x, -0) and summed: exact for every
  // value (x + -0 is x), but it costs n x m multiply-adds where a slice node would copy.
  // The stand-in for a slice or concatenation node where views cannot help (a model
  // input's slice, a strided slice, a concatenation of computed tensors); placing block k
  // of a concatenation is the same selection into the wider output.
  View select(const View& v, int64_t axis, const std::vector<int64_t>& indices, int64_t outSize, int64_t offset,
              const std::string& hint);

  // A window along one dimension: output position y reads input s*y + d*i - padBefore for
  // offsets i < kernel; places outside the input are padding, read as -0 when `padding`
  // is Sum (a convolution's zeros) and -inf when it is Max (max pooling ignores them).
  struct UnfoldWindow {
    int64_t outSize, kernel, stride, dilation, padBefore;
    Reduce padding = Reduce::Sum;
  };
  // Dimension `axis` of size n replaced by (y, i) of sizes (outSize, kernel), as an einsum
  // with a constant 0/1 tensor S[h, y, i] (1 where h = s*y + d*i - padBefore): exact for
  // every value, at n x outSize x kernel multiply-adds per row where a halo exchange would
  // copy kernel/stride rows — the stand-in for windowed labels with halos (not built yet)
  // that lets overlapping and padded convolutions and pooling import.
  View unfold(const View& v, int64_t axis, const UnfoldWindow& window, const std::string& hint);
  // unfold's transpose (a transposed convolution's scatter): dimensions (y, i) at `axis`
  // and axis + 1, of sizes (window.outSize, window.kernel), summed into one of
  // `foldedSize` at h = s*y + d*i - padBefore (places outside [0, foldedSize) dropped).
  View fold(const View& v, int64_t axis, const UnfoldWindow& window, int64_t foldedSize, const std::string& hint);

  // The graph: the given outputs (ONNX name, view) become nodes named after them (a copy
  // node where a view is not the plain layout of a computed tensor), unused nodes and
  // weights are dropped, names are made valid and unique. `renamed` gets every ONNX name
  // that changed; `weights` the values of the weight inputs, by graph name.
  struct Result {
    Graph graph;
    std::map<std::string, HostTensor> weights;
    std::vector<std::pair<std::string, std::string>> renamed;
    std::vector<std::pair<std::string, std::string>> tied;  // ONNX name -> the weight it is the transpose of
  };
  Result finish(const std::vector<std::pair<std::string, View>>& outputs, DType dtype, const std::string& graphName);

 private:
  struct Dim {
    int64_t size;
    int tensor;
    std::vector<DimId> parts;  // set once split
  };
  struct LabelInfo {
    int64_t size;
    std::vector<LabelId> parts;
  };
  struct Tensor {
    TensorKind kind;
    std::string hint;
    std::string onnxName;  // model inputs and initializers: the name the user knows
    std::vector<int64_t> fileShape;  // model inputs and outputs: the ONNX shape (their .npy files')
    std::vector<DimId> dims;
    int producer = -1;
    std::vector<int> users;  // nodes reading it
    HostTensor value;        // weights
    std::optional<DType> indexType;  // an index model input
  };
  struct Slot {
    int tensor;
    std::vector<DimId> dims;      // the tensor's dimensions when the node was made
    std::vector<LabelId> labels;  // parallel to dims
    // Dimensions read through a window (SPEC 8.1): index into dims -> the offset added to
    // the label's position. Such a dimension and its label stay one leaf each.
    std::map<std::size_t, int64_t> window{};
    // Of those, the ones that also move with a tap label (a convolution's): index into dims
    // -> (the tap's label, its dilation). One leaf each, never split.
    std::map<std::size_t, std::pair<LabelId, int64_t>> taps{};
    // Of those, the ones read with a step (a strided convolution's or pool's): index into
    // dims -> the step. One leaf each, never split.
    std::map<std::size_t, int64_t> steps{};
  };
  struct NodeInfo {
    std::vector<Slot> operands;
    Slot output;
    Expr join;
    Reduce agg;
    std::string hint;
    double fill = 0.0;         // what a window reads outside its tensor
    std::string indexJoin;     // "gather" for an index node, else empty
    LabelId selected = -1;     // the label its ids select
  };

  DimId newDim(int64_t size, int tensor);
  LabelId newLabel(int64_t size);
  int newTensor(TensorKind kind, const std::string& hint, const std::vector<int64_t>& sizes);
  std::vector<DimId> leaves(DimId d) const;
  std::vector<LabelId> labelLeaves(LabelId l) const;
  std::vector<DimId> tensorLeaves(int tensor) const;
  std::vector<int64_t> sizes(const std::vector<DimId>& dims) const;
  int64_t groupSize(const std::vector<DimId>& group) const;
  View normalized(const View& v) const;  // groups and hidden as leaves

  // Splits the leaves of a C-ordered sequence of dimensions (or labels) at the boundaries of `chain` (sizes, outer
  // first, of one refinement of the same total); returns whether anything split.
  bool refineDims(const std::vector<DimId>& leafSeq, const std::vector<int64_t>& chain);
  bool refineLabels(const std::vector<LabelId>& leafSeq, const std::vector<int64_t>& chain);
  void splitLeaf(DimId d, const std::vector<int64_t>& factors);
  bool sliceable(int tensor, DimId leaf) const;  // whether sliceTensor can push a slice into producers
  void syncNode(int node);
  // A new dimension of the node's output tensor carrying label l (its size), in order.
  DimId addOutputDim(NodeInfo& node, LabelId l);
  // Adds the node: the producer of its output, a user of its operands' tensors.
  void addNode(NodeInfo node);
  bool syncWindowDim(Slot& slot, std::size_t j, int node);
  // convolution's and tapReduction's node: x's, w's and the output's symbols before their
  // spatial ones (the taps' w's last), and x's spatial dimensions read through windows over
  // w's tap dimensions.
  struct TappedForm {
    std::vector<int> x, w, out;
  };
  std::optional<View> tapped(const View& x, const View& w, const std::vector<ConvolutionAxis>& axes, TappedForm form,
                             const Expr& join, Reduce agg, double fill, const std::string& hint);
  void drain();
  int sliceTensor(int tensor, DimId leaf, int64_t start, int64_t end, std::map<DimId, DimId>& dimMap);
  int nextSymbol_ = 1 << 28;
  bool readingIds_ = false;   // gather() is making a node that reads ids  // symbols of the einsums made here, apart from the importer's

  std::vector<Dim> dims_;
  std::vector<LabelInfo> labels_;
  std::vector<Tensor> tensors_;
  std::vector<NodeInfo> nodes_;
  std::vector<int> dirty_;
  std::vector<std::pair<std::string, std::string>> tied_;  // addWeight's transposed twins
  std::map<std::tuple<int, DimId, int64_t, int64_t>, std::pair<int, std::map<DimId, DimId>>> sliceCache_;
};

// "[2, 3, 4]", for messages.
std::string shapeText(const std::vector<int64_t>& shape);

// The common refinement of two factorisations of one number (sizes outer first, no 1s),
// or nothing when their boundaries cross (24 as 4 x 6 and as 6 x 4).
std::optional<std::vector<int64_t>> commonRefinement(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

}  // namespace eindecomp::onnx_import
