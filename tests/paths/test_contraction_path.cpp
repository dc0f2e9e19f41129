// The path optimizers against oracles that do not share their code: a brute force over
// every sequence of pairwise contractions (up to 6 operands), the paths printed in the
// Einsum Trees paper's Table 5, and hand-computed FLOP counts.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "planner/paths/contraction_path.h"
#include "planner/paths/greedy_path.h"
#include "planner/paths/optimal_path.h"
#include "planner/paths/path_reconfigure.h"
#include "planner/paths/path_search.h"

#include "path_oracle.h"

using namespace eindecomp;
using namespace pathtest;

namespace {

struct Network {
  std::string name;
  std::string einsum;           // single-character labels
  std::vector<int64_t> sizes;   // in the order of the labels sorted (upper case first)
  std::vector<std::pair<int, int>> paperPath;
};

// Table 5 of the Einsum Trees paper. Where the table lists one size fewer than there are
// labels (FCTN, TW, GETD), the missing rank is restored from the text describing the
// setting (all FCTN ranks 8; TW ranks R = 6 and L = 4; GETD ring ranks 40). TRN's path
// lists 7 pairs for 9 operands; the missing last pair can only be (0, 1).
const std::vector<Network>& table5() {
  static const std::vector<Network> nets{
      {"syn", "iaje,bf,dcba,cigj,dh->hgfei", {24, 48, 12, 56, 32, 64, 8, 84, 8, 72}, {{1, 2}, {2, 3}, {0, 1}, {0, 1}}},
      {"tt", "af,fbg,gch,hdi,ie->abcde", {100, 72, 128, 128, 3, 71, 305, 32, 3}, {{1, 2}, {0, 3}, {0, 1}, {0, 1}}},
      {"fctn", "aefg,behi,cfhj,dgij->abcd", {60, 60, 20, 20, 8, 8, 8, 8, 8, 8}, {{2, 3}, {0, 2}, {0, 1}}},
      {"tw", "aefi,bfgj,cghk,dhel,ijkl->abcd", {40, 40, 20, 20, 6, 6, 6, 6, 4, 4, 4, 4}, {{2, 3}, {2, 3}, {0, 2}, {0, 1}}},
      {"getd", "aib,bjc,ckd,dle,ema->ijklm", {40, 40, 40, 40, 40, 25, 25, 25, 25, 25}, {{0, 1}, {0, 1}, {0, 1}, {0, 1}}},
      {"trn", "Babcd,aij,bik,ckl,dlm,ejp,fop,gno,hmn->Befgh",
       {128, 4, 7, 4, 7, 3, 4, 5, 5, 50, 50, 50, 50, 50, 50, 50, 50},
       {{1, 5}, {4, 5}, {1, 2}, {1, 2}, {1, 2}, {1, 2}, {0, 1}, {0, 1}}},
  };
  return nets;
}

}  // namespace

TEST_CASE("Table 5 networks: the exact path is optimal (brute force) and no worse than the paper's path") {
  for (const auto& net : table5()) {
    CAPTURE(net.name);
    const Parsed p = parse(net.einsum, net.sizes);
    const ContractionProblem prob = toProblem(p);
    const ContractionPath path = optimalPath(prob);
    checkWellFormed(path, static_cast<int>(prob.operands.size()));
    const long double ours = asLongDouble(path.totalFlops);
    const long double paper = positionalPathCost(net.paperPath, p);
    CAPTURE(static_cast<double>(ours));
    CAPTURE(static_cast<double>(paper));
    REQUIRE(net.paperPath.size() + 1 == p.operands.size());
    CHECK(ours <= paper);
    // Our own path, replayed by the test's independent cost function, gives our count.
    CHECK(positionalPathCost(toPositionalPath(path, static_cast<int>(prob.operands.size())), p) == ours);
    if (p.operands.size() <= 6) CHECK(ours == bruteForce(p.operands, p));
    // optimizePath picks the exact search for these sizes.
    CHECK(optimizePath(prob).stats.exact);
  }
}

TEST_CASE("random networks up to 6 operands: exact == brute force, greedy >= exact") {
  const unsigned seed = 20251122;
  std::printf("random small networks: seed %u\n", seed);
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 3 + trial % 4;
    const int labelCount = 4 + static_cast<int>(rng() % 6);
    std::vector<int64_t> sizes;
    for (int l = 0; l < labelCount; ++l) sizes.push_back(2 + static_cast<int64_t>(rng() % 30));
    std::string einsum;
    std::set<char> used;
    for (int i = 0; i < n; ++i) {
      std::set<char> op;
      const int rank = 1 + static_cast<int>(rng() % 3);
      while (static_cast<int>(op.size()) < rank) op.insert(static_cast<char>('a' + rng() % labelCount));
      einsum += (i ? "," : "") + std::string(op.begin(), op.end());
      used.insert(op.begin(), op.end());
    }
    std::string out;
    for (char c : used)
      if (rng() % 3 == 0) out += c;
    einsum += "->" + out;
    std::vector<int64_t> usedSizes;
    for (char c : used) usedSizes.push_back(sizes[c - 'a']);
    CAPTURE(einsum);
    const Parsed p = parse(einsum, usedSizes);
    const ContractionProblem prob = toProblem(p);
    const ContractionPath exact = optimalPath(prob);
    const ContractionPath greedy = greedyPath(prob);
    checkWellFormed(exact, n);
    checkWellFormed(greedy, n);
    CHECK(asLongDouble(exact.totalFlops) == bruteForce(p.operands, p));
    CHECK(exact.totalFlops <= greedy.totalFlops);
    CHECK(positionalPathCost(toPositionalPath(greedy, n), p) == asLongDouble(greedy.totalFlops));
    // Reconfiguration with 3-leaf subtrees: its claimed FLOPs are what its path costs.
    const ContractionPath reconfigured = reconfigurePath(prob, greedy, 3);
    checkWellFormed(reconfigured, n);
    CHECK(positionalPathCost(toPositionalPath(reconfigured, n), p) == asLongDouble(reconfigured.totalFlops));
    CHECK(exact.totalFlops <= reconfigured.totalFlops);
    CHECK(reconfigured.totalFlops <= greedy.totalFlops);
  }
}

