// Where a node's result is when its calls start writing it (issue 25): still in the caches
// from the last time a node touched it, or gone to memory because the nodes run since then
// touched more than the caches hold. The kernel model's grid times one call repeated on the
// same operands, so its C is always cached; a program's node writes a block its rank last
// touched an iteration ago, and where the nodes in between moved more bytes than the cache
// holds, every line of C is read from memory before it is written (and written back).
// fctn's first step (1280x1280x8 on the primitive's tiles, 6.5 MB of C) ran at 1.2-1.5 ms
// in its program against 0.49 at the grid's rate: fctn's other two steps move 60 MB
// between its runs (bench/RESULTS.md, "Where a result is").
//
// Decided from a finished plan, in node order, as the program runs it: the distance of a
// node's result is the bytes the busiest rank's calls touch (operand and output blocks)
// from the result's last reader (or the node itself, for results nothing reads) to the
// end of the iteration and from its start to the node. Like fusion, the search prices
// nodes one by one without it; reports and comparisons of finished plans include it.
#pragma once

#include <vector>


namespace eindecomp {

// Per node: whether its result comes from memory, given each node's last reader (einrt's
// program model: lastReaders), the bytes each node's calls touch on the busiest rank
// (`touchedBytes`, aligned with the nodes) and the bytes the caches keep (`cacheBytes`; 0:
// unknown, and every result counts as cached).
std::vector<bool> resultsFromMemory(const std::vector<int>& lastReader, const std::vector<double>& touchedBytes, double cacheBytes);

}  // namespace eindecomp
