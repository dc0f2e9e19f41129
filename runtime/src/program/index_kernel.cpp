#include "index_kernel.h"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "einrt/half.h"
#include "einrt/program/loop_nest.h"  // labelStrides

namespace einrt::program::detail {

namespace {

// z[i * zs] = y[i * ys] for i < n (assign), else z[i * zs] += y[i * ys]: one run of a gather
// under one id, or one line of a strided copy; contiguous on both sides and assigned, a
// memcpy.
template <class T>
void copyLine(T* z, int64_t zs, const T* y, int64_t ys, int64_t n, bool assign) {
  using C = Compute<T>;
  if (assign && zs == 1 && ys == 1)
    std::memcpy(static_cast<void*>(z), static_cast<const void*>(y), static_cast<std::size_t>(n) * sizeof(T));
  else if (assign)
    for (int64_t i = 0; i < n; ++i) z[i * zs] = y[i * ys];
  else
    for (int64_t i = 0; i < n; ++i) z[i * zs] = T(static_cast<C>(z[i * zs]) + static_cast<C>(y[i * ys]));
}

}  // namespace

template <class T>
IndexKernel<T>::IndexKernel(const NodeTable& node, const TensorSpec& ids, const std::vector<int64_t>& extent)
    : idType_(ids.indexType.value_or(DType::I64)), idsName_(ids.name), idLabels_(node.operandLabels.at(0)),
      selected_(node.indexLabel), range_(node.sizes.at(static_cast<std::size_t>(node.indexLabel))), extent_(extent) {
  idStride_ = labelStrides(node.operandLabels[0], extent);
  yStride_ = labelStrides(node.operandLabels[1], extent);
  zStride_ = labelStrides(node.outputLabels, extent);
  outputElements_ = model::blockElements(node.outputLabels, extent);
  // The selected label is no loop: the ids pick its position (its extent stays for the
  // offsets of y or Z, whose strides along it are kept). The others loop in the output's
  // order (labels it sums over outside, then its strides descending), so that a call
  // writes its block plane by plane: the label order walked a phase gather's output (ids
  // along its last dimension) once per id. The innermost label the ids do not vary along
  // is a run under one id (a phase along the last dimension: a column of its plane, the
  // plane in cache).
  for (int l = 0; l < static_cast<int>(extent.size()); ++l)
    if (l != selected_) order_.push_back(l);
  auto key = [&](int l) {
    const auto i = static_cast<std::size_t>(l);
    return std::make_tuple(zStride_[i] != 0, -zStride_[i], -yStride_[i]);
  };
  std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return key(a) < key(b); });
  // Ids along one label that is the output's innermost: where a call's ids step evenly
  // (runProgression), a strided copy along it with the other labels outside.
  if (idLabels_.size() == 1 && !order_.empty() && order_.back() == idLabels_[0] &&
      zStride_[static_cast<std::size_t>(idLabels_[0])] == 1) {
    progression_ = idLabels_[0];
    progressionOrder_.assign(order_.begin(), order_.end() - 1);
  }
  for (std::size_t k = order_.size(); k-- > 0;)
    if (idStride_[static_cast<std::size_t>(order_[k])] == 0) {
      inner_ = order_[k];
      order_.erase(order_.begin() + static_cast<std::ptrdiff_t>(k));
      break;
    }
}

template <class T>
void IndexKernel<T>::run(const void* ids, const T* Y, T* Z, bool accumulate, const std::vector<int64_t>& offset) const {
  // A gather whose call holds every row of the table writes each output element once, from
  // its id's row: no zeros first, no addition. (Cut along the rows, a call's output is a
  // partial sum, zero where the id's row is another call's.)
  const auto v = static_cast<std::size_t>(selected_);
  const bool assigns = !accumulate && zStride_[v] == 0 && offset[v] == 0 && extent_[v] == range_;
  if (!accumulate && !assigns) std::fill(Z, Z + outputElements_, T(0.0f));
  if (idType_ == DType::I32) {
    if (!runProgression(static_cast<const int32_t*>(ids), Y, Z, offset, assigns))
      runWith(static_cast<const int32_t*>(ids), Y, Z, offset, assigns);
  } else if (!runProgression(static_cast<const int64_t*>(ids), Y, Z, offset, assigns)) {
    runWith(static_cast<const int64_t*>(ids), Y, Z, offset, assigns);
  }
}

// The call's ids along progression_ are first + step * k, all among this call's rows: then
// element k of every line along that label reads (or, a scatter, writes) the row
// first + step * k: one strided line copy per line, instead of an id lookup and a run of
// one per element (a stride-2 convolution's phase gathers in ResNet-18: the ids
// along the image's last dimension). Returns false, having done nothing, otherwise (ids
// out of range included: runWith names the first).
template <class T>
template <class I>
bool IndexKernel<T>::runProgression(const I* ids, const T* Y, T* Z, const std::vector<int64_t>& offset, bool assigns) const {
  if (progression_ < 0) return false;
  const auto l = static_cast<std::size_t>(progression_), v = static_cast<std::size_t>(selected_);
  const int64_t count = extent_[l], idStep = idStride_[l];
  const int64_t start = static_cast<int64_t>(ids[0]), step = count > 1 ? static_cast<int64_t>(ids[idStep]) - start : 0;
  for (int64_t k = 0; k < count; ++k)
    if (static_cast<int64_t>(ids[k * idStep]) != start + step * k) return false;
  const int64_t end = start + step * (count - 1);
  if (std::min(start, end) < offset[v] || std::max(start, end) >= offset[v] + extent_[v]) return false;
  const int64_t yLine = yStride_[l] + step * yStride_[v], zLine = zStride_[l] + step * zStride_[v];
  const int64_t yFirst = (start - offset[v]) * yStride_[v], zFirst = (start - offset[v]) * zStride_[v];
  std::vector<int64_t> point(extent_.size(), 0);
  int64_t lines = 1;
  for (const int d : progressionOrder_) lines *= extent_[static_cast<std::size_t>(d)];
  int64_t idAt = 0, yAt = 0, zAt = 0;  // (idAt unused: the line's ids are the progression)
  for (int64_t n = 0; n < lines; ++n) {
    copyLine(Z + zAt + zFirst, zLine, Y + yAt + yFirst, yLine, count, assigns);
    advance(progressionOrder_, point, idAt, yAt, zAt);
  }
  return true;
}

