#include "planner/cost/kernel_model.h"

#include <algorithm>
#include <cmath>

#include <yaml-cpp/yaml.h>

#include "planner/graph/diagnostic.h"
#include "planner/graph/identifiers.h"
#include "planner/graph/scalar_functions.h"
#include "planner/graph/units.h"

namespace eindecomp {

namespace {

SourceLoc locOf(const std::string& path, const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return {path, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0};
}

[[noreturn]] void fail(const std::string& path, const YAML::Node& at, const std::string& what) {
  throw InputError({locOf(path, at), "kernel_model: " + what + " (docs/cost-model.md, \"The kernel model\")"});
}

YAML::Node need(const YAML::Node& map, const std::string& key, const std::string& path, const std::string& where) {
  const YAML::Node v = map[key];
  if (!v) fail(path, map, "missing field '" + key + "'" + where);
  return v;
}

// A positive number (plain, as einrt-calibrate writes it) or, with `zeroAllowed`, >= 0.
double positive(const YAML::Node& v, const std::string& path, const std::string& field, bool zeroAllowed) {
  double x = -1;
  if (v.IsScalar()) {
    const std::optional<double> q = parseQuantity(v.Scalar(), Quantity::Seconds);
    if (q) x = *q;
  }
  if (!(x > 0 || (zeroAllowed && x == 0)))
    fail(path, v, "field '" + field + "' must be a " + (zeroAllowed ? "non-negative" : "positive") + " number");
  return x;
}

std::vector<double> numbers(const YAML::Node& v, const std::string& path, const std::string& field, std::size_t count,
                            bool zeroAllowed = false) {
  if (!v.IsSequence() || v.size() != count)
    fail(path, v, "field '" + field + "' must be a list of " + std::to_string(count) + " numbers (one per grid point)");
  std::vector<double> out;
  for (const YAML::Node& x : v) out.push_back(positive(x, path, field, zeroAllowed));
  return out;
}

// Increasing whole numbers, at least one.
std::vector<int64_t> sizeList(const YAML::Node& v, const std::string& path, const std::string& field) {
  if (!v.IsSequence() || v.size() == 0) fail(path, v, "field '" + field + "' must be a non-empty list of sizes");
  std::vector<int64_t> out;
  for (const YAML::Node& x : v) {
    const double d = positive(x, path, field, false);
    if (d != std::floor(d) || d > 1e15 || (!out.empty() && d <= static_cast<double>(out.back())))
      fail(path, x, "field '" + field + "' must list increasing whole numbers");
    out.push_back(static_cast<int64_t>(d));
  }
  return out;
}

ElementwiseRates elementwiseRates(const YAML::Node& v, const std::string& path, const std::string& field) {
  if (!v.IsMap()) fail(path, v, "field '" + field + "' must be a mapping {bandwidth: ..., reduce_bandwidth: ..., exp: ..., ...}");
  std::vector<std::string> known{"bandwidth", "reduce_bandwidth", "stream_bandwidth", "point", "reduce_point", "agg_max", "agg_min", "run", "div"};
  for (const ScalarFunctionInfo& f : scalarFunctions()) known.emplace_back(f.name);
  for (const auto& entry : v) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
    if (std::find(known.begin(), known.end(), key) == known.end())
      fail(path, entry.first, "unknown field " + quoted(key) + " in '" + field + "'" + didYouMean(key, known));
  }
  const std::string where = " in '" + field + "'";
  ElementwiseRates r;
  r.bandwidth = positive(need(v, "bandwidth", path, where), path, field + ".bandwidth", false);
  r.reduceBandwidth = positive(need(v, "reduce_bandwidth", path, where), path, field + ".reduce_bandwidth", false);
  if (const YAML::Node b = v["stream_bandwidth"]) r.streamBandwidth = positive(b, path, field + ".stream_bandwidth", false);
  r.pointSeconds = positive(need(v, "point", path, where), path, field + ".point", false);
  r.reducePointSeconds = positive(need(v, "reduce_point", path, where), path, field + ".reduce_point", false);
  r.aggMaxSeconds = positive(need(v, "agg_max", path, where), path, field + ".agg_max", true);
  r.aggMinSeconds = positive(need(v, "agg_min", path, where), path, field + ".agg_min", true);
  r.runSeconds = positive(need(v, "run", path, where), path, field + ".run", true);
  r.divSeconds = positive(need(v, "div", path, where), path, field + ".div", true);
  // Functions added to the table after einrt-calibrate first wrote this field (sin, cos):
  // a file from before lacks them, and they are priced as exp, the closest measured one.
  constexpr std::string_view kAddedLater[] = {"sin", "cos"};
  for (const ScalarFunctionInfo& f : scalarFunctions()) {
    const std::string name(f.name);
    const bool optional = std::find(std::begin(kAddedLater), std::end(kAddedLater), f.name) != std::end(kAddedLater);
    if (optional && !v[name]) r.functionSeconds.push_back(r.functionSeconds[static_cast<std::size_t>(ScalarFunction::Exp)]);
    else r.functionSeconds.push_back(positive(need(v, name, path, where), path, field + "." + name, true));
  }
  return r;
}

// Where x falls on the grid: the lower index and the weight of the upper point, in log x.
std::pair<std::size_t, double> gridPosition(const std::vector<int64_t>& sizes, int64_t x) {
  if (sizes.size() == 1 || x <= sizes.front()) return {0, 0.0};
  if (x >= sizes.back()) return {sizes.size() - 2, 1.0};
  std::size_t i = 0;
  while (sizes[i + 1] < x) ++i;
  const double lo = std::log(static_cast<double>(sizes[i])), hi = std::log(static_cast<double>(sizes[i + 1]));
  return {i, (std::log(static_cast<double>(x)) - lo) / (hi - lo)};
}

// value(index) of the point sizes^3 (m slowest) interpolated linearly in log m, n, k.
template <class Value>
double interpolate(const std::vector<int64_t>& sizes, int64_t m, int64_t n, int64_t k, Value value) {
  const std::size_t s = sizes.size();
  if (s == 1) return value(0);
  const auto [i, wi] = gridPosition(sizes, m);
  const auto [j, wj] = gridPosition(sizes, n);
  const auto [l, wl] = gridPosition(sizes, k);
  double v = 0;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b)
      for (int c = 0; c < 2; ++c) {
        const double w = (a ? wi : 1 - wi) * (b ? wj : 1 - wj) * (c ? wl : 1 - wl);
        if (w == 0) continue;
        v += w * value(((i + a) * s + (j + b)) * s + (l + c));
      }
  return v;
}

}  // namespace

