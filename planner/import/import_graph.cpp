#include "planner/import/import_graph.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "planner/graph/expr_parser.h"
#include "planner/graph/identifiers.h"

namespace eindecomp::onnx_import {

namespace {

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (const int64_t x : v) p *= x;
  return p;
}

std::string shapeText(const std::vector<int64_t>& s) {
  std::string t = "[";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

// Boundaries of a factorisation: the products of its inner parts (1 and the total left out).
std::set<int64_t> boundaries(const std::vector<int64_t>& sizes) {
  std::set<int64_t> b;
  int64_t p = 1;
  for (std::size_t i = sizes.size(); i-- > 1;) {
    p *= sizes[i];
    b.insert(p);
  }
  return b;
}

// The factors (outer first) that cut the range (lo, hi] of suffix products at `points`.
std::vector<int64_t> cut(int64_t lo, int64_t hi, const std::set<int64_t>& points) {
  std::vector<int64_t> inner;  // inner first
  int64_t prev = lo;
  for (auto it = points.upper_bound(lo); it != points.end() && *it < hi; ++it) {
    inner.push_back(*it / prev);
    prev = *it;
  }
  if (inner.empty()) return {};
  inner.push_back(hi / prev);
  return {inner.rbegin(), inner.rend()};
}

}  // namespace

std::optional<std::vector<int64_t>> commonRefinement(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const int64_t total = product(a);
  if (total != product(b)) return std::nullopt;
  std::set<int64_t> points = boundaries(a);
  for (const int64_t p : boundaries(b)) points.insert(p);
  points.insert(total);
  std::vector<int64_t> inner;
  int64_t prev = 1;
  for (const int64_t p : points) {
    if (p == 1) continue;
    if (p % prev != 0) return std::nullopt;
    inner.push_back(p / prev);
    prev = p;
  }
  return std::vector<int64_t>(inner.rbegin(), inner.rend());
}

DimId ImportGraph::newDim(int64_t size, int tensor) {
  dims_.push_back({size, tensor, {}});
  return static_cast<DimId>(dims_.size() - 1);
}

LabelId ImportGraph::newLabel(int64_t size) {
  labels_.push_back({size, {}});
  return static_cast<LabelId>(labels_.size() - 1);
}

int ImportGraph::newTensor(TensorKind kind, const std::string& hint, const std::vector<int64_t>& sizes) {
  Tensor fresh;
  fresh.kind = kind;
  fresh.hint = hint;
  tensors_.push_back(std::move(fresh));
  const int t = static_cast<int>(tensors_.size() - 1);
  for (const int64_t s : sizes) {
    const DimId d = newDim(s, t);
    tensors_[t].dims.push_back(d);
  }
  return t;
}

std::vector<DimId> ImportGraph::leaves(DimId d) const {
  if (dims_[d].parts.empty()) return {d};
  std::vector<DimId> out;
  for (const DimId p : dims_[d].parts)
    for (const DimId l : leaves(p)) out.push_back(l);
  return out;
}

std::vector<LabelId> ImportGraph::labelLeaves(LabelId l) const {
  if (labels_[l].parts.empty()) return {l};
  std::vector<LabelId> out;
  for (const LabelId p : labels_[l].parts)
    for (const LabelId x : labelLeaves(p)) out.push_back(x);
  return out;
}

std::vector<DimId> ImportGraph::tensorLeaves(int tensor) const {
  std::vector<DimId> out;
  for (const DimId d : tensors_[tensor].dims)
    for (const DimId l : leaves(d)) out.push_back(l);
  return out;
}

std::vector<int64_t> ImportGraph::sizes(const std::vector<DimId>& ds) const {
  std::vector<int64_t> s;
  for (const DimId d : ds) s.push_back(dims_[d].size);
  return s;
}

int64_t ImportGraph::groupSize(const std::vector<DimId>& group) const {
  int64_t p = 1;
  for (const DimId d : group) p *= dims_[d].size;
  return p;
}

View ImportGraph::normalized(const View& v) const {
  View n;
  n.tensor = v.tensor;
  for (const auto& g : v.groups) {
    std::vector<DimId> leafGroup;
    for (const DimId d : g)
      for (const DimId l : leaves(d)) leafGroup.push_back(l);
    n.groups.push_back(leafGroup);
  }
  for (const DimId d : v.hidden)
    for (const DimId l : leaves(d)) n.hidden.push_back(l);
  return n;
}

std::vector<int64_t> ImportGraph::shape(const View& v) const {
  std::vector<int64_t> s;
  for (const auto& g : v.groups) s.push_back(groupSize(g));
  return s;
}

View ImportGraph::addModelInput(const std::string& onnxName, const std::vector<int64_t>& shape) {
  const int t = newTensor(TensorKind::ModelInput, onnxName, shape);
  tensors_[t].onnxName = onnxName;
  tensors_[t].fileShape = shape;
  View v;
  v.tensor = t;
  for (const DimId d : tensors_[t].dims) v.groups.push_back({d});
  return v;
}

View ImportGraph::addWeight(const std::string& hint, HostTensor value, bool onnxNamed) {
  const int t = newTensor(TensorKind::Weight, hint, value.shape);
  if (onnxNamed) tensors_[t].onnxName = hint;
  tensors_[t].value = std::move(value);
  View v;
  v.tensor = t;
  for (const DimId d : tensors_[t].dims) v.groups.push_back({d});
  return v;
}

// ---- refinement ----

void ImportGraph::splitLeaf(DimId d, const std::vector<int64_t>& factors) {
  const int t = dims_[d].tensor;
  std::vector<DimId> parts;
  for (const int64_t f : factors) parts.push_back(newDim(f, t));
  dims_[d].parts = parts;
  if (tensors_[t].producer >= 0) dirty_.push_back(tensors_[t].producer);
  for (const int u : tensors_[t].users) dirty_.push_back(u);
}

bool ImportGraph::refineDims(const std::vector<DimId>& seq, const std::vector<int64_t>& chain) {
  const std::set<int64_t> points = boundaries(chain);
  bool changed = false;
  int64_t lo = 1;
  for (std::size_t i = seq.size(); i-- > 0;) {
    const DimId d = seq[i];
    const int64_t hi = lo * dims_[d].size;
    if (dims_[d].size > 1) {
      const std::vector<int64_t> factors = cut(lo, hi, points);
      if (!factors.empty()) {
        splitLeaf(d, factors);
        changed = true;
      }
    }
    lo = hi;
  }
  return changed;
}

bool ImportGraph::refineLabels(const std::vector<LabelId>& seq, const std::vector<int64_t>& chain) {
  const std::set<int64_t> points = boundaries(chain);
  bool changed = false;
  int64_t lo = 1;
  for (std::size_t i = seq.size(); i-- > 0;) {
    const LabelId l = seq[i];
    const int64_t hi = lo * labels_[l].size;
    if (labels_[l].size > 1) {
      const std::vector<int64_t> factors = cut(lo, hi, points);
      if (!factors.empty()) {
        std::vector<LabelId> parts;  // made first: newLabel grows labels_
        for (const int64_t f : factors) parts.push_back(newLabel(f));
        labels_[l].parts = parts;
        changed = true;
      }
    }
    lo = hi;
  }
  return changed;
}

void ImportGraph::syncNode(int node) {
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<Slot*> slots;
    for (auto& s : nodes_[node].operands) slots.push_back(&s);
    slots.push_back(&nodes_[node].output);
    for (Slot* slot : slots)
      for (std::size_t j = 0; j < slot->dims.size(); ++j) {
        const std::vector<DimId> dl = leaves(slot->dims[j]);
        const std::vector<LabelId> ll = labelLeaves(slot->labels[j]);
        std::vector<int64_t> ls;
        for (const LabelId l : ll) ls.push_back(labels_[l].size);
        const std::vector<int64_t> ds = sizes(dl);
        if (ds == ls) continue;
        const auto chain = commonRefinement(ds, ls);
        if (!chain)
          throw Unsupported("a dimension of " + eindecomp::quoted(tensors_[slot->tensor].hint) + " is split as " + shapeText(ds) +
                            " where node " + eindecomp::quoted(nodes_[node].hint) + " needs it as " + shapeText(ls) +
                            "; the two do not refine one another");
        changed |= refineDims(dl, *chain);
        changed |= refineLabels(ll, *chain);
      }
  }
}

