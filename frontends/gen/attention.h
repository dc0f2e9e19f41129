// Multi-head attention as the EinDecomp paper writes it in EinSum (section 3), with a
// batch label b: Q, K, V [b, s|t, a] are projected by rank-3 weights WQ, WK, WV [a, h, d]
// (d = dim / heads) into QH, KH, VH; scores T1[b,h,s,t] = sum_d QH KH; T2 = T1 / sqrt(d);
// softmax over t from its four EinSums (max, exp(x - y), sum, div) gives T3;
// O[b,s,h,d] = sum_t T3 VH; and the output projection Y[b,s,a] = sum_{h,d} O WO[a,h,d].
// The key/value sequence label is t (the paper's s').
#pragma once

#include <cstdint>

#include "frontends/gen/gen_options.h"

namespace eindecomp::gen {

struct AttentionOptions {
  CommonOptions common;
  int64_t batch = 8;
  int64_t seq = 1024;
  int64_t dim = 4096;
  int64_t heads = 32;
};

Graph makeAttention(const AttentionOptions& opts);

}  // namespace eindecomp::gen
