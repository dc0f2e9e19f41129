#include "check.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

#include "buffer.h"
#include "einrt/model/program_model.h"
#include "index_kernel.h"
#include "micro_batches.h"
#include "mixed_types.h"
#include "node_kernel.h"

namespace einrt::program::detail {

namespace {

// Mixed precision (mixed_types.h): what node i of a bf16 program is, and an f32 tensor's
// element count and values.
template <class T>
bool wideTensor(const ProgramSpec<T>& spec, int t) {
  return spec.tensors[static_cast<std::size_t>(t)].otherFloatType(dtypeOf<T>());
}

// A widening contraction's operands for the references: their 2-byte values as f32 (exact),
// so its f32 kernels compute what the program's GEMM does, in f32 throughout.
template <class T>
std::vector<std::vector<float>> widenedOperands(const NodeTable& n, const std::vector<const T*>& operand) {
  std::vector<std::vector<float>> out;
  for (std::size_t k = 0; k < operand.size(); ++k) {
    const auto elements = static_cast<std::size_t>(model::blockElements(n.operandLabels[k], n.sizes));
    std::vector<float> values(elements);
    for (std::size_t e = 0; e < elements; ++e) values[e] = static_cast<float>(operand[k][e]);
    out.push_back(std::move(values));
  }
  return out;
}
template <class T>
std::size_t tensorBytes(const ProgramSpec<T>& spec, int t, int64_t elements) {
  return static_cast<std::size_t>(elements) * spec.tensors[static_cast<std::size_t>(t)].elementBytes(sizeof(T));
}

// A buffer of `shape` (row-major) whose element at index `at` is the tensor's (extents
// `bound`) at position(at, d) along each of its dimensions d, or the node's fill outside it.
template <class T, class Position>
std::vector<T> readThrough(const NodeTable& n, const std::vector<T>& tensor, const std::vector<int64_t>& bound,
                           const std::vector<int64_t>& shape, Position position) {
  int64_t elements = 1;
  for (int64_t e : shape) elements *= e;
  std::vector<T> out(static_cast<std::size_t>(elements), static_cast<T>(n.fill));
  std::vector<int64_t> at(shape.size(), 0);
  for (std::size_t e = 0; e < out.size(); ++e) {
    int64_t source = 0;
    bool inside = true;
    for (std::size_t d = 0; d < bound.size(); ++d) {
      const int64_t i = position(at, d);
      inside = inside && i >= 0 && i < bound[d];
      source = source * bound[d] + i;
    }
    if (inside) out[e] = tensor[static_cast<std::size_t>(source)];
    for (std::size_t d = at.size(); d-- > 0;) {
      if (++at[d] < shape[d]) break;
      at[d] = 0;
    }
  }
  return out;
}

// Operand k of node n as one call over the whole node reads it through its window (SPEC
// 8.1): the window's one block (the labels' sizes as extents, and a tap's halo), element i
// the tensor's at i + the block's origin.
template <class T>
std::vector<T> readWindow(const NodeTable& n, std::size_t k, const std::vector<T>& tensor) {
  const BlockGrid grid = model::operandGrid(n, std::vector<int64_t>(n.sizes.size(), 1), k);
  return readThrough(n, tensor, grid.bound, grid.blockShape(),
                     [&](const std::vector<int64_t>& at, std::size_t d) { return at[d] + grid.storageLo(d, 0); });
}

// Operand k of node n read through taps, steps or a spread (SPEC 8.1), unfolded for the
// plain reference: its labels' sizes and then each tap label's (appended to its labels),
// the element at (i, t) the tensor's at p = step * i + dilation * t + origin, or through a
// spread at p / spread where that divides (the fill elsewhere).
template <class T>
std::vector<T> readUnfolded(const NodeTable& n, std::size_t k, const std::vector<T>& tensor, std::vector<int>& labels) {
  labels = n.operandLabels[k];
  const std::size_t own = labels.size();
  std::vector<std::size_t> tapDim(own, SIZE_MAX);
  for (std::size_t d = 0; n.tapped(k) && d < own; ++d) {
    const int tap = n.operandTap[k][d];
    if (tap < 0) continue;
    auto at = std::find(labels.begin() + static_cast<std::ptrdiff_t>(own), labels.end(), tap);
    tapDim[d] = static_cast<std::size_t>(at - labels.begin());
    if (at == labels.end()) labels.push_back(tap);
  }
  std::vector<int64_t> shape;
  for (int l : labels) shape.push_back(n.sizes[static_cast<std::size_t>(l)]);
  return readThrough(n, tensor, n.operandBound[k], shape, [&](const std::vector<int64_t>& at, std::size_t d) -> int64_t {
    const int64_t step = n.stepped(k) ? n.operandStep[k][d] : 1, spread = n.spreadOut(k) ? n.operandSpread[k][d] : 1;
    int64_t p = step * at[d] + n.operandOrigin[k][d];
    if (tapDim[d] != SIZE_MAX) p += n.operandTapDilation[k][d] * at[tapDim[d]];
    if (spread > 1) return p % spread == 0 ? p / spread : -1;
    return p;
  });
}

// Nodes begin..end-1 over whole tensors, from `inputs` (graph inputs and any node
// outputs they read); every tensor's values after.
template <class T>
std::map<int, std::vector<T>> evaluateWhole(const ProgramSpec<T>& spec, const std::map<int, std::vector<T>>& inputs,
                                            std::size_t begin, std::size_t end, const DeviceOps* device, int threads) {
  std::map<int, Buffer<T>> values;
  for (const auto& [t, host] : inputs) {
    Buffer<T> b(host.size(), device, nullptr);
    b.fromHost(host.data());
    values.emplace(t, std::move(b));
  }
  for (std::size_t i = begin; i < end; ++i) {
    const NodeTable& n = spec.nodes[i];
    const int64_t elements = model::blockElements(n.outputLabels, n.sizes);
    Buffer<T> z = Buffer<T>::ofBytes(tensorBytes(spec, n.outputTensor, elements), device, nullptr);
    std::vector<Buffer<T>> windows(n.operandTensor.size());  // operands as read through a window
    std::vector<const T*> operand;
    for (std::size_t k = 0; k < n.operandTensor.size(); ++k) {
      const Buffer<T>& whole = values.at(n.operandTensor[k]);
      operand.push_back(whole.data());
      if (!n.windowed(k)) continue;
      std::vector<T> host(whole.size());
      whole.toHost(host.data());
      const std::vector<T> read = readWindow(n, k, host);
      windows[k] = Buffer<T>(read.size(), device, nullptr);
      windows[k].fromHost(read.data());
      operand[k] = windows[k].data();
    }
    const T* y = operand.size() > 1 ? operand[1] : nullptr;
    if (n.indexLabel >= 0) {
      const IndexKernel<T> index(n, spec.tensors.at(static_cast<std::size_t>(n.operandTensor[0])), n.sizes);
      index.run(values.at(n.operandTensor[0]).data(), y, z.data(), false, std::vector<int64_t>(n.sizes.size(), 0));
      values.emplace(n.outputTensor, std::move(z));
      continue;
    }
    if (spec.isCast(i, dtypeOf<T>())) {
      convertElements<T>(spec.tensors[static_cast<std::size_t>(n.operandTensor[0])].elementType(dtypeOf<T>()), operand[0],
                         spec.nodeType(i, dtypeOf<T>()), z.data(), elements);
    } else if (spec.isWidening(i, dtypeOf<T>())) {
      // (The loader gives a widening contraction no window: its operands are the tensors.)
      std::vector<T> host[2];
      std::vector<const T*> onHost;
      for (std::size_t k = 0; k < 2; ++k) {
        host[k].resize(values.at(n.operandTensor[k]).size());
        values.at(n.operandTensor[k]).toHost(host[k].data());
        onHost.push_back(host[k].data());
      }
      const std::vector<std::vector<float>> wide = widenedOperands(n, onHost);
      Buffer<float> x(wide[0].size(), device, nullptr), yw(wide[1].size(), device, nullptr), zw(z.size() * sizeof(T) / sizeof(float), device, nullptr);
      x.fromHost(wide[0].data());
      yw.fromHost(wide[1].data());
      NodeKernel<float> kernel(n, spec.wideKernels.at(i), n.sizes, device, threads, spec.parallelFor, nullptr);
      kernel.acquire();
      kernel.run(x.data(), yw.data(), zw.data(), false);
      std::vector<float> result(zw.size());
      zw.toHost(result.data());
      const std::vector<T> packed = packFloats<T>(result);
      z.fromHost(packed.data());
    } else if (wideTensor(spec, n.outputTensor)) {
      NodeKernel<float> kernel(n, spec.wideKernels.at(i), n.sizes, device, threads, spec.parallelFor, nullptr);
      kernel.acquire();
      kernel.run(reinterpret_cast<const float*>(operand[0]), reinterpret_cast<const float*>(y), reinterpret_cast<float*>(z.data()),
                 false);
    } else {
      NodeKernel<T> kernel(n, spec.kernels.at(i), n.sizes, device, threads, spec.parallelFor, nullptr);
      kernel.acquire();
      kernel.run(operand[0], y, z.data(), false);
    }
    values.emplace(n.outputTensor, std::move(z));
  }
  if (device) device->synchronize();
  std::map<int, std::vector<T>> out;  // every tensor: outputs, and operands for termScale
  for (auto& [t, buffer] : values) {
    std::vector<T> host(buffer.size());
    buffer.toHost(host.data());
    out.emplace(t, std::move(host));
  }
  return out;
}

template <class T>
double largestMagnitude(const std::vector<T>& values) {
  double m = 0;
  for (const T v : values) {
    const double a = std::fabs(static_cast<double>(static_cast<Compute<T>>(v)));
    if (std::isfinite(a)) m = std::max(m, a);
  }
  return m;
}

template <class T>
double largestMagnitude(const ProgramSpec<T>& spec, int t, const std::vector<T>& values) {
  if (!wideTensor(spec, t)) return largestMagnitude(values);
  return largestMagnitude(unpackFloats(values, values.size() * sizeof(T) / sizeof(float)));
}

// The largest term a contraction's output sums (the product of its operands' largest
// magnitudes): where the terms cancel (a gradient that is zero in exact arithmetic, such
// as a key bias's under softmax), the rounding error scales with the terms, not with the
// result, and the tolerance is taken relative to the larger of the two.
template <class T>
double termScale(const ProgramSpec<T>& spec, int tensor, const std::map<int, std::vector<T>>& whole) {
  const int producer = spec.tensors[static_cast<std::size_t>(tensor)].producer;
  if (producer < 0) return 0;
  const NodeTable& n = spec.nodes[static_cast<std::size_t>(producer)];
  if (!n.contraction || n.reductionLength <= 1) return 0;
  double scale = n.gemm ? std::fabs(n.gemm->alpha) : 1.0;
  for (int t : n.operandTensor) scale *= largestMagnitude(spec, t, whole.at(t));
  return scale;
}

template <class T>
std::map<int, std::vector<T>> evaluatePlain(const ProgramSpec<T>& spec, const std::map<int, std::vector<T>>& inputs,
                                            std::size_t begin, std::size_t end) {
  std::map<int, std::vector<T>> values = inputs;
  for (std::size_t i = begin; i < end; ++i) {
    const NodeTable& n = spec.nodes[i];
    const int64_t elements = model::blockElements(n.outputLabels, n.sizes);
    std::vector<T> z((tensorBytes(spec, n.outputTensor, elements) + sizeof(T) - 1) / sizeof(T));
    std::vector<std::vector<T>> windows(n.operandTensor.size());  // operands as read through a window
    std::vector<std::vector<int>> labels = n.operandLabels;        // a tapped one's unfolded labels
    std::vector<const T*> operand;
    for (std::size_t k = 0; k < n.operandTensor.size(); ++k) {
      if (n.reshaped(k)) windows[k] = readUnfolded(n, k, values.at(n.operandTensor[k]), labels[k]);
      else if (n.windowed(k)) windows[k] = readWindow(n, k, values.at(n.operandTensor[k]));
      operand.push_back(n.windowed(k) ? windows[k].data() : values.at(n.operandTensor[k]).data());
    }
    const T* y = operand.size() > 1 ? operand[1] : nullptr;
    if (n.indexLabel >= 0) {
      const TensorSpec& ids = spec.tensors.at(static_cast<std::size_t>(n.operandTensor[0]));
      plainIndex(n, ids.indexType.value_or(DType::I64), values.at(n.operandTensor[0]).data(), y, z.data());
      values[n.outputTensor] = std::move(z);
      continue;
    }
    if (spec.isCast(i, dtypeOf<T>()))
      convertElements<T>(spec.tensors[static_cast<std::size_t>(n.operandTensor[0])].elementType(dtypeOf<T>()), operand[0],
                         spec.nodeType(i, dtypeOf<T>()), z.data(), elements);
    else if (spec.isWidening(i, dtypeOf<T>())) {
      const std::vector<std::vector<float>> wide = widenedOperands(n, operand);
      spec.wideKernels.at(i).plain(n.sizes, labels, n.outputLabels, wide[0].data(), wide[1].data(), reinterpret_cast<float*>(z.data()));
    } else if (wideTensor(spec, n.outputTensor))
      spec.wideKernels.at(i).plain(n.sizes, labels, n.outputLabels, reinterpret_cast<const float*>(operand[0]),
                                   reinterpret_cast<const float*>(y), reinterpret_cast<float*>(z.data()));
    else spec.kernels.at(i).plain(n.sizes, labels, n.outputLabels, operand[0], y, z.data());
    values[n.outputTensor] = std::move(z);
  }
  return values;
}

// The step as the program runs it (einrt/model/program_model.h), by `evaluate(values,
// begin, end)`: the body once per micro-batch over its slice of the split inputs (from
// the whole step's `inputs`), the accumulated nodes' results summed in their own type
// (micro_batches.h's addInto, in micro-batch order), then the nodes run once per step.
// Every tensor's values after: the sums, and the rest of the body's from the last
// micro-batch.
template <class T, class Evaluate>
std::map<int, std::vector<T>> evaluateStep(const ProgramSpec<T>& spec, const std::map<int, std::vector<T>>& inputs,
                                           Evaluate evaluate) {
  if (spec.microBatches <= 1) return evaluate(inputs, 0, spec.nodes.size());
  const std::size_t body = model::bodyEnd(spec);
  std::map<int, std::vector<T>> sums, last;
  for (int64_t m = 0; m < spec.microBatches; ++m) {
    std::map<int, std::vector<T>> slice = inputs;
    for (auto& [t, values] : slice)
      if (spec.tensors[static_cast<std::size_t>(t)].splitDimension >= 0)
        values = microBatchSlice(spec.tensors[static_cast<std::size_t>(t)], inputs.at(t), spec.microBatches, m);
    last = evaluate(slice, 0, body);
    for (std::size_t i = 0; i < body; ++i) {
      const NodeTable& n = spec.nodes[i];
      if (!n.accumulated) continue;
      const auto [sum, first] = sums.emplace(n.outputTensor, last.at(n.outputTensor));
      if (!first)
        addInto<T>(spec.nodeType(i, dtypeOf<T>()), last.at(n.outputTensor).data(), sum->second.data(),
                   model::blockElements(n.outputLabels, n.sizes));
    }
  }
  // The once-per-step nodes read the sums, the whole step's inputs, and body nodes whose
  // value is the same in every micro-batch (the last one's).
  std::map<int, std::vector<T>> once = last;
  for (const auto& [t, values] : inputs) once[t] = values;
  for (auto& [t, values] : sums) once[t] = values;
  std::map<int, std::vector<T>> out = evaluate(once, body, spec.nodes.size());
  for (auto& [t, values] : last) out.emplace(t, std::move(values));  // kept where out has the sum
  return out;
}

}  // namespace

// Infinities are values: the same infinity in the same place matches (the "no edge" of a
// min-plus graph), anything else there fails; a NaN fails where the reference holds none,
// and the finite elements are held to the tolerance.
template <class T>
void compareOutput(const std::string& name, const std::vector<T>& got, const std::vector<T>& want, double tolerance,
                   const char* reference, CheckReport& r, double termScale) {
  double scale = termScale, maxAbs = 0;
  std::size_t mismatched = 0, first = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double w = static_cast<Compute<T>>(want[i]), g = static_cast<Compute<T>>(got[i]);
    const bool special = std::isnan(w) || std::isnan(g) || std::isinf(w) || std::isinf(g);
    if (special) {
      const bool same = (std::isnan(w) && std::isnan(g)) || (!std::isnan(w) && !std::isnan(g) && w == g);
      if (!same && mismatched++ == 0) first = i;
      continue;
    }
    scale = std::max(scale, std::fabs(w));
    maxAbs = std::max(maxAbs, std::fabs(w - g));
  }
  if (mismatched) {
    std::fprintf(stderr, "check: %s differs from the %s reference in %zu NaN/Inf place%s (the first at flat index %zu: %g, the reference %g)\n",
                 name.c_str(), reference, mismatched, mismatched == 1 ? "" : "s", first, static_cast<double>(static_cast<Compute<T>>(got[first])),
                 static_cast<double>(static_cast<Compute<T>>(want[first])));
    r.passed = false;
  }
  const double rel = maxAbs == 0 ? 0.0 : maxAbs / std::max(scale, std::numeric_limits<double>::min());
  r.maxAbsErr = std::max(r.maxAbsErr, maxAbs);
  r.maxRelErr = std::max(r.maxRelErr, rel);
  r.tolerance = std::max(r.tolerance, tolerance);
  if (rel > tolerance) {
    std::fprintf(stderr, "check: %s differs from the %s reference: max_abs_err %.3g, max_rel_err %.3g > tolerance %.3g\n",
                 name.c_str(), reference, maxAbs, rel, tolerance);
    r.passed = false;
  }
}

