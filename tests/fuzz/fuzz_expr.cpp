// libFuzzer harness for the scalar-expression parser of `join`: any text either parses
// into an expression tree or is refused with an InputError. Other exceptions, crashes,
// stack overflows (deeply nested parentheses) and sanitizer reports are bugs.
#include <cstddef>
#include <cstdint>
#include <string>

#include "planner/graph/expr_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    eindecomp::parseExpr(text, {"fuzz", 1, 1});
  } catch (const eindecomp::InputError&) {
  }
  return 0;
}
