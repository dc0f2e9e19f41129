#include "planner/graph/human_units.h"

#include <cstdio>

namespace eindecomp {

// Scales `value` down by `step` until it is below `step`, then prints three significant
// digits with the matching unit; exact integers stay exact in the smallest unit.
static std::string scaled(int64_t value, double step, const char* const* units, int unitCount) {
  double v = static_cast<double>(value);
  int unit = 0;
  while (v >= step && unit + 1 < unitCount) {
    v /= step;
    ++unit;
  }
  char buf[64];
  if (unit == 0) std::snprintf(buf, sizeof buf, "%lld %s", static_cast<long long>(value), units[0]);
  else if (v < 10) std::snprintf(buf, sizeof buf, "%.2f %s", v, units[unit]);
  else if (v < 100) std::snprintf(buf, sizeof buf, "%.1f %s", v, units[unit]);
  else std::snprintf(buf, sizeof buf, "%.0f %s", v, units[unit]);
  return buf;
}

std::string formatBytes(int64_t bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  return scaled(bytes, 1024.0, units, 7);
}

std::string formatFlops(int64_t flops) {
  static const char* const units[] = {"FLOP", "KFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP", "EFLOP"};
  return scaled(flops, 1000.0, units, 7);
}

}  // namespace eindecomp
