#include "frontends/gen/matrix_chain.h"

#include "frontends/gen/graph_builder.h"

namespace eindecomp::gen {

Graph makeMatrixChain(const MatrixChainOptions& opts) {
  requireExtent("--scale", opts.scale);
  const int64_t s = opts.scale;
  int64_t tenth = s, ten = s;
  if (opts.shape == "skewed") {
    if (s % 10 != 0) badOption("--scale", "the skewed chain needs a multiple of 10 (it uses .1s), got " + std::to_string(s));
    tenth = s / 10;
    ten = s * 10;
  } else if (opts.shape != "square") {
    badOption("--shape", "must be 'square' or 'skewed', got '" + opts.shape + "'");
  }
  GraphBuilder b(graphName(opts.common, "matrix_chain_" + opts.shape), opts.common.dtype);
  // A: i x j, B: j x k, C: i x l, D: l x m, E: m x k.
  b.size("i", s);
  b.size("j", tenth);
  b.size("k", s);
  b.size("l", tenth);
  b.size("m", ten);
  b.input("A", "i j");
  b.input("B", "j k");
  b.input("C", "i l");
  b.input("D", "l m");
  b.input("E", "m k");
  b.node("AB", "ij,jk->ik", {"A", "B"});
  b.node("DE", "lm,mk->lk", {"D", "E"});
  b.node("CDE", "il,lk->ik", {"C", "DE"});
  b.node("Z", "ik,ik->ik", {"AB", "CDE"}, "add");
  b.output("Z");
  return b.build();
}

}  // namespace eindecomp::gen
