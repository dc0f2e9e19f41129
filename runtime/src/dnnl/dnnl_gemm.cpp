#include "einrt/program/dnnl_gemm.h"

#include <omp.h>

#include <map>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <tuple>

#include "einrt/program/gemm.h"

namespace einrt::program {

namespace {

// Everything a primitive is specialized for; primitives are made once per shape (making
// one runs oneDNN's JIT: milliseconds) and reused by every later call.
using Key = std::tuple<int, int, bool, bool, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, float, float, int>;

struct Prepared {
  bool supported = false;
  dnnl::matmul primitive;
  dnnl::memory::desc a, b, c;
};

struct Engine {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  std::mutex mutex;
  std::map<Key, std::shared_ptr<Prepared>> cache;
};

Engine& engine() {
  static Engine e;
  return e;
}

std::shared_ptr<Prepared> prepare(const GemmCall& g, DType dtype, DType resultType, float alpha, float beta) {
  using dims = dnnl::memory::dims;
  const auto dt = dtype == DType::BF16 ? dnnl::memory::data_type::bf16 : dnnl::memory::data_type::f16;
  // A widening contraction's result is f32 (oneDNN's matmul takes bf16 or f16 sources
  // into an f32 destination, accumulating in f32 as it always does).
  const auto dtC = resultType == DType::F32 ? dnnl::memory::data_type::f32 : dt;
  auto p = std::make_shared<Prepared>();
  // Row-major operands as 3-d (batch, rows, cols) descriptors with explicit strides: a
  // transposed operand is the same memory read with its two strides swapped.
  // A single batch's stride is the matrix's own extent: a zero there sends oneDNN to its
  // reference kernel (a thousand times slower, measured).
  const int64_t sa = g.batch == 1 ? (g.transA ? g.k : g.m) * g.lda : g.strideA;
  const int64_t sb = g.batch == 1 ? (g.transB ? g.n : g.k) * g.ldb : g.strideB;
  const int64_t sc = g.batch == 1 ? g.m * g.ldc : g.strideC;
  p->a = dnnl::memory::desc(dims{g.batch, g.m, g.k}, dt, g.transA ? dims{sa, 1, g.lda} : dims{sa, g.lda, 1});
  p->b = dnnl::memory::desc(dims{g.batch, g.k, g.n}, dt, g.transB ? dims{sb, 1, g.ldb} : dims{sb, g.ldb, 1});
  p->c = dnnl::memory::desc(dims{g.batch, g.m, g.n}, dtC, dims{sc, g.ldc, 1});
  dnnl::primitive_attr attr;
  if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
  if (beta != 0.0f) {
    dnnl::post_ops ops;
    ops.append_sum(beta);
    attr.set_post_ops(ops);
  }
  try {
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(p->a, p->b, p->c), attr, engine().engine);
    p->primitive = dnnl::matmul(pd);
    p->supported = true;
  } catch (const dnnl::error&) {
    p->supported = false;  // no kernel for this type on this processor: the f32 way
  }
  return p;
}

bool oneDnnGemm(const GemmCall& g, DType dtype, DType resultType, const void* A, const void* B, void* C, float alpha,
                float beta) {
  if (!isTwoByte(dtype) || (resultType != dtype && resultType != DType::F32)) return false;
  const int threads = gemmThreads();
  const Key key{static_cast<int>(dtype), static_cast<int>(resultType), g.transA, g.transB, g.m, g.n, g.k, g.lda, g.ldb, g.ldc, g.batch, g.strideA,
                g.strideB, g.strideC, alpha, beta, threads};
  Engine& e = engine();
  std::shared_ptr<Prepared> p;
  {
    std::lock_guard<std::mutex> lock(e.mutex);
    auto it = e.cache.find(key);
    if (it == e.cache.end()) {
      // oneDNN's OpenMP runtime sizes its parallel regions by this thread's ICV.
      omp_set_num_threads(threads);
      it = e.cache.emplace(key, prepare(g, dtype, resultType, alpha, beta)).first;
    }
    p = it->second;
  }
  if (!p->supported) return false;
  omp_set_num_threads(threads);
  dnnl::memory a(p->a, e.engine, const_cast<void*>(A)), b(p->b, e.engine, const_cast<void*>(B)), c(p->c, e.engine, C);
  p->primitive.execute(e.stream, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
  e.stream.wait();
  return true;
}

}  // namespace

void useOneDnnGemm() {
  setLowPrecisionGemm(&oneDnnGemm, "onednn");
  useOneDnnConvolution();
}

}  // namespace einrt::program
