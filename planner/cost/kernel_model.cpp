#include "planner/cost/kernel_model.h"

#include <algorithm>
#include <cmath>

#include "planner/graph/diagnostic.h"
#include "planner/graph/document.h"
#include "planner/graph/identifiers.h"
#include "planner/graph/scalar_functions.h"
#include "planner/graph/units.h"

namespace eindecomp {

namespace {

// A mapping of the machine file's kernel_model section, its fields read through the one
// document route (planner/graph/document.h). Messages start with "kernel_model: " and
// point at the documentation.
class Section {
 public:
  Section(const Document& doc, const YamlValue& map, const std::vector<std::string>& known, const std::string& owner)
      : doc_(doc), loc_(doc.at(map)), fields_(doc.fields(map, known, owner, "(docs/cost-model.md, \"The kernel model\")")) {}
  const Document& doc() const { return doc_; }
  const DocField* find(const std::string& key) const { return fields_.find(key); }
  const DocField& need(const std::string& key, const std::string& where) const {
    if (const DocField* f = find(key)) return *f;
    fail(loc_, "missing field '" + key + "'" + where);
  }
  [[noreturn]] static void fail(const SourceLoc& at, const std::string& what) {
    throw InputError({at, "kernel_model: " + what + " (docs/cost-model.md, \"The kernel model\")"});
  }

