#include "planner/graph/excerpt.h"

#include <cstdio>

namespace eindecomp {

namespace {

bool isContinuation(unsigned char c) { return (c & 0xc0) == 0x80; }

// The length of the valid UTF-8 sequence starting at s[i] (RFC 3629: no overlong forms,
// no surrogates, nothing above U+10FFFF), or 0 when the byte there starts none.
std::size_t sequenceLength(const std::string& s, std::size_t i) {
  const auto at = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0; };
  const unsigned char c = at(0);
  if (c < 0x80) return 1;
  unsigned char low = 0x80, high = 0xbf;
  std::size_t n = 0;
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c >= 0xe0 && c <= 0xef) n = 3, low = c == 0xe0 ? 0xa0 : 0x80, high = c == 0xed ? 0x9f : 0xbf;
  else if (c >= 0xf0 && c <= 0xf4) n = 4, low = c == 0xf0 ? 0x90 : 0x80, high = c == 0xf4 ? 0x8f : 0xbf;
  else return 0;
  if (at(1) < low || at(1) > high) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (!isContinuation(at(k))) return 0;
  return n;
}

void appendHex(std::string& out, unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  out += buf;
}

enum class Escape {
  Quoted,   // inside '...': \n \t \' \\ as such
  Message,  // newline and tab kept
  Line,     // newline and tab too as \xNN
};

// Escapes `s` as `how` says. Invalid UTF-8, C0 and C1 control characters and DEL
// become \xNN in every mode.
std::string escaped(const std::string& s, Escape how) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const std::size_t n = sequenceLength(s, i);
    if (how == Escape::Quoted && (c == '\n' || c == '\t' || c == '\'' || c == '\\')) {
      out += c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\'' ? "\\'" : "\\\\";
    } else if (how == Escape::Message && (c == '\n' || c == '\t')) {
      out += static_cast<char>(c);
    } else if (n == 0 || c < 0x20 || c == 0x7f || (c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0)) {
      // Invalid bytes one by one; a C1 control character (U+0080..U+009F) both bytes.
      for (std::size_t k = 0; k < (n == 0 ? 1 : n); ++k) appendHex(out, static_cast<unsigned char>(s[i + k]));
    } else {
      out.append(s, i, n);
    }
    i += n == 0 ? 1 : n;
  }
  return out;
}

// The first `bytes` bytes of `s`, shortened so that no UTF-8 sequence is cut.
std::string headOf(const std::string& s, std::size_t bytes) {
  std::size_t end = bytes;
  for (int k = 0; k < 3 && end > 0 && end < s.size() && isContinuation(static_cast<unsigned char>(s[end])); ++k) --end;
  return s.substr(0, end);
}

// The last `bytes` bytes of `s`, shortened so that no UTF-8 sequence is cut.
std::string tailOf(const std::string& s, std::size_t bytes) {
  std::size_t begin = s.size() - bytes;
  for (int k = 0; k < 3 && begin < s.size() && isContinuation(static_cast<unsigned char>(s[begin])); ++k) ++begin;
  return s.substr(begin);
}

}  // namespace

std::string quoted(const std::string& s) {
  if (s.size() <= kMaxExcerptBytes) return "'" + escaped(s, Escape::Quoted) + "'";
  const std::size_t tail = kMaxExcerptBytes / 4;
  return "'" + escaped(headOf(s, kMaxExcerptBytes - tail), Escape::Quoted) + "..." +
         escaped(tailOf(s, tail), Escape::Quoted) + "' (" + std::to_string(s.size()) + " bytes)";
}

std::string boundedMessage(const std::string& s, std::size_t limit) {
  if (s.size() <= limit) return escaped(s, Escape::Message);
  const std::size_t tail = limit / 4;
  const std::string head = headOf(s, limit - tail);
  const std::string end = tailOf(s, tail);
  return escaped(head, Escape::Message) + " ... [" + std::to_string(s.size() - head.size() - end.size()) +
         " bytes left out] ... " + escaped(end, Escape::Message);
}

std::string oneLine(const std::string& s) { return escaped(s, Escape::Line); }

}  // namespace eindecomp