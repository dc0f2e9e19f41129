#include "frontends/autodiff/micro_batched_step.h"

namespace eindecomp::autodiff {

bool isSplitInput(const MicroBatches& mb, const std::string& input) {
  for (const MicroBatchSplit& sp : mb.split)
    if (sp.input == input) return true;
  return false;
}

Graph withAccumulatedGradients(Graph g, MicroBatches mb, const std::vector<std::pair<std::string, std::string>>& grads,
                               const std::string& lossSum) {
  mb.accumulate.clear();
  for (const auto& [input, gradient] : grads) mb.accumulate.push_back({gradient, {}});
  if (!lossSum.empty()) mb.accumulate.push_back({lossSum, {}});
  return withMicroBatches(g, std::move(mb));
}

}  // namespace eindecomp::autodiff
