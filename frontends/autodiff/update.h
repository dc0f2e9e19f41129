// The optimizer's update of a trained tensor as EinGraph nodes, written once for every
// front end that makes a training step (einplan grad --update, gen llama --train through
// it, gen ffnn --optimizer adamw): which inputs the optimizer's state adds, which scalar
// nodes a step shares, and which elementwise nodes update each tensor.
//
//   sgd:   W_next = W - lr * G
//   adamw: torch.optim.AdamW's step, with its state as graph inputs W_m, W_v (W's shape)
//          and the scalar input `step` (this step's number, from 1):
//            W_m_next = beta1 * W_m + (1 - beta1) * G
//            W_v_next = beta2 * W_v + (1 - beta2) * G * G
//            W_next   = W * (1 - lr * weightDecay)
//                       - (lr / (1 - beta1^step)) * W_m_next / (sqrt(W_v_next) / sqrt(1 - beta2^step) + eps)
//          (decoupled weight decay and bias correction as torch computes them).
#pragma once

#include <string>
#include <vector>

#include "planner/graph/expr.h"

namespace eindecomp::autodiff {

struct Update {
  enum class Rule { Sgd, AdamW };
  Rule rule = Rule::Sgd;
  double learningRate = 0.01;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0.01;  // adamw's; torch's defaults
};

// A name in an update: `{W}` stands for the trained tensor's name, `{G}` for its gradient's.
// An operand is a tensor over W's labels, or a scalar (a step's shared value).
struct UpdateOperand {
  std::string name;
  bool scalar = false;
};

struct UpdateNode {
  std::string name;
  std::vector<UpdateOperand> operands;  // one or two: the join reads x, y
  Expr join;
  bool visible = false;  // an input or output a user reads by name (W_next), not an intermediate
};

struct UpdateRecipe {
  std::vector<std::string> scalarInputs;   // shared by the step ("step")
  std::vector<UpdateNode> scalarNodes;     // over scalar inputs only, once per step
  std::vector<std::string> stateInputs;    // per tensor, W's shape ("{W}_m", "{W}_v")
  std::vector<UpdateNode> tensorNodes;     // per tensor, in order
  std::vector<std::string> outputs;        // per tensor ("{W}_next", ...)
};

UpdateRecipe updateRecipe(const Update& u);

// `pattern` with {W} and {G} replaced.
std::string updateName(const std::string& pattern, const std::string& w, const std::string& g);

}  // namespace eindecomp::autodiff
