// Boxes: half-open index ranges [lo, hi) per dimension of a tensor. A block of a layout
// is a box of the tensor's bound; every message einrt sends is the intersection of a
// source box with a destination box. Plain data plus free functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace einrt {

struct Box {
  std::vector<int64_t> lo;  // first index per dimension (inclusive)
  std::vector<int64_t> hi;  // last index + 1 per dimension (exclusive)

  std::size_t rank() const { return lo.size(); }
  int64_t extent(std::size_t d) const { return hi[d] - lo[d]; }
  friend bool operator==(const Box&, const Box&) = default;
  friend auto operator<=>(const Box&, const Box&) = default;
};

// The box [0, shape) covering a whole tensor.
Box wholeBox(const std::vector<int64_t>& shape);

// Number of elements in the box (1 for a 0-dimensional box, 0 when any extent is <= 0).
int64_t volume(const Box& box);

// The common part of two boxes of the same rank, or nothing when it is empty.
std::optional<Box> intersect(const Box& a, const Box& b);

// True when `inner` lies inside `outer`.
bool contains(const Box& outer, const Box& inner);

// Human-readable "[0:4, 2:6]" for error messages.
std::string toString(const Box& box);

}  // namespace einrt
