// The matrix chain of the EinDecomp paper's experiment 1 (section 9): (A x B) + (C x (D x E)).
// `square`: every matrix s x s. `skewed`: A s x .1s, B .1s x s, C s x .1s, D .1s x 10s,
// E 10s x s (s must then be a multiple of 10). Nodes: AB, DE, CDE and the sum Z.
#pragma once

#include <cstdint>
#include <string>

#include "frontends/gen/gen_options.h"

namespace eindecomp::gen {

struct MatrixChainOptions {
  CommonOptions common;
  std::string shape = "square";  // square | skewed
  int64_t scale = 1000;          // s
};

Graph makeMatrixChain(const MatrixChainOptions& opts);

}  // namespace eindecomp::gen