double KernelModel::gemmFlopsPerSecond(einrt::DType t, int64_t m, int64_t n, int64_t k, bool primitive, bool transA,
                                       bool transB) const {
  const std::vector<double>& rate = (primitive ? primitiveFlops : gemmFlops)[static_cast<std::size_t>(t)];
  double log = interpolate(gemmSizes, m, n, k, [&](std::size_t at) { return std::log(rate[at]); });
  if (transA && timesTransposedA(t)) {
    const std::vector<double>& ratio = transposedALogRatio[static_cast<std::size_t>(t)][primitive ? 1 : 0];
    log += interpolate(transposedASizes, m, n, k, [&](std::size_t at) { return ratio[at]; });
  }
  if (transB && !primitive && !transposedBLogRatio[static_cast<std::size_t>(t)].empty()) {
    const std::vector<double>& ratio = transposedBLogRatio[static_cast<std::size_t>(t)];
    log += interpolate(transposedASizes, m, n, k, [&](std::size_t at) { return ratio[at]; });
  }
  return std::exp(log);
}

KernelModel::PermuteRates KernelModel::permuteRates(int64_t elements) const {
  const auto [i, w] = gridPosition(permuteSizes, std::max<int64_t>(elements, 1));
  const std::size_t j = std::min(i + 1, permuteSizes.size() - 1);
  auto logMix = [&](const std::vector<double>& v) { return std::exp((1 - w) * std::log(v[i]) + w * std::log(v[j])); };
  auto mix = [&](const std::vector<double>& v) { return (1 - w) * v[i] + w * v[j]; };
  return {logMix(permuteBandwidth), mix(permuteTileSeconds), logMix(permuteRowsBandwidth), mix(permuteRunSeconds)};
}

