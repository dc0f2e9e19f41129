// Balanced bisection of a weighted hypergraph, the partitioner behind the recursive
// bisection paths (bisection_path.h). Tensors are vertices and labels hyperedges; a cut
// label costs its weight (about log2 of its size, so a cut's weight is the log of the
// contraction's size across it). The method is the classical one, written here for
// networks of tens to hundreds of tensors: a random start vertex grows a region by best
// connection, then Fiduccia–Mattheyses passes move single vertices by best gain under the
// balance bound, keeping the best prefix of each pass. All arithmetic is on integers, so
// a seed gives the same bisection on every platform.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/paths/path_random.h"

namespace eindecomp {

struct Hypergraph {
  int vertices = 0;
  std::vector<std::vector<int>> edges;  // the vertices of each edge (at least two)
  std::vector<int64_t> weights;         // per edge, positive
};

// The summed weight of edges with vertices on both sides.
int64_t cutWeight(const Hypergraph& h, const std::vector<int>& side);

// side[v] in {0, 1}, both sides non-empty and at most `maxPart` vertices each
// (ceil(vertices / 2) <= maxPart < vertices, vertices >= 2). Of `starts` random starts,
// the one of least cut.
std::vector<int> bisectHypergraph(const Hypergraph& h, int maxPart, int starts, PathRandom& random);

// log2(x) in units of 1/256, rounded down, for x >= 1: exact integer arithmetic.
int64_t fixedPointLog2(uint64_t x);

}  // namespace eindecomp
