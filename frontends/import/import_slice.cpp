// ImportGraph's slices (import_graph.h): a Slice of a computed tensor is pushed into its
// producer, which is computed again on the slice of the operands that carry the cut
// label, down to the weights (sliced when written); what cannot be pushed — a model
// input, a diagonal, a value also read whole — is read through a window (SPEC 8.1: a
// copy), and what a window cannot express — a cut inside a merged dimension, a strided
// slice — is a selection einsum, exact for every value.
#include <numeric>

#include "planner/graph/expr_parser.h"
#include "planner/graph/identifiers.h"
#include "frontends/import/import_graph.h"

namespace eindecomp::onnx_import {

View ImportGraph::select(const View& v, int64_t axis, const std::vector<int64_t>& indices, int64_t outSize,
                         int64_t offset, const std::string& hint) {
  const std::vector<int64_t> in = shape(v);
  const int64_t n = in[static_cast<std::size_t>(axis)];
  HostTensor s;
  s.kind = ElemKind::Float32;
  s.shape = {n, outSize};
  s.values.assign(static_cast<std::size_t>(n * outSize), 0.0);
  for (std::size_t k = 0; k < indices.size(); ++k)
    s.values[static_cast<std::size_t>(indices[k] * outSize + offset + static_cast<int64_t>(k))] = 1.0;
  const View selection = addWeight(hint + "_select", std::move(s), false);
  ImportGraph::Operand x{v, {}};
  std::vector<int> out;
  const int j = nextSymbol_++, k = nextSymbol_++;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const int sym = static_cast<int64_t>(i) == axis ? j : nextSymbol_++;
    x.symbols.push_back(sym);
    out.push_back(static_cast<int64_t>(i) == axis ? k : sym);
  }
  return einsum({x, {selection, {j, k}}}, out, parseExpr("where(y, x, -0)"), Reduce::Sum, hint);
}

namespace {

// The 0/1 tensor S[h, y, i] of a window over a dimension of `size`: 1 where h = s*y + d*i -
// padBefore lies in [0, size). unfold contracts the input's h with it, fold T's (y, i).
HostTensor windowSelection(int64_t size, const ImportGraph::UnfoldWindow& w) {
  HostTensor s;
  s.kind = ElemKind::Float32;
  s.shape = {size, w.outSize, w.kernel};
  s.values.assign(static_cast<std::size_t>(size * w.outSize * w.kernel), 0.0);
  for (int64_t y = 0; y < w.outSize; ++y)
    for (int64_t i = 0; i < w.kernel; ++i) {
      const int64_t h = y * w.stride + i * w.dilation - w.padBefore;
      if (h >= 0 && h < size) s.values[static_cast<std::size_t>((h * w.outSize + y) * w.kernel + i)] = 1.0;
    }
  return s;
}

}  // namespace

View ImportGraph::unfold(const View& v, int64_t axis, const UnfoldWindow& w, const std::string& hint) {
  const std::vector<int64_t> in = shape(v);
  const int64_t n = in[static_cast<std::size_t>(axis)];
  const View selection = addWeight(hint + "_unfold", windowSelection(n, w), false);
  ImportGraph::Operand x{v, {}};
  std::vector<int> out;
  const int h = nextSymbol_++, y = nextSymbol_++, i = nextSymbol_++;
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (static_cast<int64_t>(d) == axis) {
      x.symbols.push_back(h);
      out.push_back(y);
      out.push_back(i);
    } else {
      x.symbols.push_back(nextSymbol_++);
      out.push_back(x.symbols.back());
    }
  }
  // Padding reads as -0 for a sum (adds as 0) and -inf for a max (never the maximum).
  const bool max = w.padding == Reduce::Max;
  return einsum({x, {selection, {h, y, i}}}, out, parseExpr(max ? "where(y, x, -inf)" : "where(y, x, -0)"),
                max ? Reduce::Max : Reduce::Sum, hint);
}