template <class T>
double checkTolerance(const ProgramSpec<T>& spec, int tensor) {
  // Per tensor, along the worst path from the inputs: the sum of reduction lengths (the
  // compute type's roundings) and the number of nodes (the storage type's roundings).
  std::vector<double> length(spec.tensors.size(), 0.0), depth(spec.tensors.size(), 0.0);
  for (const NodeTable& n : spec.nodes) {
    double longest = 0, deepest = 0;
    for (int t : n.operandTensor) {
      longest = std::max(longest, length[static_cast<std::size_t>(t)]);
      deepest = std::max(deepest, depth[static_cast<std::size_t>(t)]);
    }
    // An accumulated node's sum over the micro-batches rounds once per micro-batch more.
    const double sums = n.accumulated ? static_cast<double>(std::max<int64_t>(1, spec.microBatches) - 1) : 0.0;
    length[static_cast<std::size_t>(n.outputTensor)] = longest + static_cast<double>(std::max<int64_t>(1, n.reductionLength)) + sums;
    depth[static_cast<std::size_t>(n.outputTensor)] = deepest + 1 + sums;
  }
  const auto t = static_cast<std::size_t>(tensor);
  const double computeEps = std::numeric_limits<Compute<T>>::epsilon();
  if constexpr (!kIsTwoByte<T>) return 2.0 * computeEps * std::max(1.0, length[t]);
  else return 2.0 * (computeEps * std::max(1.0, length[t]) + dtypeEpsilon(dtypeOf<T>()) * std::max(1.0, depth[t]));
}

