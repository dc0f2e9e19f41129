// FLOP and element counts for contraction paths. Networks with 100+ operands and labels
// sized up to 2^31 make products that overflow 64 bits long before a path is complete
// (a naive 9-operand contraction already can), so counts are unsigned 128-bit integers
// that saturate: once a count reaches kFlopCountSaturated it stays there and compares as
// "at least 2^128 - 1". Path optimizers compare saturated counts as equal, which is the
// honest answer when both candidates are beyond any machine's reach anyway.
#pragma once

#include <cstdint>
#include <string>

namespace eindecomp {

using FlopCount = unsigned __int128;

inline constexpr FlopCount kFlopCountSaturated = ~static_cast<FlopCount>(0);

inline FlopCount saturatingAdd(FlopCount a, FlopCount b) {
  FlopCount r = a + b;
  return r < a ? kFlopCountSaturated : r;
}

inline FlopCount saturatingMul(FlopCount a, FlopCount b) {
  FlopCount r;
  // The overflow check is a multiplication's high half, not a 128-bit division: the path
  // searches multiply sizes in their innermost loops.
  return __builtin_mul_overflow(a, b, &r) ? kFlopCountSaturated : r;
}

// Exact decimal digits, or "saturated (>= 2^128)" for the saturated value.
std::string flopCountDecimal(FlopCount c);

// Short scientific form as opt_einsum prints it ("1.234e+09"); exact digits below 10^6.
std::string flopCountShort(FlopCount c);

// The count as a double (rounded), for ratios such as the speedup.
double flopCountToDouble(FlopCount c);

}  // namespace eindecomp
