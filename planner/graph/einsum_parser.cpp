#include "planner/graph/einsum_parser.h"

#include <algorithm>
#include <cctype>
#include <map>

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

// Splits one operand (or the output) into labels with their offsets; "..." becomes the
// ellipsis position (`ellipsis`, -1 when absent).
void splitLabels(const std::string& text, Segment s, bool multi, const std::string& what, const SourceLoc& where,
                 bool isOutput, Labels& labels, std::vector<std::size_t>& offsets, int& ellipsis, std::size_t& ellipsisOffset) {
  ellipsis = -1;
  std::size_t i = s.begin;
  while (i < s.end) {
    if (isSpace(text[i])) {
      ++i;
      continue;
    }
    if (text.compare(i, 3, "...") == 0 && i + 3 <= s.end) {
      if (ellipsis >= 0)
        throw InputError({offsetLoc(where, i), "einsum " + quoted(text) + ": " + what + " has two ellipses '...' (NumPy "
                                                   "allows one per operand and one in the output)"});
      ellipsis = static_cast<int>(labels.size());
      ellipsisOffset = i;
      i += 3;
      continue;
    }
    if (labels.size() == kMaxEinsumTermLabels)
      throw InputError({offsetLoc(where, i), "einsum " + quoted(text) + ": " + what + " has more than " +
                                                 std::to_string(kMaxEinsumTermLabels) +
                                                 " labels (a tensor's rank; the planner's limit)"});
    std::size_t j = i + 1;
    if (multi)
      while (j < s.end && !isSpace(text[j]) && text.compare(j, 3, "...") != 0) ++j;
    const std::string label = text.substr(i, j - i);
    if (label == ".")
      throw InputError({offsetLoc(where, i), "einsum " + quoted(text) + ": a lone '.' in " + what +
                                                 "; NumPy's ellipsis is three dots, '...'"});
    requireIdentifier(label, "label", offsetLoc(where, i));
    if (isOutput && std::find(labels.begin(), labels.end(), label) != labels.end())
      throw InputError({offsetLoc(where, i), "einsum " + quoted(text) + ": label " + quoted(label) +
                                                 " appears twice in the output (NumPy refuses this too: an output "
                                                 "label names one dimension)"});
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
  const std::size_t found = text.find("->");
  const bool implicit = found == std::string::npos;
  const std::size_t arrow = implicit ? text.size() : found;
  if (!implicit && text.find("->", arrow + 2) != std::string::npos)
    throw InputError({offsetLoc(where, text.find("->", arrow + 2)), "einsum " + quoted(text) + " has two '->'"});

  std::vector<Segment> operandSegments;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= arrow; ++i) {
    if (i == arrow || text[i] == ',') {
      operandSegments.push_back(trim(text, {start, i}));
      start = i + 1;
    }
  }
  const Segment outputSegment = implicit ? Segment{text.size(), text.size()} : trim(text, {arrow + 2, text.size()});
  if (implicit && operandSegments.size() == 1 && operandSegments[0].begin == operandSegments[0].end)
    throw InputError({where, "einsum " + quoted(text) + " is empty: write at least one operand, as in \"ij,jk->ik\""});

  EinsumSpec spec;
  spec.implicitOutput = implicit;
  spec.multiCharacterLabels = hasInnerSpace(text, outputSegment) ||
                              std::any_of(operandSegments.begin(), operandSegments.end(),
                                          [&](Segment s) { return hasInnerSpace(text, s); });
  for (std::size_t k = 0; k < operandSegments.size(); ++k) {
    spec.operands.emplace_back();
    spec.operandOffsets.emplace_back();
    int ellipsis = -1;
    std::size_t ellipsisOffset = 0;
    splitLabels(text, operandSegments[k], spec.multiCharacterLabels, "operand " + std::to_string(k + 1), where, false,
                spec.operands.back(), spec.operandOffsets.back(), ellipsis, ellipsisOffset);
    spec.operandEllipsis.push_back(ellipsis);
    spec.operandEllipsisOffsets.push_back(ellipsisOffset);
  }
  const bool anyEllipsis = std::any_of(spec.operandEllipsis.begin(), spec.operandEllipsis.end(), [](int e) { return e >= 0; });
  if (!implicit) {
    std::size_t outputEllipsisOffset = 0;
    splitLabels(text, outputSegment, spec.multiCharacterLabels, "the output", where, true, spec.output, spec.outputOffsets,
                spec.outputEllipsis, outputEllipsisOffset);
    // An output '...' where no operand has one stands for no dimension (NumPy: '->...' of a
    // scalar, 'ij->...' a sum).
    (void)outputEllipsisOffset;
    return spec;
  }
  // NumPy's implicit output: the labels that appear exactly once, in ASCII order, after
  // the ellipsis's dimensions when an operand has one.
  std::map<Label, std::pair<int, std::size_t>> uses;  // label -> (count, first offset)
  for (std::size_t k = 0; k < spec.operands.size(); ++k)
    for (std::size_t d = 0; d < spec.operands[k].size(); ++d) {
      auto [it, added] = uses.emplace(spec.operands[k][d], std::make_pair(0, spec.operandOffsets[k][d]));
      ++it->second.first;
    }
  for (const auto& [label, use] : uses)
    if (use.first == 1) {
      spec.output.push_back(label);
      spec.outputOffsets.push_back(use.second);
    }
  if (anyEllipsis) spec.outputEllipsis = 0;
  return spec;
}

}  // namespace eindecomp
