#include "frontends/gen/ffnn.h"

#include "frontends/gen/graph_builder.h"
#include "planner/graph/units.h"

namespace eindecomp::gen {

Graph makeFfnn(const FfnnOptions& opts) {
  requireExtent("--batch", opts.batch);
  requireExtent("--features", opts.features);
  requireExtent("--classes", opts.classes);
  // 6 nodes per hidden layer and 9 more (docs/workloads.md).
  requireAtMost("--hidden", static_cast<int64_t>(opts.hidden.size()), (kMaxGeneratedNodes - 9) / 6,
                "the number of hidden layers is bounded, as a generated graph has at most 100,000 nodes");
  for (int64_t h : opts.hidden) requireExtent("--hidden", h);
  if (opts.loss != "xent" && opts.loss != "squared") badOption("--loss", "must be 'xent' or 'squared', got '" + opts.loss + "'");
  if (!(opts.learningRate > 0)) badOption("--lr", "must be positive");

  GraphBuilder b(graphName(opts.common, "ffnn"), opts.common.dtype);
  const std::size_t layers = opts.hidden.size() + 1;  // weight matrices
  // Layer widths: f, h1, ..., hk, c, as labels.
  std::vector<std::string> width{"f"};
  b.size("b", opts.batch);
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
    b.node("loss", "b c, b c -> b", {"Y", "P"}, "-(x * log(y))");
    b.node("dL", "b c, b c -> b c", {"P", "Y"}, "(x - y) * " + invBatch);
  } else {
    b.node("loss", "b c, b c -> b", {"L", "Y"}, "0.5 * (x - y) * (x - y)");
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

  // SGD update.
  b.output("loss");
  const std::string update = "x - " + numberText(opts.learningRate) + " * y";
  for (std::size_t l = 0; l < layers; ++l) {
    const std::string labels = width[l] + " " + width[l + 1];
    b.node(weight(l) + "_new", labels + ", " + labels + " -> " + labels, {weight(l), "d" + weight(l)}, update);
    b.output(weight(l) + "_new");
  }
  return b.build();
}

}  // namespace eindecomp::gen
