// Reading ONNX model files for `einplan import` (SPEC 5): the protobuf is parsed from
// bytes read under a size limit, the opset must be one of 13 to 17 (the default domain),
// and every tensor the model holds (initializers, Constant nodes) is decoded into a
// HostTensor of doubles. External data (weights kept beside the model) is read only from
// regular files inside the model's own folder: an absolute path, `..`, a link leaving
// the folder or a range past the file's end is refused. Every problem is an InputError
// (exit 2) naming the file and what is wrong; nothing here writes anything.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace eindecomp::onnx_import {

// 2 GiB: protobuf's own limit on one message.
inline constexpr int64_t kMaxModelBytes = (int64_t{1} << 31) - 1;
// A dimension or element count past this is refused: einrt's blocks index with int.
inline constexpr int64_t kMaxDimension = (int64_t{1} << 31) - 1;
inline constexpr int64_t kMaxElements = int64_t{1} << 40;

// Opsets 13 to 17 as SPEC 5 asks, and 11 and 12, whose operators in the table differ only
// where the translations read both forms (axes and split as attributes; Softmax over
// the last axis, where the old 2-D coercion means the same).
inline constexpr int64_t kMinOpset = 11;
inline constexpr int64_t kMaxOpset = 17;

struct OnnxModel {
  onnx::ModelProto proto;
  std::string path;    // as given
  std::string folder;  // where external data may live
  int64_t opset = 0;   // of the default domain
};

OnnxModel readOnnxModel(const std::string& path);
// The same from the file's bytes (`path` names it in messages and locates external data).
OnnxModel parseOnnxModel(const std::string& bytes, const std::string& path);

// Element types as the importer sorts them.
enum class ElemKind { Float32, Float64, Float16, BFloat16, Integer, Bool, Unsupported };
// The float kinds (a model computing in float16 or bfloat16 imports as an f16 or bf16 graph).
inline bool isFloat(ElemKind k) {
  return k == ElemKind::Float32 || k == ElemKind::Float64 || k == ElemKind::Float16 || k == ElemKind::BFloat16;
}
ElemKind elemKind(int onnxDataType);
const char* onnxTypeName(int onnxDataType);  // "FLOAT", "INT64", ...

// A tensor whose values are known when the model is imported (initializers, Constant
// nodes and what the importer folds from them), in C order.
struct HostTensor {
  std::vector<int64_t> shape;
  std::vector<double> values;
  ElemKind kind = ElemKind::Float32;
  int64_t elements() const;
};

// Decodes a TensorProto (raw_data, the typed repeated fields, or external data); `what`
// names it in messages ("initializer 'w'").
HostTensor decodeTensor(const onnx::TensorProto& t, const OnnxModel& model, const std::string& what);

// The product of `shape`, refusing negative sizes and products past kMaxElements.
int64_t checkedElements(const std::vector<int64_t>& shape, const std::string& what, const std::string& file);

}  // namespace eindecomp::onnx_import
