// The budgeted path search (path_search.h) and its parts — sampled greedy, recursive
// bisection, the hypergraph partitioner, the platform-independent random numbers, the
// option parser — against oracles that share no code with them: the brute force and the
// independent cost replay of path_oracle.h, hand-made hypergraphs, published splitmix64
// values. Random networks print their seed.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "path_oracle.h"
#include "planner/graph/diagnostic.h"
#include "planner/paths/bisection_path.h"
#include "planner/paths/greedy_path.h"
#include "planner/paths/hypergraph_bisection.h"
#include "planner/paths/optimal_path.h"
#include "planner/paths/path_options.h"
#include "planner/paths/path_reconfigure.h"
#include "planner/paths/path_search.h"

using namespace eindecomp;
using namespace pathtest;

namespace {

const std::string kLabels = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

// A random connected network of n operands with single-character labels: a chain of
// bonds, random extra bonds, some labels shared by three operands (hyperedges) and a few
// open labels. At most 52 labels.
std::string randomEinsum(int n, std::mt19937& rng, std::vector<int64_t>& sizes) {
  std::vector<std::string> ops(n);
  std::string out;
  std::size_t next = 0;
  auto label = [&] { return kLabels[next++]; };
  for (int i = 0; i + 1 < n; ++i) {
    const char c = label();
    ops[i] += c;
    ops[i + 1] += c;
  }
  for (int extra = 0; extra < n / 2 && next + 4 < kLabels.size(); ++extra) {
    const int a = static_cast<int>(rng() % n), b = static_cast<int>(rng() % n), h = static_cast<int>(rng() % n);
    if (a == b) continue;
    const char c = label();
    ops[a] += c;
    ops[b] += c;
    if (extra % 3 == 0 && h != a && h != b) ops[h] += c;
  }
  for (int open = 0; open < 2 && next < kLabels.size(); ++open) {
    const char c = label();
    ops[rng() % n] += c;
    out += c;
  }
  std::string einsum;
  for (int i = 0; i < n; ++i) einsum += (i ? "," : "") + ops[i];
  einsum += "->" + out;
  // Sizes in the order parse() expects: the labels sorted (upper case first).
  std::string used(kLabels.begin(), kLabels.begin() + static_cast<std::ptrdiff_t>(next));
  std::sort(used.begin(), used.end());
  sizes.clear();
  for (std::size_t i = 0; i < used.size(); ++i) sizes.push_back(2 + static_cast<int64_t>(rng() % 5));
  return einsum;
}

// The path's claimed FLOPs and largest tensor equal the oracle's replay of it.
void checkClaims(const ContractionPath& path, const Parsed& p) {
  const int n = static_cast<int>(p.operands.size());
  checkWellFormed(path, n);
  CHECK(positionalPathCost(toPositionalPath(path, n), p) == asLongDouble(path.totalFlops));
  long double largest = sizeOf(p.output, p);
  for (const auto& op : p.operands) largest = std::max(largest, sizeOf(op, p));
  for (const auto& s : path.steps) largest = std::max(largest, asLongDouble(s.resultSize));
  CHECK(asLongDouble(path.largestIntermediate) == largest);
}

}  // namespace

TEST_CASE("with the exact search switched off, the search still reaches the brute-force optimum (4-7 operands)") {
  const unsigned seed = 20260101;
  std::printf("search vs brute force: seed %u\n", seed);
  std::mt19937 rng(seed);
  PathOptions options;
  options.maxExactOperands = 2;
  options.budget.trials = 24;
  for (int trial = 0; trial < 16; ++trial) {
    const int n = 4 + trial % 4;
    std::vector<int64_t> sizes;
    const std::string einsum = randomEinsum(n, rng, sizes);
    CAPTURE(einsum);
    const Parsed p = parse(einsum, sizes);
    const PathSearchResult r = optimizePath(toProblem(p), options);
    CHECK_FALSE(r.stats.exact);
    CHECK(r.stats.trials == 24);
    checkClaims(r.path, p);
    CHECK(asLongDouble(r.path.totalFlops) == bruteForce(p.operands, p));
  }
}

