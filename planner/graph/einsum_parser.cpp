#include "planner/graph/einsum_parser.h"

#include <algorithm>
#include <cctype>

#include "planner/graph/identifiers.h"

namespace eindecomp {

SourceLoc offsetLoc(const SourceLoc& where, std::size_t offset) {
  SourceLoc loc = where;
  if (loc.line > 0 && loc.col > 0) loc.col += static_cast<int>(offset);
  return loc;
}

namespace {

struct Segment {
  std::size_t begin;
  std::size_t end;  // one past the last character
};

bool isSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

Segment trim(const std::string& text, Segment s) {
  while (s.begin < s.end && isSpace(text[s.begin])) ++s.begin;
  while (s.end > s.begin && isSpace(text[s.end - 1])) --s.end;
  return s;
}

bool hasInnerSpace(const std::string& text, Segment s) {
  for (std::size_t i = s.begin; i < s.end; ++i)
    if (isSpace(text[i])) return true;
  return false;
}

// Splits one operand (or the output) into labels with their offsets.
void splitLabels(const std::string& text, Segment s, bool multi, const std::string& what, const SourceLoc& where,
                 Labels& labels, std::vector<std::size_t>& offsets) {
  std::size_t i = s.begin;
  while (i < s.end) {
    if (isSpace(text[i])) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    if (multi)
      while (j < s.end && !isSpace(text[j])) ++j;
    const std::string label = text.substr(i, j - i);
    requireIdentifier(label, "label", offsetLoc(where, i));
    const auto seen = std::find(labels.begin(), labels.end(), label);
    if (seen != labels.end())
      throw InputError({offsetLoc(where, i), "einsum " + quoted(text) + ": label " + quoted(label) +
                                                 " appears twice in " + what +
                                                 " (repeated labels within one tensor, such as traces or "
                                                 "diagonals, are not supported)"});
    labels.push_back(label);
    offsets.push_back(i);
    i = j;
  }
}

std::string spaced(const Labels& labels) {
  std::string s;
  for (const auto& l : labels)
    for (char c : l) s += std::string(s.empty() ? "" : " ") + c;
  return s;
}

}  // namespace

std::string multiCharacterLabelNote(const EinsumSpec& spec) {
  if (!spec.multiCharacterLabels) return "";
  const Label* longLabel = nullptr;
  for (const auto& op : spec.operands)
    for (const auto& l : op)
      if (!longLabel && l.size() > 1) longLabel = &l;
  for (const auto& l : spec.output)
    if (!longLabel && l.size() > 1) longLabel = &l;
  if (!longLabel) return "";
  std::string single;
  for (std::size_t k = 0; k < spec.operands.size(); ++k) single += (k ? ", " : "") + spaced(spec.operands[k]);
  single += " -> " + spaced(spec.output);
  return " (note: a space anywhere in an einsum makes every label a whitespace-separated word, so " +
         quoted(*longLabel) + " is one label here; to mean one label per character, separate them all: " +
         quoted(single) + ")";
}

EinsumSpec parseEinsum(const std::string& text, const SourceLoc& where) {
  const std::size_t arrow = text.find("->");
  if (arrow == std::string::npos)
    throw InputError({where, "einsum " + quoted(text) + " has no '->': write the output labels explicitly, "
                                                        "as in \"ij,jk->ik\""});
  if (text.find("->", arrow + 2) != std::string::npos)
    throw InputError({offsetLoc(where, text.find("->", arrow + 2)), "einsum " + quoted(text) + " has two '->'"});

  std::vector<Segment> operandSegments;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= arrow; ++i) {
    if (i == arrow || text[i] == ',') {
      operandSegments.push_back(trim(text, {start, i}));
      start = i + 1;
    }
  }
  const Segment outputSegment = trim(text, {arrow + 2, text.size()});
  if (operandSegments.size() == 1 && operandSegments[0].begin == operandSegments[0].end)
    throw InputError({where, "einsum " + quoted(text) + " has no operands before '->'"});

  EinsumSpec spec;
  spec.multiCharacterLabels = hasInnerSpace(text, outputSegment) ||
                              std::any_of(operandSegments.begin(), operandSegments.end(),
                                          [&](Segment s) { return hasInnerSpace(text, s); });
  for (std::size_t k = 0; k < operandSegments.size(); ++k) {
    spec.operands.emplace_back();
    spec.operandOffsets.emplace_back();
    splitLabels(text, operandSegments[k], spec.multiCharacterLabels, "operand " + std::to_string(k + 1), where,
                spec.operands.back(), spec.operandOffsets.back());
  }
  splitLabels(text, outputSegment, spec.multiCharacterLabels, "the output", where, spec.output, spec.outputOffsets);
  return spec;
}

}  // namespace eindecomp
