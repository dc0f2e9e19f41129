// libFuzzer harness: any bytes given to the JSON graph loader either load into a graph
// or are refused with an InputError (a located diagnostic, exit 2/3). Any other
// exception, crash, hang or sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "planner/graph/load.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    eindecomp::loadGraphText(text, "fuzz.json", eindecomp::GraphFormat::Json);
  } catch (const eindecomp::InputError&) {
  }
  return 0;
}
