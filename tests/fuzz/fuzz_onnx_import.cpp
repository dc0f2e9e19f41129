// libFuzzer harness: any bytes given to `einplan import` as a model either import into a
// graph the graph loader accepts, or are refused with an InputError (exit 2). Any other
// exception, crash, hang or sanitizer report is a bug. The corpus holds small exported
// models; mutations reach the protobuf parser, the tensor decoder and the operators.
#include <cstddef>
#include <cstdint>
#include <string>

#include "planner/graph/diagnostic.h"
#include "planner/graph/load.h"
#include "planner/graph/write_graph.h"
#include "frontends/import/onnx_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  eindecomp::onnx_import::ImportResult result;
  try {
    // A folder no external data can be in: the harness reads no file.
    const auto model = eindecomp::onnx_import::parseOnnxModel(bytes, "/nonexistent/fuzz.onnx");
    eindecomp::onnx_import::ImportOptions options;
    options.dims = {{"batch", 2}, {"N", 3}};
    result = eindecomp::onnx_import::importOnnx(model, options);
  } catch (const eindecomp::InputError&) {
    return 0;
  }
  // What an import returns must load (cmd_import.cpp checks the same before writing); an
  // InputError here escapes and is reported as the bug it is.
  eindecomp::loadGraphText(eindecomp::writeGraphYaml(result.graph), "fuzz.yaml", eindecomp::GraphFormat::Yaml);
  return 0;
}
