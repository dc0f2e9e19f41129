#include "frontends/gen/ffnn.h"

#include "frontends/autodiff/update.h"
#include "frontends/gen/graph_builder.h"
#include "planner/graph/micro_batches.h"
#include "planner/graph/units.h"

namespace eindecomp::gen {

namespace {

std::string joined(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? separator : "") + parts[i];
  return out;
}

// The nodes of `recipe` (autodiff/update.h) for the weight `w` over `labels` (spaced) with
// gradient `g`; the step's scalar inputs and nodes with the first weight.
void appendUpdate(GraphBuilder& b, const autodiff::UpdateRecipe& recipe, bool first, const std::string& w,
                  const std::string& g, const std::string& labels) {
  auto operandText = [&](const autodiff::UpdateOperand& op) { return op.scalar ? std::string() : labels; };
  if (first) {
    for (const auto& in : recipe.scalarInputs) b.input(in, "");
    for (const auto& n : recipe.scalarNodes) {
      std::vector<std::string> inputs, operands;
      for (const auto& op : n.operands) inputs.push_back(op.name), operands.push_back("");
      b.node(n.name, joined(operands, ", ") + " -> ", inputs, toString(n.join));
    }
  }
  for (const auto& in : recipe.stateInputs) b.input(autodiff::updateName(in, w, g), labels);
  for (const auto& n : recipe.tensorNodes) {
    std::vector<std::string> inputs, operands;
    for (const auto& op : n.operands) {
      inputs.push_back(autodiff::updateName(op.name, w, g));
      operands.push_back(operandText(op));
    }
    b.node(autodiff::updateName(n.name, w, g), joined(operands, ", ") + " -> " + labels, inputs, toString(n.join));
  }
  for (const auto& out : recipe.outputs) b.output(autodiff::updateName(out, w, g));
}

}  // namespace

