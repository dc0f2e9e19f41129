#include "node_kernel.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace einrt::program::detail {

namespace {

std::vector<int64_t> extentsOf(const std::vector<int>& labels, const std::vector<int64_t>& extent) {
  std::vector<int64_t> out;
  for (int l : labels) out.push_back(extent[static_cast<std::size_t>(l)]);
  return out;
}

}  // namespace

template <class T>
NodeKernel<T>::NodeKernel(const NodeTable& node, const NodeKernels<T>& kernels, const std::vector<int64_t>& extent,
                          const DeviceOps* device, int threads, ParallelForFn parallelFor, MemoryCounter* counter,
                          bool widening)
    : elementwise_(kernels.elementwise), device_(device), threads_(threads), parallelFor_(parallelFor), counter_(counter),
      widening_(widening) {
  if (widening && (device || !node.gemm || !kIsTwoByte<T>))
    throw std::invalid_argument("einrt: node '" + node.name + "' widens 2-byte operands into f32 (`cast: f32` on a "
                                "contraction), which runs as a host GEMM only" +
                                std::string(device ? ": the device backend does not run it" : ""));
  if (!node.permutation.empty()) {
    copy_ = reorder(extentsOf(node.operandLabels.at(0), extent), node.permutation, false);
    return;
  }
  if (!node.gemm) {
    if (!device) convolution_ = model::convolutionCall(node, node.contraction, extent);
    nest_ = model::callLoopNest(node, extent);
    baseX_ = model::operandWalk(node, extent, 0).base;
    if (node.operandLabels.size() > 1) baseY_ = model::operandWalk(node, extent, 1).base;
    if (node.spreadOut(0)) {
      if (device) throw std::invalid_argument("einrt: node '" + node.name + "' reads a spread window, which the device backend does not run");
      spreadFill_ = node.fill;
      baseZ_ = model::outputBase(node, extent);
      outputElements_ = model::blockElements(node.outputLabels, extent);
    }
    return;
  }
  const GemmSpec& g = *node.gemm;
  gemm_ = model::gemmCallPlan(g, node, extent);
  alpha_ = g.alpha;
  if (!device) hostGemm_ = HostGemm<T>(gemm_->call, g.alpha, threads, parallelFor, g.path);
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
  if (widening_ && permZ_ && !scratchZ_.data())  // the f32 result's block
    scratchZ_ = Buffer<T>::ofBytes(static_cast<std::size_t>(permZ_->elements) * sizeof(float), device_, counter_);
  else make(permZ_, scratchZ_);
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
    if (convolution_) {
      const ConvolutionFn provider = convolutionProvider();
      const T* image = convolution_->image == 0 ? X : Y;
      const T* kernel = convolution_->image == 0 ? Y : X;
      const bool ran = provider && provider(*convolution_, dtypeOf<T>(), image, kernel, Z, accumulate);
      noteConvolutionPath(ran);
      if (ran) return;
    }
    if (!elementwise_) throw std::logic_error("einrt: a node without a GEMM or permutation has no elementwise kernel");
    if (spreadFill_ && !accumulate) std::fill(Z, Z + outputElements_, static_cast<T>(*spreadFill_));
    if (spreadFill_ && nest_.points == 0) return;  // a spread window that reads no row of its tensor
    elementwise_(nest_, X + baseX_, Y ? Y + baseY_ : Y, Z + baseZ_, accumulate, threads_);
    return;
  }
  runGemm(X, Y, Z, reinterpret_cast<T*>(scratchZ_.data()), accumulate, [&](const T* A, const T* B, T* C, bool into) {
    if (device_) device_->gemm(gemm_->call, dtypeOf<T>(), A, B, C, alpha_, into ? 1.0 : 0.0);
    else hostGemm_.run(A, B, C, into);
  });
}

template <class T>
void NodeKernel<T>::runWidening(const T* X, const T* Y, float* Z, bool accumulate) {
  if constexpr (kIsTwoByte<T>) {
    runGemm(X, Y, Z, reinterpret_cast<float*>(scratchZ_.data()), accumulate, [&](const T* A, const T* B, float* C, bool into) {
      hostGemm(gemm_->call, A, B, C, static_cast<float>(alpha_), into ? 1.0f : 0.0f);
    });
  } else {
    (void)X, (void)Y, (void)Z, (void)accumulate;
    throw std::logic_error("einrt: a widening contraction in a program of 4-byte or wider elements");
  }
}

template <class T>
template <class R, class Entry>
void NodeKernel<T>::runGemm(const T* X, const T* Y, R* Z, R* scratchZ, bool accumulate, Entry gemmEntry) {
  // (A widening contraction never has a device: the constructor refuses it.)
  auto permute = [&](const Permutation& p, const auto* src, auto* dst, bool acc) {
    using E = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
    if (device_) device_->permute(p, dtypeOf<E>(), src, dst, acc);
    else hostPermute(p, src, dst, acc, threads_, parallelFor_);
  };
  if (permX_) {
    permute(*permX_, X, scratchX_.data(), false);
    X = scratchX_.data();
  }
  if (permY_) {
    permute(*permY_, Y, scratchY_.data(), false);
    Y = scratchY_.data();
  }
  // Every entry of the outer batch loops is one (strided-batched) GEMM call; a permuted
  // result is written whole into the scratch block, then permuted into (or onto) Z.
  R* C = permZ_ ? scratchZ : Z;
  const bool into = accumulate && !permZ_;
  for (int64_t e = 0; e < gemm_->outerEntries; ++e) {
    int64_t ox, oy, oz;
    gemm_->offsets(e, ox, oy, oz);
    gemmEntry(gemm_->swapped ? Y + oy : X + ox, gemm_->swapped ? X + ox : Y + oy, C + oz, into);
  }
  if (permZ_) permute(*permZ_, scratchZ, Z, accumulate);
}

template class NodeKernel<float>;
template class NodeKernel<double>;
template class NodeKernel<bf16>;
template class NodeKernel<f16>;

}  // namespace einrt::program::detail
