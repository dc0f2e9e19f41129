#include "planner/partition/partition.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace eindecomp {

Parts projectParts(const Parts& nodeParts, const std::vector<int>& dims) {
  Parts out;
  out.reserve(dims.size());
  for (int d : dims) out.push_back(nodeParts[d]);
  return out;
}

namespace {

std::vector<int64_t> divisorsOf(int64_t n) {
  std::vector<int64_t> small, large;
  for (int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      small.push_back(d);
      if (d != n / d) large.push_back(n / d);
    }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

// A product `remaining` of divisors of sizes[from..] needs remaining | prod(sizes[from..]);
// checked without overflow by dividing out gcds label by label. Prunes dead branches.
bool divisibleBySuffix(const std::vector<int64_t>& sizes, std::size_t from, int64_t remaining) {
  for (std::size_t j = from; j < sizes.size() && remaining > 1; ++j) remaining /= std::gcd(remaining, sizes[j]);
  return remaining == 1;
}

void enumerate(const std::vector<int64_t>& sizes, std::size_t i, int64_t remaining, Parts& current,
               std::vector<Parts>& out, std::size_t limit, bool& truncated) {
  if (truncated) return;
  if (i == sizes.size()) {
    if (remaining != 1) return;
    if (out.size() >= limit) {
      truncated = true;
      return;
    }
    out.push_back(current);
    return;
  }
  for (int64_t d : divisorsOf(std::gcd(sizes[i], remaining))) {
    if (!divisibleBySuffix(sizes, i + 1, remaining / d)) continue;
    current[i] = d;
    enumerate(sizes, i + 1, remaining / d, current, out, limit, truncated);
    if (truncated) return;
  }
}

}  // namespace

std::vector<Parts> partitionsWithCount(const std::vector<int64_t>& sizes, int64_t count, std::size_t limit,
                                       bool* truncated) {
  std::vector<Parts> out;
  bool cut = false;
  Parts current(sizes.size(), 1);
  if (count >= 1 && divisibleBySuffix(sizes, 0, count)) enumerate(sizes, 0, count, current, out, limit, cut);
  if (truncated) *truncated = cut;
  return out;
}

int64_t largestFeasibleCount(const std::vector<int64_t>& sizes, int64_t p) {
  // The set of achievable products <= p grows label by label; every member divides
  // prod(sizes) and is at most p, so the set stays small.
  std::set<int64_t> reachable{1};
  for (int64_t size : sizes) {
    std::set<int64_t> next;
    const std::vector<int64_t> divisors = divisorsOf(size);
    for (int64_t r : reachable)
      for (int64_t d : divisors) {
        if (d > p / r) break;
        next.insert(r * d);
      }
    reachable = std::move(next);
  }
  return *reachable.rbegin();
}

ViablePartitions viablePartitions(const std::vector<int64_t>& sizes, int64_t p, std::size_t limit) {
  ViablePartitions v;
  v.devices = p;
  v.partitions = partitionsWithCount(sizes, p, limit, &v.truncated);
  v.kernelCalls = p;
  if (v.partitions.empty()) {
    v.kernelCalls = largestFeasibleCount(sizes, p);
    v.fallback = true;
    v.partitions = partitionsWithCount(sizes, v.kernelCalls, limit, &v.truncated);
  }
  return v;
}

std::vector<int64_t> primeFactors(int64_t n) {
  std::vector<int64_t> f;
  for (int64_t d = 2; d * d <= n; ++d)
    while (n % d == 0) {
      f.push_back(d);
      n /= d;
    }
  if (n > 1) f.push_back(n);
  return f;
}

}  // namespace eindecomp