Graph makeFfnn(const FfnnOptions& opts) {
  requireExtent("--batch", opts.batch);
  requireExtent("--features", opts.features);
  requireExtent("--classes", opts.classes);
  // 6 nodes per hidden layer and 9 more (docs/workloads.md) with SGD's one update node a
  // weight; AdamW's recipe has more a weight, and its step's scalars.
  const bool adamw = opts.optimizer == "adamw";
  autodiff::Update adamwUpdate;
  adamwUpdate.rule = autodiff::Update::Rule::AdamW;
  adamwUpdate.learningRate = opts.learningRate;
  const autodiff::UpdateRecipe recipe = autodiff::updateRecipe(adamwUpdate);
  const int64_t extraPerWeight = adamw ? static_cast<int64_t>(recipe.tensorNodes.size()) - 1 : 0;
  const int64_t extraOnce = extraPerWeight + (adamw ? static_cast<int64_t>(recipe.scalarNodes.size()) : 0);
  requireAtMost("--hidden", static_cast<int64_t>(opts.hidden.size()),
                (kMaxGeneratedNodes - 9 - extraOnce) / (6 + extraPerWeight),
                "the number of hidden layers is bounded, as a generated graph has at most 100,000 nodes");
  for (int64_t h : opts.hidden) requireExtent("--hidden", h);
  if (opts.loss != "xent" && opts.loss != "squared") badOption("--loss", "must be 'xent' or 'squared', got '" + opts.loss + "'");
  if (!(opts.learningRate > 0)) badOption("--lr", "must be positive");
  if (opts.optimizer != "sgd" && opts.optimizer != "adamw") badOption("--optimizer", "must be 'sgd' or 'adamw'");
  requirePositive("--micro-batches", opts.microBatches);
  if (opts.batch % opts.microBatches != 0)
    badOption("--micro-batches", std::to_string(opts.microBatches) + " does not divide --batch " + std::to_string(opts.batch));
  // With micro-batches the nodes see one micro-batch's rows; the loss and its gradient
  // still average over the whole batch, so that their sums over the micro-batches are the
  // one-pass step's.
  const bool accumulating = opts.microBatches > 1;

  GraphBuilder b(graphName(opts.common, "ffnn"), opts.common.dtype);
  const std::size_t layers = opts.hidden.size() + 1;  // weight matrices
  // Layer widths: f, h1, ..., hk, c, as labels.
  std::vector<std::string> width{"f"};
  b.size("b", opts.batch / opts.microBatches);
  b.size("f", opts.features);
  for (std::size_t i = 0; i < opts.hidden.size(); ++i) {
    width.push_back("h" + std::to_string(i + 1));
    b.size(width.back(), opts.hidden[i]);
  }
  width.push_back("c");
  b.size("c", opts.classes);

  auto weight = [](std::size_t layer) { return "W" + std::to_string(layer + 1); };
  b.input("X", "b f");
  b.input("Y", "b c");
  for (std::size_t l = 0; l < layers; ++l) b.input(weight(l), width[l] + " " + width[l + 1]);

  // Forward: Z{l} = A{l-1} W{l}, A{l} = relu(Z{l}); A0 = X; the last Z is the logits L.
  std::vector<std::string> act{"X"};  // activation entering layer l
  std::vector<std::string> pre;       // pre-activation of layer l
  for (std::size_t l = 0; l < layers; ++l) {
    const std::string in = width[l], out = width[l + 1];
    const bool last = l + 1 == layers;
    const std::string z = last ? "L" : "Z" + std::to_string(l + 1);
    b.node(z, "b " + in + ", " + in + " " + out + " -> b " + out, {act[l], weight(l)});
    pre.push_back(z);
    if (!last) {
      const std::string a = "A" + std::to_string(l + 1);
      b.node(a, "b " + out + " -> b " + out, {z}, "relu(x)");
      act.push_back(a);
    }
  }

  const std::string invBatch = numberText(1.0 / static_cast<double>(opts.batch));
  if (opts.loss == "xent") {
    b.node("Lmax", "b c -> b", {"L"}, "", Reduce::Max);
    b.node("Lexp", "b c, b -> b c", {"L", "Lmax"}, "exp(x - y)");
    b.node("Lsum", "b c -> b", {"Lexp"});
    b.node("P", "b c, b -> b c", {"Lexp", "Lsum"}, "div");
    // Per row; with micro-batches the mean over the batch, a scalar summed over them.
    if (accumulating) b.node("loss", "b c, b c -> ", {"Y", "P"}, "-(x * log(y)) * " + invBatch);
    else b.node("loss", "b c, b c -> b", {"Y", "P"}, "-(x * log(y))");
    b.node("dL", "b c, b c -> b c", {"P", "Y"}, "(x - y) * " + invBatch);
  } else {
    if (accumulating) b.node("loss", "b c, b c -> ", {"L", "Y"}, "0.5 * (x - y) * (x - y) * " + invBatch);
    else b.node("loss", "b c, b c -> b", {"L", "Y"}, "0.5 * (x - y) * (x - y)");
    b.node("dL", "b c, b c -> b c", {"L", "Y"}, "(x - y) * " + invBatch);
  }

  // Backward: dW{l} = A{l-1}^T dZ{l}; dA{l-1} = dZ{l} W{l}^T; dZ{l-1} = dA{l-1} * relu'(Z{l-1}).
  std::string grad = "dL";
  for (std::size_t l = layers; l-- > 0;) {
    const std::string in = width[l], out = width[l + 1];
    b.node("d" + weight(l), "b " + in + ", b " + out + " -> " + in + " " + out, {act[l], grad});
    if (l == 0) break;
    const std::string dA = "dA" + std::to_string(l);
    b.node(dA, "b " + out + ", " + in + " " + out + " -> b " + in, {grad, weight(l)});
    const std::string dZ = "dZ" + std::to_string(l);
    b.node(dZ, "b " + in + ", b " + in + " -> b " + in, {dA, pre[l - 1]}, "x * min(1, relu(y) * 1e30)");
    grad = dZ;
  }

  b.output("loss");
  // The step over micro-batches: X and Y split by rows, every weight gradient and the loss summed.
  auto step = [&](const Graph& g) {
    if (!accumulating) return g;
    MicroBatches mb;
    mb.count = opts.microBatches;
    mb.split = {{"X", 0, {}}, {"Y", 0, {}}};
    for (std::size_t l = 0; l < layers; ++l) mb.accumulate.push_back({"d" + weight(l), {}});
    mb.accumulate.push_back({"loss", {}});
    return withMicroBatches(g, std::move(mb));
  };
  if (adamw) {
    for (std::size_t l = 0; l < layers; ++l)
      appendUpdate(b, recipe, l == 0, weight(l), "d" + weight(l), width[l] + " " + width[l + 1]);
    return step(b.build());
  }
  // SGD update (the paper's; its outputs are named W_new).
  const std::string update = "x - " + numberText(opts.learningRate) + " * y";
  for (std::size_t l = 0; l < layers; ++l) {
    const std::string labels = width[l] + " " + width[l + 1];
    b.node(weight(l) + "_new", labels + ", " + labels + " -> " + labels, {weight(l), "d" + weight(l)}, update);
    b.output(weight(l) + "_new");
  }
  return step(b.build());
}

}  // namespace eindecomp::gen