View ImportGraph::sliceBlocks(const View& v, int64_t axis, int64_t start, int64_t end, const std::string& hint) {
  std::vector<int64_t> in = shape(v);
  const int64_t size = in[static_cast<std::size_t>(axis)];
  if (start == 0 && end == size) return v;
  const int64_t b = std::gcd(std::gcd(start, end), size), blocks = size / b;
  if (b == 1 || blocks > kMaxBlocks) return slice(v, axis, start, end);
  in[static_cast<std::size_t>(axis)] = b;
  in.insert(in.begin() + axis, blocks);
  const View blocked = reshape(v, in);
  std::vector<int64_t> picked;
  for (int64_t k = start / b; k < end / b; ++k) picked.push_back(k);
  const View selected = select(blocked, axis, picked, static_cast<int64_t>(picked.size()), 0, hint);
  in.erase(in.begin() + axis);
  in[static_cast<std::size_t>(axis)] = end - start;
  return reshape(selected, in);
}

std::optional<View> ImportGraph::window(const View& v, int64_t axis, int64_t offset, int64_t outSize, double fill,
                                        const std::string& hint) {
  return window(v, std::vector<WindowAxis>{{axis, offset, outSize}}, fill, hint);
}

bool ImportGraph::readThroughWindows(const View& v) const {
  for (const int user : tensors_[v.tensor].users)
    for (const Slot& s : nodes_[user].operands)
      if (s.tensor == v.tensor && !s.window.empty()) return true;
  return false;
}

std::optional<View> ImportGraph::window(const View& v, const std::vector<WindowAxis>& axes, double fill, const std::string& hint) {
  const View n = normalized(v);
  std::map<DimId, const WindowAxis*> windowedDims;  // each windowed axis's one tensor dimension
  std::map<std::size_t, DimId> windowOfAxis;
  for (const WindowAxis& a : axes) {
    const std::vector<DimId>& group = n.groups[static_cast<std::size_t>(a.axis)];
    std::vector<DimId> real;
    for (const DimId d : group)
      if (dims_[d].size > 1) real.push_back(d);
    if (real.size() > 1 || (real.empty() && group.size() != 1)) return std::nullopt;
    const DimId d = real.empty() ? group[0] : real[0];
    windowedDims[d] = &a;
    windowOfAxis[static_cast<std::size_t>(a.axis)] = d;
  }
  const int out = newTensor(TensorKind::Computed, hint, {});
  NodeInfo node;
  node.join = Expr::x();
  node.agg = Reduce::Sum;
  node.hint = hint;
  node.fill = fill;
  node.output.tensor = out;
  View result;
  result.tensor = out;
  std::map<DimId, LabelId> label;
  for (std::size_t i = 0; i < n.groups.size(); ++i) {
    std::vector<DimId> outGroup;
    const auto axisWindow = windowOfAxis.find(i);
    for (const DimId d : n.groups[i]) {
      if (axisWindow != windowOfAxis.end() && d != axisWindow->second) {  // a size-1 dimension beside the window's
        label[d] = newLabel(1);
        continue;
      }
      const auto w = windowedDims.find(d);
      const LabelId l = newLabel(w != windowedDims.end() ? w->second->outSize : dims_[d].size);
      label[d] = l;
      outGroup.push_back(addOutputDim(node, l));
    }
    result.groups.push_back(outGroup);
  }
  for (const DimId d : n.hidden) label[d] = newLabel(1);
  Slot slot;
  slot.tensor = n.tensor;
  slot.dims = tensorLeaves(n.tensor);
  for (std::size_t j = 0; j < slot.dims.size(); ++j) {
    slot.labels.push_back(label.at(slot.dims[j]));
    if (auto w = windowedDims.find(slot.dims[j]); w != windowedDims.end()) {
      slot.window[j] = w->second->offset;
      if (w->second->step > 1) slot.steps[j] = w->second->step;
    }
  }
  node.operands.push_back(slot);
  addNode(std::move(node));
  return result;
}

