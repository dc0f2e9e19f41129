// Overflow-checked 64-bit arithmetic for the cost model. Element counts of large models
// (LLaMA-65B: 10^11-element weights times p kernel calls) come close to 2^63, so every
// product and sum in a cost is checked; an overflow is bad input (the graph is too large
// to cost), thrown as an InputError naming what overflowed, never a wrapped number.
#pragma once

#include <cstdint>
#include <string>

#include "planner/graph/diagnostic.h"

namespace eindecomp {

[[noreturn]] inline void throwCostOverflow(const std::string& what) {
  throw InputError({{}, what + " overflows 64-bit arithmetic"}, kExitBadInput);
}

inline int64_t checkedMul(int64_t a, int64_t b, const char* what) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throwCostOverflow(what);
  return r;
}

inline int64_t checkedAdd(int64_t a, int64_t b, const char* what) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throwCostOverflow(what);
  return r;
}

}  // namespace eindecomp
