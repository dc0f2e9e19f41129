// Shape operators and constants. On a computed value they move no data: Reshape,
// Flatten, Squeeze, Unsqueeze and Transpose change the view (ImportGraph), Slice and
// Split are pushed into the producer of what they cut; on a constant they are folded
// (so shape arithmetic an exporter leaves in the model — Shape, Gather, Concat of shape
// vectors — costs nothing). Concat of computed values and Gather of computed data are
// refused: the EinGraph has no node that moves data that way.
#include <algorithm>
#include <cmath>

#include <einrt/half.h>

#include "frontends/import/onnx_ops.h"

namespace eindecomp::onnx_import {

namespace {

std::vector<int64_t> stridesOf(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

// Visits every index of `shape` in C order.
template <class F>
void forEachIndex(const std::vector<int64_t>& shape, F f) {
  int64_t n = 1;
  for (const int64_t d : shape) n *= d;
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    f(index);
    for (std::size_t i = shape.size(); i-- > 0;)
      if (++index[i] < shape[i]) break;
      else index[i] = 0;
  }
}

HostTensor hostTranspose(const HostTensor& t, const std::vector<int64_t>& perm) {
  HostTensor r;
  r.kind = t.kind;
  for (const int64_t p : perm) r.shape.push_back(t.shape[static_cast<std::size_t>(p)]);
  const auto st = stridesOf(t.shape);
  forEachIndex(r.shape, [&](const std::vector<int64_t>& idx) {
    int64_t off = 0;
    for (std::size_t i = 0; i < perm.size(); ++i) off += idx[i] * st[static_cast<std::size_t>(perm[i])];
    r.values.push_back(t.values[static_cast<std::size_t>(off)]);
  });
  return r;
}

HostTensor hostSlice(const HostTensor& t, int64_t axis, int64_t start, int64_t count, int64_t step) {
  HostTensor r;
  r.kind = t.kind;
  r.shape = t.shape;
  r.shape[static_cast<std::size_t>(axis)] = count;
  const auto st = stridesOf(t.shape);
  forEachIndex(r.shape, [&](const std::vector<int64_t>& idx) {
    int64_t off = 0;
    for (std::size_t i = 0; i < idx.size(); ++i)
      off += (static_cast<int64_t>(i) == axis ? start + idx[i] * step : idx[i]) * st[i];
    r.values.push_back(t.values[static_cast<std::size_t>(off)]);
  });
  return r;
}

std::vector<int64_t> normalisedAxes(OpContext& c, std::vector<int64_t> axes, int64_t rank) {
  for (int64_t& a : axes) a = c.axis(a, rank);
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) throw Unsupported("an axis is listed twice");
  return axes;
}

void passThrough(OpContext& c) {
  if (c.isConstant(0)) return c.setConstant(0, c.constant(0));
  c.setOutput(0, c.view(0));
}

// Sets output 0 to input 0 reshaped to `shape` (a constant keeps its values).
void reshapeTo(OpContext& c, const std::vector<int64_t>& shape) {
  if (c.isConstant(0)) {
    HostTensor t = c.constant(0);
    t.shape = shape;
    return c.setConstant(0, t);
  }
  c.setOutput(0, c.graph().reshape(c.view(0), shape));
}

void reshape(OpContext& c) {
  const std::vector<int64_t> in = c.shape(0);
  std::vector<int64_t> shape = c.constantInts(1);
  const bool allowZero = c.intAttribute("allowzero", 0) != 0;
  int64_t known = 1, infer = -1, total = 1;
  for (const int64_t d : in) total *= d;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allowZero) {
      if (i >= in.size()) throw Unsupported("shape entry 0 copies a dimension the input does not have");
      shape[i] = in[i];
    }
    if (shape[i] == -1) {
      if (infer >= 0) throw Unsupported("the shape has two -1 entries");
      infer = static_cast<int64_t>(i);
    } else if (shape[i] < 0) {
      throw Unsupported("the shape has a negative entry " + std::to_string(shape[i]));
    } else {
      known *= shape[i];
    }
  }
  if (infer >= 0) {
    if (known == 0 || total % known != 0) throw Unsupported("the -1 entry of the shape cannot be inferred");
    shape[static_cast<std::size_t>(infer)] = total / known;
    known *= shape[static_cast<std::size_t>(infer)];
  }
  if (known != total) throw Unsupported("a Reshape to a different number of elements");
  if (total == 0) throw Unsupported("a tensor with a dimension of size 0 (the EinGraph has none)");
  reshapeTo(c, shape);
}

