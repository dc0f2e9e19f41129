#include "planner/cost/residency.h"

#include <cstddef>

namespace eindecomp {

std::vector<bool> resultsFromMemory(const std::vector<int>& lastReader, const std::vector<double>& touchedBytes, double cacheBytes) {
  const std::size_t n = lastReader.size();
  std::vector<bool> cold(n, false);
  if (cacheBytes <= 0) return cold;
  std::vector<double> before(n + 1, 0.0);  // bytes touched by nodes 0..i-1
  for (std::size_t i = 0; i < n; ++i) before[i + 1] = before[i] + touchedBytes[i];
  for (std::size_t i = 0; i < n; ++i) {
    // After the result's last reader to the iteration's end, then from its start up to the node.
    const auto last = static_cast<std::size_t>(lastReader[i]);
    const double distance = (before[n] - before[last + 1]) + before[i];
    cold[i] = distance > cacheBytes;
  }
  return cold;
}

}  // namespace eindecomp
