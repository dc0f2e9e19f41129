#include "planner/paths/flop_count.h"

#include <cstdio>

namespace eindecomp {

std::string flopCountDecimal(FlopCount c) {
  if (c == kFlopCountSaturated) return "saturated (>= 2^128)";
  if (c == 0) return "0";
  std::string digits;
  while (c > 0) {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(c % 10)));
    c /= 10;
  }
  return digits;
}

std::string flopCountShort(FlopCount c) {
  if (c == kFlopCountSaturated) return ">=3.403e+38";
  if (c < 1000000) return flopCountDecimal(c);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", flopCountToDouble(c));
  return buf;
}

double flopCountToDouble(FlopCount c) {
  const double high = static_cast<double>(static_cast<uint64_t>(c >> 64));
  const double low = static_cast<double>(static_cast<uint64_t>(c));
  return high * 18446744073709551616.0 + low;
}

}  // namespace eindecomp
