#include "planner/algorithms/pins.h"

#include <algorithm>
#include <charconv>

namespace eindecomp {

namespace {

int64_t parsePositive(const std::string& text, const SourceLoc& where, const std::string& what) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || v <= 0)
    throw InputError({where, what + ": '" + text + "' is not a positive integer"});
  return v;
}

}  // namespace

PartitionRequest parseFixOption(const std::string& text, const SourceLoc& where) {
  PartitionRequest r;
  r.loc = where;
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError({where, "--fix '" + text + "': expected NODE=LABEL:PARTS[,LABEL:PARTS...]"});
  r.node = text.substr(0, eq);
  std::string rest = text.substr(eq + 1);
  std::size_t start = 0;
  while (start <= rest.size()) {
    std::size_t comma = rest.find(',', start);
    std::string item = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    auto colon = item.find(':');
    if (colon == std::string::npos || colon == 0)
      throw InputError({where, "--fix '" + text + "': expected LABEL:PARTS, got '" + item + "'"});
    std::string label = item.substr(0, colon);
    r.parts.emplace_back(label, parsePositive(item.substr(colon + 1), where, "--fix " + r.node + " label " + label));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return r;
}

Parts resolvePartitionRequest(const Graph& g, const PartitionRequest& request, int64_t devices) {
  return resolvePartitionRequest(findNode(g, request.node), request, devices);
}

Parts resolvePartitionRequest(const Node* node, const PartitionRequest& request, int64_t devices) {
  if (!node) throw InputError({request.loc, "unknown node '" + request.node + "'"});
  NodeSpace space = nodeSpace(*node);
  Parts parts(space.labels.size(), 1);
  std::vector<bool> seen(space.labels.size(), false);
  for (const auto& [label, count] : request.parts) {
    auto it = std::find(space.labels.begin(), space.labels.end(), label);
    if (it == space.labels.end()) {
      std::string known;
      for (const auto& l : space.labels) known += (known.empty() ? "" : ", ") + l;
      throw InputError({request.loc, "node '" + request.node + "' has no label '" + label + "' (its labels: " + known + ")"});
    }
    std::size_t i = it - space.labels.begin();
    if (seen[i]) throw InputError({request.loc, "node '" + request.node + "': label '" + label + "' given twice"});
    seen[i] = true;
    if (count <= 0)
      throw InputError({request.loc, "node '" + request.node + "': parts of label '" + label + "' must be positive"});
    if (count > 1 && einrt::model::cuttableSizes(space)[i] == 1 && space.sizes[i] > 1)
      throw InputError({request.loc, "node '" + request.node + "': label '" + label +
                                         "' is a window's tap label (a convolution's kernel) or a spread window's label, "
                                         "which no partition cuts"});
    if (space.sizes[i] % count != 0)
      throw InputError({request.loc, "node '" + request.node + "': " + std::to_string(count) + " parts do not divide label '" +
                                         label + "' of size " + std::to_string(space.sizes[i])});
    parts[i] = count;
  }
  int64_t product = 1;
  for (int64_t d : parts)
    if (__builtin_mul_overflow(product, d, &product)) product = INT64_MAX;
  const int64_t expected = std::min(devices, largestFeasibleCount(einrt::model::cuttableSizes(space), devices));
  if (product != expected)
    throw InputError({request.loc, "node '" + request.node + "': the parts multiply to " + std::to_string(product) +
                                       " kernel calls, expected " + std::to_string(expected) +
                                       (expected == devices ? " (the device count)" : " (the largest feasible count below the device count)")});
  return parts;
}

}  // namespace eindecomp
