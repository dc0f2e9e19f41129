// A YAML document as a compact tree, built in one pass from yaml-cpp's parser events — the
// form graph files take inside the loader (JSON text too, after its strict syntax check;
// load.cpp). yaml-cpp's own YAML::Node costs about 100 bytes of memory per byte of a large
// graph file and a second parse; this tree keeps, per value, its kind, tag class, line and
// column and a slice of one text buffer (about 30 bytes, plus the text), so a 20 MB graph
// loads within a few hundred MB (docs/hardening.md, "Limits"). Anchors and aliases are
// refused where the alias is: a graph file has no use for them, and an alias bomb cannot
// expand. Several documents, or none, are errors naming `what`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/graph/diagnostic.h"

namespace eindecomp {

class YamlTree;

// One value of a YamlTree (a handle: the tree must outlive it).
class YamlValue {
 public:
  struct Position {
    int line = -1, column = -1;  // 0-based, as yaml-cpp's Mark; -1 when unknown
  };
  bool IsMap() const;
  bool IsSequence() const;
  bool IsScalar() const;
  bool IsNull() const;
  // "" (none), "?" (a plain scalar), "!" (a quoted scalar), or the tag written.
  std::string Tag() const;
  std::string Scalar() const;
  Position Mark() const;

  // A mapping's (key, value) pairs, or a sequence's items, in file order.
  std::vector<std::pair<YamlValue, YamlValue>> entries() const;
  std::vector<YamlValue> items() const;

 private:
  friend class YamlTree;
  YamlValue(const YamlTree* tree, uint32_t index) : tree_(tree), index_(index) {}
  const YamlTree* tree_ = nullptr;
  uint32_t index_ = 0;
};

class YamlTree {
 public:
  // Parses `text`; InputError naming `file` (line, column) on a syntax error, an alias,
  // several documents or none (`what`: "graph file").
  YamlTree(const std::string& text, const std::string& file, bool fromJson, const std::string& what);
  YamlValue root() const { return {this, 0}; }

  struct Node {
    uint32_t textBegin = 0, textLength = 0;  // a scalar's text in text_
    uint32_t customTag = 0;                   // index into customTags_ (tag class Custom)
    int32_t line = -1, column = -1;
    uint32_t firstChild = 0, childCount = 0;  // into children_ (maps: key, value, key, value, ...)
    uint8_t kind = 0;                         // Kind
    uint8_t tag = 0;                          // Tag class
  };
  enum Kind : uint8_t { Null, Scalar, Sequence, Map };
  enum TagClass : uint8_t { NoTag, Plain, Quoted, Custom };

 private:
  friend class YamlValue;
  friend class YamlTreeBuilder;
  std::vector<Node> nodes_;
  std::vector<uint32_t> children_;
  std::string text_;  // every scalar's text, one after another
  std::vector<std::string> customTags_;
};

}  // namespace eindecomp