void ImportGraph::drain() {
  while (!dirty_.empty()) {
    const int n = dirty_.back();
    dirty_.pop_back();
    syncNode(n);
  }
}

// ---- nodes ----

View ImportGraph::einsum(const std::vector<Operand>& operands, const std::vector<int>& outSymbols, const Expr& join,
                         AggOp agg, const std::string& hint) {
  std::map<int, int64_t> symSize;
  for (const auto& op : operands)
    for (std::size_t i = 0; i < op.symbols.size(); ++i) {
      const int64_t sz = groupSize(op.view.groups[i]);
      auto [it, fresh] = symSize.emplace(op.symbols[i], sz);
      if (!fresh && it->second != sz) {
        if (it->second != 1 && sz != 1)
          throw Unsupported("dimensions of sizes " + std::to_string(it->second) + " and " + std::to_string(sz) +
                            " do not broadcast");
        it->second = std::max(it->second, sz);
      }
    }
  // Every group that carries a symbol at its full size is refined to one chain.
  std::map<int, std::vector<int64_t>> chains;
  for (bool changed = true; changed;) {
    changed = false;
    chains.clear();
    std::vector<View> views;
    for (const auto& op : operands) views.push_back(normalized(op.view));
    std::map<int, std::vector<std::vector<DimId>>> groupsOf;
    for (std::size_t k = 0; k < operands.size(); ++k)
      for (std::size_t i = 0; i < operands[k].symbols.size(); ++i) {
        const int s = operands[k].symbols[i];
        if (symSize[s] <= 1 || groupSize(views[k].groups[i]) != symSize[s]) continue;
        std::vector<DimId> g;
        for (const DimId d : views[k].groups[i])
          if (dims_[d].size > 1) g.push_back(d);
        groupsOf[s].push_back(g);
      }
    for (auto& [s, groups] : groupsOf) {
      std::vector<int64_t> chain = sizes(groups[0]);
      for (const auto& g : groups) {
        const auto c = commonRefinement(chain, sizes(g));
        if (!c)
          throw Unsupported("dimensions of size " + std::to_string(symSize[s]) + " are laid out as " + shapeText(chain) +
                            " and as " + shapeText(sizes(g)) + ", which do not refine one another");
        chain = *c;
      }
      chains[s] = chain;
      for (const auto& g : groups) changed |= refineDims(g, chain);
    }
    drain();
  }
  const int out = newTensor(TensorKind::Computed, hint, {});
  NodeInfo node;
  node.join = join;
  node.agg = agg;
  node.hint = hint;
  std::map<int, std::vector<LabelId>> symLabels;
  for (const auto& [s, size] : symSize) {
    if (size > 1)
      for (const int64_t f : chains.at(s)) symLabels[s].push_back(newLabel(f));
    else
      symLabels[s].push_back(newLabel(1));
  }
  for (const auto& op : operands) {
    const View v = normalized(op.view);
    std::map<DimId, LabelId> label;
    for (std::size_t i = 0; i < op.symbols.size(); ++i) {
      const int s = op.symbols[i];
      std::size_t next = 0;
      const bool full = symSize[s] > 1 && groupSize(v.groups[i]) == symSize[s];
      for (const DimId d : v.groups[i])
        label[d] = full && dims_[d].size > 1 ? symLabels[s][next++] : newLabel(1);
    }
    for (const DimId d : v.hidden) label[d] = newLabel(1);
    Slot slot;
    slot.tensor = v.tensor;
    slot.dims = tensorLeaves(v.tensor);
    for (const DimId d : slot.dims) {
      auto it = label.find(d);
      if (it == label.end()) throw std::logic_error("import: a view does not show every dimension of its tensor");
      slot.labels.push_back(it->second);
    }
    node.operands.push_back(slot);
  }
  View result;
  result.tensor = out;
  node.output.tensor = out;
  for (const int s : outSymbols) {
    auto it = symLabels.find(s);
    if (it == symLabels.end()) it = symLabels.emplace(s, std::vector<LabelId>{newLabel(1)}).first;  // a kept size-1 dimension
    std::vector<DimId> group;
    for (const LabelId l : it->second) {
      const DimId d = newDim(labels_[l].size, out);
      tensors_[out].dims.push_back(d);
      node.output.dims.push_back(d);
      node.output.labels.push_back(l);
      group.push_back(d);
    }
    result.groups.push_back(group);
  }
  nodes_.push_back(std::move(node));
  const int n = static_cast<int>(nodes_.size() - 1);
  tensors_[out].producer = n;
  for (const auto& slot : nodes_[n].operands) tensors_[slot.tensor].users.push_back(n);
  return result;
}