std::optional<View> ImportGraph::convolution(const View& x, const View& w, const std::vector<ConvolutionAxis>& axes,
                                             const std::string& hint, bool grouped) {
  const int n = nextSymbol_++, c = nextSymbol_++, o = nextSymbol_++, g = nextSymbol_++;
  TappedForm form{{n, c}, {o, c}, {n, o}};
  if (grouped) form = {{n, g, c}, {g, o, c}, {n, g, o}};
  return tapped(x, w, axes, form, Expr::binary(Expr::Kind::Mul, Expr::x(), Expr::y()), Reduce::Sum, 0.0, hint);
}

std::optional<View> ImportGraph::tapReduction(const View& x, const View& taps, const std::vector<ConvolutionAxis>& axes, const Expr& join,
                                              Reduce agg, double fill, const std::string& hint) {
  TappedForm form;
  for (std::size_t d = 0; d + axes.size() < shape(x).size(); ++d) form.x.push_back(nextSymbol_++);
  form.out = form.x;
  return tapped(x, taps, axes, form, join, agg, fill, hint);
}

std::optional<View> ImportGraph::tapped(const View& x, const View& w, const std::vector<ConvolutionAxis>& axes, TappedForm form,
                                        const Expr& join, Reduce agg, double fill, const std::string& hint) {
  const View nx = normalized(x), nw = normalized(w);
  const std::size_t r = axes.size(), lead = form.x.size(), wLead = form.w.size();  // dimensions before the spatial ones
  // Each spatial axis: its one dimension of x's tensor (the window's) and w's (the taps').
  auto realDim = [&](const View& v, std::size_t axis) -> std::optional<DimId> {
    std::vector<DimId> real;
    for (const DimId d : v.groups[axis])
      if (dims_[d].size > 1) real.push_back(d);
    if (real.size() > 1) return std::nullopt;
    return real.empty() ? std::optional<DimId>{-1} : real[0];
  };
  std::vector<DimId> xDim(r), wDim(r);
  for (std::size_t d = 0; d < r; ++d) {
    const std::optional<DimId> a = realDim(nx, lead + d), b = realDim(nw, wLead + d);
    if (!a || !b || *a < 0) return std::nullopt;
    xDim[d] = *a;
    wDim[d] = *b;
  }
  std::map<int, int64_t> broadcast;
  for (std::size_t d = 0; d < r; ++d) {
    const int in = nextSymbol_++, tap = nextSymbol_++, y = nextSymbol_++;
    form.x.push_back(in);
    form.w.push_back(tap);
    form.out.push_back(y);
    broadcast[y] = axes[d].outSize;
  }
  const View result = einsum({{x, form.x}, {w, form.w}}, form.out, join, agg, hint, broadcast);
  // The einsum read x's spatial dimensions with labels of their own; each is now read with
  // the output's label, through a window over w's tap label.
  NodeInfo& node = nodes_[static_cast<std::size_t>(tensors_[result.tensor].producer)];
  node.fill = fill;
  const View nr = normalized(result);
  for (std::size_t d = 0; d < r; ++d) {
    std::optional<DimId> outDim = realDim(nr, lead + d);
    if (!outDim) return std::nullopt;
    // An output of one position: its one dimension's label reads x (a label of its own
    // would be a windowed label outside the output, which no gradient rule takes).
    if (*outDim < 0 && nr.groups[lead + d].size() == 1) outDim = nr.groups[lead + d][0];
    auto labelAt = [&](const Slot& s, DimId dim) {
      const std::size_t j = static_cast<std::size_t>(std::find(s.dims.begin(), s.dims.end(), dim) - s.dims.begin());
      if (j == s.dims.size()) throw std::logic_error("import: a convolution's dimension is not its node's");
      return std::make_pair(j, s.labels[j]);
    };
    const LabelId yLabel = *outDim < 0 ? newLabel(1) : labelAt(node.output, *outDim).second;
    Slot& xs0 = node.operands[0];
    const std::size_t j = labelAt(xs0, xDim[d]).first;
    xs0.labels[j] = yLabel;
    xs0.window[j] = -axes[d].padBefore;
    if (wDim[d] >= 0) xs0.taps[j] = {labelAt(node.operands[1], wDim[d]).second, axes[d].dilation};
    if (axes[d].step > 1) xs0.steps[j] = axes[d].step;
  }
  return result;
}

