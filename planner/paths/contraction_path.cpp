#include "planner/paths/contraction_path.h"

#include <algorithm>
#include <stdexcept>

#include "planner/paths/label_bits.h"

namespace eindecomp {

PathCost costOf(const ContractionPath& path) { return {path.totalFlops, path.largestIntermediate}; }

bool cheaper(const PathCost& a, const PathCost& b, PathObjective objective) {
  if (objective == PathObjective::Memory) {
    if (a.largest != b.largest) return a.largest < b.largest;
    return a.flops < b.flops;
  }
  if (a.flops != b.flops) return a.flops < b.flops;
  return a.largest < b.largest;
}

void validateProblem(const ContractionProblem& p) {
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

void finishPath(const ContractionProblem& p, ContractionPath& path) {
  const int words = wordsForLabels(p.sizes.size());
  std::vector<uint64_t> set(words);
  auto sizeOf = [&](const std::vector<int>& labels) {
    std::fill(set.begin(), set.end(), 0);
    setBits(set.data(), labels);
    return productOfSizes(set.data(), words, p.sizes);
  };
  path.totalFlops = 0;
  path.largestIntermediate = sizeOf(p.output);
  for (const auto& op : p.operands) path.largestIntermediate = std::max(path.largestIntermediate, sizeOf(op));
  for (const auto& s : path.steps) {
    path.totalFlops = saturatingAdd(path.totalFlops, s.flops);
    path.largestIntermediate = std::max(path.largestIntermediate, s.resultSize);
  }
}

ContractionPath pathFromMerges(const ContractionProblem& p, const std::vector<std::pair<int, int>>& merges) {
  const int n = static_cast<int>(p.operands.size());
  const int words = wordsForLabels(p.sizes.size());
  if (static_cast<int>(merges.size()) != std::max(0, n - 1))
    throw std::invalid_argument("contraction path: a path over n operands has n - 1 steps");
  LabelSets tensors(2 * static_cast<std::size_t>(std::max(n, 1)), words);
  std::vector<int> holders(p.sizes.size(), 0);  // live tensors carrying each label
  for (int i = 0; i < n; ++i) {
    setBits(tensors.at(i), p.operands[i]);
    for (int l : labelsOf(tensors.at(i), words)) ++holders[l];
  }
  std::vector<uint64_t> out(words, 0), scratch(words);
  setBits(out.data(), p.output);
  std::vector<bool> used(2 * static_cast<std::size_t>(std::max(n, 1)), false);

  ContractionPath path;
  for (std::size_t k = 0; k < merges.size(); ++k) {
    const auto [a, b] = merges[k];
    const int id = n + static_cast<int>(k);
    if (a < 0 || b < 0 || a >= id || b >= id || a == b || used[a] || used[b])
      throw std::invalid_argument("contraction path: the steps do not form a contraction tree");
    used[a] = used[b] = true;
    const uint64_t* la = tensors.at(a);
    const uint64_t* lb = tensors.at(b);
    uint64_t* result = tensors.at(id);
    const bool last = k + 1 == merges.size();
    for (int w = 0; w < words; ++w) {
      if (last) {
        result[w] = out[w];
        continue;
      }
      for (uint64_t bits = la[w] | lb[w]; bits; bits &= bits - 1) {
        const int l = w * 64 + __builtin_ctzll(bits);
        const int elsewhere = holders[l] - (hasBit(la, l) ? 1 : 0) - (hasBit(lb, l) ? 1 : 0);
        if (elsewhere > 0 || hasBit(out.data(), l)) result[w] |= uint64_t{1} << (l % 64);
      }
    }
    for (int l : labelsOf(la, words)) --holders[l];
    for (int l : labelsOf(lb, words)) --holders[l];
    for (int l : labelsOf(result, words)) ++holders[l];
    PathStep step;
    step.left = a;
    step.right = b;
    step.result = labelsOf(result, words);
    step.flops = stepFlops(la, lb, result, words, p.sizes, scratch);
    step.resultSize = productOfSizes(result, words, p.sizes);
    path.steps.push_back(std::move(step));
  }
  finishPath(p, path);
  return path;
}

FlopCount naiveFlops(const ContractionProblem& p) {
  const int words = wordsForLabels(p.sizes.size());
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
