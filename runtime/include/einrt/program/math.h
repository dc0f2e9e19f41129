// The scalar functions a node's join may call (SPEC 1), for the emitted functors: one
// template per function of einrt's list (einrt/model/scalar_functions.h, which names
// them; checked at compile time below), plus infinity() for the constant inf and the
// max/min aggregations' identities.
//
// Vector math. The elementwise loops are `#pragma omp simd` loops over these functors;
// a call to a libm function vectorizes only where the compiler knows a vector variant.
// Where the program is built with a vector math library (einrt_add_program defines
// EINRT_VECTOR_MATH and links it: SLEEF's GNU-ABI library, docs/codegen.md), the libm
// functions the table uses are declared `omp declare simd` below, so GCC calls their
// vector variants (_ZGVdN8v_logf: AVX2, 8 lanes; _ZGVeN16v_logf: AVX-512) by the x86 vector
// function ABI, whichever instruction set the build targets (-march=native: the machine's
// own, AVX-512 where it has it). The float exp (and sigmoid, built on it) is computed here
// with or without one, inline so that its loops vectorize without a call: range reduction
// to |r| <= ln2/2, a degree-5 minimax polynomial (within 1 ulp of exp in double for every
// float, as SLEEF's expf, and a fifth to a third less time per element in cache here,
// bench/RESULTS.md), the power of two added to the exponent field; NaN propagates,
// overflow gives infinity, results below the smallest normal flush to 0. The double exp
// is the library's, else a degree-13 Taylor polynomial here (under 2 ulp). Without a
// library, log, tanh, erf, pow, sin and cos stay scalar libm calls.
// sqrt vectorizes with -fno-math-errno, which the emitted build sets. Under nvcc the
// device versions are CUDA's.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "einrt/model/scalar_functions.h"

#if defined(__CUDACC__)
#define EINRT_HD __host__ __device__
#else
#define EINRT_HD
#endif

#if defined(EINRT_VECTOR_MATH) && !defined(__CUDACC__)
// Vector variants of these exist in the linked vector math library (see above; the
// float exp is einrt's own, so expf is not among them).
extern "C" {
#pragma omp declare simd notinbranch
double exp(double) noexcept;
#pragma omp declare simd notinbranch
float logf(float) noexcept;
#pragma omp declare simd notinbranch
double log(double) noexcept;
#pragma omp declare simd notinbranch
float tanhf(float) noexcept;
#pragma omp declare simd notinbranch
double tanh(double) noexcept;
#pragma omp declare simd notinbranch
float erff(float) noexcept;
#pragma omp declare simd notinbranch
double erf(double) noexcept;
#pragma omp declare simd notinbranch
float sinf(float) noexcept;
#pragma omp declare simd notinbranch
double sin(double) noexcept;
#pragma omp declare simd notinbranch
float cosf(float) noexcept;
#pragma omp declare simd notinbranch
double cos(double) noexcept;
#pragma omp declare simd notinbranch
float powf(float, float) noexcept;
#pragma omp declare simd notinbranch
double pow(double, double) noexcept;
}
#endif

namespace einrt::program {

namespace math_detail {

template <class T>
inline T hostExp(T x) {
  if constexpr (sizeof(T) == 4) {
    constexpr float kLog2e = 1.44269504088896341f, kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
    constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
    // ln of the largest float and of the smallest normal one.
    constexpr float kHigh = 88.7228391f, kLow = -87.3365447f;
    // No clamping of x before the reduction: x outside [kLow, kHigh) or NaN computes
    // garbage that the three selects at the end replace, in defined arithmetic (n's
    // bits are read from t, no float-to-int conversion). Clamping first, as this did
    // until 2026-11-26, compiled to four compares and three blends more per vector: the
    // loop ran 25-30 % longer in cache, with bit-identical results over every float.
    const float t = x * kLog2e + kRound;  // kRound + n: n sits in t's low mantissa bits
    const float n = t - kRound;
    const float r = (x - n * kLn2Hi) - n * kLn2Lo;
    // e^r on |r| <= ln2/2 as 1 + r + r^2 q(r), q a degree-5 minimax fit (Cephes' expf
    // coefficients): at most 1 ulp against exp in double over every float (tests/runtime).
    const float q = ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r + 4.1665795894e-2f) * r +
                     1.6666665459e-1f) * r + 5.0000001201e-1f;
    const float p = q * (r * r) + r + 1.0f;
    // Times 2^n by adding n to the exponent field: t's bits are kRound's plus n, and
    // kRound's own shift out, so t's bits shifted by 23 are n << 23 (mod 2^32). For x in
    // [kLow, kHigh), p lies in [0.7, 1.42] and n reaches 128 only where p is below 1, so
    // the sum is a normal float.
    uint32_t bits, nBits;
    std::memcpy(&bits, &p, sizeof bits);
    std::memcpy(&nBits, &t, sizeof nBits);
    bits += nBits << 23;
    float y;
    std::memcpy(&y, &bits, sizeof y);
    y = x < kHigh ? y : std::numeric_limits<float>::infinity();
    y = x != x ? x : y;
    return x < kLow ? 0.0f : y;  // below the smallest normal result: flushed to 0
  } else {
    constexpr double kLog2e = 1.4426950408889634074, kLn2Hi = 0.693145751953125, kLn2Lo = 1.42860682030941723212e-6;
    constexpr double kRound = 6755399441055744.0;  // 1.5 * 2^52
    constexpr double kHigh = 709.782712893384, kLow = -708.3964185322641;
    const double clamped = x < kLow ? kLow : (x > kHigh ? kHigh : x);
    const double n = (clamped * kLog2e + kRound) - kRound;
    const double r = (clamped - n * kLn2Hi) - n * kLn2Lo;
    double p = 1.0 / 6227020800.0;  // 1/13!
    constexpr double kInverseFactorial[] = {1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0,
                                            1.0 / 40320.0,     1.0 / 5040.0,     1.0 / 720.0,     1.0 / 120.0,
                                            1.0 / 24.0,        1.0 / 6.0,        0.5,             1.0,
                                            1.0};
    for (double c : kInverseFactorial) p = p * r + c;
    const double top = n > 1023.0 ? 1023.0 : n;
    const int64_t bits = (static_cast<int64_t>(top) + 1023) << 52;
    double scale;
    std::memcpy(&scale, &bits, sizeof scale);
    const double y = p * scale * (n > top ? 2.0 : 1.0);
    return x != x ? x : (x > kHigh ? std::numeric_limits<double>::infinity() : (x < kLow ? 0.0 : y));
  }
}

}  // namespace math_detail

