// The one route for every YAML or JSON document the tools read — graph files, plan files,
// machine files, baseline reports: read through the bounded reader (input_file.h), JSON
// checked strictly first (exact line and column of its syntax errors), then parsed as
// exactly one YAML document into the compact tree (yaml_tree.h: anchors, aliases and
// repeated keys refused). Its values are read through one set of helpers: where a value
// is (at), the fields of a mapping (fields: an unknown field is refused with a "did you
// mean", a repeated one with the line of the first), and what a scalar is (kindOf,
// typeName) for messages that say what was found.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "planner/graph/diagnostic.h"
#include "planner/graph/yaml_tree.h"

namespace eindecomp {

enum class GraphFormat { Auto, Yaml, Json };

// Parses "auto" | "yaml" | "json"; throws InputError otherwise.
GraphFormat parseGraphFormat(const std::string& s);

// What a scalar is as YAML 1.2's core schema reads it; a quoted scalar is a string.
enum class ScalarKind { Null, Bool, Integer, Float, String };
ScalarKind kindOf(const YamlValue& v);
// "a mapping", "a list", "an integer (3)", "a string ('x')", ... for messages.
std::string typeName(const YamlValue& v);

// One field of a mapping, located (a field with an empty value at its key).
struct DocField {
  std::string name;
  YamlValue value;
  SourceLoc keyLoc;
  SourceLoc valueLoc;
};

struct DocFields {
  std::vector<DocField> list;
  const DocField* find(const std::string& name) const;
  // The field, or InputError at `ownerLoc`: "OWNER is missing the required field 'NAME'".
  const DocField& require(const std::string& name, const std::string& owner, const SourceLoc& ownerLoc) const;
};

class Document {
 public:
  // Parses `text`; `what` names the kind of document in messages ("plan file"). Auto: JSON
  // when `file` ends in .json (any case) or the text starts with '{'.
  Document(std::string text, std::string file, GraphFormat format, std::string what);
  // Reads `path` ("-": standard input) through the bounded reader, at most `limit` bytes.
  static Document read(const std::string& path, const std::string& what, GraphFormat format, int64_t limit);

  YamlValue root() const { return tree_->root(); }
  const std::string& file() const { return file_; }
  const std::string& text() const { return text_; }
  const std::string& what() const { return what_; }

  // Where a value is (1-based), or `fallback` where the parser did not say.
  SourceLoc at(const YamlValue& v, const SourceLoc& fallback) const;
  SourceLoc at(const YamlValue& v) const { return at(v, {file_, 1, 1}); }

  // The fields of mapping `map`, refusing a field not in `allowed` ("unknown field 'x' in
  // the OWNER (did you mean 'y'?); HINT", HINT by default the list of known fields) and a
  // key that is no plain string. `owner` names the mapping: "graph", "plan file", "node 'A'".
  DocFields fields(const YamlValue& map, const std::vector<std::string>& allowed, const std::string& owner,
                   const std::string& hint = "") const;

 private:
  std::string text_, file_, what_;
  std::unique_ptr<YamlTree> tree_;
};

}  // namespace eindecomp