// ---- views ----

View ImportGraph::transpose(const View& v, const std::vector<int64_t>& perm) const {
  View t = v;
  for (std::size_t i = 0; i < perm.size(); ++i) t.groups[i] = v.groups[static_cast<std::size_t>(perm[i])];
  return t;
}

View ImportGraph::squeeze(const View& v, const std::vector<int64_t>& axes) const {
  View t;
  t.tensor = v.tensor;
  t.hidden = v.hidden;
  for (std::size_t i = 0; i < v.groups.size(); ++i) {
    if (std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) != axes.end())
      t.hidden.insert(t.hidden.end(), v.groups[i].begin(), v.groups[i].end());
    else
      t.groups.push_back(v.groups[i]);
  }
  return t;
}

View ImportGraph::unsqueeze(const View& v, const std::vector<int64_t>& axes) const {
  View t;
  t.tensor = v.tensor;
  t.hidden = v.hidden;
  const std::size_t rank = v.groups.size() + axes.size();
  std::size_t next = 0;
  for (std::size_t i = 0; i < rank; ++i) {
    if (std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) != axes.end())
      t.groups.push_back({});
    else
      t.groups.push_back(v.groups[next++]);
  }
  return t;
}

View ImportGraph::reshape(const View& v, const std::vector<int64_t>& newShape) {
  std::vector<int64_t> target;
  for (const int64_t s : newShape)
    if (s > 1) target.push_back(s);
  for (int round = 0; round < 2; ++round) {
    const View n = normalized(v);
    std::vector<DimId> flat;
    for (const auto& g : n.groups)
      for (const DimId d : g)
        if (dims_[d].size > 1) flat.push_back(d);
    const auto chain = commonRefinement(sizes(flat), target);
    if (!chain)
      throw Unsupported("a Reshape from " + shapeText(shape(v)) + " to " + shapeText(newShape) +
                        " reorders elements across dimension boundaries (the tensor is laid out as " +
                        shapeText(sizes(flat)) + "); only merges and splits of whole dimensions are free, and the "
                        "EinGraph has no reshape node");
    if (round == 0) {
      refineDims(flat, *chain);
      drain();
      continue;
    }
    View r;
    r.tensor = v.tensor;
    r.hidden = n.hidden;
    for (const auto& g : n.groups)
      for (const DimId d : g)
        if (dims_[d].size == 1) r.hidden.push_back(d);
    std::size_t next = 0;
    for (const int64_t s : newShape) {
      std::vector<DimId> group;
      int64_t p = 1;
      while (s > 1 && p < s) {
        p *= dims_[flat[next]].size;
        group.push_back(flat[next++]);
      }
      r.groups.push_back(group);
    }
    return r;
  }
  return v;
}

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
  return einsum({x, {selection, {j, k}}}, out, parseExpr("where(y, x, -0)"), AggOp::Sum, hint);
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
    nodes_.push_back(std::move(copy));
    const int n = static_cast<int>(nodes_.size() - 1);
    tensors_[t].producer = n;
    for (const auto& slot : nodes_[n].operands) tensors_[slot.tensor].users.push_back(n);
  }
  sliceCache_[key] = {t, dimMap};
  return t;
}

}  // namespace eindecomp::onnx_import
