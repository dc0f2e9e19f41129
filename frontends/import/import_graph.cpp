#include "frontends/import/import_graph.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <set>

#include "planner/graph/identifiers.h"

namespace eindecomp::onnx_import {

namespace {

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (const int64_t x : v) p *= x;
  return p;
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

// Dimensions and labels split alike: an entry has a size and, once split, its parts
// (outer first); the leaves of an entry are its unsplit descendants in C order.
template <class Pool>
std::vector<int> leavesIn(const Pool& pool, int id) {
  if (pool[id].parts.empty()) return {id};
  std::vector<int> out;
  for (const int p : pool[id].parts)
    for (const int l : leavesIn(pool, p)) out.push_back(l);
  return out;
}

// Splits the leaves of a C-ordered sequence at the boundaries of `chain` (one refinement
// of the same total) through `split(leaf, factors)`; whether anything split.
template <class Pool, class Split>
bool refineIn(const Pool& pool, const std::vector<int>& seq, const std::vector<int64_t>& chain, Split split) {
  const std::set<int64_t> points = boundaries(chain);
  bool changed = false;
  int64_t lo = 1;
  for (std::size_t i = seq.size(); i-- > 0;) {
    const int64_t size = pool[seq[i]].size, hi = lo * size;
    if (size > 1) {
      const std::vector<int64_t> factors = cut(lo, hi, points);
      if (!factors.empty()) {
        split(seq[i], factors);
        changed = true;
      }
    }
    lo = hi;
  }
  return changed;
}

}  // namespace

std::string shapeText(const std::vector<int64_t>& s) {
  std::string t = "[";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

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

std::vector<DimId> ImportGraph::leaves(DimId d) const { return leavesIn(dims_, d); }

std::vector<LabelId> ImportGraph::labelLeaves(LabelId l) const { return leavesIn(labels_, l); }

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

View ImportGraph::addModelInput(const std::string& onnxName, const std::vector<int64_t>& shape,
                                std::optional<DType> indexType) {
  const int t = newTensor(TensorKind::ModelInput, onnxName, shape);
  tensors_[t].onnxName = onnxName;
  tensors_[t].indexType = indexType;
  tensors_[t].fileShape = shape;
  View v;
  v.tensor = t;
  for (const DimId d : tensors_[t].dims) v.groups.push_back({d});
  return v;
}

View ImportGraph::addWeight(const std::string& hint, HostTensor value, bool onnxNamed) {
  std::string twin;
  if (onnxNamed)
    if (std::optional<View> tied = transposedWeight(value, twin)) {
      tied_.emplace_back(hint, twin);
      return *tied;
    }
  const int t = newTensor(TensorKind::Weight, hint, value.shape);
  if (onnxNamed) tensors_[t].onnxName = hint;
  tensors_[t].value = std::move(value);
  View v;
  v.tensor = t;
  for (const DimId d : tensors_[t].dims) v.groups.push_back({d});
  return v;
}

std::optional<View> ImportGraph::transposedWeight(const HostTensor& value, std::string& twin) const {
  if (value.shape.size() != 2 || value.shape[0] < 2 || value.shape[1] < 2) return std::nullopt;
  const auto& v = value.values;
  if (std::all_of(v.begin(), v.end(), [&](double x) { return x == v.front(); })) return std::nullopt;
  const int64_t rows = value.shape[0], cols = value.shape[1];
  for (std::size_t t = 0; t < tensors_.size(); ++t) {
    const Tensor& w = tensors_[t];
    if (w.kind != TensorKind::Weight || w.value.shape != std::vector<int64_t>{cols, rows} || w.value.kind != value.kind) continue;
    bool same = true;  // value[i][j] == w[j][i]; most candidates differ at the first element
    for (int64_t i = 0; i < rows && same; ++i)
      for (int64_t j = 0; j < cols && same; ++j)
        same = v[static_cast<std::size_t>(i * cols + j)] == w.value.values[static_cast<std::size_t>(j * rows + i)];
    if (!same) continue;
    twin = w.onnxName.empty() ? w.hint : w.onnxName;
    View whole;
    whole.tensor = static_cast<int>(t);
    for (const DimId d : w.dims) whole.groups.push_back({d});
    return transpose(whole, {1, 0});
  }
  return std::nullopt;
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
  return refineIn(dims_, seq, chain, [&](DimId d, const std::vector<int64_t>& factors) { splitLeaf(d, factors); });
}

bool ImportGraph::refineLabels(const std::vector<LabelId>& seq, const std::vector<int64_t>& chain) {
  return refineIn(labels_, seq, chain, [&](LabelId l, const std::vector<int64_t>& factors) {
    std::vector<LabelId> parts;  // made first: newLabel grows labels_
    for (const int64_t f : factors) parts.push_back(newLabel(f));
    labels_[l].parts = parts;
  });
}

// A dimension read through a window (offset o, the tensor's extent n, the window's e) split
// on one side: the other side takes the same inner factors, the window stays on the outer
// leaf (o, n and e divided by the inner product, which must divide all three: heads split
// out of a slice of a fused projection).
bool ImportGraph::syncWindowDim(Slot& slot, std::size_t j, int node) {
  const std::vector<DimId> dl = leaves(slot.dims[j]);
  const std::vector<LabelId> ll = labelLeaves(slot.labels[j]);
  std::vector<int64_t> ls;
  for (const LabelId l : ll) ls.push_back(labels_[l].size);
  const std::vector<int64_t> ds = sizes(dl);
  const std::vector<int64_t> innerD(ds.begin() + 1, ds.end()), innerL(ls.begin() + 1, ls.end());
  if (innerD == innerL) return false;
  if (slot.taps.count(j) || slot.steps.count(j))
    throw Unsupported("a reshape splits a dimension that node " + eindecomp::quoted(nodes_[node].hint) +
                      " reads through " + (slot.taps.count(j) ? "its taps" : "a strided window"));
  auto product = [](const std::vector<int64_t>& v) { return std::accumulate(v.begin(), v.end(), int64_t{1}, std::multiplies<>()); };
  const int64_t n = product(ds), e = product(ls), o = slot.window.at(j);
  std::optional<std::vector<int64_t>> inner;
  if (product(innerD) == product(innerL)) inner = commonRefinement(innerD, innerL);
  else if (innerL.empty()) inner = innerD;
  else if (innerD.empty()) inner = innerL;
  const int64_t q = inner ? product(*inner) : 0;
  if (!inner || o % q != 0 || n % q != 0 || e % q != 0)
    throw Unsupported("a reshape splits a dimension that node " + eindecomp::quoted(nodes_[node].hint) +
                      " reads through a window (a slice, concatenation or pad) where the window does not fall on the split");
  std::vector<int64_t> dChain{n / q}, lChain{e / q};
  dChain.insert(dChain.end(), inner->begin(), inner->end());
  lChain.insert(lChain.end(), inner->begin(), inner->end());
  const bool a = refineDims(dl, dChain);
  const bool b = refineLabels(ll, lChain);
  return a || b;
}

DimId ImportGraph::addOutputDim(NodeInfo& node, LabelId l) {
  const int out = node.output.tensor;
  const DimId d = newDim(labels_[l].size, out);
  tensors_[out].dims.push_back(d);
  node.output.dims.push_back(d);
  node.output.labels.push_back(l);
  return d;
}

void ImportGraph::addNode(NodeInfo node) {
  const int out = node.output.tensor;
  nodes_.push_back(std::move(node));
  const int n = static_cast<int>(nodes_.size() - 1);
  tensors_[out].producer = n;
  for (const auto& slot : nodes_[n].operands) tensors_[slot.tensor].users.push_back(n);
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
        if (slot->window.count(j)) {  // its extent is the tensor's, its label's the window's
          changed |= syncWindowDim(*slot, j, node);
          continue;
        }
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
                         Reduce agg, const std::string& hint, const std::map<int, int64_t>& broadcast) {
  for (std::size_t k = 0; k < operands.size(); ++k)
    if (tensors_[operands[k].view.tensor].indexType && !(readingIds_ && k == 0))
      throw Unsupported(std::string("it reads the ") + (*tensors_[operands[k].view.tensor].indexType == DType::I32 ? "INT32" : "INT64") +
                        " model input " + quoted(tensors_[operands[k].view.tensor].onnxName) +
                        " as values; integer inputs are ids, which only a Gather reads (as its indices)");
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
    if (auto b = broadcast.find(s); b != broadcast.end() && b->second > 1 && (it == symLabels.end() || symSize[s] == 1))
      it = symLabels.insert_or_assign(s, std::vector<LabelId>{newLabel(b->second)}).first;  // operands broadcast along it
    if (it == symLabels.end()) it = symLabels.emplace(s, std::vector<LabelId>{newLabel(1)}).first;  // a kept size-1 dimension
    std::vector<DimId> group;
    for (const LabelId l : it->second) group.push_back(addOutputDim(node, l));
    result.groups.push_back(group);
  }
  addNode(std::move(node));
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

std::optional<View> ImportGraph::tryReshape(const View& v, const std::vector<int64_t>& newShape) {
  // A refinement spreads through labels and may fail far from v, halfway: the state before
  // it is kept whole and put back (a copy per attempt; attempts are per tiling pool or
  // convolution). The weights' values, which no reshape changes, are set aside, not copied
  // (a ViT's are gigabytes).
  std::vector<HostTensor> values(tensors_.size());
  for (std::size_t t = 0; t < tensors_.size(); ++t) values[t] = std::move(tensors_[t].value);
  const auto putBack = [&] {
    for (std::size_t t = 0; t < values.size(); ++t) tensors_[t].value = std::move(values[t]);
  };
  auto saved = std::make_tuple(dims_, labels_, tensors_, nodes_, dirty_, tied_, sliceCache_, nextSymbol_);
  try {
    View result = reshape(v, newShape);
    putBack();
    return result;
  } catch (const Unsupported&) {
    std::tie(dims_, labels_, tensors_, nodes_, dirty_, tied_, sliceCache_, nextSymbol_) = std::move(saved);
    putBack();
    return std::nullopt;
  }
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

}  // namespace eindecomp::onnx_import

namespace eindecomp::onnx_import {

View ImportGraph::gather(const View& data, int64_t axis, const View& ids, const std::string& hint) {
  Operand idsOperand{ids, {}}, dataOperand{data, {}};
  std::vector<int> out;
  for (std::size_t i = 0; i < ids.groups.size(); ++i) idsOperand.symbols.push_back(nextSymbol_++);
  for (std::size_t i = 0; i < data.groups.size(); ++i) dataOperand.symbols.push_back(nextSymbol_++);
  const auto at = static_cast<std::size_t>(axis);
  out.insert(out.end(), dataOperand.symbols.begin(), dataOperand.symbols.begin() + static_cast<std::ptrdiff_t>(at));
  out.insert(out.end(), idsOperand.symbols.begin(), idsOperand.symbols.end());
  out.insert(out.end(), dataOperand.symbols.begin() + static_cast<std::ptrdiff_t>(at) + 1, dataOperand.symbols.end());
  readingIds_ = true;
  View result;
  try {
    result = einsum({idsOperand, dataOperand}, out, Expr::y(), Reduce::Sum, hint);
  } catch (...) {
    readingIds_ = false;
    throw;
  }
  readingIds_ = false;
  // The selected label: the one label of data's axis (a table's rows are one dimension).
  NodeInfo& node = nodes_[static_cast<std::size_t>(tensors_[result.tensor].producer)];
  const View table = normalized(data);
  std::vector<LabelId> selected;
  const Slot& slot = node.operands[1];
  for (const DimId d : table.groups[at])
    for (std::size_t j = 0; j < slot.dims.size(); ++j)
      if (slot.dims[j] == d && dims_[d].size > 1) selected.push_back(slot.labels[j]);
  if (selected.size() != 1)
    throw Unsupported("the Gather's axis spans " + std::to_string(selected.size()) + " dimensions of its data; a gather "
                      "selects along one");
  node.indexJoin = "gather";
  node.selected = selected[0];
  return result;
}

std::optional<View> ImportGraph::gather(const View& data, int64_t axis, const std::vector<int64_t>& ids,
                                        const std::vector<int64_t>& shape, const std::string& hint) {
  const View plain = normalized(data);
  int real = 0;  // a gather selects along one dimension of the tensor
  for (const DimId d : plain.groups.at(static_cast<std::size_t>(axis))) real += dims_[d].size > 1 ? 1 : 0;
  if (real != 1 || ids.empty()) return std::nullopt;
  HostTensor value;
  value.kind = ElemKind::Integer;
  value.shape = shape;
  value.values.assign(ids.begin(), ids.end());
  const View idsView = addWeight(hint + "_ids", std::move(value), false);
  tensors_[idsView.tensor].indexType = DType::I64;
  return gather(data, axis, idsView, hint);
}

}  // namespace eindecomp::onnx_import
