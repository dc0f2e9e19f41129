#include "planner/paths/path_search.h"

#include <algorithm>
#include <chrono>

#include "planner/paths/bisection_path.h"
#include "planner/paths/greedy_path.h"
#include "planner/paths/optimal_path.h"
#include "planner/paths/path_random.h"
#include "planner/paths/path_reconfigure.h"

namespace eindecomp {

namespace {

using Clock = std::chrono::steady_clock;

enum class Strategy { GreedyByFlops, GreedyMemoryRemoved, SampledGreedy, Bisection };

const char* strategyName(Strategy s) {
  switch (s) {
    case Strategy::GreedyByFlops: return "greedy by FLOPs";
    case Strategy::GreedyMemoryRemoved: return "greedy (memory removed)";
    case Strategy::SampledGreedy: return "sampled greedy";
    case Strategy::Bisection: return "recursive bisection";
  }
  return "";
}

// How many of the best candidates are kept and polished with 8-leaf windows at the end:
// more than one, because the best candidate before polishing is not always the best after.
constexpr std::size_t kKept = 4;
// A candidate is polished with small windows (kTrialWindow leaves, two passes) and ranked
// when it costs at most kPromising times the best so far; the others are dropped unpolished.
constexpr FlopCount kPromising = 4;
constexpr int kTrialWindow = 6;
// Trials before the search favours the strategy that found the best path so far and
// starts improving kept candidates.
constexpr int64_t kWarmUp = 16;
// After the warm-up, one trial in kImproveEvery re-optimizes a kept candidate in random
// windows instead of building a new one.
constexpr int64_t kImproveEvery = 16;

struct Candidate {
  ContractionPath path;
  Strategy strategy = Strategy::GreedyByFlops;
  int64_t trial = 0;
};

class Search {
 public:
  Search(const ContractionProblem& p, const PathOptions& options) : p_(p), options_(options), start_(Clock::now()) {}

  PathSearchResult run() {
    PathSearchResult result;
    PathSearchStats& stats = result.stats;
    stats.options = options_;

    ContractionPath first = reconfigurePath(p_, greedyPath(p_), 8, 4, options_.objective);
    stats.first = costOf(first);
    if (static_cast<int>(p_.operands.size()) > kLargeGreedyOperands) {
      // Thousands of operands: every further trial would cost as much as this one, and the
      // budget counts trials, not time; the queue-driven greedy with reconfiguration is
      // near-linear on chains and trees, where it is hard to beat (docs/contraction-paths.md).
      stats.trials = 1;
      stats.bestStrategy = std::string(strategyName(Strategy::GreedyByFlops)) + " + reconfiguration (large network: no further trials)";
      stats.finalWindow = 8;
      stats.seconds = elapsed();
      first.exact = false;
      result.path = std::move(first);
      return result;
    }
    kept_.push_back({std::move(first), Strategy::GreedyByFlops, 0});
    int64_t trial = 1;
    for (; !budgetSpent(trial); ++trial) runTrial(trial);
    stats.trials = trial;

    Candidate best = polish();
    stats.finalWindow = 8;
    for (int window = 10; window <= maxFinalWindow(); window += 2) {
      // Two more leaves cost about nine times as much: a time budget stops before it would overrun.
      if (options_.budget.seconds > 0 && elapsed() + 9 * lastWindowSeconds_ > options_.budget.seconds) break;
      const auto windowStart = Clock::now();
      best.path = reconfigurePath(p_, best.path, window, 8, options_.objective);
      lastWindowSeconds_ = secondsSince(windowStart);
      stats.finalWindow = window;
    }
    best.path.exact = false;
    stats.bestStrategy = std::string(strategyName(best.strategy)) + (best.trial == 0 ? " + reconfiguration" : "");
    stats.bestTrial = best.trial;
    stats.seconds = elapsed();
    result.path = std::move(best.path);
    return result;
  }

 private:
  static double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
  double elapsed() const { return secondsSince(start_); }

  bool budgetSpent(int64_t trial) const {
    if (options_.budget.seconds > 0) return elapsed() >= 0.7 * options_.budget.seconds;
    return trial >= options_.budget.trials;
  }

  // Trial 1 is opt_einsum's greedy rule; then sampled greedy and bisection take turns
  // until kWarmUp, after which the strategy holding the best path gets three turns in four.
  Strategy strategyFor(int64_t trial) const {
    if (trial == 1) return Strategy::GreedyMemoryRemoved;
    const Strategy leader = kept_.front().strategy;
    if (trial >= kWarmUp && (leader == Strategy::SampledGreedy || leader == Strategy::Bisection)) {
      const Strategy other = leader == Strategy::Bisection ? Strategy::SampledGreedy : Strategy::Bisection;
      return trial % 4 == 0 ? other : leader;
    }
    return trial % 2 == 0 ? Strategy::SampledGreedy : Strategy::Bisection;
  }