 private:
  const Document& doc_;
  SourceLoc loc_;
  DocFields fields_;
};

// Grids of more sizes than this are refused (einrt-calibrate writes a dozen): a grid of s
// sizes has s^3 points, and a hostile file's millions would overflow the count.
constexpr std::size_t kMaxGridSizes = 64;

// A positive number (plain, as einrt-calibrate writes it) or, with `zeroAllowed`, >= 0.
double positive(const Document& doc, const YamlValue& v, const std::string& field, bool zeroAllowed) {
  double x = -1;
  if (v.IsScalar()) {
    const std::optional<double> q = parseQuantity(v.Scalar(), Quantity::Seconds);
    if (q) x = *q;
  }
  if (!(x > 0 || (zeroAllowed && x == 0)))
    Section::fail(doc.at(v), "field '" + field + "' must be a " + (zeroAllowed ? "non-negative" : "positive") + " number");
  return x;
}

std::vector<double> numbers(const Document& doc, const DocField& f, std::size_t count, bool zeroAllowed = false) {
  const std::vector<YamlValue> items = f.value.IsSequence() ? f.value.items() : std::vector<YamlValue>{};
  if (!f.value.IsSequence() || items.size() != count)
    Section::fail(f.valueLoc, "field '" + f.name + "' must be a list of " + std::to_string(count) + " numbers (one per grid point)");
  std::vector<double> out;
  for (const YamlValue& x : items) out.push_back(positive(doc, x, f.name, zeroAllowed));
  return out;
}

// Increasing whole numbers, at least one and at most kMaxGridSizes.
std::vector<int64_t> sizeList(const Document& doc, const DocField& f) {
  const std::vector<YamlValue> items = f.value.IsSequence() ? f.value.items() : std::vector<YamlValue>{};
  if (items.empty()) Section::fail(f.valueLoc, "field '" + f.name + "' must be a non-empty list of sizes");
  if (items.size() > kMaxGridSizes)
    Section::fail(f.valueLoc, "field '" + f.name + "' lists " + std::to_string(items.size()) + " sizes; a grid has at most " +
                                  std::to_string(kMaxGridSizes));
  std::vector<int64_t> out;
  for (const YamlValue& x : items) {
    const double d = positive(doc, x, f.name, false);
    if (d != std::floor(d) || d > 1e15 || (!out.empty() && d <= static_cast<double>(out.back())))
      Section::fail(doc.at(x), "field '" + f.name + "' must list increasing whole numbers");
    out.push_back(static_cast<int64_t>(d));
  }
  return out;
}

ElementwiseRates elementwiseRates(const Document& doc, const DocField& f) {
  const std::string& field = f.name;
  if (!f.value.IsMap())
    Section::fail(f.valueLoc, "field '" + field + "' must be a mapping {bandwidth: ..., reduce_bandwidth: ..., exp: ..., ...}");
  std::vector<std::string> known{"bandwidth", "reduce_bandwidth", "stream_bandwidth", "point", "reduce_point", "agg_max", "agg_min", "run", "div"};
  for (const ScalarFunctionInfo& fn : scalarFunctions()) known.emplace_back(fn.name);
  const Section v(doc, f.value, known, "'" + field + "'");
  const std::string where = " in '" + field + "'";
  auto rate = [&](const std::string& key, bool zeroAllowed) {
    return positive(doc, v.need(key, where).value, field + "." + key, zeroAllowed);
  };
  ElementwiseRates r;
  r.bandwidth = rate("bandwidth", false);
  r.reduceBandwidth = rate("reduce_bandwidth", false);
  if (v.find("stream_bandwidth")) r.streamBandwidth = rate("stream_bandwidth", false);
  r.pointSeconds = rate("point", false);
  r.reducePointSeconds = rate("reduce_point", false);
  r.aggMaxSeconds = rate("agg_max", true);
  r.aggMinSeconds = rate("agg_min", true);
  r.runSeconds = rate("run", true);
  r.divSeconds = rate("div", true);
  // Functions added to the table after einrt-calibrate first wrote this field: a file from
  // before lacks them, and they are priced as the closest measured one (sin and cos as
  // exp; the comparisons as where, a select).
  constexpr std::pair<std::string_view, ScalarFunction> kAddedLater[] = {
      {"sin", ScalarFunction::Exp}, {"cos", ScalarFunction::Exp}, {"lt", ScalarFunction::Where}, {"le", ScalarFunction::Where},
      {"gt", ScalarFunction::Where}, {"ge", ScalarFunction::Where}, {"eq", ScalarFunction::Where}};
  for (const ScalarFunctionInfo& fn : scalarFunctions()) {
    const std::string name(fn.name);
    const auto later = std::find_if(std::begin(kAddedLater), std::end(kAddedLater), [&](const auto& a) { return a.first == fn.name; });
    if (later != std::end(kAddedLater) && !v.find(name))
      r.functionSeconds.push_back(r.functionSeconds[static_cast<std::size_t>(later->second)]);
    else r.functionSeconds.push_back(rate(name, true));
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

KernelModel parseKernelModel(const Document& doc, const DocField& section) {
  if (!section.value.IsMap()) Section::fail(section.valueLoc, "'kernel_model' must be a mapping (as einrt-calibrate writes it)");
  std::vector<std::string> known{"gemm_primitive", "primitive_flops_f32", "primitive_flops_f64", "step", "cache_bytes", "stream_bytes", "gemm_sizes", "permute_sizes", "permute_bandwidth", "permute_tile", "permute_rows_bandwidth", "permute_run", "gemm_spill_from", "gemm_spill_f32", "gemm_spill_f64", "gemm_at_sizes", "gemm_at_flops_f32", "gemm_at_flops_f64", "primitive_at_flops_f32", "primitive_at_flops_f64", "gemm_bt_flops_f32", "gemm_bt_flops_f64"};
  for (einrt::DType t : einrt::kAllDTypes) {
    known.push_back(std::string("gemm_flops_") + einrt::dtypeName(t));
    known.push_back(std::string("elementwise_") + einrt::dtypeName(t));
  }
  const Section v(doc, section.value, known, "kernel_model");
  KernelModel km;
  if (const DocField* primitive = v.find("gemm_primitive")) {
    if (!primitive->value.IsScalar() || !isIdentifier(primitive->value.Scalar()))
      Section::fail(primitive->valueLoc, "field 'gemm_primitive' must name the GEMM primitive (as einrt-calibrate writes it: libxsmm)");
    km.gemmPrimitive = primitive->value.Scalar();
  }
  km.gemmSizes = sizeList(doc, v.need("gemm_sizes", ""));
  const std::size_t points = km.gemmSizes.size() * km.gemmSizes.size() * km.gemmSizes.size();
  for (einrt::DType t : einrt::kAllDTypes) {
    const std::string g = std::string("gemm_flops_") + einrt::dtypeName(t), e = std::string("elementwise_") + einrt::dtypeName(t);
    km.gemmFlops[static_cast<std::size_t>(t)] = numbers(doc, v.need(g, ""), points);
    km.elementwise[static_cast<std::size_t>(t)] = elementwiseRates(doc, v.need(e, ""));
  }
  if (!km.gemmPrimitive.empty())
    for (einrt::DType t : {einrt::DType::F32, einrt::DType::F64}) {
      const std::string g = std::string("primitive_flops_") + einrt::dtypeName(t);
      km.primitiveFlops[static_cast<std::size_t>(t)] = numbers(doc, v.need(g, " (the file names a gemm_primitive)"), points);
    }
  // Calls with A transposed: their rates over the main grid's at the same points.
  if (const DocField* at = v.find("gemm_at_sizes")) {
    km.transposedASizes = sizeList(doc, *at);
    std::vector<std::size_t> index;  // of each A^T size in gemm_sizes
    for (int64_t size : km.transposedASizes) {
      const auto found = std::find(km.gemmSizes.begin(), km.gemmSizes.end(), size);
      if (found == km.gemmSizes.end()) Section::fail(at->valueLoc, "field 'gemm_at_sizes' must list sizes of 'gemm_sizes'");
      index.push_back(static_cast<std::size_t>(found - km.gemmSizes.begin()));
    }
    const std::size_t s = index.size(), g = km.gemmSizes.size();
    // The log of a transposed grid's rates over the main grid's at the same points.
    auto logRatios = [&](const std::string& field, const std::vector<double>& main) {
      const std::vector<double> rates = numbers(doc, v.need(field, " (the file has gemm_at_sizes)"), s * s * s);
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
      if (v.find(bt)) km.transposedBLogRatio[ti] = logRatios(bt, km.gemmFlops[ti]);
    }
  }
  for (const char* bt : {"gemm_bt_flops_f32", "gemm_bt_flops_f64"})
    if (const DocField* f = v.find(bt); f && !v.find("gemm_at_sizes"))
      Section::fail(f->valueLoc, "field '" + std::string(bt) + "' needs 'gemm_at_sizes' (its grid's sizes)");
  // What a result past the grid's largest costs (files from before it: none, and the
  // primitive's memory floor alone).
  if (const DocField* from = v.find("gemm_spill_from")) {
    const double f = positive(doc, from->value, "gemm_spill_from", false);
    if (f != std::floor(f) || f > 1e15) Section::fail(from->valueLoc, "field 'gemm_spill_from' must be a whole number of elements");
    km.spillFrom = static_cast<int64_t>(f);
    const std::size_t paths = km.gemmPrimitive.empty() ? 1 : 2;
    for (einrt::DType t : {einrt::DType::F32, einrt::DType::F64}) {
      const std::string g = std::string("gemm_spill_") + einrt::dtypeName(t);
      const DocField& list = v.need(g, " (the file has gemm_spill_from)");
      const std::vector<YamlValue> items = list.value.IsSequence() ? list.value.items() : std::vector<YamlValue>{};
      if (!list.value.IsSequence() || items.size() != paths)
        Section::fail(list.valueLoc, "field '" + g + "' must be a list of " + std::to_string(paths) + " numbers (the BLAS" +
                                         (paths == 2 ? ", the primitive)" : ")"));
      for (std::size_t i = 0; i < paths; ++i) km.spillSeconds[static_cast<std::size_t>(t)][i] = positive(doc, items[i], g, true);
    }
  }
  if (const DocField* step = v.find("step")) km.stepSeconds = positive(doc, step->value, "step", true);
  if (const DocField* cache = v.find("cache_bytes")) km.cacheBytes = positive(doc, cache->value, "cache_bytes", true);
  if (const DocField* stream = v.find("stream_bytes")) km.streamBytes = positive(doc, stream->value, "stream_bytes", false);
  km.permuteSizes = sizeList(doc, v.need("permute_sizes", ""));
  const std::size_t n = km.permuteSizes.size();
  km.permuteBandwidth = numbers(doc, v.need("permute_bandwidth", ""), n);
  km.permuteRowsBandwidth = numbers(doc, v.need("permute_rows_bandwidth", ""), n);
  km.permuteTileSeconds = numbers(doc, v.need("permute_tile", ""), n, true);
  km.permuteRunSeconds = numbers(doc, v.need("permute_run", ""), n, true);
  return km;
}

}  // namespace eindecomp
