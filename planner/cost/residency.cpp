#include "planner/cost/residency.h"

#include <cstddef>
#include <string>
#include <unordered_map>

namespace eindecomp {

std::vector<bool> resultsFromMemory(const Graph& g, const std::vector<double>& touchedBytes, double cacheBytes) {
  const std::size_t n = g.nodes.size();
  std::vector<bool> cold(n, false);
  if (cacheBytes <= 0) return cold;
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < n; ++i) index[g.nodes[i].name] = i;
  std::vector<std::size_t> lastReader(n);
  for (std::size_t i = 0; i < n; ++i) lastReader[i] = i;
  for (std::size_t j = 0; j < n; ++j)
    for (const std::string& in : g.nodes[j].inputs)
      if (const auto found = index.find(in); found != index.end()) lastReader[found->second] = j;
  std::vector<double> before(n + 1, 0.0);  // bytes touched by nodes 0..i-1
  for (std::size_t i = 0; i < n; ++i) before[i + 1] = before[i] + touchedBytes[i];
  for (std::size_t i = 0; i < n; ++i) {
    // After the last reader to the iteration's end, then from its start up to the node.
    const double distance = (before[n] - before[lastReader[i] + 1]) + before[i];
    cold[i] = distance > cacheBytes;
  }
  return cold;
}

}  // namespace eindecomp
