#include "einrt/model/gemm_call.h"

#include <algorithm>
#include <stdexcept>

namespace einrt::model {

namespace {

std::vector<int> concat(const std::vector<int>& a, const std::vector<int>& b, const std::vector<int>& c) {
  std::vector<int> out = a;
  out.insert(out.end(), b.begin(), b.end());
  out.insert(out.end(), c.begin(), c.end());
  return out;
}

// A GEMM operand or result as the kernel reads it: the leading dimension of its matrix
// (the stride of the outer group's last label) and the stride of every C label.
struct View {
  int64_t ld = 1;
  std::vector<int64_t> cStride;
};

// A batch label the tensor lacks (a loop over an M label, for Y; over an N label, for X)
// has stride 0 in it, and no place in its canonical order.
View viewOf(const std::vector<int>& stored, bool permuted, bool transposed, const std::vector<int>& c,
            const std::vector<int>& first, const std::vector<int>& second, const std::vector<int64_t>& extent) {
  std::vector<int> own;
  for (int l : c)
    if (std::find(stored.begin(), stored.end(), l) != stored.end()) own.push_back(l);
  // Labels the spec leaves out are the node's unit singles (size 1 in this tensor alone: a
  // convolution tap's weight [O, C, 1, 1]): they take no place in the matrix.
  const std::vector<int> all = concat(c, first, second);
  std::vector<int> kept;
  for (int l : stored) {
    if (std::find(all.begin(), all.end(), l) != all.end()) kept.push_back(l);
    else if (extent[static_cast<std::size_t>(l)] != 1)
      throw std::logic_error("einrt: a GEMM operand has a label of extent above 1 that its spec leaves out");
  }
  const std::vector<int> layout = permuted ? concat(own, first, second) : kept;
  const std::vector<int>& outer = !permuted && transposed ? second : first;
  const std::vector<int>& inner = !permuted && transposed ? first : second;
  std::vector<int64_t> stride(extent.size(), 0);
  int64_t s = 1;
  for (std::size_t d = layout.size(); d-- > 0;) {
    stride[static_cast<std::size_t>(layout[d])] = s;
    s *= extent[static_cast<std::size_t>(layout[d])];
  }
  if (!inner.empty() && layout.back() != inner.back())
    throw std::logic_error("einrt: a GEMM operand's inner group is not innermost (the mapping cannot be read in place)");
  View v;
  v.ld = outer.empty() ? blockElements(inner, extent) : stride[static_cast<std::size_t>(outer.back())];
  for (int l : c) v.cStride.push_back(stride[static_cast<std::size_t>(l)]);
  return v;
}

}  // namespace

GemmCallPlan gemmCallPlan(const GemmSpec& f, const NodeShape& shape, const std::vector<int64_t>& extent) {
  const std::vector<int>& xLabels = shape.operandLabels.at(0);
  const std::vector<int>& yLabels = shape.operandLabels.at(1);
  const int64_t m = blockElements(f.mLabels, extent), n = blockElements(f.nLabels, extent), k = blockElements(f.kLabels, extent);
  const View x = viewOf(xLabels, !f.permX.empty(), f.transX, f.batchLabels, f.mLabels, f.kLabels, extent);
  const View y = viewOf(yLabels, !f.permY.empty(), f.transY, f.batchLabels, f.kLabels, f.nLabels, extent);
  const View z = viewOf(shape.outputLabels, !f.permZ.empty(), f.transZ, f.batchLabels, f.mLabels, f.nLabels, extent);
  const bool tx = f.permX.empty() && f.transX, ty = f.permY.empty() && f.transY, tz = f.permZ.empty() && f.transZ;
  GemmCallPlan plan;
  // Batch loops (extent, strides of X, Y, Z), outermost first, merged where contiguous.
  std::vector<GemmCallPlan::Loop>& loops = plan.loops;
  for (std::size_t i = 0; i < f.batchLabels.size(); ++i) {
    const GemmCallPlan::Loop l{extent[static_cast<std::size_t>(f.batchLabels[i])], x.cStride[i], y.cStride[i], z.cStride[i]};
    if (l.extent == 1) continue;
    if (!loops.empty()) {
      GemmCallPlan::Loop& o = loops.back();
      if (o.strideX == l.extent * l.strideX && o.strideY == l.extent * l.strideY && o.strideZ == l.extent * l.strideZ) {
        o = GemmCallPlan::Loop{o.extent * l.extent, l.strideX, l.strideY, l.strideZ};
        continue;
      }
    }
    loops.push_back(l);
  }
  GemmCallPlan::Loop inner{1, 0, 0, 0};
  if (!loops.empty()) {
    inner = loops.back();
    loops.pop_back();
  }
  for (const GemmCallPlan::Loop& l : loops) plan.outerEntries *= l.extent;
  program::GemmCall& c = plan.call;
  c.batch = inner.extent;
  c.k = k;
  if (!tz) {
    c.m = m, c.n = n;
    c.transA = tx, c.lda = x.ld, c.strideA = inner.strideX;
    c.transB = ty, c.ldb = y.ld, c.strideB = inner.strideY;
  } else {  // Z stored N-major: Z^T = Y^T X^T, A := Y^T (n x k), B := X^T (k x m)
    c.m = n, c.n = m;
    c.transA = !ty, c.lda = y.ld, c.strideA = inner.strideY;
    c.transB = !tx, c.ldb = x.ld, c.strideB = inner.strideX;
  }
  c.ldc = z.ld;
  c.strideC = inner.strideZ;
  plan.swapped = tz;
  return plan;
}

void GemmCallPlan::offsets(int64_t entry, int64_t& x, int64_t& y, int64_t& z) const {
  x = y = z = 0;
  for (std::size_t i = loops.size(); i-- > 0;) {
    const int64_t at = entry % loops[i].extent;
    entry /= loops[i].extent;
    x += at * loops[i].strideX;
    y += at * loops[i].strideY;
    z += at * loops[i].strideZ;
  }
}

}  // namespace einrt::model
