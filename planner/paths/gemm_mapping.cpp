#include "planner/paths/gemm_mapping.h"

#include "planner/graph/node_space.h"

#include <algorithm>
#include <limits>
#include <set>

namespace eindecomp {

namespace {

bool contains(const Labels& ls, const Label& l) { return std::find(ls.begin(), ls.end(), l) != ls.end(); }

// The least m and n, and multiply-adds, of every GEMM call of a mapping with promoted
// loops: below a primitive's tile in either dimension calls lose more than the
// permutation they avoid. fctn's second step as 24,000 calls of 8 x 64 x 64 took 27 ms,
// as 512 calls of 60 x 400 x 64 9.7 ms (2 threads), against 7.8 for one call of
// 480 x 25600 x 64 and a permutation (and one more in its consumer).
constexpr int64_t kLoopCallSide = 64;
constexpr int64_t kLoopCallVolume = 64 * 64 * 64;

bool hasRepeats(const Labels& ls) { return std::set<Label>(ls.begin(), ls.end()).size() != ls.size(); }

// The labels of `stored` that belong to `group`, in stored order.
Labels restrictTo(const Labels& stored, const Labels& group) {
  Labels out;
  for (const auto& l : stored)
    if (contains(group, l)) out.push_back(l);
  return out;
}

Labels concat(std::initializer_list<const Labels*> parts) {
  Labels out;
  for (const Labels* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

// The stored dimension of each canonical label: the permutation into canonical order.
Permutation permutationTo(const Labels& stored, const Labels& canonical) {
  Permutation p;
  for (const auto& l : canonical) p.push_back(static_cast<int>(std::find(stored.begin(), stored.end(), l) - stored.begin()));
  return p;
}

struct Fit {
  bool direct = false;   // no permutation needed
  bool transposed = false;
  Permutation perm;      // to [C][first][second] when not direct
};

// Whether `group` appears in `stored` as one run of consecutive dimensions, in its order
// (so that its dimensions fuse into one of stride `the stride of its last label`).
bool consecutive(const Labels& stored, const Labels& group) {
  if (group.empty()) return true;
  const auto at = std::find(stored.begin(), stored.end(), group.front());
  return static_cast<std::size_t>(stored.end() - at) >= group.size() && std::equal(group.begin(), group.end(), at);
}

// Does `stored` read as C then (first, second) or C then (second, first)? Or, as a strided
// view, as (first, second) or (second, first) with C labels before and between the two
// groups (each group one run of dimensions, the inner one innermost): the batch loops then
// step over the C labels by their own strides and the outer group's stride is the
// leading dimension, so no permutation is needed either (the Einsum Trees paper's loops
// over a GEMM, section 3; einrt's NodeKernel reads the same view from the stored order).
Fit fitOperand(const Labels& stored, const Labels& c, const Labels& first, const Labels& second) {
  Fit f;
  if (stored == concat({&c, &first, &second})) {
    f.direct = true;
  } else if (stored == concat({&c, &second, &first})) {
    f.direct = true;
    f.transposed = true;
  } else {
    const Labels rest = restrictTo(stored, concat({&first, &second}));
    const bool plain = rest == concat({&first, &second}), swapped = rest == concat({&second, &first});
    const Labels& inner = plain ? second : first;
    const Labels& outer = plain ? first : second;
    if ((plain || swapped) && !first.empty() && !second.empty() && consecutive(stored, outer) &&
        consecutive(stored, inner) && stored.back() == inner.back()) {
      f.direct = true;
      f.transposed = swapped;
    } else {
      f.perm = permutationTo(stored, concat({&c, &first, &second}));
    }
  }
  return f;
}

int64_t product(const Labels& ls, const Labels& order, const std::vector<int64_t>& extent) {
  int64_t p = 1;
  for (const auto& l : ls) p *= extent[std::find(order.begin(), order.end(), l) - order.begin()];
  return p;
}

std::string joined(const Labels& ls) {
  std::string s;
  for (const auto& l : ls) s += (s.empty() ? "" : ",") + l;
  return s;
}

}  // namespace

LabelClasses classifyLabels(const Labels& x, const Labels& y, const Labels& z) {
  LabelClasses classes;
  Labels all;
  for (const Labels* t : {&x, &y, &z})
    for (const auto& l : *t)
      if (!contains(all, l)) all.push_back(l);
  for (const auto& l : all) {
    const bool inX = contains(x, l), inY = contains(y, l), inZ = contains(z, l);
    if (inX && inY) (inZ ? classes.c : classes.k).push_back(l);
    else if (inX) (inZ ? classes.m : classes.r).push_back(l);
    else if (inY) (inZ ? classes.n : classes.r).push_back(l);
    else classes.b.push_back(l);
  }
  return classes;
}

std::string describeLabelClasses(const LabelClasses& classes) {
  std::string s;
  auto add = [&s](const char* type, const Labels& ls) {
    if (ls.empty()) return;
    if (!s.empty()) s += "  ";
    s += type;
    s += ":";
    for (const auto& l : ls) s += " " + l;
  };
  add("C", classes.c);
  add("M", classes.m);
  add("N", classes.n);
  add("K", classes.k);
  add("R", classes.r);
  add("B", classes.b);
  return s;
}

namespace {

// The node's tensors' labels without its unit singles: labels of size 1 in exactly one of
// X, Y and Z (a convolution tap's weight [O, C, 1, 1], read through a window at the tap).
// Summing or broadcasting over one element is no work, so they take no part in the GEMM:
// its spec leaves them out, and einrt lays the operand out without them (gemm_call.cpp).
struct GemmTensors {
  Labels x, y, z;
  bool strippedX = false, strippedY = false, strippedZ = false;
};

GemmTensors gemmTensors(const Node& n) {
  GemmTensors t{n.operandLabels[0], n.operandLabels[1], n.outputLabels};
  auto single = [&](const Label& l) {
    const auto size = n.labelSizes.find(l);
    return size != n.labelSizes.end() && size->second == 1 && contains(t.x, l) + contains(t.y, l) + contains(t.z, l) == 1;
  };
  auto strip = [&](Labels& ls, bool& stripped) {
    Labels kept;
    for (const auto& l : ls)
      if (!single(l)) kept.push_back(l);
    stripped = kept.size() != ls.size();
    return kept;
  };
  Labels x = strip(t.x, t.strippedX), y = strip(t.y, t.strippedY), z = strip(t.z, t.strippedZ);
  t.x = std::move(x), t.y = std::move(y), t.z = std::move(z);
  return t;
}

// The GEMM's tensors (gemmTensors) and label classes of a node that maps to a GEMM at
// every block extent: two operands summed over their product (scaled or not), no label
// repeated in a tensor (a diagonal reads no GEMM layout: it runs as an elementwise or
// reduction kernel over its strided diagonal), nothing aggregated from one operand alone and nothing broadcast. Where this
// holds, mapContractionToGemm always finds a mapping (its first candidate orders are the
// tensors' own); runsAsGemm asks only this, since the planner asks it of every node of
// every plan it prices.
struct GemmForm {
  GemmTensors tensors;
  LabelClasses classes;
};

std::optional<GemmForm> gemmForm(const Node& n) {
  if (n.operandLabels.size() != 2 || n.agg != Reduce::Sum || !productScale(n.join)) return std::nullopt;
  if (hasTaps(n) || hasSteps(n)) return std::nullopt;  // a convolution: one operand's rows move with the taps or steps
  if (hasRepeats(n.operandLabels[0]) || hasRepeats(n.operandLabels[1]) || hasRepeats(n.outputLabels)) return std::nullopt;
  GemmForm f{gemmTensors(n), {}};
  f.classes = classifyLabels(f.tensors.x, f.tensors.y, f.tensors.z);
  if (!f.classes.r.empty() || !f.classes.b.empty()) return std::nullopt;  // one-operand aggregation or broadcast
  return f;
}

}  // namespace

std::optional<GemmMapping> mapContractionToGemm(const Node& n, const std::vector<int64_t>& blockExtent) {
  const std::optional<GemmForm> form = gemmForm(n);
  if (!form) return std::nullopt;
  const double alpha = *productScale(n.join);
  const GemmTensors& tensors = form->tensors;
  const Labels& x = tensors.x;
  const Labels& y = tensors.y;
  const Labels& z = tensors.z;
  const Labels &c = form->classes.c, &m = form->classes.m, &nn = form->classes.n, &k = form->classes.k;
  const Labels order = iterationLabels(n);
  int64_t sizeX = product(x, order, blockExtent), sizeY = product(y, order, blockExtent),
          sizeZ = product(z, order, blockExtent);

  // Candidate group orders: the order each tensor already has. Then, where every order
  // needs a permutation, the same with Z's first 1, 2, ... labels promoted to batch loops.
  std::optional<GemmMapping> best;
  int64_t bestCost = std::numeric_limits<int64_t>::max();
  // One choice of group orders: kept where it permutes fewer elements than the best so far
  // (with loops, only where it permutes none).
  auto consider = [&](const Labels& co, const Labels& mo, const Labels& no, const Labels& ko, bool loops) {
    // Each tensor's batch labels: those it has (a promoted M label is not in Y).
    const Labels cx = restrictTo(co, x), cy = restrictTo(co, y), cz = restrictTo(co, z);
    Fit fx = fitOperand(x, cx, mo, ko), fy = fitOperand(y, cy, ko, no), fz = fitOperand(z, cz, mo, no);
    // A tensor without its unit singles is read in place only (a permutation of it would
    // have to name them).
    if ((tensors.strippedX && !fx.direct) || (tensors.strippedY && !fy.direct) || (tensors.strippedZ && !fz.direct)) return;
    int64_t cost = (fx.direct ? 0 : sizeX) + (fy.direct ? 0 : sizeY) + (fz.direct ? 0 : sizeZ);
    if (cost >= bestCost || (loops && cost > 0)) return;
    GemmMapping g;
    g.batchLabels = co;
    g.mLabels = mo;
    g.nLabels = no;
    g.kLabels = ko;
    g.batch = product(co, order, blockExtent);
    g.m = product(mo, order, blockExtent);
    g.n = product(no, order, blockExtent);
    g.k = product(ko, order, blockExtent);
    g.transX = fx.transposed;
    g.transY = fy.transposed;
    g.transZ = fz.transposed;
    g.permX = fx.perm;
    g.permY = fy.perm;
    g.permZ = fz.perm;
    g.permutedElements = cost;
    g.alpha = alpha;
    best = g;
    bestCost = cost;
  };
  for (std::size_t prefix = 0; prefix == 0 || (prefix < z.size() && bestCost > 0); ++prefix) {
    // Loops over M and N labels as well as C (the Einsum Trees paper's loops around the
    // GEMM, section 3): with Z's first `prefix` labels promoted, an operand that lacks one
    // steps over it with stride 0. syn's third step writes [d g f e i] from [b d g e i]
    // and [b f]: Z reads as no [M][N], but with d and g as loops every (d, g) entry is
    // one GEMM [f][e i] = [b f]^T [b][e i], and its consumer then reads [d g f e i] as
    // stored. Only where the loops spare every permutation (trading one permutation for
    // another by element counts chose worse: getd's second step then scattered its 100 MB
    // result, 15 ms, to spare its consumer's gather, 3-6 ms) and each call stays large
    // (kLoopCallSide, kLoopCallVolume).
    Labels cAll = c, mRest, nRest;
    for (std::size_t d = 0; d < prefix; ++d)
      if (!contains(c, z[d])) cAll.push_back(z[d]);
    if (prefix > 0 && (cAll.size() == c.size() || contains(c, z[prefix - 1]))) continue;  // nothing new promoted
    for (const auto& l : m)
      if (!contains(cAll, l)) mRest.push_back(l);
    for (const auto& l : nn)
      if (!contains(cAll, l)) nRest.push_back(l);
    if (prefix > 0) {
      const int64_t callM = product(mRest, order, blockExtent), callN = product(nRest, order, blockExtent);
      if (callM < kLoopCallSide || callN < kLoopCallSide || callM * callN * product(k, order, blockExtent) < kLoopCallVolume)
        continue;
    }
    std::vector<Labels> cOrders{restrictTo(z, cAll)};
    if (prefix == 0) cOrders = {restrictTo(z, c), restrictTo(x, c), restrictTo(y, c)};
    std::vector<Labels> mOrders{restrictTo(z, mRest), restrictTo(x, mRest)};
    std::vector<Labels> nOrders{restrictTo(z, nRest), restrictTo(y, nRest)};
    std::vector<Labels> kOrders{restrictTo(x, k), restrictTo(y, k)};
    for (const auto& co : cOrders)
      for (const auto& mo : mOrders)
        for (const auto& no : nOrders)
          for (const auto& ko : kOrders) consider(co, mo, no, ko, prefix > 0);
  }
  return best;
}

einrt::model::GemmSpec gemmSpecOf(const GemmMapping& g, const Labels& iterationLabels, einrt::program::GemmPlanned path) {
  auto indices = [&](const Labels& group) {
    std::vector<int> out;
    for (const auto& l : group)
      out.push_back(static_cast<int>(std::find(iterationLabels.begin(), iterationLabels.end(), l) - iterationLabels.begin()));
    return out;
  };
  return {indices(g.batchLabels), indices(g.mLabels), indices(g.nLabels), indices(g.kLabels), g.transX, g.transY, g.transZ,
          g.permX, g.permY, g.permZ, g.alpha, path};
}

einrt::model::GemmCallPlan gemmCallPlanOf(const Node& n, const GemmMapping& g, const std::vector<int64_t>& blockExtent) {
  const Labels labels = iterationLabels(n);
  return einrt::model::gemmCallPlan(gemmSpecOf(g, labels), nodeShape(n, labels, blockExtent), blockExtent);
}

std::string describeGemmMapping(const GemmMapping& g) {
  std::string s = (g.batch > 1 ? "strided-batched GEMM batch=" + std::to_string(g.batch) + " " : "GEMM ") +
                  "m=" + std::to_string(g.m) + " n=" + std::to_string(g.n) + " k=" + std::to_string(g.k) +
                  " (C[" + joined(g.batchLabels) + "] M[" + joined(g.mLabels) + "] N[" + joined(g.nLabels) +
                  "] K[" + joined(g.kLabels) + "])";
  if (g.transX) s += " X^T";
  if (g.transY) s += " Y^T";
  if (g.transZ) s += " Z^T";
  std::string perms;
  if (!g.permX.empty()) perms += " X";
  if (!g.permY.empty()) perms += " Y";
  if (!g.permZ.empty()) perms += " Z";
  s += perms.empty() ? ", no permutation" : ", permuted:" + perms;
  return s;
}

KernelMapping kernelMappingOf(const std::optional<GemmMapping>& mapping) {
  if (!mapping || !mapping->permX.empty() || !mapping->permY.empty() || !mapping->permZ.empty())
    return KernelMapping::Permutation;
  return mapping->batchLabels.empty() ? KernelMapping::Gemm : KernelMapping::BatchedGemm;
}

bool runsAsGemm(const Node& n) {
  // The mapping's K labels are an order of the classes' (mapContractionToGemm).
  const std::optional<GemmForm> form = gemmForm(n);
  return form && !form->classes.k.empty();
}

std::optional<std::vector<int>> permutationOrder(const Node& n) {
  if (n.operandLabels.size() != 1 || n.join.kind != Expr::Kind::VarX) return std::nullopt;
  if (hasSteps(n)) return std::nullopt;  // its block is not its labels' block: the node's loops

  const Labels& in = n.operandLabels[0];
  if (in.size() != n.outputLabels.size()) return std::nullopt;
  std::vector<int> order;
  for (const auto& l : n.outputLabels) {
    const auto first = std::find(in.begin(), in.end(), l);
    if (first == in.end() || std::find(first + 1, in.end(), l) != in.end()) return std::nullopt;
    order.push_back(static_cast<int>(first - in.begin()));
  }
  for (std::size_t d = 0; d < order.size(); ++d)
    if (std::count(order.begin(), order.end(), order[d]) != 1) return std::nullopt;
  return order;
}

const char* kernelMappingName(KernelMapping k) {
  switch (k) {
    case KernelMapping::Gemm: return "gemm";
    case KernelMapping::BatchedGemm: return "batched-gemm";
    case KernelMapping::Permutation: return "permute";
  }
  return "permute";
}

}  // namespace eindecomp