View ImportGraph::concat(const std::vector<View>& parts, int64_t axis, const std::string& hint) {
  if (parts.size() == 1) return parts[0];
  {
    // Each part read through a window the width of the whole (0 beside it), then added:
    // a copy of every element, no selection.
    int64_t total = 0;
    for (const View& part : parts) total += shape(part)[static_cast<std::size_t>(axis)];
    std::vector<View> placed;
    int64_t offset = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const std::optional<View> w = window(parts[i], axis, -offset, total, 0.0, hint + "_part" + std::to_string(i));
      if (!w) break;
      placed.push_back(*w);
      offset += shape(parts[i])[static_cast<std::size_t>(axis)];
    }
    if (placed.size() == parts.size()) {
      std::vector<int> symbols;
      for (std::size_t d = 0; d < shape(placed[0]).size(); ++d) symbols.push_back(nextSymbol_++);
      View sum = placed[0];
      for (std::size_t i = 1; i < placed.size(); ++i)
        sum = einsum({{sum, symbols}, {placed[i], symbols}}, symbols, parseExpr("x + y"), Reduce::Sum,
                     i + 1 == placed.size() ? hint : hint + "_sum" + std::to_string(i));
      return sum;
    }
  }
  std::vector<int64_t> sizes;
  int64_t total = 0, b = 0;
  for (const View& part : parts) {
    sizes.push_back(shape(part)[static_cast<std::size_t>(axis)]);
    total += sizes.back();
    b = std::gcd(b, sizes.back());
  }
  const bool blocked = b > 1 && total / b <= kMaxBlocks;
  const int64_t unit = blocked ? b : 1, blocks = total / unit;
  std::optional<View> sum;
  std::vector<int> symbols;
  int64_t offset = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    std::vector<int64_t> in = shape(parts[i]);
    if (blocked) {  // (n_i / b, b): the blocks placed among total / b
      in[static_cast<std::size_t>(axis)] = b;
      in.insert(in.begin() + axis, sizes[i] / b);
    }
    const View part = blocked ? reshape(parts[i], in) : parts[i];
    std::vector<int64_t> indices(static_cast<std::size_t>(sizes[i] / unit));
    std::iota(indices.begin(), indices.end(), int64_t{0});
    const View placed = select(part, axis, indices, blocks, offset / unit, hint + "_part" + std::to_string(i));
    offset += sizes[i];
    if (!sum) {
      sum = placed;
      continue;
    }
    if (symbols.empty())
      for (std::size_t d = 0; d < shape(placed).size(); ++d) symbols.push_back(nextSymbol_++);
    const bool last = i + 1 == parts.size();
    sum = einsum({{*sum, symbols}, {placed, symbols}}, symbols, parseExpr("x + y"), Reduce::Sum,
                 last && !blocked ? hint : hint + "_sum" + std::to_string(i));
  }
  if (!blocked) return *sum;
  std::vector<int64_t> out = shape(*sum);
  out.erase(out.begin() + axis);
  out[static_cast<std::size_t>(axis)] = total;
  return reshape(*sum, out);
}

