// The kernel of index nodes (gather and scatter, SPEC 8.1; the planner's rule in
// planner/graph/index_nodes.h): for every point of a call's block but along the selected
// label, the id read from the first operand picks one element of y (a gather: the row of
// the table) or of the output (a scatter: where the row goes); ids outside the call's
// block of the selected label add nothing, so the calls along that label are partial
// results summed like any aggregation (Megatron's vocabulary-parallel embedding). An id
// outside the label's whole range is an IndexError naming the tensor and the position.
// Host memory; the emitted CUDA backend refuses index nodes.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "einrt/program/spec.h"

namespace einrt::program::detail {

class IndexError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An index tensor on the host in a program of T: its ids (int32 or int64, the tensor's
// type) packed into whole elements of T, the form the executor's host tensors and block
// buffers share.
template <class T, class I>
std::vector<T> packIds(const std::vector<I>& ids) {
  std::vector<T> out((ids.size() * sizeof(I) + sizeof(T) - 1) / sizeof(T));
  if (!ids.empty()) std::memcpy(static_cast<void*>(out.data()), ids.data(), ids.size() * sizeof(I));
  return out;
}

template <class T>
std::vector<T> packIds(const std::vector<int64_t>& ids, DType type) {
  if (type == DType::I64) return packIds<T>(ids);
  return packIds<T>(std::vector<int32_t>(ids.begin(), ids.end()));
}

// A plain loop over every point of an index node's whole tensors (the --check reference).
template <class T>
void plainIndex(const NodeTable& node, DType idType, const void* ids, const T* Y, T* Z);

template <class T>
class IndexKernel {
 public:
  IndexKernel() = default;
  // `extent`: the call's block extent per iteration label; `ids`: the first operand's table.
  IndexKernel(const NodeTable& node, const TensorSpec& ids, const std::vector<int64_t>& extent);

  // Z = the node over the ids block and Y (Z += with `accumulate`); `offset`: the call's
  // first element along every iteration label (zeros for whole tensors).
  void run(const void* ids, const T* Y, T* Z, bool accumulate, const std::vector<int64_t>& offset) const;

 private:
  template <class I>
  void runWith(const I* ids, const T* Y, T* Z, const std::vector<int64_t>& offset, bool assigns) const;
  template <class I>
  bool runProgression(const I* ids, const T* Y, T* Z, const std::vector<int64_t>& offset, bool assigns) const;
  // One step of the odometer `point` over `order` (innermost last), each offset moved by
  // its tensor's strides.
  void advance(const std::vector<int>& order, std::vector<int64_t>& point, int64_t& idAt, int64_t& yAt, int64_t& zAt) const;
  [[noreturn]] void outOfRange(int64_t id, const std::vector<int64_t>& point, const std::vector<int64_t>& offset) const;

  DType idType_ = DType::I64;
  std::string idsName_;
  std::vector<int> idLabels_;          // the iteration label of each ids dimension
  int selected_ = -1;
  int64_t range_ = 0;                  // the selected label's whole size
  std::vector<int64_t> extent_;        // per label; 1 along the selected label
  std::vector<int64_t> idStride_, yStride_, zStride_;  // per label, in the call's blocks
  std::vector<int> order_;             // the labels looped over, outer first (not selected_, inner_)
  int inner_ = -1;                     // a label in neither the ids nor selected: the inner run
  // One-dimensional ids along the output's innermost label (a phase gather along the last
  // dimension): that label, and every other label but the selected one, outer first.
  int progression_ = -1;
  std::vector<int> progressionOrder_;
  int64_t outputElements_ = 0;
};

}  // namespace einrt::program::detail
