#include "planner/graph/node_space.h"

#include <algorithm>

namespace eindecomp {

namespace {

int indexOf(const Labels& labels, const Label& l) {
  return static_cast<int>(std::find(labels.begin(), labels.end(), l) - labels.begin());
}

}  // namespace

einrt::model::NodeShape nodeShape(const Node& n, const Labels& labels, std::vector<int64_t> sizes) {
  einrt::model::NodeShape s;
  s.sizes = std::move(sizes);
  for (const auto& ls : n.operandLabels) {
    std::vector<int> dims;
    for (const auto& l : ls) dims.push_back(indexOf(labels, l));
    s.operandLabels.push_back(std::move(dims));
  }
  for (const auto& l : n.outputLabels) s.outputLabels.push_back(indexOf(labels, l));
  if (n.windows) {
    s.operandOrigin = n.windows->offsets;
    s.operandBound = n.windows->bounds;
    if (!n.windows->taps.empty()) {
      s.operandTap.resize(n.windows->taps.size());
      s.operandTapDilation = n.windows->dilations;
      for (std::size_t k = 0; k < n.windows->taps.size(); ++k)
        for (const Label& t : n.windows->taps[k]) s.operandTap[k].push_back(t.empty() ? -1 : indexOf(labels, t));
    }
    s.operandStep = n.windows->steps;
    s.operandSpread = n.windows->spreads;
  }
  return s;
}

NodeSpace nodeSpace(const Node& n) {
  NodeSpace s;
  s.labels = iterationLabels(n);
  std::vector<int64_t> sizes;
  for (const auto& l : s.labels) sizes.push_back(n.labelSizes.at(l));
  static_cast<einrt::model::NodeShape&>(s) = nodeShape(n, s.labels, std::move(sizes));
  for (const auto& l : aggregatedLabels(n)) s.aggregatedDims.push_back(indexOf(s.labels, l));
  return s;
}

std::vector<int64_t> operandExtent(const NodeSpace& s, std::size_t k) {
  if (s.windowed(k)) return s.operandBound[k];
  std::vector<int64_t> extent;
  for (int d : s.operandLabels[k]) extent.push_back(s.sizes[static_cast<std::size_t>(d)]);
  return extent;
}

}  // namespace eindecomp