template <class T>
CheckReport checkOutputs(const ProgramSpec<T>& spec, const std::map<int, std::vector<T>>& inputs,
                         const std::map<int, std::vector<T>>& outputs, const DeviceOps* device, int threads) {
  CheckReport r;
  r.ran = true;
  const std::map<int, std::vector<T>> whole =
      evaluateStep(spec, inputs, [&](const std::map<int, std::vector<T>>& values, std::size_t begin, std::size_t end) {
        return evaluateWhole(spec, values, begin, end, device, threads);
      });
  const bool plain = spec.flops <= kPlainReferenceFlops;
  std::map<int, std::vector<T>> loops;
  if (plain)
    loops = evaluateStep(spec, inputs, [&](const std::map<int, std::vector<T>>& values, std::size_t begin, std::size_t end) {
      return evaluatePlain(spec, values, begin, end);
    });
  r.reference = plain ? "whole-tensor kernels and plain loops" : "whole-tensor kernels";
  for (const auto& [t, got] : outputs) {
    const std::string& name = spec.tensors[static_cast<std::size_t>(t)].name;
    const double tolerance = checkTolerance(spec, t), terms = termScale(spec, t, whole);
    if (wideTensor(spec, t)) {  // an f32 output of a bf16 program: compared as f32 values
      const std::size_t n = got.size() * sizeof(T) / sizeof(float);
      const std::vector<float> mine = unpackFloats(got, n);
      compareOutput(name, mine, unpackFloats(whole.at(t), n), tolerance, "whole-tensor", r, terms);
      if (plain) compareOutput(name, mine, unpackFloats(loops.at(t), n), tolerance, "plain-loop", r, terms);
      continue;
    }
    compareOutput(name, got, whole.at(t), tolerance, "whole-tensor", r, terms);
    if (plain) compareOutput(name, got, loops.at(t), tolerance, "plain-loop", r, terms);
  }
  return r;
}

