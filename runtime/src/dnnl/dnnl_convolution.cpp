// oneDNN's convolution primitive as einrt's convolution provider (program/convolution.h):
// f32, bf16 and f16 images in the strides of their block buffers. The primitive is made
// for the layouts oneDNN prefers (its blocked formats run its JIT kernels; the plain
// strides send it to im2col and a GEMM: 68 against 86 GFLOP/s measured, 128 channels at
// 28 x 28, one thread of an EPYC with AVX2), and the image, the
// kernel and the result are reordered into and out of them around each call, in buffers
// kept with the primitive (oneDNN's memory, like the BLAS's own: the program's counters
// count its einrt buffers).
#include "einrt/program/dnnl_gemm.h"

#include <omp.h>

#include <map>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

#include "einrt/program/convolution.h"
#include "einrt/program/gemm.h"

namespace einrt::program {

namespace {

struct Prepared {
  bool supported = false;
  dnnl::convolution_forward primitive;
  dnnl::memory::desc image, kernel, result;  // the call's own layouts
  dnnl::memory imageIn, kernelIn, resultIn;  // oneDNN's, where they differ (else empty)
  dnnl::reorder toImage, toKernel, toResult, fromResult;
  std::mutex mutex;                           // one call at a time uses the buffers
};

struct Engine {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  std::mutex mutex;
  std::map<std::vector<int64_t>, std::shared_ptr<Prepared>> cache;
};

Engine& engine() {
  static Engine e;
  return e;
}

dnnl::memory::data_type dataType(DType dtype) {
  switch (dtype) {
    case DType::BF16: return dnnl::memory::data_type::bf16;
    case DType::F16: return dnnl::memory::data_type::f16;
    default: return dnnl::memory::data_type::f32;
  }
}

std::shared_ptr<Prepared> prepare(const ConvolutionCall& c, DType dtype, bool accumulate) {
  using dims = dnnl::memory::dims;
  const int s = c.spatial;
  auto shape = [&](int64_t a, int64_t b, const int64_t* spatial) {
    dims d{a, b};
    for (int i = 0; i < s; ++i) d.push_back(spatial[i]);
    return d;
  };
  auto strides = [&](const int64_t* st) { return dims(st, st + 2 + s); };
  const auto dt = dataType(dtype);
  auto p = std::make_shared<Prepared>();
  p->image = dnnl::memory::desc(shape(c.batch, c.groups * c.inChannels, c.in), dt, strides(c.imageStride));
  p->result = dnnl::memory::desc(shape(c.batch, c.groups * c.outChannels, c.out), dt, strides(c.resultStride));
  if (c.groups == 1) {
    p->kernel = dnnl::memory::desc(shape(c.outChannels, c.inChannels, c.kernel), dt, strides(c.kernelStride));
  } else {  // oneDNN's grouped weights: [groups, out, in, k...]
    dims d = shape(c.outChannels, c.inChannels, c.kernel), st = strides(c.kernelStride);
    d.insert(d.begin(), c.groups);
    st.insert(st.begin(), c.kernelGroupStride);
    p->kernel = dnnl::memory::desc(d, dt, st);
  }
  const auto any = dnnl::memory::format_tag::any;
  dims convStrides(c.stride, c.stride + s), zeros(static_cast<std::size_t>(s), 0), dilates;
  for (int i = 0; i < s; ++i) dilates.push_back(c.dilation[i] - 1);  // oneDNN counts the gaps
  dnnl::primitive_attr attr;
  if (accumulate) {
    dnnl::post_ops ops;
    ops.append_sum(1.0f);
    attr.set_post_ops(ops);
  }
  try {
    Engine& e = engine();
    const dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, dnnl::memory::desc(p->image.dims(), dt, any),
        dnnl::memory::desc(p->kernel.dims(), dt, any), dnnl::memory::desc(p->result.dims(), dt, any), convStrides, dilates, zeros,
        zeros);
    const dnnl::convolution_forward::primitive_desc pd(desc, attr, e.engine);
    p->primitive = dnnl::convolution_forward(pd);
    if (pd.src_desc() != p->image) {
      p->imageIn = dnnl::memory(pd.src_desc(), e.engine);
      p->toImage = dnnl::reorder(dnnl::memory(p->image, e.engine, nullptr), p->imageIn);
    }
    if (pd.weights_desc() != p->kernel) {
      p->kernelIn = dnnl::memory(pd.weights_desc(), e.engine);
      p->toKernel = dnnl::reorder(dnnl::memory(p->kernel, e.engine, nullptr), p->kernelIn);
    }
    if (pd.dst_desc() != p->result) {
      p->resultIn = dnnl::memory(pd.dst_desc(), e.engine);
      if (accumulate) p->toResult = dnnl::reorder(dnnl::memory(p->result, e.engine, nullptr), p->resultIn);
      p->fromResult = dnnl::reorder(p->resultIn, dnnl::memory(p->result, e.engine, nullptr));
    }
    p->supported = true;
  } catch (const dnnl::error&) {
    p->supported = false;  // no kernel for this type or shape here: the node's loops
  }
  return p;
}

bool oneDnnConvolution(const ConvolutionCall& c, DType dtype, const void* image, const void* kernel, void* result,
                       bool accumulate) {
  if (dtype != DType::F32 && dtype != DType::BF16 && dtype != DType::F16) return false;
  const int threads = gemmThreads();
  std::vector<int64_t> key{static_cast<int64_t>(dtype), accumulate, threads, c.spatial, c.batch, c.inChannels, c.outChannels,
                           c.groups, c.kernelGroupStride};
  for (int i = 0; i < 3; ++i) key.insert(key.end(), {c.in[i], c.kernel[i], c.out[i], c.dilation[i], c.stride[i]});
  for (int i = 0; i < 5; ++i) key.insert(key.end(), {c.imageStride[i], c.kernelStride[i], c.resultStride[i]});
  Engine& e = engine();
  std::shared_ptr<Prepared> p;
  {
    std::lock_guard<std::mutex> lock(e.mutex);
    auto it = e.cache.find(key);
    if (it == e.cache.end()) {
      omp_set_num_threads(threads);  // oneDNN's OpenMP runtime sizes its regions by this
      it = e.cache.emplace(key, prepare(c, dtype, accumulate)).first;
    }
    p = it->second;
  }
  if (!p->supported) return false;
  std::lock_guard<std::mutex> lock(p->mutex);
  omp_set_num_threads(threads);
  dnnl::memory im(p->image, e.engine, const_cast<void*>(image)), ke(p->kernel, e.engine, const_cast<void*>(kernel)),
      re(p->result, e.engine, result);
  const dnnl::memory src = p->imageIn ? p->imageIn : im, weights = p->kernelIn ? p->kernelIn : ke,
                     dst = p->resultIn ? p->resultIn : re;
  if (p->imageIn) p->toImage.execute(e.stream, im, p->imageIn);
  if (p->kernelIn) p->toKernel.execute(e.stream, ke, p->kernelIn);
  if (p->resultIn && accumulate) p->toResult.execute(e.stream, re, p->resultIn);
  p->primitive.execute(e.stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}});
  if (p->resultIn) p->fromResult.execute(e.stream, p->resultIn, re);
  e.stream.wait();
  return true;
}

}  // namespace

void useOneDnnConvolution() { setConvolution(&oneDnnConvolution, "onednn"); }

}  // namespace einrt::program
