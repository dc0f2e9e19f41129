// The plain reference of --check on small graphs: a node evaluated point by point over
// its whole iteration space, each point's offsets computed from its index — obviously
// right and independent of the loop planning and the kernels the program runs (it does
// share the node's scalar functor). Host memory, one thread. 2-byte storage is joined and
// aggregated in f32 and rounded once, as the kernels do.
#pragma once

#include <cstdint>
#include <vector>

#include "einrt/half.h"

namespace einrt::program {

template <class T, class Ops>
void plainEinsum(const std::vector<int64_t>& sizes, const std::vector<std::vector<int>>& operandLabels,
                 const std::vector<int>& outputLabels, const T* X, const T* Y, T* Z) {
  auto offset = [&](const std::vector<int>& dims, const std::vector<int64_t>& point) {
    int64_t o = 0;
    for (int l : dims) o = o * sizes[static_cast<std::size_t>(l)] + point[static_cast<std::size_t>(l)];
    return o;
  };
  int64_t outputs = 1, points = 1;
  for (int l : outputLabels) outputs *= sizes[static_cast<std::size_t>(l)];
  for (int64_t s : sizes) points *= s;
  using C = Compute<T>;
  std::vector<C> acc(static_cast<std::size_t>(outputs), Ops::template identity<C>());
  std::vector<int64_t> point(sizes.size(), 0);
  for (int64_t p = 0; p < points; ++p) {
    int64_t rest = p;
    for (std::size_t l = sizes.size(); l-- > 0;) {
      point[l] = rest % sizes[l];
      rest /= sizes[l];
    }
    const C x = static_cast<C>(X[offset(operandLabels[0], point)]);
    const C y = operandLabels.size() > 1 ? static_cast<C>(Y[offset(operandLabels[1], point)]) : C(0);
    C& z = acc[static_cast<std::size_t>(offset(outputLabels, point))];
    z = Ops::template combine<C>(z, Ops::template join<C>(x, y));
  }
  for (int64_t i = 0; i < outputs; ++i) Z[i] = T(acc[static_cast<std::size_t>(i)]);
}

}  // namespace einrt::program
