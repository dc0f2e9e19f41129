#include "node_kernel.h"

#include <algorithm>
#include <stdexcept>

namespace einrt::program::detail {

namespace {

std::vector<int64_t> extentsOf(const std::vector<int>& labels, const std::vector<int64_t>& extent) {
  std::vector<int64_t> out;
  for (int l : labels) out.push_back(extent[static_cast<std::size_t>(l)]);
  return out;
}

int64_t product(const std::vector<int>& labels, const std::vector<int64_t>& extent) {
  int64_t p = 1;
  for (int l : labels) p *= extent[static_cast<std::size_t>(l)];
  return p;
}

std::vector<int> concat(const std::vector<int>& a, const std::vector<int>& b, const std::vector<int>& c) {
  std::vector<int> out = a;
  out.insert(out.end(), b.begin(), b.end());
  out.insert(out.end(), c.begin(), c.end());
  return out;
}

// A GEMM operand or result as the kernel reads it: the leading dimension of its matrix
// (the stride of the outer group's last label) and the stride of every C label. A tensor
// that is permuted first is read in its canonical order [C][first][second]; any other is
// read where it is stored — the planner's mapping accepts a stored order only where the
// two groups are each one run of dimensions, the inner one innermost, with C labels
// before or between them (planner/paths/gemm_mapping.cpp, fitOperand).
struct View {
  int64_t ld = 1;
  std::vector<int64_t> cStride;
};

// A batch label the tensor lacks (a loop over an M label, for Y; over an N label, for X)
// has stride 0 in it, and no place in its canonical order.
View viewOf(const std::vector<int>& stored, bool permuted, bool transposed, const std::vector<int>& c,
            const std::vector<int>& first, const std::vector<int>& second, const std::vector<int64_t>& extent) {
  std::vector<int> own;
  for (int l : c)
    if (std::find(stored.begin(), stored.end(), l) != stored.end()) own.push_back(l);
  const std::vector<int> layout = permuted ? concat(own, first, second) : stored;
  const std::vector<int>& outer = !permuted && transposed ? second : first;
  const std::vector<int>& inner = !permuted && transposed ? first : second;
  std::vector<int64_t> stride(extent.size(), 0);
  int64_t s = 1;
  for (std::size_t d = layout.size(); d-- > 0;) {
    stride[static_cast<std::size_t>(layout[d])] = s;
    s *= extent[static_cast<std::size_t>(layout[d])];
  }
  if (!inner.empty() && layout.back() != inner.back())
    throw std::logic_error("einrt: a GEMM operand's inner group is not innermost (planner and runtime disagree)");
  View v;
  v.ld = outer.empty() ? product(inner, extent) : stride[static_cast<std::size_t>(outer.back())];
  for (int l : c) v.cStride.push_back(stride[static_cast<std::size_t>(l)]);
  return v;
}

}  // namespace

// The GEMM call of a contraction (planner/paths/gemm_mapping.h) for blocks of `extent`,
// and the batch loops around it: the C labels, adjacent ones merged where every tensor
// steps through them as through one; the innermost becomes the call's strided batch.
void GemmLoops::build(const GemmSpec& f, const std::vector<int>& xLabels, const std::vector<int>& yLabels,
                      const std::vector<int>& zLabels, const std::vector<int64_t>& extent) {
  const int64_t m = product(f.mLabels, extent), n = product(f.nLabels, extent), k = product(f.kLabels, extent);
  const View x = viewOf(xLabels, !f.permX.empty(), f.transX, f.batchLabels, f.mLabels, f.kLabels, extent);
  const View y = viewOf(yLabels, !f.permY.empty(), f.transY, f.batchLabels, f.kLabels, f.nLabels, extent);
  const View z = viewOf(zLabels, !f.permZ.empty(), f.transZ, f.batchLabels, f.mLabels, f.nLabels, extent);
  const bool tx = f.permX.empty() && f.transX, ty = f.permY.empty() && f.transY, tz = f.permZ.empty() && f.transZ;
  // Batch loops (extent, strides of X, Y, Z), outermost first, merged where contiguous.
  loops.clear();
  for (std::size_t i = 0; i < f.batchLabels.size(); ++i) {
    const Loop l{extent[static_cast<std::size_t>(f.batchLabels[i])], x.cStride[i], y.cStride[i], z.cStride[i]};
    if (l.extent == 1) continue;
    if (!loops.empty()) {
      Loop& o = loops.back();
      if (o.strideX == l.extent * l.strideX && o.strideY == l.extent * l.strideY && o.strideZ == l.extent * l.strideZ) {
        o = Loop{o.extent * l.extent, l.strideX, l.strideY, l.strideZ};
        continue;
      }
    }
    loops.push_back(l);
  }
  Loop inner{1, 0, 0, 0};
  if (!loops.empty()) {
    inner = loops.back();
    loops.pop_back();
  }
  outerEntries = 1;
  for (const Loop& l : loops) outerEntries *= l.extent;
  GemmCall& c = call;
  c = GemmCall{};
  c.batch = inner.extent;
  c.k = k;
  if (!tz) {
    c.m = m, c.n = n;
    c.transA = tx, c.lda = x.ld, c.strideA = inner.strideX;
    c.transB = ty, c.ldb = y.ld, c.strideB = inner.strideY;
  } else {  // Z stored N-major: Z^T = Y^T X^T, A := Y^T (n x k), B := X^T (k x m)
    c.m = n, c.n = m;
    c.transA = !ty, c.lda = y.ld, c.strideA = inner.strideY;
    c.transB = !tx, c.ldb = x.ld, c.strideB = inner.strideX;
  }
  c.ldc = z.ld;
  c.strideC = inner.strideZ;
  swapped = tz;
}

void GemmLoops::offsets(int64_t entry, int64_t& x, int64_t& y, int64_t& z) const {
  x = y = z = 0;
  for (std::size_t i = loops.size(); i-- > 0;) {
    const int64_t at = entry % loops[i].extent;
    entry /= loops[i].extent;
    x += at * loops[i].strideX;
    y += at * loops[i].strideY;
    z += at * loops[i].strideZ;
  }
}

template <class T>
NodeKernel<T>::NodeKernel(const NodeSpec<T>& node, const std::vector<int64_t>& extent, const DeviceOps* device, int threads,
                          ParallelForFn parallelFor, MemoryCounter* counter)
    : node_(&node), device_(device), threads_(threads), parallelFor_(parallelFor), counter_(counter) {
  if (!node.permutation.empty()) {
    copy_ = reorder(extentsOf(node.operandLabels.at(0), extent), node.permutation, false);
    return;
  }
  if (!node.gemm) {
    nest_ = planLoopNest(extent, node.operandLabels, node.outputLabels);
    return;
  }
  const GemmSpec& g = *node.gemm;
  GemmLoops loops;
  loops.build(g, node.operandLabels[0], node.operandLabels[1], node.outputLabels, extent);
  gemm_ = loops;
  alpha_ = g.alpha;
  if (!device) hostGemm_ = HostGemm<T>(loops.call, g.alpha, threads, parallelFor, g.path);
  auto prepare = [&](const std::vector<int>& perm, const std::vector<int>& labels, bool scatter, std::optional<Permutation>& p) {
    if (perm.empty()) return;
    p = reorder(extentsOf(labels, extent), perm, scatter);
  };
  prepare(g.permX, node.operandLabels[0], false, permX_);
  prepare(g.permY, node.operandLabels[1], false, permY_);
  prepare(g.permZ, node.outputLabels, true, permZ_);
}

template <class T>
void NodeKernel<T>::acquire() {
  auto make = [&](const std::optional<Permutation>& p, Buffer<T>& scratch) {
    if (p && !scratch.data()) scratch = Buffer<T>(static_cast<std::size_t>(p->elements), device_, counter_);
  };
  make(permX_, scratchX_);
  make(permY_, scratchY_);
  make(permZ_, scratchZ_);
}

template <class T>
void NodeKernel<T>::release() {
  scratchX_ = Buffer<T>();
  scratchY_ = Buffer<T>();
  scratchZ_ = Buffer<T>();
}

template <class T>
void NodeKernel<T>::run(const T* X, const T* Y, T* Z, bool accumulate) {
  if (copy_) {
    if (device_) device_->permute(*copy_, dtypeOf<T>(), X, Z, accumulate);
    else hostPermute(*copy_, X, Z, accumulate, threads_, parallelFor_);
    return;
  }
  if (!gemm_) {
    node_->elementwise(nest_, X, Y, Z, accumulate, threads_);
    return;
  }
  auto permute = [&](const Permutation& p, const T* src, T* dst, bool acc) {
    if (device_) device_->permute(p, dtypeOf<T>(), src, dst, acc);
    else hostPermute(p, src, dst, acc, threads_, parallelFor_);
  };
  // Every entry of the outer batch loops is one (strided-batched) GEMM call.
  auto gemm = [&](const T* X, const T* Y, T* C, bool accumulate) {
    for (int64_t e = 0; e < gemm_->outerEntries; ++e) {
      int64_t ox, oy, oz;
      gemm_->offsets(e, ox, oy, oz);
      const T* A = gemm_->swapped ? Y + oy : X + ox;
      const T* B = gemm_->swapped ? X + ox : Y + oy;
      if (device_) device_->gemm(gemm_->call, dtypeOf<T>(), A, B, C + oz, alpha_, accumulate ? 1.0 : 0.0);
      else hostGemm_.run(A, B, C + oz, accumulate);
    }
  };
  if (permX_) {
    permute(*permX_, X, scratchX_.data(), false);
    X = scratchX_.data();
  }
  if (permY_) {
    permute(*permY_, Y, scratchY_.data(), false);
    Y = scratchY_.data();
  }
  if (!permZ_) {
    gemm(X, Y, Z, accumulate);
  } else {
    gemm(X, Y, scratchZ_.data(), false);
    permute(*permZ_, scratchZ_.data(), Z, accumulate);
  }
}

template class NodeKernel<float>;
template class NodeKernel<double>;
template class NodeKernel<bf16>;
template class NodeKernel<f16>;

}  // namespace einrt::program::detail
