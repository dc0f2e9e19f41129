#include "planner/graph/identifiers.h"

#include <cctype>
#include <cstdint>
#include <cstdio>

#include <algorithm>

namespace eindecomp {

static bool isIdentStart(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
static bool isIdentChar(char c) { return isIdentStart(c) || (c >= '0' && c <= '9'); }

bool isIdentifier(const std::string& s) {
  if (s.empty() || s.size() > kMaxIdentifierLength || !isIdentStart(s[0])) return false;
  return std::all_of(s.begin(), s.end(), isIdentChar);
}

void requireIdentifier(const std::string& s, const std::string& what, const SourceLoc& where) {
  // Built only on the error paths: this runs once per einsum label, ten million times for a
  // 10 MB einsum, where a string per call cost seconds under the sanitizers.
  const auto rule = [&] { return " (" + what + "s match [A-Za-z_][A-Za-z0-9_]*, at most 64 characters)"; };
  if (s.empty()) throw InputError({where, "empty " + what + rule()});
  if (s.size() > kMaxIdentifierLength)
    throw InputError({where, "bad " + what + " " + quoted(s.substr(0, 20)) + "...: it is " +
                                 std::to_string(s.size()) + " characters long" + rule()});
  if (!isIdentStart(s[0]))
    throw InputError({where, "bad " + what + " " + quoted(s) + ": it may not start with " +
                                 quoted(s.substr(0, 1)) + rule()});
  for (std::size_t i = 0; i < s.size(); ++i)
    if (!isIdentChar(s[i])) {
      // Show a whole UTF-8 sequence, not its first byte.
      std::size_t n = 1;
      if (static_cast<unsigned char>(s[i]) >= 0xc0)
        while (i + n < s.size() && (static_cast<unsigned char>(s[i + n]) & 0xc0) == 0x80) ++n;
      throw InputError({where, "bad " + what + " " + quoted(s) + ": character " + quoted(s.substr(i, n)) +
                                   " at position " + std::to_string(i + 1) + " is not allowed" + rule()});
    }
}

// Edits (insert, delete, substitute, swap two neighbours) turning a into b: the
// optimal-string-alignment distance, so that a transposition typo counts once.
static std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::string identifierFrom(const std::string& text) {
  if (isIdentifier(text)) return text;
  std::string s;
  for (const char c : text) s += std::isalnum(static_cast<unsigned char>(c)) && static_cast<unsigned char>(c) < 128 ? c : '_';
  if (s.empty()) s = "t";
  if (std::isdigit(static_cast<unsigned char>(s[0]))) s = "t_" + s;
  if (s.size() > kMaxIdentifierLength) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a over the original text
    for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    s = s.substr(0, 55) + "_" + std::string(hex, 8);
  }
  return s;
}

std::string closestMatch(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t bestDistance = 0;
  for (const auto& c : candidates) {
    std::size_t d = editDistance(word, c);
    if (best.empty() || d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  // A typo changes a character or two; beyond that a suggestion is noise.
  std::size_t allowed = std::max<std::size_t>(1, std::min<std::size_t>(2, word.size() / 3));
  return (!best.empty() && bestDistance <= allowed) ? best : "";
}

std::string didYouMean(const std::string& word, const std::vector<std::string>& candidates) {
  std::string m = closestMatch(word, candidates);
  return m.empty() ? "" : " (did you mean " + quoted(m) + "?)";
}

std::string freshName(std::string base, std::unordered_set<std::string>& used, std::unordered_map<std::string, int>& nextSuffix) {
  base = identifierFrom(base);
  if (base.size() > 56) base.resize(56);
  std::string name = base;
  int& k = nextSuffix.try_emplace(base, 2).first->second;
  while (used.count(name)) name = base + "_" + std::to_string(k++);
  used.insert(name);
  return name;
}

}  // namespace eindecomp
