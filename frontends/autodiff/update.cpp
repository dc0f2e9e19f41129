#include "frontends/autodiff/update.h"

namespace eindecomp::autodiff {

namespace {

using K = Expr::Kind;

Expr num(double v) { return Expr::num(v); }
Expr bin(K k, Expr a, Expr b) { return Expr::binary(k, std::move(a), std::move(b)); }

UpdateOperand tensor(std::string name) { return {std::move(name), false}; }
UpdateOperand scalar(std::string name) { return {std::move(name), true}; }

}  // namespace

UpdateRecipe updateRecipe(const Update& u) {
  const Expr x = Expr::x(), y = Expr::y();
  UpdateRecipe r;
  if (u.rule == Update::Rule::Sgd) {
    r.tensorNodes.push_back({"{W}_next", {tensor("{W}"), tensor("{G}")}, bin(K::Sub, x, bin(K::Mul, num(u.learningRate), y)), true});
    r.outputs = {"{W}_next"};
    return r;
  }
  // The step's two scalars, shared by every tensor: lr / (1 - beta1^step) and
  // sqrt(1 - beta2^step), computed once per step as torch does.
  auto oneMinusPow = [&](double beta) { return bin(K::Sub, num(1), Expr::call(ScalarFunction::Pow, {num(beta), x})); };
  r.scalarInputs = {"step"};
  r.scalarNodes = {
      {"adamw_step_size", {scalar("step")}, bin(K::Div, num(u.learningRate), oneMinusPow(u.beta1)), false},
      {"adamw_correction2", {scalar("step")}, Expr::call(ScalarFunction::Sqrt, {oneMinusPow(u.beta2)}), false}};
  r.stateInputs = {"{W}_m", "{W}_v"};
  r.tensorNodes = {
      {"{W}_m_next", {tensor("{W}_m"), tensor("{G}")},
       bin(K::Add, bin(K::Mul, num(u.beta1), x), bin(K::Mul, num(1 - u.beta1), y)), true},
      {"{W}_v_next", {tensor("{W}_v"), tensor("{G}")},
       bin(K::Add, bin(K::Mul, num(u.beta2), x), bin(K::Mul, num(1 - u.beta2), bin(K::Mul, y, y))), true},
      {"adamw_denom_{W}", {tensor("{W}_v_next"), scalar("adamw_correction2")},
       bin(K::Add, bin(K::Div, Expr::call(ScalarFunction::Sqrt, {x}), y), num(u.eps)), false},
      {"adamw_scaled_{W}", {tensor("{W}_m_next"), scalar("adamw_step_size")}, bin(K::Mul, y, x), false},
      {"adamw_delta_{W}", {tensor("adamw_scaled_{W}"), tensor("adamw_denom_{W}")}, bin(K::Div, x, y), false},
      {"{W}_next", {tensor("{W}"), tensor("adamw_delta_{W}")},
       bin(K::Sub, bin(K::Mul, x, num(1 - u.learningRate * u.weightDecay)), y), true}};
  r.outputs = {"{W}_next", "{W}_m_next", "{W}_v_next"};
  return r;
}

std::string updateName(const std::string& pattern, const std::string& w, const std::string& g) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size();) {
    if (pattern.compare(i, 3, "{W}") == 0) {
      out += w;
      i += 3;
    } else if (pattern.compare(i, 3, "{G}") == 0) {
      out += g;
      i += 3;
    } else {
      out += pattern[i++];
    }
  }
  return out;
}

}  // namespace eindecomp::autodiff
