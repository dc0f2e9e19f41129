#include "planner/graph/document.h"

#include <algorithm>
#include <cctype>
#include <new>

#include <nlohmann/json.hpp>

#include "planner/graph/excerpt.h"
#include "planner/graph/identifiers.h"
#include "planner/graph/input_file.h"

namespace eindecomp {

namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// JSON when the first non-blank character opens an object.
GraphFormat sniffFormat(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') return GraphFormat::Json;
  return GraphFormat::Yaml;
}

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

GraphFormat formatFor(const std::string& path, const std::string& text, GraphFormat requested) {
  if (requested != GraphFormat::Auto) return requested;
  const std::string lower = lowercase(path);
  if (endsWith(lower, ".json")) return GraphFormat::Json;
  if (endsWith(lower, ".yaml") || endsWith(lower, ".yml")) return GraphFormat::Yaml;
  return sniffFormat(text);
}

// Line and column of byte `offset` (0-based) in `text`, both 1-based.
SourceLoc locOfOffset(const std::string& file, const std::string& text, std::size_t offset) {
  SourceLoc loc{file, 1, 1};
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.col = 1;
    } else {
      ++loc.col;
    }
  }
  return loc;
}

// Reads the decimal number at `pos` in `s`, advancing `pos`; -1 when there is none.
long readNumber(const std::string& s, std::size_t& pos) {
  long value = -1;
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9' && value < 1000000000L)
    value = (value < 0 ? 0 : value * 10) + (s[pos++] - '0');
  return value;
}

// nlohmann's messages quote the token read so far ("...; last read: 'TOKEN'; expected
// ..."), which may be a whole megabyte-long string: keep only its last characters.
std::string shortenLastRead(const std::string& message) {
  const std::string marker = "last read: '";
  const std::size_t start = message.find(marker);
  if (start == std::string::npos) return message;
  const std::size_t tokenBegin = start + marker.size();
  std::size_t tokenEnd = message.rfind("'; expected ");
  if (tokenEnd == std::string::npos || tokenEnd < tokenBegin) tokenEnd = message.rfind('\'');
  if (tokenEnd == std::string::npos || tokenEnd < tokenBegin || tokenEnd - tokenBegin <= 40) return message;
  return message.substr(0, tokenBegin) + "..." + message.substr(tokenEnd - 30);
}

void checkJsonSyntax(const std::string& text, const std::string& file) {
  try {
    const nlohmann::json parsed = nlohmann::json::parse(text);
    (void)parsed;
  } catch (const nlohmann::json::parse_error& e) {
    // e.what(): "[json.exception.parse_error.101] parse error at line 3, column 7: syntax error ..."
    // Taken apart by hand: the message quotes the input and may be long.
    const std::string what = e.what();
    const std::size_t at = what.find("at line ");
    if (at != std::string::npos) {
      std::size_t pos = at + 8;
      const long line = readNumber(what, pos);
      if (line > 0 && what.compare(pos, 9, ", column ") == 0) {
        pos += 9;
        const long col = readNumber(what, pos);
        if (col >= 0 && what.compare(pos, 2, ": ") == 0)
          throw InputError({{file, static_cast<int>(line), static_cast<int>(std::max(1L, col))},
                            "JSON " + shortenLastRead(what.substr(pos + 2))});
      }
    }
    // e.byte counts characters read, so the offending one is at byte - 1.
    throw InputError({locOfOffset(file, text, e.byte > 0 ? e.byte - 1 : 0), "JSON " + shortenLastRead(what)});
  } catch (const nlohmann::json::exception& e) {
    // Not a syntax error but a value nlohmann cannot hold, e.g. out_of_range.406 "number
    // overflow parsing '1e400'". It carries no position: point at the quoted token's
    // first occurrence in the text (found by the fuzzer: this escaped as an unlocated error).
    std::string what = e.what();
    const std::size_t tag = what.find("] ");
    if (what.rfind("[json.exception.", 0) == 0 && tag != std::string::npos) what = what.substr(tag + 2);
    const std::size_t open = what.find('\''), close = what.rfind('\'');
    std::size_t offset = 0;
    if (open != std::string::npos && close > open) {
      const std::size_t found = text.find(what.substr(open + 1, close - open - 1));
      if (found != std::string::npos) offset = found;
    }
    throw InputError({locOfOffset(file, text, offset), "JSON " + shortenLastRead(what)});
  }
}

bool matchesInteger(const std::string& s) {
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (i == s.size()) return false;
  return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(i), s.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

bool matchesFloat(const std::string& s) {
  static const char* special[] = {".inf", ".Inf", ".INF", "-.inf", "-.Inf", "-.INF", "+.inf", ".nan", ".NaN", ".NAN"};
  for (const char* sp : special)
    if (s == sp) return true;
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  std::size_t digits = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    std::size_t expDigits = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++expDigits;
    if (expDigits == 0) return false;
  }
  return i == s.size();
}