KernelModel parseKernelModel(const YAML::Node& v, const std::string& path) {
  if (!v.IsMap()) fail(path, v, "'kernel_model' must be a mapping (as einrt-calibrate writes it)");
  std::vector<std::string> known{"gemm_primitive", "primitive_flops_f32", "primitive_flops_f64", "step", "cache_bytes", "stream_bytes", "gemm_sizes", "permute_sizes", "permute_bandwidth", "permute_tile", "permute_rows_bandwidth", "permute_run", "gemm_spill_from", "gemm_spill_f32", "gemm_spill_f64", "gemm_at_sizes", "gemm_at_flops_f32", "gemm_at_flops_f64", "primitive_at_flops_f32", "primitive_at_flops_f64", "gemm_bt_flops_f32", "gemm_bt_flops_f64"};
  for (einrt::DType t : einrt::kAllDTypes) {
    known.push_back(std::string("gemm_flops_") + einrt::dtypeName(t));
    known.push_back(std::string("elementwise_") + einrt::dtypeName(t));
  }
  for (const auto& entry : v) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
    if (std::find(known.begin(), known.end(), key) == known.end())
      fail(path, entry.first, "unknown field " + quoted(key) + didYouMean(key, known));
  }
  KernelModel km;
  if (const YAML::Node primitive = v["gemm_primitive"]) {
    if (!primitive.IsScalar() || !isIdentifier(primitive.Scalar()))
      fail(path, primitive, "field 'gemm_primitive' must name the GEMM primitive (as einrt-calibrate writes it: libxsmm)");
    km.gemmPrimitive = primitive.Scalar();
  }
  km.gemmSizes = sizeList(need(v, "gemm_sizes", path, ""), path, "gemm_sizes");
  const std::size_t points = km.gemmSizes.size() * km.gemmSizes.size() * km.gemmSizes.size();
  for (einrt::DType t : einrt::kAllDTypes) {
    const std::string g = std::string("gemm_flops_") + einrt::dtypeName(t), e = std::string("elementwise_") + einrt::dtypeName(t);
    km.gemmFlops[static_cast<std::size_t>(t)] = numbers(need(v, g, path, ""), path, g, points);
    km.elementwise[static_cast<std::size_t>(t)] = elementwiseRates(need(v, e, path, ""), path, e);
  }
  if (!km.gemmPrimitive.empty())
    for (einrt::DType t : {einrt::DType::F32, einrt::DType::F64}) {
      const std::string g = std::string("primitive_flops_") + einrt::dtypeName(t);
      km.primitiveFlops[static_cast<std::size_t>(t)] = numbers(need(v, g, path, " (the file names a gemm_primitive)"), path, g, points);
    }
  // Calls with A transposed: their rates over the main grid's at the same points.
  if (const YAML::Node at = v["gemm_at_sizes"]) {
    km.transposedASizes = sizeList(at, path, "gemm_at_sizes");
    std::vector<std::size_t> index;  // of each A^T size in gemm_sizes
    for (int64_t size : km.transposedASizes) {
      const auto found = std::find(km.gemmSizes.begin(), km.gemmSizes.end(), size);
      if (found == km.gemmSizes.end()) fail(path, at, "field 'gemm_at_sizes' must list sizes of 'gemm_sizes'");
      index.push_back(static_cast<std::size_t>(found - km.gemmSizes.begin()));
    }
    const std::size_t s = index.size(), g = km.gemmSizes.size();
    // The log of a transposed grid's rates over the main grid's at the same points.
    auto logRatios = [&](const std::string& field, const std::vector<double>& main) {
      const std::vector<double> rates = numbers(need(v, field, path, " (the file has gemm_at_sizes)"), path, field, s * s * s);
      std::vector<double> ratio;
      for (std::size_t i = 0; i < s; ++i)
        for (std::size_t j = 0; j < s; ++j)
          for (std::size_t l = 0; l < s; ++l)
            ratio.push_back(std::log(rates[(i * s + j) * s + l] / main[(index[i] * g + index[j]) * g + index[l]]));
      return ratio;
    };
    for (einrt::DType t : {einrt::DType::F32, einrt::DType::F64}) {
      const auto ti = static_cast<std::size_t>(t);
      for (int onPrimitive = 0; onPrimitive < (km.gemmPrimitive.empty() ? 1 : 2); ++onPrimitive)
        km.transposedALogRatio[ti][static_cast<std::size_t>(onPrimitive)] =
            logRatios(std::string(onPrimitive ? "primitive" : "gemm") + "_at_flops_" + einrt::dtypeName(t),
                      (onPrimitive ? km.primitiveFlops : km.gemmFlops)[ti]);
      // B^T grids came later: files of earlier einrt-calibrate have none.
      const std::string bt = std::string("gemm_bt_flops_") + einrt::dtypeName(t);
      if (v[bt]) km.transposedBLogRatio[ti] = logRatios(bt, km.gemmFlops[ti]);
    }
  }
  for (const char* bt : {"gemm_bt_flops_f32", "gemm_bt_flops_f64"})
    if (v[bt] && !v["gemm_at_sizes"]) fail(path, v[bt], "field '" + std::string(bt) + "' needs 'gemm_at_sizes' (its grid's sizes)");
  // What a result past the grid's largest costs (files from before it: none, and the
  // primitive's memory floor alone).
  if (const YAML::Node from = v["gemm_spill_from"]) {
    const double f = positive(from, path, "gemm_spill_from", false);
    if (f != std::floor(f) || f > 1e15) fail(path, from, "field 'gemm_spill_from' must be a whole number of elements");
    km.spillFrom = static_cast<int64_t>(f);
    const std::size_t paths = km.gemmPrimitive.empty() ? 1 : 2;
    for (einrt::DType t : {einrt::DType::F32, einrt::DType::F64}) {
      const std::string g = std::string("gemm_spill_") + einrt::dtypeName(t);
      const YAML::Node list = need(v, g, path, " (the file has gemm_spill_from)");
      if (!list.IsSequence() || list.size() != paths)
        fail(path, list, "field '" + g + "' must be a list of " + std::to_string(paths) + " numbers (the BLAS" +
                             (paths == 2 ? ", the primitive)" : ")"));
      for (std::size_t i = 0; i < paths; ++i)
        km.spillSeconds[static_cast<std::size_t>(t)][i] = positive(list[i], path, g, true);
    }
  }
  if (const YAML::Node step = v["step"]) km.stepSeconds = positive(step, path, "step", true);
  if (const YAML::Node cache = v["cache_bytes"]) km.cacheBytes = positive(cache, path, "cache_bytes", true);
  if (const YAML::Node stream = v["stream_bytes"]) km.streamBytes = positive(stream, path, "stream_bytes", false);
  km.permuteSizes = sizeList(need(v, "permute_sizes", path, ""), path, "permute_sizes");
  const std::size_t n = km.permuteSizes.size();
  km.permuteBandwidth = numbers(need(v, "permute_bandwidth", path, ""), path, "permute_bandwidth", n);
  km.permuteRowsBandwidth = numbers(need(v, "permute_rows_bandwidth", path, ""), path, "permute_rows_bandwidth", n);
  km.permuteTileSeconds = numbers(need(v, "permute_tile", path, ""), path, "permute_tile", n, true);
  km.permuteRunSeconds = numbers(need(v, "permute_run", path, ""), path, "permute_run", n, true);
  return km;
}

}  // namespace eindecomp