View ImportGraph::fold(const View& v, int64_t axis, const UnfoldWindow& w, int64_t foldedSize, const std::string& hint) {
  const std::vector<int64_t> in = shape(v);
  if (in[static_cast<std::size_t>(axis)] != w.outSize || in[static_cast<std::size_t>(axis) + 1] != w.kernel)
    throw std::logic_error("import: a fold's window does not match its dimensions");
  const View selection = addWeight(hint + "_fold", windowSelection(foldedSize, w), false);
  ImportGraph::Operand x{v, {}};
  std::vector<int> out;
  const int h = nextSymbol_++, y = nextSymbol_++, i = nextSymbol_++;
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (static_cast<int64_t>(d) == axis) {
      x.symbols.push_back(y);
      x.symbols.push_back(i);
      out.push_back(h);
      ++d;
    } else {
      x.symbols.push_back(nextSymbol_++);
      out.push_back(x.symbols.back());
    }
  }
  return einsum({x, {selection, {h, y, i}}}, out, parseExpr("where(y, x, -0)"), Reduce::Sum, hint);
}

View ImportGraph::slice(const View& v, int64_t axis, int64_t start, int64_t end) {
  const View n = normalized(v);
  const auto& group = n.groups[static_cast<std::size_t>(axis)];
  const int64_t size = groupSize(group);
  if (start == 0 && end == size) return v;
  std::vector<DimId> real;
  for (const DimId d : group)
    if (dims_[d].size > 1) real.push_back(d);
  int64_t inner = 1;
  for (std::size_t i = 1; i < real.size(); ++i) inner *= dims_[real[i]].size;
  if (start % inner != 0 || end % inner != 0 || !sliceable(v.tensor, real[0])) {
    if (std::optional<View> w = window(v, axis, start, end - start, 0.0, tensors_[v.tensor].hint + "_slice")) return *w;
    std::vector<int64_t> indices;
    for (int64_t i = start; i < end; ++i) indices.push_back(i);
    return select(v, axis, indices, end - start, 0, tensors_[v.tensor].hint + "_slice");
  }
  std::map<DimId, DimId> dimMap;
  const int t = sliceTensor(v.tensor, real[0], start / inner, end / inner, dimMap);
  View r;
  r.tensor = t;
  auto mapped = [&](DimId d) {
    auto it = dimMap.find(d);
    if (it == dimMap.end()) throw std::logic_error("import: a sliced dimension has no image");
    return it->second;
  };
  for (const auto& g : n.groups) {
    std::vector<DimId> mg;
    for (const DimId d : g) mg.push_back(mapped(d));
    r.groups.push_back(mg);
  }
  for (const DimId d : n.hidden) r.hidden.push_back(mapped(d));
  return r;
}

bool ImportGraph::sliceable(int tensor, DimId leaf) const {
  if (tensors_[tensor].kind == TensorKind::ModelInput) return false;
  if (tensors_[tensor].kind == TensorKind::Weight) return true;
  // A computed tensor: its producer is computed again on the slice of the operands that
  // carry the cut label once (never a diagonal), recursively.
  const NodeInfo& node = nodes_[tensors_[tensor].producer];
  for (const Slot& s : node.operands)
    if (!s.window.empty()) return false;  // a window node's output is sliced through a window of its own
  LabelId cut = -1;
  for (std::size_t j = 0; j < node.output.dims.size(); ++j) {
    const auto dl = leaves(node.output.dims[j]);
    const auto ll = labelLeaves(node.output.labels[j]);
    for (std::size_t k = 0; k < dl.size(); ++k)
      if (dl[k] == leaf) cut = ll[k];
  }
  for (const Slot& s : node.operands) {
    int uses = 0;
    DimId at = -1;
    for (std::size_t j = 0; j < s.dims.size(); ++j) {
      const auto dl = leaves(s.dims[j]);
      const auto ll = labelLeaves(s.labels[j]);
      for (std::size_t k = 0; k < dl.size(); ++k)
        if (ll[k] == cut) {
          ++uses;
          at = dl[k];
        }
    }
    if (uses > 1 || (uses == 1 && !sliceable(s.tensor, at))) return false;
  }
  return true;
}

