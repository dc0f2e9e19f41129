// Parsing the `einsum` field of a node (SPEC 1): "ij,jk->ik" (one label per character)
// or "s a, a h d -> s h d" (whitespace-separated labels of any length). The einsum is in
// the multi-character form as soon as one operand or the output has whitespace between
// two labels; otherwise every character is a label. The output after "->" is always
// explicit (it may be empty: a scalar). Each label keeps its offset in the text so that
// later checks (sizes, broadcasts) can point at the exact column.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "planner/graph/diagnostic.h"
#include "planner/graph/graph.h"

namespace eindecomp {

struct EinsumSpec {
  std::vector<Labels> operands;
  Labels output;
  std::vector<std::vector<std::size_t>> operandOffsets;  // offset of each operand label in the text
  std::vector<std::size_t> outputOffsets;
  bool multiCharacterLabels = false;
};

// When one space switched `spec` to whitespace-separated labels and some label is
// several characters long (so it may have been meant as several labels), a note for
// diagnostics that says so and shows the spelling with spaces (" (note: ...)"); "" otherwise.
std::string multiCharacterLabelNote(const EinsumSpec& spec);

// Parses and checks the einsum text: labels are identifiers, no label repeats within an
// operand or within the output, and there is at least one operand. `where` is the place
// of the text's first character (line/col 0 when unknown); diagnostics point at the
// offending label's column when it is known.
EinsumSpec parseEinsum(const std::string& text, const SourceLoc& where = {});

// `where` moved to `offset` characters into the text, when its column is known.
SourceLoc offsetLoc(const SourceLoc& where, std::size_t offset);

}  // namespace eindecomp
