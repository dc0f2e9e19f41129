#include "fused_group.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace einrt::program::detail {

template <class T>
FusedGroup<T>::FusedGroup(const ProgramSpec<T>& spec, const model::FusedGroupGeometry& geometry, int threads)
    : spec_(&spec), first_(geometry.first), last_(geometry.last), threads_(std::max(1, threads)) {
  const int k = geometry.tileDims;
  groupExtent = geometry.groupExtent;
  split_ = geometry.box.split;
  chunk_ = geometry.box.chunk;
  chunks_ = k ? (groupExtent[static_cast<std::size_t>(split_)] + chunk_ - 1) / chunk_ : 1;
  tiles_ = chunks_;
  for (int q = 0; q < split_; ++q) tiles_ *= groupExtent[static_cast<std::size_t>(q)];
  slotOffset_ = geometry.slotOffset;
  workspaceElements_ = geometry.workspaceElements;

  for (int m = first_; m <= last_; ++m) {
    const NodeTable& n = spec.nodes[static_cast<std::size_t>(m)];
    const std::vector<int64_t> extent = model::blockExtent(n.sizes, n.parts);
    Member mb;
    mb.elementwise = spec.kernels.at(static_cast<std::size_t>(m)).elementwise;
    if (!mb.elementwise) throw std::logic_error("einrt: fused node " + n.name + " has no elementwise kernel");
    mb.hasY = n.operandLabels.size() > 1;
    auto access = [&](const std::vector<int>& dims, int producer) {
      Access a;
      const std::vector<int64_t> strides = labelStrides(dims, extent);
      for (int q = 0; q <= split_ && q < k; ++q)
        a.groupStride.push_back(strides[static_cast<std::size_t>(n.outputLabels[static_cast<std::size_t>(q)])]);
      if (producer >= first_ && producer < m && slotOffset_[static_cast<std::size_t>(producer - first_)] >= 0)
        a.scratch = producer - first_;  // another member's scratch output
      return a;
    };
    auto producerOf = [&](std::size_t o) { return spec.tensors[static_cast<std::size_t>(n.operandTensor[o])].producer; };
    mb.x = access(n.operandLabels[0], producerOf(0));
    if (mb.hasY) mb.y = access(n.operandLabels[1], producerOf(1));
    mb.z = access(n.outputLabels, -1);
    const std::vector<int64_t> sx = labelStrides(n.operandLabels[0], extent);
    const std::vector<int64_t> sy = mb.hasY ? labelStrides(n.operandLabels[1], extent) : std::vector<int64_t>(extent.size(), 0);
    const std::vector<int64_t> sz = labelStrides(n.outputLabels, extent);
    for (int shape = 0; shape < 2; ++shape) {
      std::vector<int64_t> tile = extent;
      for (int q = 0; q < k; ++q) {
        int64_t& e = tile[static_cast<std::size_t>(n.outputLabels[static_cast<std::size_t>(q)])];
        if (q < split_) e = 1;
        else if (q == split_) e = shape == 0 ? std::min(chunk_, e) : (e % chunk_ ? e % chunk_ : chunk_);
      }
      mb.nest[shape] = planLoopNest(tile, sx, sy, sz, mb.hasY);
    }
    if (slotOffset_[static_cast<std::size_t>(m - first_)] >= 0) mb.z.scratch = m - first_;
    members_.push_back(mb);
  }
}

template <class T>
void FusedGroup<T>::runTiles(const std::vector<MemberBlocks>& blocks, T* workspace, int64_t begin, int64_t end, int thread) {
  T* scratch = workspace + static_cast<std::size_t>(thread) * static_cast<std::size_t>(workspaceElements_);
  const int64_t splitExtent = groupExtent.empty() ? 1 : groupExtent[static_cast<std::size_t>(split_)];
  std::vector<int64_t> index(static_cast<std::size_t>(split_) + 1);
  for (int64_t t = begin; t < end; ++t) {
    // The tile's coordinates: indices of the outer group dimensions, the range of the split one.
    int64_t rest = t / chunks_;
    const int64_t c = t % chunks_;
    for (int q = split_ - 1; q >= 0; --q) {
      index[static_cast<std::size_t>(q)] = rest % groupExtent[static_cast<std::size_t>(q)];
      rest /= groupExtent[static_cast<std::size_t>(q)];
    }
    index[static_cast<std::size_t>(split_)] = c * chunk_;
    const int shape = c * chunk_ + chunk_ <= splitExtent ? 0 : 1;
    for (std::size_t m = 0; m < members_.size(); ++m) {
      const Member& mb = members_[m];
      auto offset = [&](const Access& a) {
        int64_t o = 0;
        for (std::size_t q = 0; q < a.groupStride.size(); ++q) o += index[q] * a.groupStride[q];
        return o;
      };
      auto read = [&](const Access& a, const T* block) -> const T* {
        return a.scratch >= 0 ? scratch + slotOffset_[static_cast<std::size_t>(a.scratch)] : block + offset(a);
      };
      const T* X = read(mb.x, blocks[m].operand[0]);
      const T* Y = mb.hasY ? read(mb.y, blocks[m].operand[1]) : nullptr;
      T* Z = mb.z.scratch >= 0 ? scratch + slotOffset_[static_cast<std::size_t>(mb.z.scratch)] : blocks[m].output + offset(mb.z);
      mb.elementwise(mb.nest[shape], X, Y, Z, false, 1);
    }
  }
}

template <class T>
void FusedGroup<T>::run(const std::vector<MemberBlocks>& blocks, T* workspace) {
  struct Context {
    FusedGroup* group;
    const std::vector<MemberBlocks>* blocks;
    T* workspace;
  } context{this, &blocks, workspace};
  auto body = [](void* p, int64_t begin, int64_t end, int thread) {
    auto* c = static_cast<Context*>(p);
    c->group->runTiles(*c->blocks, c->workspace, begin, end, thread);
  };
  if (spec_->parallelFor && threads_ > 1) spec_->parallelFor(tiles_, threads_, body, &context);
  else body(&context, 0, tiles_, 0);
}

template class FusedGroup<float>;
template class FusedGroup<double>;
template class FusedGroup<bf16>;
template class FusedGroup<f16>;

}  // namespace einrt::program::detail
