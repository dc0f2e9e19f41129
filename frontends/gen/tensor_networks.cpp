#include "frontends/gen/tensor_networks.h"

#include <set>

#include "frontends/gen/graph_builder.h"

namespace eindecomp::gen {

const std::vector<TensorNetworkSpec>& einsumTreesNetworks() {
  static const std::vector<TensorNetworkSpec> nets{
      {"syn", "iaje,bf,dcba,cigj,dh->hgfei", {24, 48, 12, 56, 32, 64, 8, 84, 8, 72},
       {{1, 2}, {2, 3}, {0, 1}, {0, 1}}, "synthetic contraction tree (the paper's Fig. 2a)"},
      {"tt", "af,fbg,gch,hdi,ie->abcde", {100, 72, 128, 128, 3, 71, 305, 32, 3},
       {{1, 2}, {0, 3}, {0, 1}, {0, 1}}, "tensor train of the COIL-100 data set"},
      {"fctn", "aefg,behi,cfhj,dgij->abcd", {60, 60, 20, 20, 8, 8, 8, 8, 8, 8},
       {{2, 3}, {0, 2}, {0, 1}}, "fully connected tensor network of a 60x60x20x20 video"},
      {"tw", "aefi,bfgj,cghk,dhel,ijkl->abcd", {40, 40, 20, 20, 6, 6, 6, 6, 4, 4, 4, 4},
       {{2, 3}, {2, 3}, {0, 2}, {0, 1}}, "tensor wheel of a 40x40x20x20 video"},
      {"getd", "aib,bjc,ckd,dle,ema->ijklm", {40, 40, 40, 40, 40, 25, 25, 25, 25, 25},
       {{0, 1}, {0, 1}, {0, 1}, {0, 1}}, "tensor ring part of GETD on JF17K-4"},
      {"trn", "Babcd,aij,bik,ckl,dlm,ejp,fop,gno,hmn->Befgh",
       {128, 4, 7, 4, 7, 3, 4, 5, 5, 50, 50, 50, 50, 50, 50, 50, 50},
       {{1, 5}, {4, 5}, {1, 2}, {1, 2}, {1, 2}, {1, 2}, {0, 1}, {0, 1}}, "first layer of a tensor ring net (LeNet-300-100)"},
  };
  return nets;
}

const TensorNetworkSpec* findTensorNetwork(const std::string& id) {
  for (const auto& n : einsumTreesNetworks())
    if (n.id == id) return &n;
  return nullptr;
}

Graph makeTensorNetwork(const TensorNetworkOptions& opts) {
  const TensorNetworkSpec* spec = findTensorNetwork(opts.id);
  if (!spec) badOption("FAMILY", "unknown tensor network '" + opts.id + "' (syn tt fctn tw getd trn)");
  requirePositive("--scale", opts.scale);

  GraphBuilder b(graphName(opts.common, spec->id), opts.common.dtype);
  const std::string lhs = spec->einsum.substr(0, spec->einsum.find("->"));
  const std::set<char> labels(lhs.begin(), lhs.end());
  std::size_t i = 0;
  for (char c : labels) {
    if (c == ',') continue;
    b.size(std::string(1, c), std::max<int64_t>(1, spec->sizes.at(i++) / opts.scale));
  }
  std::vector<std::string> inputs;
  std::string current;
  auto addInput = [&] {
    const std::string name = "T" + std::to_string(inputs.size());
    std::string spaced;
    for (char c : current) spaced += (spaced.empty() ? "" : " ") + std::string(1, c);
    b.input(name, spaced);
    inputs.push_back(name);
    current.clear();
  };
  for (char c : lhs) {
    if (c == ',') addInput();
    else current += c;
  }
  addInput();
  b.node(spec->id, spec->einsum, inputs);
  b.output(spec->id);
  return b.build();
}

}  // namespace eindecomp::gen
