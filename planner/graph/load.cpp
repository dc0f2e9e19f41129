// Reading graph files. Both formats end up as one yaml-cpp tree, because yaml-cpp keeps
// the line and column of every node and key, which every diagnostic needs. JSON is a
// subset of YAML's flow syntax, but YAML would also accept text that is not JSON
// (comments, unquoted strings, trailing content), so JSON text is first parsed strictly
// by nlohmann::json, whose parse errors carry the exact line and column; only text that
// passed is then read by yaml-cpp for its positions. (nlohmann's SAX interface was the
// alternative, but in 3.11 it reports no positions to the handler.)
#include "planner/graph/load.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "planner/graph/identifiers.h"
#include "planner/graph/input_file.h"
#include "planner/graph/read_document.h"

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

// Counts the documents of a YAML stream and where each starts, without building them.
// yaml-cpp 0.7 has a defect: a token that cannot start a node (a stray ',' at the start
// of a document) is never consumed, so YAML::LoadAll loops forever and YAML::Load
// returns an empty document. A document that starts where the previous one did is that
// case, and is reported as a syntax error here instead.
class DocumentCounter : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { first(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { first(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override { first(mark); }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    first(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    first(mark);
  }
  void OnMapEnd() override {}

  // Call before each document; returns false when the parser made no progress.
  bool nextDocument() {
    const bool progressed = documents_ < 2 || starts_[documents_ - 1].pos != starts_[documents_ - 2].pos;
    startedDocument_ = false;
    return progressed;
  }
  int documents() const { return documents_; }
  YAML::Mark lastStart() const { return documents_ ? starts_[documents_ - 1] : YAML::Mark(); }

 private:
  void first(const YAML::Mark& mark) {
    if (startedDocument_) return;
    startedDocument_ = true;
    starts_.push_back(mark);
    ++documents_;
  }
  bool startedDocument_ = false;
  int documents_ = 0;
  std::vector<YAML::Mark> starts_;
};

SourceLoc locOfMark(const std::string& file, const YAML::Mark& mark) {
  return {file, mark.line >= 0 ? mark.line + 1 : 0, mark.column >= 0 ? mark.column + 1 : 0};
}

YAML::Node parseYaml(const std::string& text, const std::string& file, bool fromJson, const std::string& what) {
  const std::string syntaxError = fromJson ? "cannot read JSON: " : "YAML syntax error: ";
  YAML::Node root;
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentCounter counter;
    while (parser.HandleNextDocument(counter)) {
      if (!counter.nextDocument())
        throw InputError({locOfMark(file, counter.lastStart()), syntaxError + "unexpected character"});
    }
    if (counter.documents() > 1)
      throw InputError({{file, 1, 1}, "the file holds " + std::to_string(counter.documents()) +
                                          " YAML documents; a " + what + " holds exactly one"});
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError({locOfMark(file, e.mark), syntaxError + e.msg});
  }
  if (root.IsNull()) throw InputError({{file, 1, 1}, "empty " + what + ": the file holds nothing"});
  return root;
}

}  // namespace

GraphFormat parseGraphFormat(const std::string& s) {
  if (s == "auto") return GraphFormat::Auto;
  if (s == "yaml") return GraphFormat::Yaml;
  if (s == "json") return GraphFormat::Json;
  throw InputError({{}, "unknown input format " + quoted(s) + "; use auto, yaml or json"});
}

YAML::Node loadStructuredText(const std::string& text, const std::string& displayName, GraphFormat format,
                              const std::string& what) {
  const GraphFormat actual = formatFor(displayName, text, format);
  if (actual == GraphFormat::Json) checkJsonSyntax(text, displayName);
  return parseYaml(text, displayName, actual == GraphFormat::Json, what);
}

bool hasDuplicateKey(const YAML::Node& map, YAML::Node* duplicate) {
  std::set<std::string> seen;
  for (const auto& entry : map)
    if (entry.first.IsScalar() && !seen.insert(entry.first.Scalar()).second) {
      if (duplicate) *duplicate = entry.first;
      return true;
    }
  return false;
}

Graph loadGraphText(const std::string& text, const std::string& displayName, GraphFormat format) {
  const GraphFormat actual = format == GraphFormat::Auto ? sniffFormat(text) : format;
  if (actual == GraphFormat::Json) checkJsonSyntax(text, displayName);
  // The tree goes before the graph is built: a large file's two forms are never held at once.
  const GraphDocument document = [&] {
    const YamlTree tree(text, displayName, actual == GraphFormat::Json, "graph file");
    return readGraphDocument(tree.root(), displayName, text);
  }();
  return buildGraph(document);
}

Graph loadGraphFile(const std::string& path, GraphFormat format) {
  return whileDoing("loading the graph", path, [&] {
    const std::string text = readInputFile(path, "graph file");
    return loadGraphText(text, path, formatFor(path, text, format));
  });
}

}  // namespace eindecomp
