// Identifiers in graph files (SPEC 1): tensor names, node names, the graph name and
// labels all use the alphabet `[A-Za-z_][A-Za-z0-9_]*` with at most 64 characters.
// They reach emitted C++ source, file names and shell commands later, so nothing that
// fails this check gets past the loader. The helpers here also suggest a close spelling
// for typos; untrusted text goes into messages through quoted() (planner/graph/excerpt.h).
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "planner/graph/diagnostic.h"
#include "planner/graph/excerpt.h"  // quoted(), which every user of these helpers needs

namespace eindecomp {

inline constexpr std::size_t kMaxIdentifierLength = 64;

bool isIdentifier(const std::string& s);

// Throws InputError at `where` when `s` is not an identifier; `what` says what the
// text is ("tensor name", "label", ...) and the message says which character is wrong.
void requireIdentifier(const std::string& s, const std::string& what, const SourceLoc& where);

// A valid identifier made from arbitrary text (names from ONNX models): every character
// outside the alphabet becomes '_', a leading digit gets "t_" before it, empty text is
// "t", and text longer than the limit keeps its first 55 characters and a hash of the
// whole, so distinct long names stay distinct. Valid identifiers come back unchanged.
std::string identifierFrom(const std::string& text);

// The candidate closest to `word` by edit distance when it is close enough to be a
// likely typo, else "".
std::string closestMatch(const std::string& word, const std::vector<std::string>& candidates);

// A name made from `base` that no tensor has (`used`), taken: valid, at most 56 characters
// before a suffix _2, _3, ... (`nextSuffix`: per base, the next number to try). The
// names of nodes a graph transformation adds (einplan grad's).
std::string freshName(std::string base, std::unordered_set<std::string>& used, std::unordered_map<std::string, int>& nextSuffix);

// " (did you mean 'X'?)" or "" — ready to append to a message.
std::string didYouMean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace eindecomp