template <class T>
template <class I>
void IndexKernel<T>::runWith(const I* ids, const T* Y, T* Z, const std::vector<int64_t>& offset, bool assigns) const {
  const auto v = static_cast<std::size_t>(selected_);
  const int64_t first = offset[v], last = offset[v] + extent_[v];  // this call's ids
  const int64_t yStep = yStride_[v], zStep = zStride_[v];
  const int64_t run = inner_ >= 0 ? extent_[static_cast<std::size_t>(inner_)] : 1;
  const int64_t yRun = inner_ >= 0 ? yStride_[static_cast<std::size_t>(inner_)] : 0;
  const int64_t zRun = inner_ >= 0 ? zStride_[static_cast<std::size_t>(inner_)] : 0;
  // The odometer over every label but the selected one and the inner run, in order_.
  std::vector<int64_t> point(extent_.size(), 0);
  int64_t points = 1;
  for (const int l : order_) points *= extent_[static_cast<std::size_t>(l)];
  int64_t idAt = 0, yAt = 0, zAt = 0;
  for (int64_t n = 0; n < points; ++n) {
    const auto id = static_cast<int64_t>(ids[idAt]);
    if (id < 0 || id >= range_) outOfRange(id, point, offset);
    if (id >= first && id < last) copyLine(Z + zAt + (id - first) * zStep, zRun, Y + yAt + (id - first) * yStep, yRun, run, assigns);
    advance(order_, point, idAt, yAt, zAt);
  }
}

template <class T>
void IndexKernel<T>::advance(const std::vector<int>& order, std::vector<int64_t>& point, int64_t& idAt, int64_t& yAt, int64_t& zAt) const {
  for (std::size_t k = order.size(); k-- > 0;) {
    const auto d = static_cast<std::size_t>(order[k]);
    const bool wraps = ++point[d] == extent_[d];
    const int64_t step = wraps ? 1 - extent_[d] : 1;
    if (wraps) point[d] = 0;
    idAt += step * idStride_[d];
    yAt += step * yStride_[d];
    zAt += step * zStride_[d];
    if (!wraps) break;
  }
}

template <class T>
void IndexKernel<T>::outOfRange(int64_t id, const std::vector<int64_t>& point, const std::vector<int64_t>& offset) const {
  std::string position;
  for (std::size_t d = 0; d < idLabels_.size(); ++d) {
    const auto l = static_cast<std::size_t>(idLabels_[d]);
    position += (d ? ", " : "") + std::to_string(offset[l] + point[l]);
  }
  throw IndexError("tensor '" + idsName_ + "': id " + std::to_string(id) + " at position (" + position +
                   ") is outside [0, " + std::to_string(range_) + ")");
}

template <class T>
void plainIndex(const NodeTable& node, DType idType, const void* ids, const T* Y, T* Z) {
  const std::vector<int64_t>& sizes = node.sizes;
  std::fill(Z, Z + model::blockElements(node.outputLabels, sizes), T(0.0f));
  std::vector<int64_t> point(sizes.size(), 0);
  auto flat = [&](const std::vector<int>& labels) {
    int64_t at = 0;
    for (int l : labels) at = at * sizes[static_cast<std::size_t>(l)] + point[static_cast<std::size_t>(l)];
    return at;
  };
  const auto v = static_cast<std::size_t>(node.indexLabel);
  int64_t points = 1;  // every point but along the selected label, whose position the id gives
  for (std::size_t d = 0; d < sizes.size(); ++d) points *= d == v ? 1 : sizes[d];
  for (int64_t n = 0; n < points; ++n) {
    int64_t rest = n;
    for (std::size_t d = sizes.size(); d-- > 0;) {
      if (d == v) continue;
      point[d] = rest % sizes[d];
      rest /= sizes[d];
    }
    const int64_t at = flat(node.operandLabels[0]);
    const int64_t id = idType == DType::I32 ? static_cast<const int32_t*>(ids)[at] : static_cast<const int64_t*>(ids)[at];
    if (id < 0 || id >= sizes[v]) throw IndexError("id " + std::to_string(id) + " outside [0, " + std::to_string(sizes[v]) + ")");
    point[v] = id;
    T& z = Z[flat(node.outputLabels)];
    z = T(static_cast<Compute<T>>(z) + static_cast<Compute<T>>(Y[flat(node.operandLabels[1])]));
  }
}

template void plainIndex<float>(const NodeTable&, DType, const void*, const float*, float*);
template void plainIndex<double>(const NodeTable&, DType, const void*, const double*, double*);
template void plainIndex<bf16>(const NodeTable&, DType, const void*, const bf16*, bf16*);
template void plainIndex<f16>(const NodeTable&, DType, const void*, const f16*, f16*);

template class IndexKernel<float>;
template class IndexKernel<double>;
template class IndexKernel<bf16>;
template class IndexKernel<f16>;

}  // namespace einrt::program::detail