template <class T>
EINRT_HD inline T exp(T a) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 4) return ::expf(a); else return ::exp(a);
#elif defined(EINRT_VECTOR_MATH)
  // float: the inline polynomial, as accurate as the library's (1 ulp) and faster in
  // the loops (no call; bench/RESULTS.md "exp inline"); double: the library's.
  if constexpr (sizeof(T) == 4) return math_detail::hostExp(a); else return ::exp(a);
#else
  return math_detail::hostExp(a);
#endif
}
template <class T> EINRT_HD inline T log(T a) { if constexpr (sizeof(T) == 4) return ::logf(a); else return ::log(a); }
template <class T> EINRT_HD inline T sqrt(T a) { if constexpr (sizeof(T) == 4) return ::sqrtf(a); else return ::sqrt(a); }
template <class T> EINRT_HD inline T rsqrt(T a) { return T(1) / einrt::program::sqrt(a); }
template <class T> EINRT_HD inline T abs(T a) { return a < T(0) ? -a : a; }
template <class T> EINRT_HD inline T tanh(T a) { if constexpr (sizeof(T) == 4) return ::tanhf(a); else return ::tanh(a); }
template <class T> EINRT_HD inline T sigmoid(T a) { return T(1) / (T(1) + einrt::program::exp(-a)); }
template <class T> EINRT_HD inline T relu(T a) { return a > T(0) ? a : T(0); }
template <class T> EINRT_HD inline T max(T a, T b) { return a > b || a != a ? a : b; }
template <class T> EINRT_HD inline T min(T a, T b) { return a < b || a != a ? a : b; }
template <class T> EINRT_HD inline T pow(T a, T b) { if constexpr (sizeof(T) == 4) return ::powf(a, b); else return ::pow(a, b); }
template <class T> EINRT_HD inline T erf(T a) { if constexpr (sizeof(T) == 4) return ::erff(a); else return ::erf(a); }
// Rotary position embeddings (sin and cos of position times frequency).
template <class T> EINRT_HD inline T sin(T a) { if constexpr (sizeof(T) == 4) return ::sinf(a); else return ::sin(a); }
template <class T> EINRT_HD inline T cos(T a) { if constexpr (sizeof(T) == 4) return ::cosf(a); else return ::cos(a); }
// C's truth, like the evaluator: a NaN condition is nonzero and picks a; -0 picks b.
template <class T> EINRT_HD inline T where(T c, T a, T b) { return c != T(0) ? a : b; }
// Comparisons as 1 and 0 (ONNX's Less, Greater, Equal ... as the graph's element type):
// masks made from computed values. A NaN compares false, as in C and NumPy.
template <class T> EINRT_HD inline T lt(T a, T b) { return a < b ? T(1) : T(0); }
template <class T> EINRT_HD inline T le(T a, T b) { return a <= b ? T(1) : T(0); }
template <class T> EINRT_HD inline T gt(T a, T b) { return a > b ? T(1) : T(0); }
template <class T> EINRT_HD inline T ge(T a, T b) { return a >= b ? T(1) : T(0); }
template <class T> EINRT_HD inline T eq(T a, T b) { return a == b ? T(1) : T(0); }
template <class T> EINRT_HD inline T infinity() { return std::numeric_limits<T>::infinity(); }

// Every function of einrt's list (einrt/model/scalar_functions.h) has its template here:
// naming each one for float fails to compile where one is missing.
#if !defined(__CUDACC__)
#define EINRT_SCALAR_FUNCTION_TEMPLATE(E, name, arity) (void)&einrt::program::name<float>;
inline void everyScalarFunctionHasItsTemplate() { EINRT_SCALAR_FUNCTIONS(EINRT_SCALAR_FUNCTION_TEMPLATE) }
#undef EINRT_SCALAR_FUNCTION_TEMPLATE
#endif

}  // namespace einrt::program