// A boolean or number as written (only digits, signs, letters and dots), quoted and
// shortened when it is too long to show whole.
std::string shortScalar(const std::string& s) { return s.size() <= kMaxExcerptBytes ? s : quoted(s); }

}  // namespace

GraphFormat parseGraphFormat(const std::string& s) {
  if (s == "auto") return GraphFormat::Auto;
  if (s == "yaml") return GraphFormat::Yaml;
  if (s == "json") return GraphFormat::Json;
  throw InputError({{}, "unknown input format " + quoted(s) + "; use auto, yaml or json"});
}

ScalarKind kindOf(const YamlValue& n) {
  if (n.IsNull()) return ScalarKind::Null;
  // Quoted scalars carry the non-specific tag "!", plain ones "?": "16" is a string.
  if (n.Tag() == "!" || n.Tag() == "tag:yaml.org,2002:str") return ScalarKind::String;
  const std::string s = n.Scalar();
  if (s == "~" || s == "null" || s == "Null" || s == "NULL") return ScalarKind::Null;
  if (s == "true" || s == "True" || s == "TRUE" || s == "false" || s == "False" || s == "FALSE") return ScalarKind::Bool;
  if (matchesInteger(s)) return ScalarKind::Integer;
  if (matchesFloat(s)) return ScalarKind::Float;
  return ScalarKind::String;
}

std::string typeName(const YamlValue& n) {
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a list";
  switch (kindOf(n)) {
    case ScalarKind::Null: return "empty";
    case ScalarKind::Bool: return "a boolean (" + shortScalar(n.Scalar()) + ")";
    case ScalarKind::Integer: return "an integer (" + shortScalar(n.Scalar()) + ")";
    case ScalarKind::Float: return "a number (" + shortScalar(n.Scalar()) + ")";
    case ScalarKind::String: return "a string (" + quoted(n.Scalar()) + ")";
  }
  return "a value";
}

const DocField* DocFields::find(const std::string& name) const {
  for (const auto& f : list)
    if (f.name == name) return &f;
  return nullptr;
}

const DocField& DocFields::require(const std::string& name, const std::string& owner, const SourceLoc& ownerLoc) const {
  if (const DocField* f = find(name)) return *f;
  throw InputError({ownerLoc, owner + " is missing the required field " + quoted(name)});
}

Document::Document(std::string text, std::string file, GraphFormat format, std::string what)
    : text_(std::move(text)), file_(std::move(file)), what_(std::move(what)) {
  const GraphFormat actual = formatFor(file_, text_, format);
  if (actual == GraphFormat::Json) checkJsonSyntax(text_, file_);
  try {
    tree_ = std::make_unique<YamlTree>(text_, file_, actual == GraphFormat::Json, what_);
  } catch (const std::bad_alloc&) {
    throw InputError({{file_, 0, 0}, "the " + what_ + " holds more values than this machine's memory can read (" +
                                         std::to_string(text_.size() >> 20) + " MiB of text)"});
  }
}

Document Document::read(const std::string& path, const std::string& what, GraphFormat format, int64_t limit) {
  return Document(readInputFile(path, what, limit), path, format, what);
}

SourceLoc Document::at(const YamlValue& v, const SourceLoc& fallback) const {
  const YamlValue::Position m = v.Mark();
  if (m.line < 0 || m.column < 0) return fallback;
  return {file_, m.line + 1, m.column + 1};
}

DocFields Document::fields(const YamlValue& map, const std::vector<std::string>& allowed, const std::string& owner,
                           const std::string& hint) const {
  DocFields fields;
  for (const auto& entry : map.entries()) {
    const SourceLoc keyLoc = at(entry.first, at(map, {file_, 0, 0}));
    if (!entry.first.IsScalar() || kindOf(entry.first) == ScalarKind::Null)
      throw InputError({keyLoc, "field names of the " + owner + " must be plain strings, not " + typeName(entry.first)});
    const std::string name = entry.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      std::string known;
      for (const auto& a : allowed) known += (known.empty() ? "" : ", ") + a;
      throw InputError({keyLoc, "unknown field " + quoted(name) + " in the " + owner + didYouMean(name, allowed) + "; " +
                                    (hint.empty() ? "the known fields are " + known : hint)});
    }
    if (const DocField* previous = fields.find(name))
      throw InputError({keyLoc, "field " + quoted(name) + " appears twice in the " + owner + " (first at line " +
                                    std::to_string(previous->keyLoc.line) + ")"});
    const bool emptyValue = entry.second.IsNull() && entry.second.Tag().empty();
    fields.list.push_back({name, entry.second, keyLoc, emptyValue ? keyLoc : at(entry.second, keyLoc)});
  }
  return fields;
}

}  // namespace eindecomp
