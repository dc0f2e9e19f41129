// The einsum parser: single- and multi-character labels, offsets for diagnostics, and
// every malformed form with the column of the offending label.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "planner/graph/einsum_parser.h"

using namespace eindecomp;

TEST_CASE("einsums split into operand and output labels") {
  struct Case {
    const char* text;
    std::vector<Labels> operands;
    Labels output;
    bool multi;
  };
  const std::vector<Case> cases = {
      {"ij,jk->ik", {{"i", "j"}, {"j", "k"}}, {"i", "k"}, false},
      {"ij, jk -> ik", {{"i", "j"}, {"j", "k"}}, {"i", "k"}, false},
      {"ij->", {{"i", "j"}}, {}, false},
      {"ij->ji", {{"i", "j"}}, {"j", "i"}, false},
      {"i,j->ij", {{"i"}, {"j"}}, {"i", "j"}, false},
      {"ab,bc,cd->ad", {{"a", "b"}, {"b", "c"}, {"c", "d"}}, {"a", "d"}, false},
      {"s a, a h d -> s h d", {{"s", "a"}, {"a", "h", "d"}}, {"s", "h", "d"}, true},
      {"seq model, model ff -> seq ff", {{"seq", "model"}, {"model", "ff"}}, {"seq", "ff"}, true},
      {"b_1 x2 -> b_1", {{"b_1", "x2"}}, {"b_1"}, true},
      {"h s t -> h s t", {{"h", "s", "t"}}, {"h", "s", "t"}, true},
      // NumPy's forms: the implicit output (labels used once, ASCII order), repeated labels, scalars.
      {"ij,jk", {{"i", "j"}, {"j", "k"}}, {"i", "k"}, false},
      {"ba", {{"b", "a"}}, {"a", "b"}, false},
      {"ii->i", {{"i", "i"}}, {"i"}, false},
      {"ii", {{"i", "i"}}, {}, false},
      {"ij,kk->ik", {{"i", "j"}, {"k", "k"}}, {"i", "k"}, false},
      {"->", {{}}, {}, false},
      {",ab->ab", {{}, {"a", "b"}}, {"a", "b"}, false},
  };
  for (const auto& c : cases) {
    CAPTURE(std::string(c.text));
    const EinsumSpec s = parseEinsum(c.text);
    CHECK(s.operands == c.operands);
    CHECK(s.output == c.output);
    CHECK(s.multiCharacterLabels == c.multi);
  }
  const EinsumSpec s = parseEinsum("s a, a h d -> s h d");
  CHECK(s.operandOffsets == std::vector<std::vector<std::size_t>>{{0, 2}, {5, 7, 9}});
  CHECK(s.outputOffsets == std::vector<std::size_t>{14, 16, 18});
}

TEST_CASE("malformed einsums point at the offending label") {
  struct Case {
    const char* text;
    int column;  // 1-based within the einsum; 0: at the einsum itself
    const char* words;
  };
  std::vector<Case> cases = {
      {"", 0, "is empty"},
      {"ij->i->j", 6, "two '->'"},
      {"i...j...->", 6, "two ellipses"},
      {"ij->ii", 6, "appears twice in the output"},
      {"i.j->i", 2, "a lone '.'"},
      {"i1->i", 2, "bad label '1'"},
      {"i;j->i", 2, "bad label ';'"},
      {"s a!, a -> s", 3, "bad label 'a!'"},
      {"s 1a -> s", 3, "bad label '1a'"},
      {"s a, a s -> s s", 15, "appears twice in the output"},
      {"s aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa -> s", 3, "65 characters"},
  };
  // One label past kMaxEinsumTermLabels, in the operand and in the output; at the limit it parses.
  const std::string atLimit(kMaxEinsumTermLabels, 'i');
  const std::string overOperand = atLimit + "i->i";
  std::string overOutput = "x ->";  // distinct output labels: l0 ... l1024
  for (std::size_t k = 0; k <= kMaxEinsumTermLabels; ++k) overOutput += " l" + std::to_string(k);
  const int lastOutputColumn = static_cast<int>(overOutput.rfind(' ')) + 2;
  cases.push_back({overOperand.c_str(), static_cast<int>(kMaxEinsumTermLabels) + 1, "operand 1 has more than 1024 labels"});
  cases.push_back({overOutput.c_str(), lastOutputColumn, "the output has more than 1024 labels"});
  CHECK(parseEinsum(atLimit + "->i").operands[0].size() == kMaxEinsumTermLabels);
  for (const auto& c : cases) {
    CAPTURE(std::string(c.text));
    try {
      parseEinsum(c.text, SourceLoc{"g.yaml", 3, 13});
      FAIL("accepted a bad einsum");
    } catch (const InputError& e) {
      CHECK(e.exitCode() == 2);
      CHECK(e.diagnostic().loc.line == 3);
      CHECK(e.diagnostic().loc.col == (c.column == 0 ? 13 : 13 + c.column - 1));
      CHECK(e.diagnostic().message.find(c.words) != std::string::npos);
    }
  }
}