TEST_CASE("sampled greedy and bisection paths are what they claim; the search never loses to greedy + reconfiguration") {
  const unsigned seed = 4242;
  std::printf("strategies on 13-40 operand networks: seed %u\n", seed);
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 12; ++trial) {
    const int n = 13 + static_cast<int>(rng() % 28);
    std::vector<int64_t> sizes;
    const std::string einsum = randomEinsum(n, rng, sizes);
    CAPTURE(einsum);
    const Parsed p = parse(einsum, sizes);
    const ContractionProblem prob = toProblem(p);
    PathRandom random(static_cast<uint64_t>(trial));
    GreedyParams g;
    g.alphaQuarters = static_cast<int>(random.below(9));
    g.temperatureStep = static_cast<int>(random.below(14));
    checkClaims(sampledGreedyPath(prob, g, random), p);
    BisectionParams b;
    b.imbalancePercent = static_cast<int>(random.below(61));
    b.leafSize = 2 + static_cast<int>(random.below(7));
    checkClaims(bisectionPath(prob, b, random), p);

    PathOptions options;
    options.budget.trials = 48;
    const PathSearchResult r = optimizePath(prob, options);
    checkClaims(r.path, p);
    std::vector<int> out = prob.output;
    std::sort(out.begin(), out.end());
    CHECK(r.path.steps.back().result == out);
    const ContractionPath previous = reconfigurePath(prob, greedyPath(prob));
    CHECK(r.path.totalFlops <= previous.totalFlops);
    CHECK(r.stats.first.flops == previous.totalFlops);
  }
}

TEST_CASE("memory objective: the exact search's largest tensor is the brute-force minimum; the search's is no larger") {
  const unsigned seed = 777;
  std::printf("memory objective networks: seed %u\n", seed);
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 12; ++trial) {
    const int n = 4 + trial % 3;
    std::vector<int64_t> sizes;
    const std::string einsum = randomEinsum(n, rng, sizes);
    CAPTURE(einsum);
    const Parsed p = parse(einsum, sizes);
    const ContractionProblem prob = toProblem(p);
    const ContractionPath memory = optimalPath(prob, PathObjective::Memory);
    checkClaims(memory, p);
    CHECK(asLongDouble(memory.largestIntermediate) == bruteForceLargest(p));
    CHECK(memory.largestIntermediate <= optimalPath(prob).largestIntermediate);
  }
  // Beyond the exact limit: the memory search's largest tensor is at most the FLOP search's.
  for (int trial = 0; trial < 4; ++trial) {
    std::vector<int64_t> sizes;
    const Parsed p = parse(randomEinsum(20, rng, sizes), sizes);
    PathOptions options;
    options.budget.trials = 32;
    const PathSearchResult flops = optimizePath(toProblem(p), options);
    options.objective = PathObjective::Memory;
    const PathSearchResult memory = optimizePath(toProblem(p), options);
    checkClaims(memory.path, p);
    CHECK(memory.path.largestIntermediate <= flops.path.largestIntermediate);
  }
}