void flatten(OpContext& c) {
  const std::vector<int64_t> in = c.shape(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  int64_t axis = c.intAttribute("axis", 1);
  if (axis < -rank || axis > rank) throw Unsupported("axis " + std::to_string(axis) + " is outside the tensor");
  if (axis < 0) axis += rank;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= in[static_cast<std::size_t>(i)];
  reshapeTo(c, {outer, inner});
}

void squeeze(OpContext& c) {
  const std::vector<int64_t> in = c.shape(0);
  std::vector<int64_t> axes;
  if (c.hasInput(1) || c.hasAttribute("axes")) {  // an input from opset 13, an attribute before
    axes = normalisedAxes(c, c.hasInput(1) ? c.constantInts(1) : *c.intsAttribute("axes"), static_cast<int64_t>(in.size()));
  } else {
    for (std::size_t i = 0; i < in.size(); ++i)
      if (in[i] == 1) axes.push_back(static_cast<int64_t>(i));
  }
  std::vector<int64_t> shape;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const bool gone = std::binary_search(axes.begin(), axes.end(), static_cast<int64_t>(i));
    if (gone && in[i] != 1) throw Unsupported("Squeeze of axis " + std::to_string(i) + ", which has size " + std::to_string(in[i]));
    if (!gone) shape.push_back(in[i]);
  }
  if (c.isConstant(0)) return reshapeTo(c, shape);
  c.setOutput(0, c.graph().squeeze(c.view(0), axes));
}

void unsqueeze(OpContext& c) {
  const std::vector<int64_t> in = c.shape(0);
  const std::vector<int64_t> given = c.hasInput(1) ? c.constantInts(1) : c.intsAttribute("axes").value_or(std::vector<int64_t>{});
  const std::vector<int64_t> axes = normalisedAxes(c, given, static_cast<int64_t>(in.size() + given.size()));
  std::vector<int64_t> shape;
  std::size_t next = 0;
  for (std::size_t i = 0; i < in.size() + axes.size(); ++i)
    shape.push_back(std::binary_search(axes.begin(), axes.end(), static_cast<int64_t>(i)) ? 1 : in[next++]);
  if (c.isConstant(0)) return reshapeTo(c, shape);
  c.setOutput(0, c.graph().unsqueeze(c.view(0), axes));
}

void transpose(OpContext& c) {
  const int64_t rank = c.rank(0);
  std::vector<int64_t> perm = c.intsAttribute("perm").value_or(std::vector<int64_t>{});
  if (perm.empty())
    for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < rank; ++i)
    if (static_cast<int64_t>(sorted.size()) != rank || sorted[static_cast<std::size_t>(i)] != i)
      throw Unsupported("perm is not a permutation of the tensor's axes");
  if (c.isConstant(0)) return c.setConstant(0, hostTranspose(c.constant(0), perm));
  c.setOutput(0, c.graph().transpose(c.view(0), perm));
}

// One slice along one axis of the current value `cur`/`curConst`.
struct Sliced {
  std::optional<HostTensor> constant;
  std::optional<View> view;
};

Sliced sliceAxis(OpContext& c, Sliced cur, int64_t axis, int64_t start, int64_t end, int64_t step) {
  const std::vector<int64_t> shape = cur.constant ? cur.constant->shape : c.graph().shape(*cur.view);
  const int64_t dim = shape[static_cast<std::size_t>(axis)];
  if (step == 0) throw Unsupported("a slice step of 0");
  auto clamp = [&](int64_t v, bool isEnd) {
    if (v < 0) v += dim;
    if (step > 0) return std::clamp<int64_t>(v, 0, dim);
    return std::clamp<int64_t>(v, -1, dim - 1) + (isEnd ? 0 : 0);
  };
  start = clamp(start, false);
  end = clamp(end, true);
  const int64_t count = step > 0 ? std::max<int64_t>(0, (end - start + step - 1) / step)
                                 : std::max<int64_t>(0, (start - end + (-step) - 1) / (-step));
  if (cur.constant) return {hostSlice(*cur.constant, axis, start, count, step), std::nullopt};
  if (count == 0) throw Unsupported("an empty slice (the EinGraph has no tensors with a dimension of size 0)");
  // A value also read whole is sliced where it is (its producer computed once); a value only
  // ever sliced is split at its producer (a fused QKV projection becomes three).
  if (step == 1 && c.inputReadWhole(0)) {
    if (std::optional<View> w = c.graph().window(*cur.view, axis, start, count, 0.0, c.hint("slice"))) return {std::nullopt, w};
    return {std::nullopt, c.graph().sliceBlocks(*cur.view, axis, start, start + count, c.hint("slice"))};
  }
  if (step == 1) return {std::nullopt, c.graph().slice(*cur.view, axis, start, start + count)};
  // A positive step: a window with that step (SPEC 8.1), a copy of the rows it reads.
  if (step > 1)
    if (std::optional<View> w = c.graph().window(*cur.view, {{axis, start, count, step}}, 0.0, c.hint("strided"))) return {std::nullopt, w};
  std::vector<int64_t> indices;
  for (int64_t k = 0; k < count; ++k) indices.push_back(start + k * step);
  return {std::nullopt, c.graph().select(*cur.view, axis, indices, count, 0, c.hint("strided"))};
}

