#include "planner/paths/gemm_mapping.h"

#include <algorithm>

namespace eindecomp {

namespace {

bool contains(const Labels& ls, const Label& l) { return std::find(ls.begin(), ls.end(), l) != ls.end(); }

// The labels of `tensor` that belong to `group`, in the tensor's order.
Labels restrictTo(const Labels& tensor, const Labels& group) {
  Labels out;
  for (const auto& l : tensor)
    if (contains(group, l)) out.push_back(l);
  return out;
}

// True when `tensor` is the concatenation of the two groups' labels in either order, each
// group's labels in the order given.
bool isTwoGroupMatrix(const Labels& tensor, const Labels& first, const Labels& second) {
  Labels ab = first, ba = second;
  ab.insert(ab.end(), second.begin(), second.end());
  ba.insert(ba.end(), first.begin(), first.end());
  return tensor == ab || tensor == ba;
}

}  // namespace

GemmMapping classifyBinaryContraction(const Labels& left, const Labels& right, const Labels& out) {
  GemmMapping m;
  Labels all;
  for (const Labels* t : {&left, &right, &out})
    for (const auto& l : *t)
      if (!contains(all, l)) all.push_back(l);
  for (const auto& l : all) {
    const bool inL = contains(left, l), inR = contains(right, l), inO = contains(out, l);
    if (inL && inR) (inO ? m.c : m.k).push_back(l);
    else if (inL) (inO ? m.m : m.r).push_back(l);
    else if (inR) (inO ? m.n : m.r).push_back(l);
    else m.b.push_back(l);
  }
  if (!m.r.empty() || !m.b.empty()) return m;

  // Batch labels must lead every tensor, in one order.
  const std::size_t nc = m.c.size();
  auto leads = [&](const Labels& t) { return t.size() >= nc && Labels(t.begin(), t.begin() + nc) == m.c; };
  if (!leads(left) || !leads(right) || !leads(out)) return m;
  const Labels l(left.begin() + nc, left.end()), r(right.begin() + nc, right.end()), o(out.begin() + nc, out.end());

  // Each group keeps one order across the tensors it appears in; take it from the first.
  const Labels kOrder = restrictTo(l, m.k), mOrder = restrictTo(l, m.m), nOrder = restrictTo(r, m.n);
  if (restrictTo(r, m.k) != kOrder || restrictTo(o, m.m) != mOrder || restrictTo(o, m.n) != nOrder) return m;
  if (!isTwoGroupMatrix(l, mOrder, kOrder) || !isTwoGroupMatrix(r, kOrder, nOrder) ||
      !isTwoGroupMatrix(o, mOrder, nOrder))
    return m;
  m.kind = nc == 0 ? KernelMapping::Gemm : KernelMapping::BatchedGemm;
  return m;
}

const char* kernelMappingName(KernelMapping k) {
  switch (k) {
    case KernelMapping::Gemm: return "gemm";
    case KernelMapping::BatchedGemm: return "batched-gemm";
    case KernelMapping::Permutation: return "permute";
  }
  return "permute";
}

std::string describeLabelTypes(const GemmMapping& m) {
  std::string s;
  auto add = [&s](const char* type, const Labels& ls) {
    if (ls.empty()) return;
    if (!s.empty()) s += "  ";
    s += type;
    s += ":";
    for (const auto& l : ls) s += " " + l;
  };
  add("C", m.c);
  add("M", m.m);
  add("N", m.n);
  add("K", m.k);
  add("R", m.r);
  add("B", m.b);
  return s;
}

}  // namespace eindecomp
