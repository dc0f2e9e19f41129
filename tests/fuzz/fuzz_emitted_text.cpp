// libFuzzer harness for the text eincodegen quotes into emitted files (the Makefile's and
// CMakeLists' provenance comments, the README, CMake strings; codegen/lower/identifiers.h):
// whatever the text (a command line, a folder path), a one-line comment stays one line of
// printable ASCII without a backslash (no line splice, no continued Makefile comment), an
// HTML comment holds no "--", and a CMake quoted string reads back as the text with no
// unescaped '"' or '$'. A violation traps.
#include <cstddef>
#include <cstdint>
#include <string>

#include "codegen/lower/identifiers.h"

using namespace eindecomp::codegen;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string comment = commentSafe(text);
  if (comment.size() != text.size()) __builtin_trap();
  for (unsigned char c : comment)
    if (c < 0x20 || c >= 0x7f || c == '\\') __builtin_trap();
  if (htmlCommentSafe(text).find("--") != std::string::npos) __builtin_trap();
  const std::string cell = markdownCellSafe(text);
  for (std::size_t i = 0; i < cell.size(); ++i)
    if (cell[i] == '|' && (i == 0 || cell[i - 1] != '\\')) __builtin_trap();
  const std::string quoted = cmakeStringSafe(text);
  std::string back;
  for (std::size_t i = 0; i < quoted.size(); ++i) {
    if (quoted[i] == '\\') {
      if (i + 1 == quoted.size()) __builtin_trap();
      const char next = quoted[++i];
      if (next != '\\' && next != '"' && next != '$') __builtin_trap();
      back += next;
    } else {
      if (quoted[i] == '"' || quoted[i] == '$') __builtin_trap();
      back += quoted[i];
    }
  }
  if (back != text) __builtin_trap();
  return 0;
}
