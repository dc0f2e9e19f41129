// Reading graph files. Both formats end up as one yaml-cpp tree, because yaml-cpp keeps
// the line and column of every node and key, which every diagnostic needs. JSON is a
// subset of YAML's flow syntax, but YAML would also accept text that is not JSON
// (comments, unquoted strings, trailing content), so JSON text is first parsed strictly
// by nlohmann::json, whose parse errors carry the exact line and column; only text that
// passed is then read by yaml-cpp for its positions. (nlohmann's SAX interface was the
// alternative, but in 3.11 it reports no positions to the handler.)
#include "planner/graph/load.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "planner/graph/identifiers.h"
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

GraphFormat formatFor(const std::string& path, const std::string& text, GraphFormat requested) {
  if (requested != GraphFormat::Auto) return requested;
  if (endsWith(path, ".json")) return GraphFormat::Json;
  if (endsWith(path, ".yaml") || endsWith(path, ".yml")) return GraphFormat::Yaml;
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

void checkJsonSyntax(const std::string& text, const std::string& file) {
  try {
    const nlohmann::json parsed = nlohmann::json::parse(text);
    (void)parsed;
  } catch (const nlohmann::json::parse_error& e) {
    // e.what(): "[json.exception.parse_error.101] parse error at line 3, column 7: syntax error ..."
    static const std::regex shape(R"(at line (\d+), column (\d+): (.*))");
    std::smatch m;
    const std::string what = e.what();
    if (std::regex_search(what, m, shape))
      throw InputError({{file, std::stoi(m[1]), std::max(1, std::stoi(m[2]))}, "JSON " + m[3].str()});
    // e.byte counts characters read, so the offending one is at byte - 1.
    throw InputError({locOfOffset(file, text, e.byte > 0 ? e.byte - 1 : 0), std::string("JSON ") + what});
  }
}

YAML::Node parseYaml(const std::string& text, const std::string& file, bool fromJson) {
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    SourceLoc loc{file, e.mark.line >= 0 ? e.mark.line + 1 : 0, e.mark.column >= 0 ? e.mark.column + 1 : 0};
    throw InputError({loc, std::string(fromJson ? "cannot read JSON: " : "YAML syntax error: ") + e.msg});
  }
  if (docs.empty() || (docs.size() == 1 && docs[0].IsNull()))
    throw InputError({{file, 1, 1}, "empty graph: the file holds no graph"});
  if (docs.size() > 1)
    throw InputError({{file, 1, 1}, "the file holds " + std::to_string(docs.size()) +
                                        " YAML documents; a graph file holds exactly one"});
  return docs[0];
}

}  // namespace

GraphFormat parseGraphFormat(const std::string& s) {
  if (s == "auto") return GraphFormat::Auto;
  if (s == "yaml") return GraphFormat::Yaml;
  if (s == "json") return GraphFormat::Json;
  throw InputError({{}, "unknown input format " + quoted(s) + "; use auto, yaml or json"});
}

Graph loadGraphText(const std::string& text, const std::string& displayName, GraphFormat format) {
  const GraphFormat actual = format == GraphFormat::Auto ? sniffFormat(text) : format;
  if (actual == GraphFormat::Json) checkJsonSyntax(text, displayName);
  const YAML::Node root = parseYaml(text, displayName, actual == GraphFormat::Json);
  return buildGraph(readGraphDocument(root, displayName, text));
}

Graph loadGraphFile(const std::string& path, GraphFormat format) {
  std::string text;
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw InputError({{path, 0, 0}, "is a directory, not a graph file"});
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError({{path, 0, 0}, "cannot open the graph file"});
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) throw InputError({{path, 0, 0}, "cannot read the graph file"});
    text = buffer.str();
  }
  return loadGraphText(text, path, formatFor(path, text, format));
}

}  // namespace eindecomp
