#include "planner/paths/optimal_path.h"

#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include "planner/paths/label_bits.h"

namespace eindecomp {

namespace {

// The problem with its labels renumbered 0..m-1 in order of first use, so that the
// search's bit sets are as short as the labels it really touches (a window of a large
// network uses a few of its labels).
ContractionProblem compactLabels(const ContractionProblem& p, std::vector<int>& original) {
  std::vector<int> local(p.sizes.size(), -1);
  ContractionProblem c;
  auto renumber = [&](const std::vector<int>& labels) {
    std::vector<int> out;
    for (int l : labels) {
      if (local[l] < 0) {
        local[l] = static_cast<int>(original.size());
        original.push_back(l);
        c.sizes.push_back(p.sizes[l]);
      }
      out.push_back(local[l]);
    }
    return out;
  };
  for (const auto& op : p.operands) c.operands.push_back(renumber(op));
  c.output = renumber(p.output);
  return c;
}

// Products of label sizes over bit sets, as FLOP and element counts: 64-bit when no path
// can exceed 2^62 (then no check is needed), else the saturating 128-bit FlopCount. In
// 64 bits a table per byte of the set (the product over every subset of those 8 labels)
// turns a product into a lookup per byte: the search takes one for every split it weighs.
template <class Count>
class SizeProducts {
 public:
  SizeProducts(const std::vector<int64_t>& sizes, int words) : sizes_(sizes), words_(words) {
    if constexpr (std::is_same_v<Count, uint64_t>) {
      bytes_ = static_cast<int>((sizes.size() + 7) / 8);
      table_.assign(static_cast<std::size_t>(bytes_) * 256, 1);
      for (int b = 0; b < bytes_; ++b)
        for (unsigned v = 1; v < 256; ++v) {
          const std::size_t label = static_cast<std::size_t>(8 * b + __builtin_ctz(v));
          const uint64_t size = label < sizes.size() ? static_cast<uint64_t>(sizes[label]) : 1;
          table_[b * 256 + v] = table_[b * 256 + (v & (v - 1))] * size;
        }
    }
  }

  Count operator()(const uint64_t* set) const {
    Count prod = 1;
    if constexpr (std::is_same_v<Count, uint64_t>) {
      for (int b = 0; b < bytes_; ++b) prod *= table_[b * 256 + ((set[b / 8] >> (8 * (b % 8))) & 255)];
    } else {
      for (int w = 0; w < words_; ++w)
        for (uint64_t bits = set[w]; bits; bits &= bits - 1)
          prod = saturatingMul(prod, static_cast<FlopCount>(sizes_[w * 64 + __builtin_ctzll(bits)]));
    }
    return prod;
  }