template CheckReport checkOutputs<float>(const ProgramSpec<float>&, const std::map<int, std::vector<float>>&,
                                         const std::map<int, std::vector<float>>&, const DeviceOps*, int);
template CheckReport checkOutputs<double>(const ProgramSpec<double>&, const std::map<int, std::vector<double>>&,
                                          const std::map<int, std::vector<double>>&, const DeviceOps*, int);
template double checkTolerance<float>(const ProgramSpec<float>&, int);
template void compareOutput<float>(const std::string&, const std::vector<float>&, const std::vector<float>&, double, const char*,
                                   CheckReport&, double);
template void compareOutput<double>(const std::string&, const std::vector<double>&, const std::vector<double>&, double,
                                    const char*, CheckReport&, double);
template double checkTolerance<double>(const ProgramSpec<double>&, int);
template CheckReport checkOutputs<bf16>(const ProgramSpec<bf16>&, const std::map<int, std::vector<bf16>>&,
                                        const std::map<int, std::vector<bf16>>&, const DeviceOps*, int);
template CheckReport checkOutputs<f16>(const ProgramSpec<f16>&, const std::map<int, std::vector<f16>>&,
                                       const std::map<int, std::vector<f16>>&, const DeviceOps*, int);
template double checkTolerance<bf16>(const ProgramSpec<bf16>&, int);
template double checkTolerance<f16>(const ProgramSpec<f16>&, int);

}  // namespace einrt::program::detail