TEST_CASE("FLOP counts stay exact beyond 64 bits (labels of size 2^31)") {
  // A chain X_ab Y_bc Z_cd -> ad with every size 2^31: both orders cost
  // 2 * 2^93 + 2 * 2^93 = 2^95, which does not fit in 64 bits.
  const int64_t big = int64_t{1} << 31;
  ContractionProblem p{{{0, 1}, {1, 2}, {2, 3}}, {0, 3}, {big, big, big, big}};
  const ContractionPath path = optimalPath(p);
  CHECK(path.totalFlops == (FlopCount{1} << 95));
  CHECK(path.largestIntermediate == (FlopCount{1} << 62));
  CHECK(naiveFlops(p) == (FlopCount{3} << 124));  // 2^124 points * (2 + 1)
  CHECK(flopCountDecimal(FlopCount{1} << 95) == "39614081257132168796771975168");
  // Ten such labels in one loop nest saturate instead of wrapping around.
  ContractionProblem huge{{{0, 1, 2, 3, 4}, {4, 5, 6, 7, 8}, {8, 9, 0}}, {}, std::vector<int64_t>(10, big)};
  CHECK(naiveFlops(huge) == kFlopCountSaturated);
}

TEST_CASE("the search handles 100+ operand networks with more than 64 labels") {
  const unsigned seed = 7;
  std::printf("random large network: seed %u\n", seed);
  std::mt19937 rng(seed);
  for (int n : {100, 150}) {
    CAPTURE(n);
    // A ring of n tensors (bond labels 0..n-1), each with one open label; a few chords.
    ContractionProblem p;
    for (int i = 0; i < 2 * n + 10; ++i) p.sizes.push_back(2 + static_cast<int64_t>(rng() % 4));
    for (int i = 0; i < n; ++i) p.operands.push_back({i, (i + 1) % n, n + i});
    for (int c = 0; c < 10; ++c) {
      const int a = static_cast<int>(rng() % n), b = static_cast<int>(rng() % n);
      p.operands[a].push_back(2 * n + c);
      if (b != a) p.operands[b].push_back(2 * n + c);
    }
    for (int i = 0; i < 5; ++i) p.output.push_back(n + i);
    PathOptions options;
    options.budget.trials = 16;
    const ContractionPath path = optimizePath(p, options).path;
    CHECK_FALSE(path.exact);
    checkWellFormed(path, n);
    CHECK(path.steps.back().result.size() == 5);
    CHECK(path.totalFlops < naiveFlops(p));
  }
}

TEST_CASE("positional paths follow opt_einsum's convention") {
  // SSA steps (2,3) -> t4; (0,4) -> t5; (1,5) -> t6 on the list [0,1,2,3] are the
  // positions (2,3) -> [0,1,4]; (0,2) -> [1,5]; (0,1).
  ContractionPath path;
  path.steps = {{2, 3, {}, 0, 0}, {0, 4, {}, 0, 0}, {1, 5, {}, 0, 0}};
  const auto pos = toPositionalPath(path, 4);
  CHECK(pos == std::vector<std::pair<int, int>>{{2, 3}, {0, 2}, {0, 1}});
}

TEST_CASE("subtree reconfiguration: exact <= reconfigured <= greedy, on 7-10 operand random networks") {
  const unsigned seed = 99;
  std::printf("reconfiguration networks: seed %u\n", seed);
  std::mt19937 rng(seed);
  int reachedOptimum = 0, trials = 0;
  for (int trial = 0; trial < 24; ++trial, ++trials) {
    const int n = 7 + trial % 4;
    // A random connected network: a chain plus random extra bonds, a few open labels.
    ContractionProblem p;
    p.operands.resize(n);
    int label = 0;
    for (int i = 0; i + 1 < n; ++i) {
      p.operands[i].push_back(label);
      p.operands[i + 1].push_back(label++);
    }
    for (int extra = 0; extra < n / 2; ++extra) {
      const int a = static_cast<int>(rng() % n), b = static_cast<int>(rng() % n);
      if (a == b) continue;
      p.operands[a].push_back(label);
      p.operands[b].push_back(label++);
    }
    for (int open = 0; open < 3; ++open) {
      p.operands[rng() % n].push_back(label);
      p.output.push_back(label++);
    }
    for (int l = 0; l < label; ++l) p.sizes.push_back(2 + static_cast<int64_t>(rng() % 7));
    const ContractionPath exact = optimalPath(p);
    const ContractionPath greedy = greedyPath(p);
    const ContractionPath better = reconfigurePath(p, greedy);
    CAPTURE(trial);
    checkWellFormed(better, n);
    CHECK(exact.totalFlops <= better.totalFlops);
    CHECK(better.totalFlops <= greedy.totalFlops);
    // Its steps' results chain correctly: the last step yields the output labels.
    std::vector<int> out = p.output;
    std::sort(out.begin(), out.end());
    CHECK(better.steps.back().result == out);
    if (better.totalFlops == exact.totalFlops) ++reachedOptimum;
  }
  std::printf("reconfiguration reached the optimum in %d of %d networks\n", reachedOptimum, trials);
}
