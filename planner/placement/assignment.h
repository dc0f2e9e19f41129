// The assignment problem (Hungarian algorithm, Kuhn-Munkres with potentials): place each
// of n kernel calls on a distinct one of m >= n ranks so that the total cost — the input
// elements a call would have to receive on that rank — is minimal. O(n^2 m): the
// placement uses it up to kExactAssignmentCalls calls (placement.h) and a greedy
// matching beyond.
#pragma once

#include <cstdint>
#include <vector>

namespace eindecomp {

// cost[i][j]: cost of giving row i column j; every row has the same length m >= rows.
// Returns, for each row, its column; columns are distinct. Ties resolve deterministically.
std::vector<int> solveAssignment(const std::vector<std::vector<int64_t>>& cost);

}  // namespace eindecomp
