// Untrusted text in messages. Diagnostics quote what users and hostile files wrote
// (names, einsums, expressions, YAML scalars, file names), so every excerpt of input is
// bounded and shown as valid UTF-8: a 10 MB expression must not turn into 10 MB of
// stderr, and bytes that are not UTF-8 (or control characters that would rewrite the
// terminal) are shown escaped as \xNN. `quoted` is the way to put input into a message;
// `boundedMessage` is the last guard every InputError applies to its whole message and
// file name (planner/graph/diagnostic.h), so a message assembled without `quoted` is
// bounded too.
#pragma once

#include <cstddef>
#include <string>

namespace eindecomp {

// The longest excerpt `quoted` shows whole; longer text keeps its first and last bytes.
inline constexpr std::size_t kMaxExcerptBytes = 120;

// The longest message (or file name) a diagnostic prints; longer ones lose their middle.
inline constexpr std::size_t kMaxMessageBytes = 4096;

// `s` in single quotes, one line, valid UTF-8: newline, tab, quote and backslash escaped
// as \n \t \' \\, other control characters and invalid UTF-8 bytes as \xNN. Text longer
// than kMaxExcerptBytes shows its start and end around "...", followed by its length:
// 'ij,jk,kl...,xy->iy' (10485760 bytes).
std::string quoted(const std::string& s);

// Valid UTF-8 with invalid bytes and control characters other than newline and tab
// escaped as \xNN, at most about `limit` bytes: a longer text keeps its start and end
// and says how much was left out.
std::string boundedMessage(const std::string& s, std::size_t limit = kMaxMessageBytes);

// `s` as one line of valid UTF-8, not shortened: control characters (newline and tab
// too) and invalid bytes as \xNN. For text that must stay whole, such as a command line
// recorded as provenance in a comment.
std::string oneLine(const std::string& s);

}  // namespace eindecomp
