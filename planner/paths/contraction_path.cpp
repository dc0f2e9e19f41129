#include "planner/paths/contraction_path.h"

#include <algorithm>
#include <stdexcept>

namespace eindecomp {

namespace {

// Label sets as bit sets over label ids, stored as `words` 64-bit words. The exact search
// keeps one set per subset of operands in one flat array, hence the span-like helpers.
struct LabelSets {
  int words = 0;
  std::vector<uint64_t> bits;

  LabelSets(std::size_t count, int wordsPerSet) : words(wordsPerSet), bits(count * wordsPerSet, 0) {}
  uint64_t* at(std::size_t i) { return bits.data() + i * words; }
  const uint64_t* at(std::size_t i) const { return bits.data() + i * words; }
};

int wordsFor(const ContractionProblem& p) { return static_cast<int>((p.sizes.size() + 63) / 64); }

void setBits(uint64_t* set, const std::vector<int>& labels) {
  for (int l : labels) set[l / 64] |= uint64_t{1} << (l % 64);
}

bool hasBit(const uint64_t* set, int label) { return (set[label / 64] >> (label % 64)) & 1; }

std::vector<int> labelsOf(const uint64_t* set, int words) {
  std::vector<int> out;
  for (int w = 0; w < words; ++w)
    for (uint64_t b = set[w]; b; b &= b - 1) out.push_back(w * 64 + __builtin_ctzll(b));
  return out;
}

FlopCount productOfSizes(const uint64_t* set, int words, const std::vector<int64_t>& sizes) {
  FlopCount prod = 1;
  for (int w = 0; w < words; ++w)
    for (uint64_t b = set[w]; b; b &= b - 1)
      prod = saturatingMul(prod, static_cast<FlopCount>(sizes[w * 64 + __builtin_ctzll(b)]));
  return prod;
}

// FLOPs of one binary step: every label of either operand and of the result spans the
// loop nest; one multiply per point, plus one add when some label is summed out.
FlopCount stepFlops(const uint64_t* a, const uint64_t* b, const uint64_t* result, int words,
                    const std::vector<int64_t>& sizes, std::vector<uint64_t>& scratch) {
  bool summed = false;
  for (int w = 0; w < words; ++w) {
    uint64_t operands = a[w] | b[w];
    scratch[w] = operands | result[w];
    if (operands & ~result[w]) summed = true;
  }
  return saturatingMul(productOfSizes(scratch.data(), words, sizes), summed ? 2 : 1);
}

void validate(const ContractionProblem& p) {
  const int labels = static_cast<int>(p.sizes.size());
  auto check = [labels](const std::vector<int>& ls) {
    for (int l : ls)
      if (l < 0 || l >= labels) throw std::invalid_argument("contraction path: label id out of range");
  };
  for (const auto& op : p.operands) check(op);
  check(p.output);
  for (int64_t s : p.sizes)
    if (s < 1) throw std::invalid_argument("contraction path: label sizes must be positive");
}

void finish(ContractionPath& path) {
  path.totalFlops = 0;
  path.largestIntermediate = 0;
  for (std::size_t i = 0; i < path.steps.size(); ++i) {
    path.totalFlops = saturatingAdd(path.totalFlops, path.steps[i].flops);
    if (i + 1 < path.steps.size()) path.largestIntermediate = std::max(path.largestIntermediate, path.steps[i].resultSize);
  }
}

}  // namespace

FlopCount naiveFlops(const ContractionProblem& p) {
  const int words = wordsFor(p);
  std::vector<uint64_t> all(words, 0), out(words, 0);
  for (const auto& op : p.operands) setBits(all.data(), op);
  setBits(out.data(), p.output);
  bool summed = false;
  for (int w = 0; w < words; ++w) {
    if (all[w] & ~out[w]) summed = true;
    all[w] |= out[w];
  }
  const FlopCount perPoint =
      static_cast<FlopCount>(std::max<std::size_t>(1, p.operands.size() - 1) + (summed ? 1 : 0));
  return saturatingMul(productOfSizes(all.data(), words, p.sizes), perPoint);
}

ContractionPath optimalPath(const ContractionProblem& p) {
  validate(p);
  const int n = static_cast<int>(p.operands.size());
  if (n > 20) throw std::invalid_argument("contraction path: the exact search is limited to 20 operands");
  ContractionPath path;
  path.exact = true;
  if (n < 2) return path;

  const int words = wordsFor(p);
  const uint32_t full = (uint32_t{1} << n) - 1;
  const std::size_t subsets = std::size_t{full} + 1;

  // present[S]: labels of the operands in S; kept[S]: the labels of S's contracted result,
  // those still needed outside S.
  LabelSets present(subsets, words), kept(subsets, words);
  for (uint32_t s = 1; s <= full; ++s) {
    const int low = __builtin_ctz(s);
    uint64_t* dst = present.at(s);
    const uint64_t* rest = present.at(s & (s - 1));
    for (int w = 0; w < words; ++w) dst[w] = rest[w];
    setBits(dst, p.operands[low]);
  }
  std::vector<uint64_t> out(words, 0);
  setBits(out.data(), p.output);
  for (uint32_t s = 1; s <= full; ++s) {
    uint64_t* dst = kept.at(s);
    const uint64_t* in = present.at(s);
    // An operand is a tensor as given (labels only it has are summed in its first step);
    // the whole set is the node's output.
    if (s == full || (s & (s - 1)) == 0) {
      for (int w = 0; w < words; ++w) dst[w] = s == full ? out[w] : in[w];
      continue;
    }
    const uint64_t* outside = present.at(full ^ s);
    for (int w = 0; w < words; ++w) dst[w] = in[w] & (outside[w] | out[w]);
  }

  std::vector<FlopCount> size(subsets, 0), bestFlops(subsets, 0), bestTie(subsets, 0);
  std::vector<uint32_t> bestSplit(subsets, 0);
  for (uint32_t s = 1; s <= full; ++s) size[s] = productOfSizes(kept.at(s), words, p.sizes);

  std::vector<uint64_t> scratch(words, 0);
  for (uint32_t s = 1; s <= full; ++s) {
    if ((s & (s - 1)) == 0) continue;  // a single operand costs nothing
    const uint32_t low = s & (~s + 1);
    const uint32_t rest = s ^ low;
    bool found = false;
    // Every split {S1, S2} once: S1 holds the lowest operand of S.
    for (uint32_t sub = rest;; sub = (sub - 1) & rest) {
      const uint32_t a = low | sub;
      if (a != s) {
        const uint32_t b = s ^ a;
        const FlopCount step = stepFlops(kept.at(a), kept.at(b), kept.at(s), words, p.sizes, scratch);
        const FlopCount flops = saturatingAdd(saturatingAdd(bestFlops[a], bestFlops[b]), step);
        const FlopCount tie =
            saturatingAdd(saturatingAdd(bestTie[a], bestTie[b]), s == full ? FlopCount{0} : size[s]);
        if (!found || flops < bestFlops[s] || (flops == bestFlops[s] && tie < bestTie[s])) {
          found = true;
          bestFlops[s] = flops;
          bestTie[s] = tie;
          bestSplit[s] = a;
        }
      }
      if (sub == 0) break;
    }
  }

  // Unfold the tree into SSA steps, children before parents, the part holding the lowest
  // operand first.
  std::vector<int> ssaOf(subsets, -1);
  for (int i = 0; i < n; ++i) ssaOf[uint32_t{1} << i] = i;
  int next = n;
  std::vector<std::pair<uint32_t, bool>> stack{{full, false}};
  while (!stack.empty()) {
    auto [s, expanded] = stack.back();
    stack.pop_back();
    if (ssaOf[s] >= 0) continue;
    const uint32_t a = bestSplit[s], b = s ^ a;
    if (!expanded) {
      stack.push_back({s, true});
      stack.push_back({b, false});
      stack.push_back({a, false});
      continue;
    }
    PathStep step;
    step.left = ssaOf[a];
    step.right = ssaOf[b];
    step.result = labelsOf(kept.at(s), words);
    step.flops = stepFlops(kept.at(a), kept.at(b), kept.at(s), words, p.sizes, scratch);
    step.resultSize = size[s];
    path.steps.push_back(std::move(step));
    ssaOf[s] = next++;
  }
  finish(path);
  return path;
}

ContractionPath greedyPath(const ContractionProblem& p) {
  validate(p);
  const int n = static_cast<int>(p.operands.size());
  const int labelCount = static_cast<int>(p.sizes.size());
  const int words = wordsFor(p);
  ContractionPath path;
  if (n < 2) return path;

  struct Live {
    int ssa;
    std::vector<uint64_t> labels;
  };
  std::vector<Live> live;
  std::vector<int> holders(labelCount, 0);  // how many live tensors carry each label
  for (int i = 0; i < n; ++i) {
    Live t{i, std::vector<uint64_t>(words, 0)};
    setBits(t.labels.data(), p.operands[i]);
    for (int l : labelsOf(t.labels.data(), words)) ++holders[l];
    live.push_back(std::move(t));
  }
  std::vector<uint64_t> out(words, 0);
  setBits(out.data(), p.output);

  std::vector<uint64_t> result(words), scratch(words);
  auto resultOf = [&](const Live& a, const Live& b, std::vector<uint64_t>& dst) {
    if (live.size() == 2) {
      dst = out;
      return;
    }
    std::fill(dst.begin(), dst.end(), 0);
    for (int w = 0; w < words; ++w)
      for (uint64_t bits = a.labels[w] | b.labels[w]; bits; bits &= bits - 1) {
        const int l = w * 64 + __builtin_ctzll(bits);
        const int elsewhere = holders[l] - (hasBit(a.labels.data(), l) ? 1 : 0) - (hasBit(b.labels.data(), l) ? 1 : 0);
        if (elsewhere > 0 || hasBit(out.data(), l)) dst[w] |= uint64_t{1} << (l % 64);
      }
  };
  auto shareLabel = [&](const Live& a, const Live& b) {
    for (int w = 0; w < words; ++w)
      if (a.labels[w] & b.labels[w]) return true;
    return false;
  };

  int next = n;
  while (live.size() > 1) {
    bool anyShared = false;
    for (std::size_t i = 0; i < live.size() && !anyShared; ++i)
      for (std::size_t j = i + 1; j < live.size() && !anyShared; ++j) anyShared = shareLabel(live[i], live[j]);

    std::size_t bestI = 0, bestJ = 1;
    FlopCount bestFlops = kFlopCountSaturated, bestSize = kFlopCountSaturated;
    bool found = false;
    for (std::size_t i = 0; i < live.size(); ++i)
      for (std::size_t j = i + 1; j < live.size(); ++j) {
        if (anyShared && !shareLabel(live[i], live[j])) continue;
        resultOf(live[i], live[j], result);
        const FlopCount flops = stepFlops(live[i].labels.data(), live[j].labels.data(), result.data(), words, p.sizes, scratch);
        const FlopCount size = productOfSizes(result.data(), words, p.sizes);
        if (!found || flops < bestFlops || (flops == bestFlops && size < bestSize)) {
          found = true;
          bestFlops = flops;
          bestSize = size;
          bestI = i;
          bestJ = j;
        }
      }

    resultOf(live[bestI], live[bestJ], result);
    PathStep step;
    step.left = live[bestI].ssa;
    step.right = live[bestJ].ssa;
    step.result = labelsOf(result.data(), words);
    step.flops = bestFlops;
    step.resultSize = bestSize;
    path.steps.push_back(step);

    for (int l : labelsOf(live[bestI].labels.data(), words)) --holders[l];
    for (int l : labelsOf(live[bestJ].labels.data(), words)) --holders[l];
    for (int l : step.result) ++holders[l];
    Live merged{next++, result};
    live.erase(live.begin() + static_cast<std::ptrdiff_t>(bestJ));
    live.erase(live.begin() + static_cast<std::ptrdiff_t>(bestI));
    live.push_back(std::move(merged));
  }
  finish(path);
  return path;
}

ContractionPath reconfigurePath(const ContractionProblem& p, const ContractionPath& path, int leaves, int passes) {
  const int n = static_cast<int>(p.operands.size());
  if (n < 3 || leaves < 3) return path;
  leaves = std::min(leaves, 20);

  // The contraction tree: tensors 0..n-1 are the operands, n + k the result of step k.
  struct TreeNode {
    int left = -1, right = -1;
    std::vector<int> labels;
    FlopCount flops = 0, size = 0;
  };
  std::vector<TreeNode> tree(2 * n - 1);
  for (int i = 0; i < n; ++i) tree[i].labels = p.operands[i];
  for (std::size_t k = 0; k < path.steps.size(); ++k) {
    const PathStep& s = path.steps[k];
    tree[n + k] = {s.left, s.right, s.result, s.flops, s.resultSize};
  }
  const int root = 2 * n - 2;

  for (int pass = 0; pass < passes; ++pass) {
    bool improved = false;
    for (int v = n; v <= root; ++v) {
      // Cut the subtree under v: expand the costliest internal frontier node until the
      // frontier has `leaves` tensors.
      std::vector<int> frontier{tree[v].left, tree[v].right}, region{v};
      while (static_cast<int>(frontier.size()) < leaves) {
        int pick = -1;
        for (std::size_t i = 0; i < frontier.size(); ++i)
          if (frontier[i] >= n && (pick < 0 || tree[frontier[i]].flops > tree[frontier[pick]].flops)) pick = static_cast<int>(i);
        if (pick < 0) break;
        const int f = frontier[pick];
        frontier.erase(frontier.begin() + pick);
        frontier.push_back(tree[f].left);
        frontier.push_back(tree[f].right);
        region.push_back(f);
      }
      if (frontier.size() < 3) continue;
      FlopCount regionFlops = 0;
      for (int r : region) regionFlops = saturatingAdd(regionFlops, tree[r].flops);

      ContractionProblem sub;
      sub.sizes = p.sizes;
      for (int f : frontier) sub.operands.push_back(tree[f].labels);
      sub.output = tree[v].labels;
      const ContractionPath best = optimalPath(sub);
      if (!(best.totalFlops < regionFlops)) continue;

      // Rebuild the region in place: its node slots take the new steps, the last is v.
      const int m = static_cast<int>(frontier.size());
      std::vector<int> slots(region.begin() + 1, region.end());
      slots.push_back(v);
      auto nodeOf = [&](int ssa) { return ssa < m ? frontier[ssa] : slots[ssa - m]; };
      for (std::size_t k = 0; k < best.steps.size(); ++k) {
        const PathStep& s = best.steps[k];
        tree[slots[k]] = {nodeOf(s.left), nodeOf(s.right), s.result, s.flops, s.resultSize};
      }
      improved = true;
    }
    if (!improved) break;
  }

  // Back to SSA steps: children before parents.
  ContractionPath out;
  out.exact = path.exact;
  std::vector<int> ssa(2 * n - 1, -1);
  for (int i = 0; i < n; ++i) ssa[i] = i;
  int next = n;
  std::vector<std::pair<int, bool>> stack{{root, false}};
  while (!stack.empty()) {
    auto [v, expanded] = stack.back();
    stack.pop_back();
    if (ssa[v] >= 0) continue;
    if (!expanded) {
      stack.push_back({v, true});
      stack.push_back({tree[v].right, false});
      stack.push_back({tree[v].left, false});
      continue;
    }
    out.steps.push_back({ssa[tree[v].left], ssa[tree[v].right], tree[v].labels, tree[v].flops, tree[v].size});
    ssa[v] = next++;
  }
  finish(out);
  return out.totalFlops <= path.totalFlops ? out : path;
}

ContractionPath optimizePath(const ContractionProblem& p, int maxExactOperands) {
  if (static_cast<int>(p.operands.size()) <= std::min(maxExactOperands, 20)) return optimalPath(p);
  return reconfigurePath(p, greedyPath(p));
}

std::vector<std::pair<int, int>> toPositionalPath(const ContractionPath& path, int operandCount) {
  std::vector<int> current;
  for (int i = 0; i < operandCount; ++i) current.push_back(i);
  std::vector<std::pair<int, int>> positions;
  int next = operandCount;
  for (const auto& step : path.steps) {
    const auto a = std::find(current.begin(), current.end(), step.left) - current.begin();
    const auto b = std::find(current.begin(), current.end(), step.right) - current.begin();
    positions.push_back({static_cast<int>(std::min(a, b)), static_cast<int>(std::max(a, b))});
    current.erase(current.begin() + std::max(a, b));
    current.erase(current.begin() + std::min(a, b));
    current.push_back(next++);
  }
  return positions;
}

}  // namespace eindecomp
