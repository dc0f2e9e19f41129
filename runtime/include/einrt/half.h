// The 2-byte storage types (SPEC 8): bf16 (bfloat16: f32's sign and exponent, 7 fraction
// bits) and f16 (IEEE binary16). A value is its bits; reading one converts to f32 exactly,
// storing an f32 rounds to nearest even, once. NaN stays NaN (quiet), infinities and
// overflow become infinities, f16's subnormals are kept. The conversions are plain
// integer arithmetic without branches on data, so loops over them vectorize on the host
// and compile unchanged for CUDA devices (EINRT_HD). Kernels use `Compute<T>` for their
// arithmetic: f32 for the storage types, the type itself otherwise.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "einrt/types.h"

#if defined(__CUDACC__)
#define EINRT_HALF_HD __host__ __device__
#else
#define EINRT_HALF_HD
#endif

namespace einrt {

namespace half_detail {

EINRT_HALF_HD inline uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
EINRT_HALF_HD inline float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

EINRT_HALF_HD inline uint16_t bf16Bits(float f) {
  const uint32_t u = bitsOf(f);
  const bool nan = (u & 0x7fffffffu) > 0x7f800000u;
  // Round to nearest even on the 16 dropped bits; a carry into the exponent is right
  // (the largest finite values round up to infinity).
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  return static_cast<uint16_t>(nan ? ((u >> 16) | 0x40u) : rounded);
}

EINRT_HALF_HD inline float bf16Value(uint16_t b) { return floatOf(static_cast<uint32_t>(b) << 16); }

// binary16: 1 sign, 5 exponent (bias 15), 10 fraction bits.
EINRT_HALF_HD inline uint16_t f16Bits(float f) {
  const uint32_t u = bitsOf(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x3ffu));  // NaN
  if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65520: infinity
  if (a < 0x38800000u) {
    // Below f16's smallest normal (2^-14): a subnormal, the value in units of 2^-24,
    // rounded to nearest even by adding and subtracting 2^-14's magic (0.5 in those units).
    const float magic = floatOf(0x3f000000u);  // 0.5: its ulp is 2^-24
    const float r = floatOf(a) + magic;
    return static_cast<uint16_t>(sign | (bitsOf(r) - 0x3f000000u));
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped bits to nearest even.
  const uint32_t m = a - 0x38000000u;
  return static_cast<uint16_t>(sign | ((m + 0xfffu + ((m >> 13) & 1u)) >> 13));
}

EINRT_HALF_HD inline float f16Value(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu, frac = h & 0x3ffu;
  if (e == 0x1f) return floatOf(sign | 0x7f800000u | (frac << 13));  // inf, NaN
  if (e == 0) {
    // Zero or subnormal: frac * 2^-24, exact in f32.
    const float v = static_cast<float>(frac) * floatOf(0x33800000u);
    return floatOf(sign | bitsOf(v));
  }
  return floatOf(sign | ((e + 112u) << 23) | (frac << 13));
}

}  // namespace half_detail

struct bf16 {
  uint16_t bits = 0;
  bf16() = default;
  EINRT_HALF_HD explicit bf16(float f) : bits(half_detail::bf16Bits(f)) {}
  EINRT_HALF_HD explicit bf16(double d) : bf16(static_cast<float>(d)) {}
  EINRT_HALF_HD explicit bf16(int i) : bf16(static_cast<float>(i)) {}
  EINRT_HALF_HD operator float() const { return half_detail::bf16Value(bits); }
};

struct f16 {
  uint16_t bits = 0;
  f16() = default;
  EINRT_HALF_HD explicit f16(float f) : bits(half_detail::f16Bits(f)) {}
  EINRT_HALF_HD explicit f16(double d) : f16(static_cast<float>(d)) {}
  EINRT_HALF_HD explicit f16(int i) : f16(static_cast<float>(i)) {}
  EINRT_HALF_HD operator float() const { return half_detail::f16Value(bits); }
};

static_assert(sizeof(bf16) == 2 && sizeof(f16) == 2 && std::is_trivially_copyable_v<bf16>);

// Element i of p in the compute type, and a compute value rounded into element i: kernels
// read and write 2-byte storage through these, as bits, so that no bf16/f16 object is
// made in a loop (GCC's `omp simd` privatizes such temporaries into arrays and then does
// not vectorize the loop).
template <class T>
EINRT_HALF_HD inline auto loadElement(const T* p, int64_t i) {
  if constexpr (std::is_same_v<T, bf16>) return half_detail::bf16Value(reinterpret_cast<const uint16_t*>(p)[i]);
  else if constexpr (std::is_same_v<T, f16>) return half_detail::f16Value(reinterpret_cast<const uint16_t*>(p)[i]);
  else return p[i];
}
template <class T, class V>
EINRT_HALF_HD inline void storeElement(T* p, int64_t i, V v) {
  if constexpr (std::is_same_v<T, bf16>) reinterpret_cast<uint16_t*>(p)[i] = half_detail::bf16Bits(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, f16>) reinterpret_cast<uint16_t*>(p)[i] = half_detail::f16Bits(static_cast<float>(v));
  else p[i] = static_cast<T>(v);
}

// The arithmetic type of kernels over storage type T.
template <class T>
using Compute = std::conditional_t<std::is_same_v<T, bf16> || std::is_same_v<T, f16>, float, T>;

template <class T>
inline constexpr bool kIsTwoByte = std::is_same_v<T, bf16> || std::is_same_v<T, f16>;

// The DType of a C++ element type.
template <class T>
constexpr DType dtypeOf() {
  if constexpr (std::is_same_v<T, double>) return DType::F64;
  else if constexpr (std::is_same_v<T, bf16>) return DType::BF16;
  else if constexpr (std::is_same_v<T, f16>) return DType::F16;
  else return DType::F32;
}

// Calls f(T{}) with the C++ element type of `t` (float, double, bf16, f16): one switch
// where code that moves untyped bytes needs the type.
template <class F>
decltype(auto) withElementType(DType t, F&& f) {
  switch (t) {
    case DType::F64: return f(double{});
    case DType::BF16: return f(bf16{});
    case DType::F16: return f(f16{});
    case DType::I32: return f(int32_t{});
    case DType::I64: return f(int64_t{});
    case DType::F32: break;
  }
  return f(float{});
}

}  // namespace einrt
