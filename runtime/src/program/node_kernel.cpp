#include "node_kernel.h"

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

// The GEMM call of a contraction in canonical layouts (planner/paths/gemm_mapping.h) for
// blocks of `extent`.
GemmCall gemmCall(const GemmSpec& spec, const std::vector<int64_t>& extent) {
  struct {
    int64_t batch, m, n, k;
  } g{product(spec.batchLabels, extent), product(spec.mLabels, extent), product(spec.nLabels, extent),
      product(spec.kLabels, extent)};
  const GemmSpec& f = spec;
  GemmCall c;
  c.batch = g.batch;
  const bool tx = f.permX.empty() && f.transX, ty = f.permY.empty() && f.transY, tz = f.permZ.empty() && f.transZ;
  c.strideA = g.m * g.k;
  c.strideB = g.k * g.n;
  c.strideC = g.m * g.n;
  c.k = g.k;
  if (!tz) {
    c.m = g.m;
    c.n = g.n;
    c.transA = tx;
    c.lda = tx ? g.m : g.k;
    c.transB = ty;
    c.ldb = ty ? g.k : g.n;
    c.ldc = g.n;
  } else {  // A := Y^T (n x k), B := X^T (k x m)
    c.m = g.n;
    c.n = g.m;
    std::swap(c.strideA, c.strideB);
    c.transA = !ty;
    c.lda = ty ? g.k : g.n;
    c.transB = !tx;
    c.ldb = tx ? g.m : g.k;
    c.ldc = g.m;
  }
  return c;
}

}  // namespace

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
  gemm_ = gemmCall(g, extent);
  alpha_ = g.alpha;
  if (!device) hostGemm_ = HostGemm<T>(*gemm_, g.alpha, threads, parallelFor);
  swapped_ = g.permZ.empty() && g.transZ;
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
  auto gemm = [&](const T* A, const T* B, T* C, bool accumulate) {
    if (device_) device_->gemm(*gemm_, dtypeOf<T>(), A, B, C, alpha_, accumulate ? 1.0 : 0.0);
    else hostGemm_.run(A, B, C, accumulate);
  };
  if (permX_) {
    permute(*permX_, X, scratchX_.data(), false);
    X = scratchX_.data();
  }
  if (permY_) {
    permute(*permY_, Y, scratchY_.data(), false);
    Y = scratchY_.data();
  }
  const T* A = swapped_ ? Y : X;
  const T* B = swapped_ ? X : Y;
  if (!permZ_) {
    gemm(A, B, Z, accumulate);
  } else {
    gemm(A, B, scratchZ_.data(), false);
    permute(*permZ_, scratchZ_.data(), Z, accumulate);
  }
}

template class NodeKernel<float>;
template class NodeKernel<double>;
template class NodeKernel<bf16>;
template class NodeKernel<f16>;

}  // namespace einrt::program::detail
