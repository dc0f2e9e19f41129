#include <cstdio>

#include "planner/report/render.h"

namespace eindecomp {

namespace {

std::string scaled(double value, double base, const char* const* units, int count) {
  int u = 0;
  while (u + 1 < count && value >= base) {
    value /= base;
    ++u;
  }
  char buf[64];
  if (u == 0) std::snprintf(buf, sizeof buf, "%.0f %s", value, units[0]);
  else std::snprintf(buf, sizeof buf, "%.1f %s", value, units[u]);
  return buf;
}

}  // namespace

std::string humanBytes(int64_t bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  return scaled(static_cast<double>(bytes), 1024.0, units, 7);
}

std::string humanFlops(int64_t flops) {
  static const char* const units[] = {"FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP", "EFLOP"};
  return scaled(static_cast<double>(flops), 1000.0, units, 7);
}

std::string humanSeconds(double seconds) {
  char buf[64];
  if (seconds < 1e-6) std::snprintf(buf, sizeof buf, "%.0f ns", seconds * 1e9);
  else if (seconds < 1e-3) std::snprintf(buf, sizeof buf, "%.1f us", seconds * 1e6);
  else if (seconds < 1) std::snprintf(buf, sizeof buf, "%.1f ms", seconds * 1e3);
  else std::snprintf(buf, sizeof buf, "%.2f s", seconds);
  return buf;
}

std::string partitionText(const Labels& labels, const Parts& parts) {
  std::string s;
  for (std::size_t i = 0; i < labels.size(); ++i) s += (i ? " " : "") + labels[i] + ":" + std::to_string(parts[i]);
  return s.empty() ? "-" : s;
}

}  // namespace eindecomp