int ImportGraph::sliceTensor(int tensor, DimId leaf, int64_t start, int64_t end, std::map<DimId, DimId>& dimMap) {
  const auto key = std::make_tuple(tensor, leaf, start, end);
  if (auto it = sliceCache_.find(key); it != sliceCache_.end()) {
    dimMap = it->second.second;
    return it->second.first;
  }
  const std::vector<DimId> old = tensorLeaves(tensor);
  const TensorKind kind = tensors_[tensor].kind;
  const std::string hint = tensors_[tensor].hint;
  if (kind == TensorKind::ModelInput)
    throw Unsupported("it slices model input " + eindecomp::quoted(hint) + ", and the EinGraph has no slice node (feed the parts as "
                      "separate inputs)");
  const int t = newTensor(kind, hint + "_" + std::to_string(start) + "_" + std::to_string(end), {});
  std::size_t position = 0;
  for (std::size_t i = 0; i < old.size(); ++i) {
    if (old[i] == leaf) position = i;
    const DimId d = newDim(old[i] == leaf ? end - start : dims_[old[i]].size, t);
    tensors_[t].dims.push_back(d);
    dimMap[old[i]] = d;
  }
  if (kind == TensorKind::Weight) {
    const HostTensor& src = tensors_[tensor].value;
    const std::vector<int64_t> s = sizes(old);
    int64_t outer = 1, inner = 1;
    for (std::size_t i = 0; i < s.size(); ++i) (i < position ? outer : inner) *= i == position ? 1 : s[i];
    HostTensor v;
    v.kind = src.kind;
    v.shape = sizes(tensorLeaves(t));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = start; i < end; ++i) {
        const auto first = src.values.begin() + (o * s[position] + i) * inner;
        v.values.insert(v.values.end(), first, first + inner);
      }
    tensors_[t].value = std::move(v);
  } else {
    const int p = tensors_[tensor].producer;
    const NodeInfo node = nodes_[p];  // a copy: recursion below grows nodes_
    std::map<LabelId, LabelId> labelMap;
    auto slotLeaves = [&](const Slot& s) {
      std::vector<std::pair<DimId, LabelId>> out;
      for (std::size_t j = 0; j < s.dims.size(); ++j) {
        const auto dl = leaves(s.dims[j]);
        const auto ll = labelLeaves(s.labels[j]);
        for (std::size_t k = 0; k < dl.size(); ++k) out.emplace_back(dl[k], ll[k]);
      }
      return out;
    };
    const auto outLeaves = slotLeaves(node.output);
    LabelId cutLabel = -1;
    for (const auto& [d, l] : outLeaves)
      if (d == leaf) cutLabel = l;
    auto mapLabel = [&](LabelId l) {
      auto [it, fresh] = labelMap.emplace(l, -1);
      if (fresh) it->second = newLabel(l == cutLabel ? end - start : labels_[l].size);
      return it->second;
    };
    NodeInfo copy;
    copy.join = node.join;
    copy.agg = node.agg;
    copy.hint = node.hint + "_" + std::to_string(start) + "_" + std::to_string(end);
    for (const Slot& s : node.operands) {
      const auto pairs = slotLeaves(s);
      int uses = 0;
      DimId cutDim = -1;
      for (const auto& [d, l] : pairs)
        if (l == cutLabel) {
          ++uses;
          cutDim = d;
        }
      if (uses > 1) throw Unsupported("the slice reaches a diagonal of " + eindecomp::quoted(tensors_[s.tensor].hint));
      Slot ns;
      std::map<DimId, DimId> sub;
      ns.tensor = uses ? sliceTensor(s.tensor, cutDim, start, end, sub) : s.tensor;
      for (const auto& [d, l] : pairs) {
        ns.dims.push_back(uses ? sub.at(d) : d);
        ns.labels.push_back(mapLabel(l));
      }
      copy.operands.push_back(ns);
    }
    copy.output.tensor = t;
    for (const auto& [d, l] : outLeaves) {
      copy.output.dims.push_back(dimMap.at(d));
      copy.output.labels.push_back(mapLabel(l));
    }
    addNode(std::move(copy));
  }
  sliceCache_[key] = {t, dimMap};
  return t;
}

}  // namespace eindecomp::onnx_import