void slice(OpContext& c) {
  const std::vector<int64_t> starts = c.constantInts(1), ends = c.constantInts(2);
  const int64_t rank = c.rank(0);
  std::vector<int64_t> axes, steps;
  if (c.hasInput(3)) axes = c.constantInts(3);
  else
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (c.hasInput(4)) steps = c.constantInts(4);
  else steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    throw Unsupported("starts, ends, axes and steps differ in length");
  Sliced cur;
  if (c.isConstant(0)) cur.constant = c.constant(0);
  else cur.view = c.view(0);
  for (std::size_t i = 0; i < starts.size(); ++i) cur = sliceAxis(c, cur, c.axis(axes[i], rank), starts[i], ends[i], steps[i]);
  if (cur.constant) return c.setConstant(0, *cur.constant);
  c.setOutput(0, *cur.view);
}

void split(OpContext& c) {
  const std::vector<int64_t> shape = c.shape(0);
  const int64_t axis = c.axis(c.intAttribute("axis", 0), static_cast<int64_t>(shape.size()));
  const int64_t dim = shape[static_cast<std::size_t>(axis)];
  std::vector<int64_t> parts;
  if (c.hasInput(1)) parts = c.constantInts(1);
  else if (auto attr = c.intsAttribute("split")) parts = *attr;
  else {
    const int64_t n = c.outputCount();
    if (n <= 0 || dim % n != 0) throw Unsupported("the axis does not split evenly into " + std::to_string(n) + " parts");
    parts.assign(static_cast<std::size_t>(n), dim / n);
  }
  if (static_cast<int>(parts.size()) != c.outputCount()) throw Unsupported("split sizes and outputs differ in number");
  int64_t start = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    Sliced cur;
    if (c.isConstant(0)) cur.constant = c.constant(0);
    else cur.view = c.view(0);
    if (c.wantsOutput(static_cast<int>(i))) {
      const Sliced s = sliceAxis(c, cur, axis, start, start + parts[i], 1);
      if (s.constant) c.setConstant(static_cast<int>(i), *s.constant);
      else c.setOutput(static_cast<int>(i), *s.view);
    }
    start += parts[i];
  }
  if (start != dim) throw Unsupported("split sizes add up to " + std::to_string(start) + ", not " + std::to_string(dim));
}

void concat(OpContext& c) {
  const int64_t rank = c.rank(0);
  const int64_t axis = c.axis(c.intAttribute("axis", 0), rank);
  bool computed = false;
  for (int i = 0; i < c.inputCount(); ++i) computed = computed || !c.isConstant(i);
  if (computed) {
    std::vector<View> parts;
    for (int i = 0; i < c.inputCount(); ++i) {
      if (c.rank(i) != rank) throw Unsupported("Concat of tensors of different ranks");
      parts.push_back(c.view(i));
    }
    return c.setOutput(0, c.graph().concat(parts, axis, c.hint()));
  }
  // Constants: concatenate block by block along the axis.
  HostTensor r;
  r.kind = c.constant(0).kind;
  r.shape = c.constant(0).shape;
  r.shape[static_cast<std::size_t>(axis)] = 0;
  for (int i = 0; i < c.inputCount(); ++i) r.shape[static_cast<std::size_t>(axis)] += c.constant(i).shape[static_cast<std::size_t>(axis)];
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= r.shape[static_cast<std::size_t>(i)];
  for (int64_t o = 0; o < outer; ++o)
    for (int i = 0; i < c.inputCount(); ++i) {
      const HostTensor& t = c.constant(i);
      if (static_cast<int64_t>(t.shape.size()) != rank) throw Unsupported("Concat of tensors of different ranks");
      const int64_t block = static_cast<int64_t>(t.values.size()) / std::max<int64_t>(outer, 1);
      r.values.insert(r.values.end(), t.values.begin() + o * block, t.values.begin() + (o + 1) * block);
    }
  c.setConstant(0, r);
}

