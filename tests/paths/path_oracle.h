// Test oracle for contraction paths, written independently of planner/paths: networks
// as einsum strings with one-character labels, the cost of a pairwise step recounted
// from label sets, a brute force over every sequence of pairwise contractions (FLOPs,
// and the largest tensor as NumPy counts it), and the replay of a path in opt_einsum's
// positional form.
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "planner/paths/contraction_path.h"

namespace pathtest {

using eindecomp::ContractionPath;
using eindecomp::ContractionProblem;
using eindecomp::FlopCount;
using LabelSet = std::set<char>;

struct Parsed {
  std::vector<LabelSet> operands;
  LabelSet output;
  std::map<char, int64_t> size;
};

inline Parsed parse(const std::string& einsum, const std::vector<int64_t>& sizes) {
  Parsed p;
  const auto arrow = einsum.find("->");
  std::string lhs = einsum.substr(0, arrow), rhs = einsum.substr(arrow + 2);
  LabelSet current;
  for (char c : lhs) {
    if (c == ',') {
      p.operands.push_back(current);
      current.clear();
    } else {
      current.insert(c);
    }
  }
  p.operands.push_back(current);
  p.output = LabelSet(rhs.begin(), rhs.end());
  LabelSet all = p.output;
  for (const auto& op : p.operands) all.insert(op.begin(), op.end());
  std::vector<char> sorted(all.begin(), all.end());  // ASCII: upper case before lower case
  REQUIRE(sorted.size() == sizes.size());
  for (std::size_t i = 0; i < sorted.size(); ++i) p.size[sorted[i]] = sizes[i];
  return p;
}

inline ContractionProblem toProblem(const Parsed& p) {
  ContractionProblem prob;
  std::map<char, int> id;
  for (const auto& [c, s] : p.size) {
    id[c] = static_cast<int>(prob.sizes.size());
    prob.sizes.push_back(s);
  }
  for (const auto& op : p.operands) {
    std::vector<int> ids;
    for (char c : op) ids.push_back(id[c]);
    prob.operands.push_back(ids);
  }
  for (char c : p.output) prob.output.push_back(id[c]);
  return prob;
}

// One pairwise step: the result keeps labels needed by the rest or by the output.
// Cost: product over every label involved, times 2 when something is summed out.
inline long double stepCost(const LabelSet& a, const LabelSet& b, const std::vector<LabelSet>& rest, const Parsed& p,
                     LabelSet& result) {
  LabelSet involved = a;
  involved.insert(b.begin(), b.end());
  result.clear();
  for (char c : involved) {
    bool needed = p.output.count(c) > 0;
    for (const auto& r : rest) needed = needed || r.count(c) > 0;
    if (needed) result.insert(c);
  }
  if (rest.empty()) result = p.output;
  LabelSet loop = involved;
  loop.insert(result.begin(), result.end());
  long double prod = 1;
  for (char c : loop) prod *= static_cast<long double>(p.size.at(c));
  const bool summed = std::any_of(involved.begin(), involved.end(), [&](char c) { return !result.count(c); });
  return prod * (summed ? 2 : 1);
}

// Brute force: every ordered sequence of pairwise contractions.
inline long double bruteForce(const std::vector<LabelSet>& tensors, const Parsed& p) {
  if (tensors.size() == 1) return 0;
  long double best = -1;
  for (std::size_t i = 0; i < tensors.size(); ++i)
    for (std::size_t j = i + 1; j < tensors.size(); ++j) {
      std::vector<LabelSet> rest;
      for (std::size_t k = 0; k < tensors.size(); ++k)
        if (k != i && k != j) rest.push_back(tensors[k]);
      LabelSet result;
      const long double cost = stepCost(tensors[i], tensors[j], rest, p, result);
      rest.push_back(result);
      const long double total = cost + bruteForce(rest, p);
      if (best < 0 || total < best) best = total;
    }
  return best;
}

// FLOPs of a path in opt_einsum's positional notation.
inline long double positionalPathCost(const std::vector<std::pair<int, int>>& path, const Parsed& p) {
  std::vector<LabelSet> tensors = p.operands;
  long double total = 0;
  for (const auto& [a, b] : path) {
    std::vector<LabelSet> rest;
    for (std::size_t k = 0; k < tensors.size(); ++k)
      if (static_cast<int>(k) != a && static_cast<int>(k) != b) rest.push_back(tensors[k]);
    LabelSet result;
    total += stepCost(tensors[a], tensors[b], rest, p, result);
    rest.push_back(result);
    tensors = rest;
  }
  return total;
}

// Exact for counts below 2^64 (long double keeps 64 mantissa bits).
inline long double asLongDouble(FlopCount c) {
  return static_cast<long double>(static_cast<uint64_t>(c >> 64)) * 18446744073709551616.0L +
         static_cast<long double>(static_cast<uint64_t>(c));
}

inline void checkWellFormed(const ContractionPath& path, int n) {
  REQUIRE(static_cast<int>(path.steps.size()) == n - 1);
  std::set<int> used;
  int next = n;
  for (const auto& s : path.steps) {
    CHECK(s.left < next);
    CHECK(s.right < next);
    CHECK(s.left != s.right);
    CHECK(used.insert(s.left).second);
    CHECK(used.insert(s.right).second);
    ++next;
  }
}

// Elements of a label set.
inline long double sizeOf(const LabelSet& labels, const Parsed& p) {
  long double prod = 1;
  for (char c : labels) prod *= static_cast<long double>(p.size.at(c));
  return prod;
}

// Brute force for the memory objective: the least possible largest tensor over every
// sequence of pairwise contractions, counted as NumPy does (operands, every step's
// result, the output).
inline long double bruteForceLargestSteps(const std::vector<LabelSet>& tensors, const Parsed& p) {
  if (tensors.size() == 1) return 0;
  long double best = -1;
  for (std::size_t i = 0; i < tensors.size(); ++i)
    for (std::size_t j = i + 1; j < tensors.size(); ++j) {
      std::vector<LabelSet> rest;
      for (std::size_t k = 0; k < tensors.size(); ++k)
        if (k != i && k != j) rest.push_back(tensors[k]);
      LabelSet result;
      stepCost(tensors[i], tensors[j], rest, p, result);
      rest.push_back(result);
      const long double largest = std::max(sizeOf(result, p), bruteForceLargestSteps(rest, p));
      if (best < 0 || largest < best) best = largest;
    }
  return best;
}

inline long double bruteForceLargest(const Parsed& p) {
  long double largest = std::max(sizeOf(p.output, p), bruteForceLargestSteps(p.operands, p));
  for (const auto& op : p.operands) largest = std::max(largest, sizeOf(op, p));
  return largest;
}

}  // namespace pathtest
