#include "frontends/gen/attention.h"

#include <cmath>

#include "frontends/gen/graph_builder.h"
#include "planner/graph/units.h"

namespace eindecomp::gen {

Graph makeAttention(const AttentionOptions& opts) {
  requireExtent("--batch", opts.batch);
  requireExtent("--seq", opts.seq);
  requireExtent("--dim", opts.dim);
  requireExtent("--heads", opts.heads);
  if (opts.dim % opts.heads != 0)
    badOption("--heads", "must divide --dim (" + std::to_string(opts.dim) + "), got " + std::to_string(opts.heads));
  const int64_t headDim = opts.dim / opts.heads;

  GraphBuilder b(graphName(opts.common, "attention"), opts.common.dtype);
  b.size("b", opts.batch);
  b.size("s", opts.seq);
  b.size("t", opts.seq);
  b.size("a", opts.dim);
  b.size("h", opts.heads);
  b.size("d", headDim);
  b.input("Q", "b s a");
  b.input("K", "b t a");
  b.input("V", "b t a");
  b.input("WQ", "a h d");
  b.input("WK", "a h d");
  b.input("WV", "a h d");
  b.input("WO", "a h d");
  b.node("QH", "bsa,ahd->bshd", {"Q", "WQ"});
  b.node("KH", "bta,ahd->bthd", {"K", "WK"});
  b.node("VH", "bta,ahd->bthd", {"V", "WV"});
  b.node("T1", "bshd,bthd->bhst", {"QH", "KH"});
  b.node("T2", "bhst->bhst", {"T1"}, "x * " + numberText(1.0 / std::sqrt(static_cast<double>(headDim))));
  b.node("C", "bhst->bhs", {"T2"}, "", Reduce::Max);
  b.node("E", "bhst,bhs->bhst", {"T2", "C"}, "exp(x - y)");
  b.node("S", "bhst->bhs", {"E"});
  b.node("T3", "bhst,bhs->bhst", {"E", "S"}, "div");
  b.node("O", "bhst,bthd->bshd", {"T3", "VH"});
  b.node("Y", "bshd,ahd->bsa", {"O", "WO"});
  b.output("Y");
  return b.build();
}

}  // namespace eindecomp::gen
