// Parsing the `einsum` field of a node (SPEC 1), NumPy's grammar in full: "ij,jk->ik" (one
// label per character) or "s a, a h d -> s h d" (whitespace-separated labels of any
// length). The einsum is in the multi-character form as soon as one operand or the output
// has whitespace between two labels; otherwise every character is a label. NumPy's forms:
// "..." (an ellipsis: the broadcast dimensions, at most once per operand and in the
// output), a label repeated within an operand (a diagonal, a trace), no "->" (the implicit
// output: the labels that appear once, in ASCII order, after the ellipsis's dimensions when
// any operand has one), an empty operand (a scalar). The ellipsis and size-1 broadcasting
// are lowered onto plain labels once the operands' shapes are known (einsum_lowering.h).
// Each label keeps its offset in the text so that later checks can point at its column.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "planner/graph/diagnostic.h"
#include "planner/graph/graph.h"

namespace eindecomp {

// Labels one operand or the output may hold: a tensor's rank. Far above any real tensor
// (einrt runs at most 16, limits.h) and far below what a 10 MB einsum would otherwise make
// the parser hold (ten million labels, a gigabyte and seconds under the sanitizers).
inline constexpr std::size_t kMaxEinsumTermLabels = 1024;

struct EinsumSpec {
  std::vector<Labels> operands;
  Labels output;
  std::vector<std::vector<std::size_t>> operandOffsets;  // offset of each operand label in the text
  std::vector<std::size_t> outputOffsets;
  bool multiCharacterLabels = false;
  std::vector<int> operandEllipsis;  // per operand: the label position where "..." stands, -1: none
  std::vector<std::size_t> operandEllipsisOffsets;
  int outputEllipsis = -1;           // in the output (also for an implicit output of operands with one)
  bool implicitOutput = false;       // no "->": NumPy's rule chose the output
};

// When one space switched `spec` to whitespace-separated labels and some label is
// several characters long (so it may have been meant as several labels), a note for
// diagnostics that says so and shows the spelling with spaces (" (note: ...)"); "" otherwise.
std::string multiCharacterLabelNote(const EinsumSpec& spec);

// Parses and checks the einsum text: labels are identifiers, no label repeats within the
// output, "..." at most once per operand and in the output. `where` is the place
// of the text's first character (line/col 0 when unknown); diagnostics point at the
// offending label's column when it is known.
EinsumSpec parseEinsum(const std::string& text, const SourceLoc& where = {});

// `where` moved to `offset` characters into the text, when its column is known.
SourceLoc offsetLoc(const SourceLoc& where, std::size_t offset);

}  // namespace eindecomp
