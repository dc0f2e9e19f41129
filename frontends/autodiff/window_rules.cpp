#include "frontends/autodiff/convolution_rule.h"

#include <algorithm>
#include <set>

#include "planner/graph/diagnostic.h"
#include "planner/graph/excerpt.h"

namespace eindecomp::autodiff {

bool tappedConvolution(const Node& n) {
  if (!hasTaps(n)) return false;
  auto refuse = [&](const std::string& why) {
    throw InputError({n.loc, "node " + quoted(n.name) + ": einplan grad differentiates windows over tap labels only in a "
                                 "convolution (a product of two operands summed, one read through the windows); " + why});
  };
  if (n.inputs.size() != 2 || !isContraction(n)) refuse("this node's join or aggregation is another");
  if (isWindowed(n, 0) == isWindowed(n, 1)) refuse("both of its operands are read through windows");
  const std::size_t k = isWindowed(n, 0) ? 0 : 1;
  const Labels& lk = n.operandLabels[k];
  const Labels& other = n.operandLabels[1 - k];
  auto repeats = [](const Labels& l) { return std::set<Label>(l.begin(), l.end()).size() != l.size(); };
  if (repeats(lk) || repeats(n.outputLabels)) refuse("a label repeats");
  for (std::size_t d = 0; d < lk.size(); ++d) {
    const bool inOutput = std::find(n.outputLabels.begin(), n.outputLabels.end(), lk[d]) != n.outputLabels.end();
    const bool inOther = std::find(other.begin(), other.end(), lk[d]) != other.end();
    const bool moved = n.windows->offsets[k][d] != 0 || !n.windows->taps[k][d].empty();
    if (moved && (!inOutput || inOther)) refuse("its windowed label " + quoted(lk[d]) + " is not the output's alone");
    const Label& t = n.windows->taps[k][d];
    if (!t.empty() && (std::find(other.begin(), other.end(), t) == other.end() ||
                       std::find(n.outputLabels.begin(), n.outputLabels.end(), t) != n.outputLabels.end()))
      refuse("its tap label " + quoted(t) + " is not the other operand's alone");
  }
  return true;
}

}  // namespace eindecomp::autodiff