// Gather with constant indices: folded on constant data; on computed data a window where
// they are consecutive (picking the last token of a sequence), else a gather node whose
// ids are an i64 weight (a selection where the axis spans merged dimensions), the
// indices' shape in place of the axis. With indices from an integer model input (token
// ids): a gather node, whose ids must lie in [0, the axis's size).
void gather(OpContext& c) {
  if (!c.isConstant(1)) {
    const View ids = c.view(1);
    if (!c.graph().isIndexInput(ids))
      throw Unsupported("its indices are computed; a Gather's indices are constants or an int32/int64 model input");
    const int64_t axis = c.axis(c.intAttribute("axis", 0), c.rank(0));
    return c.setOutput(0, c.graph().gather(c.view(0), axis, ids, c.hint()));
  }
  const HostTensor& indices = c.constant(1);
  const std::vector<int64_t> shape = c.shape(0);
  const int64_t axis = c.axis(c.intAttribute("axis", 0), static_cast<int64_t>(shape.size()));
  const int64_t dim = shape[static_cast<std::size_t>(axis)];
  std::vector<int64_t> picked, outShape(shape.begin(), shape.begin() + axis);
  for (const double raw : indices.values) {
    const int64_t k = static_cast<int64_t>(raw) < 0 ? static_cast<int64_t>(raw) + dim : static_cast<int64_t>(raw);
    if (k < 0 || k >= dim) throw Unsupported("a Gather index " + std::to_string(static_cast<int64_t>(raw)) + " is out of range");
    picked.push_back(k);
  }
  outShape.insert(outShape.end(), indices.shape.begin(), indices.shape.end());
  outShape.insert(outShape.end(), shape.begin() + axis + 1, shape.end());
  if (!c.isConstant(0)) {
    if (picked.empty()) throw Unsupported("a Gather of no elements (the EinGraph has no tensors with a dimension of size 0)");
    // Consecutive indices (a ViT's class token x[:, 0], GPT's last token) are a window: a
    // copy of those rows; others a selection.
    bool consecutive = true;
    for (std::size_t k = 1; k < picked.size(); ++k) consecutive = consecutive && picked[k] == picked[0] + static_cast<int64_t>(k);
    std::optional<View> window;
    if (consecutive)
      window = c.graph().window(c.view(0), axis, picked[0], static_cast<int64_t>(picked.size()), 0.0, c.hint("window"));
    else if (!indices.shape.empty())  // a gather node reading the indices as an i64 weight: a copy of those rows
      if (std::optional<View> gathered = c.graph().gather(c.view(0), axis, picked, indices.shape, c.hint()))
        return c.setOutput(0, *gathered);
    const View selected =
        window ? *window : c.graph().select(c.view(0), axis, picked, static_cast<int64_t>(picked.size()), 0, c.hint("select"));
    return c.setOutput(0, c.graph().reshape(selected, outShape));
  }
  const HostTensor& data = c.constant(0);
  HostTensor r;
  r.kind = data.kind;
  r.shape = outShape;
  int64_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (static_cast<int64_t>(i) < axis) outer *= shape[i];
    else if (static_cast<int64_t>(i) > axis) inner *= shape[i];
  for (int64_t o = 0; o < outer; ++o)
    for (const int64_t k : picked) {
      const auto first = data.values.begin() + (o * dim + k) * inner;
      r.values.insert(r.values.end(), first, first + inner);
    }
  c.setConstant(0, r);
}

// Expand: NumPy broadcasting to the given shape, one node that writes every element.
void expand(OpContext& c) {
  const std::vector<int64_t> in = c.shape(0);
  const std::vector<int64_t> out = broadcastShapes({in, c.constantInts(1)});
  ImportGraph::Operand op{c.view(0), {}};
  std::vector<int> symbols;
  std::map<int, int64_t> sizes;
  for (std::size_t i = 0; i < out.size(); ++i) {
    symbols.push_back(c.symbol());
    sizes[symbols.back()] = out[i];
  }
  for (std::size_t i = 0; i < in.size(); ++i) op.symbols.push_back(symbols[out.size() - in.size() + i]);
  c.setOutput(0, c.graph().einsum({op}, symbols, joinExpr("x"), Reduce::Sum, c.hint(), sizes));
}

