// The tensor networks of the Einsum Trees paper (Table 5): SYN, TT, FCTN, TW, GETD, TRN,
// each one n-ary contraction node (named after the network) over inputs T0, T1, ...
// Sizes are the paper's, given there in alphabetical order of the labels with upper case
// before lower case. Three rows of the table list one size fewer than the network has
// labels; the missing size is restored from the paper's description of the setting:
// FCTN (all FCTN ranks 8: e..j = 8), TW (TW ranks R = 6 for e..h and L = 4 for i..l),
// GETD (ring ranks a..e = 40, i..m = 25). TRN's path in the table has 7 pairs for 9
// operands; the missing last pair, necessarily (0, 1), is appended. `scale` divides
// every size by D (at least 1).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "frontends/gen/gen_options.h"

namespace eindecomp::gen {

struct TensorNetworkSpec {
  std::string id;           // syn, tt, fctn, tw, getd, trn
  std::string einsum;       // one character per label
  std::vector<int64_t> sizes;  // in sorted label order (upper case first)
  std::vector<std::pair<int, int>> paperPath;  // Table 5's contraction path (opt_einsum form)
  std::string description;
};

const std::vector<TensorNetworkSpec>& einsumTreesNetworks();

// The spec with this id, or nullptr.
const TensorNetworkSpec* findTensorNetwork(const std::string& id);

struct TensorNetworkOptions {
  CommonOptions common;
  std::string id = "syn";
  int64_t scale = 1;
};

Graph makeTensorNetwork(const TensorNetworkOptions& opts);

}  // namespace eindecomp::gen
