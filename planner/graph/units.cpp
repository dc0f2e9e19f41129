#include "planner/graph/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

namespace eindecomp {

namespace {

// Scales `value` down by `step` until it is below `step`, then prints three significant
// digits with the matching unit; exact integers stay exact in the smallest unit.
std::string scaled(int64_t value, double step, const char* const* units, int unitCount) {
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

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// Splits "12.5 GB/s" into the number and the unit text (either may be empty).
std::pair<std::string, std::string> numberAndUnit(const std::string& text) {
  const std::string t = trim(text);
  std::size_t i = 0;
  while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.' || t[i] == '+' || t[i] == '-' ||
                          ((t[i] == 'e' || t[i] == 'E') && i > 0 && i + 1 < t.size() &&
                           (std::isdigit(static_cast<unsigned char>(t[i + 1])) || t[i + 1] == '-' || t[i + 1] == '+'))))
    ++i;
  return {t.substr(0, i), trim(t.substr(i))};
}

using UnitTable = std::vector<std::pair<const char*, double>>;

// Each kind's units as written in messages; they are matched without regard to case.
const UnitTable& unitsOf(Quantity kind) {
  static const UnitTable seconds{{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
  static const UnitTable bytes{{"B", 1},         {"K", 1e3},      {"KB", 1e3},           {"M", 1e6},
                               {"MB", 1e6},      {"G", 1e9},      {"GB", 1e9},           {"T", 1e12},
                               {"TB", 1e12},     {"P", 1e15},     {"PB", 1e15},          {"KiB", 1024.0},
                               {"MiB", 1 << 20}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}, {"PiB", 1125899906842624.0}};
  static const UnitTable rates{{"B/s", 1},        {"KB/s", 1e3},          {"MB/s", 1e6},
                               {"GB/s", 1e9},     {"TB/s", 1e12},         {"KiB/s", 1024.0},
                               {"MiB/s", 1 << 20}, {"GiB/s", 1073741824.0}, {"TiB/s", 1099511627776.0}};
  static const UnitTable flops{{"FLOP/s", 1},     {"kFLOP/s", 1e3},  {"MFLOP/s", 1e6},
                               {"GFLOP/s", 1e9},  {"TFLOP/s", 1e12}, {"PFLOP/s", 1e15}};
  switch (kind) {
    case Quantity::Seconds: return seconds;
    case Quantity::Bytes: return bytes;
    case Quantity::BytesPerSecond: return rates;
    case Quantity::FlopsPerSecond: return flops;
  }
  return seconds;
}

bool sameIgnoringCase(const std::string& a, const char* b) {
  std::size_t i = 0;
  for (; i < a.size() && b[i]; ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return i == a.size() && !b[i];
}

}  // namespace

std::string formatBytes(int64_t bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  return scaled(bytes, 1024.0, units, 7);
}

std::string formatFlops(int64_t flops) {
  static const char* const units[] = {"FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP", "EFLOP"};
  return scaled(flops, 1000.0, units, 7);
}

std::string formatSeconds(double seconds) {
  char buf[64];
  const double a = std::fabs(seconds);
  const char* unit = "s";
  double v = seconds;
  if (a == 0) return "0 s";
  if (a < 1e-6) unit = "ns", v = seconds * 1e9;
  else if (a < 1e-3) unit = "us", v = seconds * 1e6;
  else if (a < 1) unit = "ms", v = seconds * 1e3;
  const double av = std::fabs(v);
  if (av < 10) std::snprintf(buf, sizeof buf, "%.2f %s", v, unit);
  else if (av < 100) std::snprintf(buf, sizeof buf, "%.1f %s", v, unit);
  else std::snprintf(buf, sizeof buf, "%.0f %s", v, unit);
  return buf;
}

std::string numberText(double value) {
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  return buf;
}

std::optional<int64_t> parseByteCount(const std::string& text) {
  const std::optional<double> bytes = parseQuantity(text, Quantity::Bytes);
  // Whole bytes that fit 63 bits ("1.5GiB" is; "1.5B" is not).
  if (!bytes || *bytes < 1 || *bytes >= 9223372036854775808.0 || *bytes != std::floor(*bytes)) return std::nullopt;
  return static_cast<int64_t>(*bytes);
}

std::optional<double> parseNumber(const std::string& text) {
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<double> parseQuantity(const std::string& text, Quantity kind) {
  const auto [number, unit] = numberAndUnit(text);
  const std::optional<double> parsed = parseNumber(number);
  if (!parsed || *parsed < 0) return std::nullopt;
  const double value = *parsed;
  if (unit.empty()) return value;
  for (const auto& [name, factor] : unitsOf(kind))
    if (sameIgnoringCase(unit, name)) return value * factor;
  return std::nullopt;
}

std::string quantityUnits(Quantity kind) {
  std::string s;
  for (const auto& [name, factor] : unitsOf(kind)) s += (s.empty() ? "" : ", ") + std::string(name);
  return s;
}

}  // namespace eindecomp