 private:
  const std::vector<int64_t>& sizes_;
  int words_;
  int bytes_ = 0;
  std::vector<uint64_t> table_;
};

template <class Count>
Count add(Count a, Count b) {
  if constexpr (std::is_same_v<Count, FlopCount>) return saturatingAdd(a, b);
  else return a + b;
}

// The dynamic program over subsets of the (compacted) problem's operands; returns the
// best split of every subset (the part holding its lowest operand).
template <class Count>
std::vector<uint32_t> bestSplits(const ContractionProblem& p, PathObjective objective, const LabelSets& kept) {
  const int n = static_cast<int>(p.operands.size());
  const int words = kept.words;
  const uint32_t full = (uint32_t{1} << n) - 1;
  const std::size_t subsets = std::size_t{full} + 1;

  std::vector<Count> size(subsets, 0), bestFlops(subsets, 0), bestTie(subsets, 0), largest(subsets, 0);
  std::vector<uint32_t> bestSplit(subsets, 0);
  const SizeProducts<Count> product(p.sizes, words);
  for (uint32_t s = 1; s <= full; ++s) size[s] = product(kept.at(s));
  // Flops: minimal FLOPs, then minimal summed intermediate size. Memory: minimal largest
  // tensor (an operand counts from the start, the output at the end), then FLOPs.
  const bool memory = objective == PathObjective::Memory;
  for (int i = 0; i < n; ++i) largest[uint32_t{1} << i] = size[uint32_t{1} << i];

  std::vector<uint64_t> loop(words, 0);
  for (uint32_t s = 1; s <= full; ++s) {
    if ((s & (s - 1)) == 0) continue;  // a single operand costs nothing
    const uint32_t low = s & (~s + 1);
    const uint32_t rest = s ^ low;
    const uint64_t* ks = kept.at(s);
    bool found = false;
    // Every split {S1, S2} once: S1 holds the lowest operand of S.
    for (uint32_t sub = rest;; sub = (sub - 1) & rest) {
      const uint32_t a = low | sub;
      const uint32_t b = s ^ a;
      // A split that costs more than the best so far even with the cheapest step it could
      // have (its loop nest spans at least either part's result) can neither win nor tie:
      // its step is not even counted.
      const bool hopeless =
          found && (memory ? std::max(largest[a], largest[b]) > largest[s]
                           : add(add(bestFlops[a], bestFlops[b]), std::max(size[a], size[b])) > bestFlops[s]);
      if (a != s && !hopeless) {
        // The step's loop nest: every label of either part and of the result; one
        // multiply per point, plus one add when a label is summed out.
        const uint64_t* ka = kept.at(a);
        const uint64_t* kb = kept.at(b);
        bool summed = false;
        for (int w = 0; w < words; ++w) {
          loop[w] = ka[w] | kb[w] | ks[w];
          if ((ka[w] | kb[w]) & ~ks[w]) summed = true;
        }
        const Count points = product(loop.data());
        const Count step = add(points, summed ? points : Count{0});
        const Count flops = add(add(bestFlops[a], bestFlops[b]), step);
        const Count tie = add(add(bestTie[a], bestTie[b]), s == full ? Count{0} : size[s]);
        const Count peak = std::max({largest[a], largest[b], size[s]});
        const bool better = memory ? (peak < largest[s] || (peak == largest[s] && flops < bestFlops[s]))
                                   : (flops < bestFlops[s] || (flops == bestFlops[s] && tie < bestTie[s]));
        if (!found || better) {
          found = true;
          bestFlops[s] = flops;
          bestTie[s] = tie;
          largest[s] = peak;
          bestSplit[s] = a;
        }
      }
      if (sub == 0) break;
    }
  }
  return bestSplit;
}

}  // namespace

ContractionPath optimalPath(const ContractionProblem& original, PathObjective objective) {
  validateProblem(original);
  const int n = static_cast<int>(original.operands.size());
  if (n > 20) throw std::invalid_argument("contraction path: the exact search is limited to 20 operands");
  ContractionPath path;
  path.exact = true;
  if (n < 2) {
    finishPath(original, path);
    return path;
  }
  std::vector<int> originalLabel;
  const ContractionProblem p = compactLabels(original, originalLabel);

  const int words = wordsForLabels(p.sizes.size());
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

  // Any step spans at most every label, any path has n - 1 steps of at most two
  // operations per point: below 2^62 in all, 64-bit counts cannot overflow.
  FlopCount bound = 2 * static_cast<FlopCount>(n);
  for (int64_t size : p.sizes) bound = saturatingMul(bound, static_cast<FlopCount>(size));
  const std::vector<uint32_t> bestSplit = bound < (FlopCount{1} << 62) ? bestSplits<uint64_t>(p, objective, kept)
                                                                      : bestSplits<FlopCount>(p, objective, kept);

  // Unfold the tree into SSA steps, children before parents, the part holding the lowest
  // operand first.
  std::vector<int> ssaOf(subsets, -1);
  for (int i = 0; i < n; ++i) ssaOf[uint32_t{1} << i] = i;
  int next = n;
  std::vector<std::pair<uint32_t, bool>> stack{{full, false}};
  std::vector<uint64_t> scratch(words, 0);
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
    for (int l : labelsOf(kept.at(s), words)) step.result.push_back(originalLabel[l]);
    std::sort(step.result.begin(), step.result.end());
    step.flops = stepFlops(kept.at(a), kept.at(b), kept.at(s), words, p.sizes, scratch);
    step.resultSize = productOfSizes(kept.at(s), words, p.sizes);
    path.steps.push_back(std::move(step));
    ssaOf[s] = next++;
  }
  finishPath(original, path);
  return path;
}

}  // namespace eindecomp
