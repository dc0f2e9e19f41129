// LLaMA prefill ("first-token inference", the EinDecomp paper's experiment 3) as an
// EinGraph. The token embeddings are an input `embeddings[b,s,a]`; every layer l applies
// RMSNorm (sum of squares, rsqrt(mean + eps), scale, weight), attention with rotary
// position embedding, a causal mask, softmax from its four EinSums and the output
// projection, a residual add, RMSNorm, the SwiGLU feed-forward (silu(x W1) * (x W3)) W2
// and a second residual add; then a final RMSNorm and the vocabulary projection `logits`.
//
// Rotary embedding uses precomputed inputs: the head dimension is split into r (2 halves)
// x e (head_dim / 2); `rope_cos[s,e]` and `rope_sin[s,e]` hold the angles' cosines and
// sines and `rope_rot[r,u]` is the 2 x 2 rotate-half matrix [[0, -1], [1, 0]], so
// q_rope = q * cos + (rot q) * sin. `mask[s,t]` is the additive causal mask (0 on and
// below the diagonal, a large negative number above). These are inputs: feed the real
// values with `--inputs DIR`; seeded random inputs exercise the same computation.
//
// Presets use the published sizes (7B: dim 4096, 32 layers, 32 heads, ffn 11008, vocab
// 32000; 13B: 5120, 40, 40, 13824; 65B: 8192, 80, 64, 22016); any size can be overridden
// for small runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "frontends/gen/gen_options.h"

namespace eindecomp::gen {

struct LlamaOptions {
  CommonOptions common;
  std::string preset = "7b";  // 7b | 13b | 65b
  std::optional<int64_t> layers, dim, heads, ffn, vocab;  // override the preset
  int64_t seq = 1024;
  int64_t batch = 1;
  double normEps = 1e-6;
  // --train: a training step. The forward pass ends in the mean cross-entropy `loss` of
  // the logits against one-hot `targets[b,s,v]`; `einplan grad` (frontends/autodiff) adds
  // the backward pass with respect to every weight (the layers' matrices and norms, the
  // final norm and the output projection) and the update: SGD's W_next = W - lr * grad_W,
  // or AdamW's (torch's defaults; the state W_m, W_v and `step` become inputs).
  bool train = false;
  double learningRate = 0.01;
  std::string optimizer = "sgd";  // sgd | adamw
  bool noGradientOutputs = false;  // --no-grad-outputs: grad_X read by the update only, not outputs
  // --master f32: mixed precision (frontends/autodiff/master_weights.h): the weights, their
  // gradients, optimizer state and update of this type, the forward and backward of --dtype's.
  std::string master;
  // --gradient-accumulation-fusion (with --master): each weight gradient's GEMM writes the
  // master type itself (frontends/autodiff/grad.h GradRequest::gradientAccumulationFusion).
  bool gradientAccumulationFusion = false;
  // --micro-batches M (planner/graph/micro_batches.h): the step over M micro-batches of
  // batch/M, its gradients (and loss) summed; 1: one pass.
  int64_t microBatches = 1;
};

Graph makeLlama(const LlamaOptions& opts);

}  // namespace eindecomp::gen