void shapeOp(OpContext& c) {
  const std::vector<int64_t> s = c.shape(0);
  const int64_t rank = static_cast<int64_t>(s.size());
  int64_t start = c.intAttribute("start", 0), end = c.intAttribute("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  HostTensor r;
  r.kind = ElemKind::Integer;
  r.shape = {end - start};
  for (int64_t i = start; i < end; ++i) r.values.push_back(static_cast<double>(s[static_cast<std::size_t>(i)]));
  c.setConstant(0, r);
}

void sizeOp(OpContext& c) {
  HostTensor r;
  r.kind = ElemKind::Integer;
  int64_t n = 1;
  for (const int64_t d : c.shape(0)) n *= d;
  r.values = {static_cast<double>(n)};
  c.setConstant(0, r);
}

void constantOp(OpContext& c) {
  HostTensor r;
  if (const auto* a = c.attribute("value")) {
    r = decodeTensor(a->t(), c.model(), "the Constant's value");
  } else if (const auto* f = c.attribute("value_float")) {
    r.kind = ElemKind::Float32;
    r.values = {static_cast<double>(f->f())};
  } else if (const auto* fs = c.attribute("value_floats")) {
    r.kind = ElemKind::Float32;
    r.shape = {fs->floats_size()};
    for (const float v : fs->floats()) r.values.push_back(v);
  } else if (const auto* i = c.attribute("value_int")) {
    r.kind = ElemKind::Integer;
    r.values = {static_cast<double>(i->i())};
  } else if (const auto* is = c.attribute("value_ints")) {
    r.kind = ElemKind::Integer;
    r.shape = {is->ints_size()};
    for (const int64_t v : is->ints()) r.values.push_back(static_cast<double>(v));
  } else {
    throw Unsupported("a Constant without a value, value_float(s) or value_int(s) attribute");
  }
  c.setConstant(0, r);
}

void constantOfShape(OpContext& c) {
  HostTensor r;
  r.shape = c.constantInts(0);
  double v = 0;
  r.kind = ElemKind::Float32;
  if (const auto* a = c.attribute("value")) {
    const HostTensor t = decodeTensor(a->t(), c.model(), "the ConstantOfShape's value");
    if (t.values.size() != 1) throw Unsupported("a value of more than one element");
    v = t.values[0];
    r.kind = t.kind;
  }
  r.values.assign(static_cast<std::size_t>(checkedElements(r.shape, "ConstantOfShape", c.model().path)), v);
  c.setConstant(0, r);
}

void cast(OpContext& c) {
  const int to = static_cast<int>(c.intAttribute("to", 0));
  const ElemKind kind = elemKind(to);
  if (c.isConstant(0)) {
    HostTensor t = c.constant(0);
    if (kind == ElemKind::Unsupported) throw Unsupported(std::string("a Cast to ") + onnxTypeName(to));
    for (double& v : t.values) {
      if (kind == ElemKind::Float32) v = static_cast<double>(static_cast<float>(v));
      else if (kind == ElemKind::Float16) v = static_cast<double>(static_cast<float>(einrt::f16(v)));
      else if (kind == ElemKind::BFloat16) v = static_cast<double>(static_cast<float>(einrt::bf16(v)));
      else if (kind == ElemKind::Integer) v = std::trunc(v);
      else if (kind == ElemKind::Bool) v = v != 0.0 ? 1.0 : 0.0;
    }
    t.kind = kind;
    return c.setConstant(0, t);
  }
  // To BOOL (exporters cast a computed mask before masked_fill): 1 where nonzero (NaN
  // included, as ONNX's cast), 0 elsewhere, in the graph's float type.
  if (kind == ElemKind::Bool) return c.setOutput(0, elementwise(c, {c.view(0)}, "1 - eq(x, 0)"));
  if (!isFloat(kind))
    throw Unsupported(std::string("a Cast of a computed tensor to ") + onnxTypeName(to) + ", which is not a float type");
  c.setOutput(0, c.view(0));  // the graph has one float type (checked for the whole model)
}

}  // namespace

void addShapeOperators(std::map<std::string, OpTranslation>& t) {
  t["Identity"] = passThrough;
  t["Constant"] = constantOp;
  t["ConstantOfShape"] = constantOfShape;
  t["Shape"] = shapeOp;
  t["Size"] = sizeOp;
  t["Reshape"] = reshape;
  t["Flatten"] = flatten;
  t["Squeeze"] = squeeze;
  t["Unsqueeze"] = unsqueeze;
  t["Transpose"] = transpose;
  t["Slice"] = slice;
  t["Split"] = split;
  t["Concat"] = concat;
  t["Gather"] = gather;
  t["Expand"] = expand;
  t["Cast"] = cast;
}

}  // namespace eindecomp::onnx_import