TEST_CASE("a trial budget gives the same path for the same seed; a time budget stops in time") {
  std::mt19937 rng(99);
  std::vector<int64_t> sizes;
  const Parsed p = parse(randomEinsum(30, rng, sizes), sizes);
  const ContractionProblem prob = toProblem(p);
  PathOptions options;
  options.budget.trials = 64;
  options.seed = 5;
  const PathSearchResult a = optimizePath(prob, options), b = optimizePath(prob, options);
  CHECK(toPositionalPath(a.path, 30) == toPositionalPath(b.path, 30));
  CHECK(a.stats.bestTrial == b.stats.bestTrial);

  options.budget = PathBudget{0, 0.2};
  const auto start = std::chrono::steady_clock::now();
  const PathSearchResult timed = optimizePath(prob, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(timed.stats.trials >= 1);
  CHECK(seconds < 2.0);  // 0.2 s asked; generous for a loaded machine
  checkClaims(timed.path, p);
}

TEST_CASE("random draws are integer arithmetic: splitmix64's published values, Boltzmann weights by powers of two") {
  // splitmix64 from state 0 (Vigna's reference implementation).
  PathRandom r(0);
  CHECK(r.next() == 0xe220a8397b1dcdafULL);
  CHECK(r.next() == 0x6e789e6aa1b965f4ULL);
  CHECK(r.next() == 0x06c45d188009454fULL);
  // Energy 16 is weight 1/2, energy 1023 is weight 0 (the table's last bits shifted out).
  PathRandom b(1);
  int first = 0;
  for (int i = 0; i < 30000; ++i) first += b.boltzmann({0, 16}) == 0;
  CHECK(first > 19000);
  CHECK(first < 21000);
  for (int i = 0; i < 1000; ++i) CHECK(b.boltzmann({1023, 0, 1023}) == 1);
}

TEST_CASE("fixed-point log2 in 1/256 units") {
  CHECK(fixedPointLog2(1) == 0);
  CHECK(fixedPointLog2(2) == 256);
  CHECK(fixedPointLog2(uint64_t{1} << 31) == 31 * 256);
  CHECK(fixedPointLog2(~uint64_t{0}) == 64 * 256 - 1);
  for (uint64_t x : {3ULL, 5ULL, 7ULL, 10ULL, 68ULL, 1000ULL, 123456789ULL})
    CHECK(fixedPointLog2(x) == static_cast<int64_t>(std::floor(256 * std::log2(static_cast<double>(x)))));
}

TEST_CASE("hypergraph bisection: two cliques joined by one light edge are cut there") {
  // Vertices 0-4 and 5-9 each fully connected by heavy edges; one light edge 4-5, and a
  // light hyperedge inside the first clique.
  Hypergraph h;
  h.vertices = 10;
  for (int base : {0, 5})
    for (int a = base; a < base + 5; ++a)
      for (int b = a + 1; b < base + 5; ++b) {
        h.edges.push_back({a, b});
        h.weights.push_back(100);
      }
  h.edges.push_back({4, 5});
  h.weights.push_back(1);
  h.edges.push_back({0, 1, 2});
  h.weights.push_back(1);
  for (uint64_t seed = 0; seed < 20; ++seed) {
    CAPTURE(seed);
    PathRandom random(seed);
    const std::vector<int> side = bisectHypergraph(h, 6, 2, random);
    CHECK(cutWeight(h, side) == 1);
    for (int v = 1; v < 5; ++v) CHECK(side[v] == side[0]);
    for (int v = 6; v < 10; ++v) CHECK(side[v] == side[5]);
  }
}

TEST_CASE("path options parse; bad values are errors naming the option") {
  CHECK(parsePathBudget("256", "--path-budget").trials == 256);
  CHECK(parsePathBudget("500ms", "--path-budget").seconds == 0.5);
  CHECK(parsePathBudget("5s", "--path-budget").seconds == 5.0);
  CHECK(parsePathBudget("1.5s", "--path-budget").seconds == 1.5);
  CHECK(parsePathObjective("memory", "--path-objective") == PathObjective::Memory);
  CHECK(parsePathSeed("18446744073709551615", "--path-seed") == ~uint64_t{0});
  const PathOptions defaults = parsePathOptions("", "", "");
  CHECK(defaults.budget.trials == 1024);
  CHECK(defaults.budget.seconds == 0);
  CHECK(defaults.objective == PathObjective::Flops);
  for (const char* bad : {"", "0", "-3", "5x", "1e3", "s", "0s", "ms", "1.2.3s", "99999999999999999999"}) {
    CAPTURE(bad);
    try {
      parsePathBudget(bad, "--path-budget");
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find("--path-budget") != std::string::npos);
    }
  }
  CHECK_THROWS_AS(parsePathObjective("time", "--path-objective"), InputError);
  CHECK_THROWS_AS(parsePathSeed("-1", "--path-seed"), InputError);
  CHECK_THROWS_AS(parsePathOptions("", "", "x"), InputError);
}
