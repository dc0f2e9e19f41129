#include "planner/graph/yaml_tree.h"

#include <sstream>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

namespace eindecomp {

bool YamlValue::IsMap() const { return tree_->nodes_[index_].kind == YamlTree::Map; }
bool YamlValue::IsSequence() const { return tree_->nodes_[index_].kind == YamlTree::Sequence; }
bool YamlValue::IsScalar() const { return tree_->nodes_[index_].kind == YamlTree::Scalar; }
bool YamlValue::IsNull() const { return tree_->nodes_[index_].kind == YamlTree::Null; }

std::string YamlValue::Tag() const {
  const YamlTree::Node& n = tree_->nodes_[index_];
  switch (n.tag) {
    case YamlTree::Plain: return "?";
    case YamlTree::Quoted: return "!";
    case YamlTree::Custom: return tree_->customTags_[n.customTag];
    default: return "";
  }
}

std::string YamlValue::Scalar() const {
  const YamlTree::Node& n = tree_->nodes_[index_];
  if (n.kind != YamlTree::Scalar) return "";
  return tree_->text_.substr(n.textBegin, n.textLength);
}

YamlValue::Position YamlValue::Mark() const {
  const YamlTree::Node& n = tree_->nodes_[index_];
  return {n.line, n.column};
}

std::vector<std::pair<YamlValue, YamlValue>> YamlValue::entries() const {
  const YamlTree::Node& n = tree_->nodes_[index_];
  std::vector<std::pair<YamlValue, YamlValue>> out;
  if (n.kind != YamlTree::Map) return out;
  for (uint32_t c = 0; c + 1 < n.childCount; c += 2)
    out.emplace_back(YamlValue(tree_, tree_->children_[n.firstChild + c]), YamlValue(tree_, tree_->children_[n.firstChild + c + 1]));
  return out;
}

std::vector<YamlValue> YamlValue::items() const {
  const YamlTree::Node& n = tree_->nodes_[index_];
  std::vector<YamlValue> out;
  if (n.kind != YamlTree::Sequence) return out;
  for (uint32_t c = 0; c < n.childCount; ++c) out.push_back(YamlValue(tree_, tree_->children_[n.firstChild + c]));
  return out;
}

// Builds the tree from parser events: each open container keeps its children's indices
// until it closes, then they are appended to the tree's child list in one run.
class YamlTreeBuilder : public YAML::EventHandler {
 public:
  YamlTreeBuilder(YamlTree& tree, const std::string& file) : tree_(tree), file_(file) {}
  void OnDocumentStart(const YAML::Mark&) override { started_ = false; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { add(mark, YamlTree::Null, YamlTree::NoTag, ""); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    throw InputError({{file_, mark.line + 1, mark.column + 1},
                      "YAML anchors and aliases (&name, *name) are not supported in graph files; write the value out"});
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t, const std::string& value) override {
    add(mark, YamlTree::Scalar, tagClass(tag), value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t, YAML::EmitterStyle::value) override {
    open(mark, YamlTree::Sequence, tag);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t, YAML::EmitterStyle::value) override {
    open(mark, YamlTree::Map, tag);
  }
  void OnMapEnd() override { close(); }

 private:
  uint8_t tagClass(const std::string& tag) {
    if (tag.empty()) return YamlTree::NoTag;
    if (tag == "?") return YamlTree::Plain;
    if (tag == "!") return YamlTree::Quoted;
    pendingCustom_ = tag;
    return YamlTree::Custom;
  }
  uint32_t add(const YAML::Mark& mark, uint8_t kind, uint8_t tag, const std::string& text) {
    if (!started_) {
      started_ = true;
      starts_.push_back(mark);
    }
    YamlTree::Node n;
    n.kind = kind;
    n.tag = tag;
    n.line = mark.line;
    n.column = mark.column;
    if (tag == YamlTree::Custom) {
      n.customTag = static_cast<uint32_t>(tree_.customTags_.size());
      tree_.customTags_.push_back(pendingCustom_);
    }
    if (kind == YamlTree::Scalar) {
      n.textBegin = static_cast<uint32_t>(tree_.text_.size());
      n.textLength = static_cast<uint32_t>(text.size());
      tree_.text_ += text;
    }
    const auto index = static_cast<uint32_t>(tree_.nodes_.size());
    tree_.nodes_.push_back(n);
    if (!open_.empty()) open_.back().push_back(index);
    return index;
  }
  void open(const YAML::Mark& mark, uint8_t kind, const std::string& tag) {
    const uint8_t t = tag.empty() || tag == "?" ? YamlTree::NoTag : tag == "!" ? YamlTree::Quoted : tagClass(tag);
    const uint32_t index = add(mark, kind, t, "");
    containers_.push_back(index);
    open_.emplace_back();
  }
  void close() {
    YamlTree::Node& n = tree_.nodes_[containers_.back()];
    n.firstChild = static_cast<uint32_t>(tree_.children_.size());
    n.childCount = static_cast<uint32_t>(open_.back().size());
    tree_.children_.insert(tree_.children_.end(), open_.back().begin(), open_.back().end());
    open_.pop_back();
    containers_.pop_back();
  }

  YamlTree& tree_;
  std::string file_, pendingCustom_;
  bool started_ = false;

 public:
  // Where each document's first value starts. yaml-cpp 0.7 never consumes a token that
  // cannot start a node (a stray ',' at the start of a document): the parser then yields
  // the same document again and again from the same place, which is a syntax error.
  std::vector<YAML::Mark> starts_;

 private:
  std::vector<uint32_t> containers_;
  std::vector<std::vector<uint32_t>> open_;
};

YamlTree::YamlTree(const std::string& text, const std::string& file, bool fromJson, const std::string& what) {
  const std::string syntaxError = fromJson ? "cannot read JSON: " : "YAML syntax error: ";
  text_.reserve(text.size() / 2);
  int documents = 0;
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    YamlTreeBuilder builder(*this, file);
    while (parser.HandleNextDocument(builder)) {
      const std::vector<YAML::Mark>& starts = builder.starts_;
      if (starts.size() >= 2 && starts[starts.size() - 1].pos == starts[starts.size() - 2].pos)
        throw InputError({{file, starts.back().line + 1, starts.back().column + 1}, syntaxError + "unexpected character"});
      ++documents;  // every document is counted, so a refusal says how many there are
    }
    if (documents > 1)
      throw InputError({{file, 1, 1}, "the file holds " + std::to_string(documents) + " YAML documents; a " + what +
                                          " holds exactly one"});
  } catch (const YAML::Exception& e) {
    throw InputError({{file, e.mark.line >= 0 ? e.mark.line + 1 : 0, e.mark.column >= 0 ? e.mark.column + 1 : 0},
                      syntaxError + e.msg});
  }
  if (nodes_.empty() || nodes_[0].kind == Null) throw InputError({{file, 1, 1}, "empty " + what + ": the file holds nothing"});
  text_.shrink_to_fit();
}

}  // namespace eindecomp
