// One training step of a feed-forward classifier, as in the EinDecomp paper's experiment 2
// (section 9): the forward pass with relu hidden layers, the loss, the backward pass
// written out as EinSums, and the SGD update of every weight matrix.
//
// Inputs: X[b,f] (a batch of feature vectors), Y[b,c] (targets, one-hot for
// cross-entropy), W1[f,h1], W2[h1,h2], ..., W{k+1}[hk,c]. Outputs: `loss` (per example)
// and W1_new ... W{k+1}_new = W - lr * dW. Biases are left out, as in the paper's model.
// Loss `xent`: softmax (from its four EinSums) and cross-entropy, dL = (P - Y) / B;
// `squared`: 0.5 * sum_c (L - Y)^2, dL = (L - Y) / B. relu'(z) is written with the
// available scalar functions as min(1, relu(z) * 1e30): exact except for 0 < z < 1e-30.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontends/gen/gen_options.h"

namespace eindecomp::gen {

struct FfnnOptions {
  CommonOptions common;
  int64_t batch = 128;
  int64_t features = 8192;
  std::vector<int64_t> hidden{8192};
  int64_t classes = 14588;  // AmazonCat-14K
  std::string loss = "xent";  // xent | squared
  double learningRate = 0.01;
  // sgd: W_new = W - lr * dW (the paper's); adamw: torch.optim.AdamW's step with its
  // defaults (frontends/autodiff/update.h): inputs W_m, W_v per weight and `step`, outputs
  // W_next, W_m_next, W_v_next.
  std::string optimizer = "sgd";
  // --micro-batches M (planner/graph/micro_batches.h): the step over M micro-batches of
  // batch/M, its gradients (and loss) summed; 1: one pass.
  int64_t microBatches = 1;
};

Graph makeFfnn(const FfnnOptions& opts);

}  // namespace eindecomp::gen
