// libFuzzer harness for the einsum parser: any text either parses into operands and an
// output whose labels are identifiers with offsets inside the text, or is refused with
// an InputError. Other exceptions, crashes and sanitizer reports are bugs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "planner/graph/einsum_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const eindecomp::EinsumSpec spec = eindecomp::parseEinsum(text, {"fuzz", 1, 1});
    // Every recorded offset must point inside the text at the label it names.
    for (std::size_t i = 0; i < spec.operands.size(); ++i)
      for (std::size_t j = 0; j < spec.operands[i].size(); ++j)
        if (text.compare(spec.operandOffsets.at(i).at(j), spec.operands[i][j].size(), spec.operands[i][j]) != 0) std::abort();
    for (std::size_t j = 0; j < spec.output.size(); ++j)
      if (text.compare(spec.outputOffsets.at(j), spec.output[j].size(), spec.output[j]) != 0) std::abort();
  } catch (const eindecomp::InputError&) {
  }
  return 0;
}
