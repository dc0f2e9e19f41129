// `einplan import` (SPEC 5): an ONNX model (opsets 13 to 17) to the EinGraph that computes
// it, with the model's initializers as weight inputs. The model's nodes are translated
// one by one in topological order (onnx_ops.h has the operator table) onto an
// ImportGraph, whose views make the shape operators free; values known at import time
// (initializers, Constant nodes, shape arithmetic) are folded. A node that cannot be
// expressed exactly is an InputError naming its operator type, its name and what is
// missing (exit 2); nothing is written by this unit.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "planner/graph/graph.h"
#include "frontends/import/onnx_model.h"

namespace eindecomp::onnx_import {

struct ImportOptions {
  std::string model;                    // path of the .onnx file
  std::map<std::string, int64_t> dims;  // --dim NAME=SIZE: symbolic dimensions
};

struct ImportResult {
  Graph graph;
  std::map<std::string, HostTensor> weights;                 // graph input name -> values (graph shape)
  std::vector<std::pair<std::string, std::string>> renamed;  // ONNX name -> graph name, where they differ
  std::vector<std::pair<std::string, std::string>> tied;     // initializer -> the weight it is the transpose of
  int64_t opset = 0;
};

ImportResult importOnnx(const ImportOptions& options);
// The same for a model already read (the fuzz harness feeds bytes through here).
ImportResult importOnnx(const OnnxModel& model, const ImportOptions& options);

}  // namespace eindecomp::onnx_import