  void runTrial(int64_t trial) {
    PathRandom random(trialSeed(options_.seed, static_cast<uint64_t>(trial)));
    if (trial >= kWarmUp && trial % kImproveEvery == kImproveEvery - 1) {
      // The best candidate half of the time, else any kept one.
      const std::size_t which = random.below(2) == 0 ? 0 : random.below(kept_.size());
      Candidate c = kept_[which];
      const int leaves = 8 + 2 * static_cast<int>(random.below(2));
      c.path = reconfigurePath(p_, c.path, leaves, 1, options_.objective, &random);
      keep(std::move(c));
      return;
    }
    const Strategy strategy = strategyFor(trial);
    ContractionPath path;
    if (strategy == Strategy::GreedyMemoryRemoved) {
      path = sampledGreedyPath(p_, GreedyParams{}, random);
    } else if (strategy == Strategy::SampledGreedy) {
      GreedyParams g;
      g.alphaQuarters = static_cast<int>(random.below(9));
      g.temperatureStep = static_cast<int>(random.below(14));
      path = sampledGreedyPath(p_, g, random);
    } else {
      BisectionParams b;
      b.imbalancePercent = static_cast<int>(random.below(61));
      b.leafSize = 2 + static_cast<int>(random.below(7));
      b.starts = 1 + static_cast<int>(random.below(4));
      b.objective = options_.objective;
      path = bisectionPath(p_, b, random);
    }
    offer({std::move(path), strategy, trial});
  }

  // The objective's first measure: FLOPs, or the largest tensor.
  FlopCount measure(const ContractionPath& path) const {
    return options_.objective == PathObjective::Memory ? path.largestIntermediate : path.totalFlops;
  }

  void offer(Candidate c) {
    if (measure(c.path) > saturatingMul(measure(kept_.front().path), kPromising)) return;
    c.path = reconfigurePath(p_, c.path, kTrialWindow, 2, options_.objective);
    keep(std::move(c));
  }

  // Ranks a candidate among the kept ones (a cost already kept is dropped as a repeat).
  void keep(Candidate c) {
    const PathCost cost = costOf(c.path);
    for (const auto& k : kept_)
      if (k.path.totalFlops == cost.flops && k.path.largestIntermediate == cost.largest) return;  // seen
    auto at = std::find_if(kept_.begin(), kept_.end(),
                           [&](const Candidate& k) { return cheaper(cost, costOf(k.path), options_.objective); });
    if (at == kept_.end() && kept_.size() >= kKept) return;
    kept_.insert(at, std::move(c));
    if (kept_.size() > kKept) kept_.pop_back();
  }

  // The kept candidates reconfigured in 8-leaf windows; the best of them.
  Candidate polish() {
    const auto polishStart = Clock::now();
    std::vector<Candidate> polished;
    for (const auto& k : kept_)
      polished.push_back({reconfigurePath(p_, k.path, 8, 4, options_.objective), k.strategy, k.trial});
    lastWindowSeconds_ = secondsSince(polishStart) / static_cast<double>(polished.size());
    std::stable_sort(polished.begin(), polished.end(), [&](const Candidate& a, const Candidate& b) {
      return cheaper(costOf(a.path), costOf(b.path), options_.objective);
    });
    return std::move(polished.front());
  }

  // The largest final windows: a trial budget picks them from its size (the same
  // everywhere); a time budget tries up to 16 leaves while time is left.
  int maxFinalWindow() const {
    if (options_.budget.seconds > 0) return 16;
    if (options_.budget.trials >= 4096) return 12;
    if (options_.budget.trials >= 64) return 10;
    return 8;
  }

  const ContractionProblem& p_;
  const PathOptions& options_;
  Clock::time_point start_;
  std::vector<Candidate> kept_;  // the best candidates so far, best first
  double lastWindowSeconds_ = 0;
};

}  // namespace

PathSearchResult optimizePath(const ContractionProblem& p, const PathOptions& options) {
  validateProblem(p);
  const auto start = Clock::now();
  if (static_cast<int>(p.operands.size()) <= std::min(options.maxExactOperands, 20)) {
    PathSearchResult result;
    result.path = optimalPath(p, options.objective);
    result.stats.exact = true;
    result.stats.options = options;
    result.stats.first = costOf(result.path);
    result.stats.bestStrategy = "exact";
    result.stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
  }
  return Search(p, options).run();
}

}  // namespace eindecomp
