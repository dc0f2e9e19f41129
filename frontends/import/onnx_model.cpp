#include "frontends/import/onnx_model.h"

#include <einrt/half.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "planner/graph/diagnostic.h"
#include "planner/graph/excerpt.h"
#include "planner/graph/input_file.h"

namespace eindecomp::onnx_import {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& file, const std::string& message) { throw InputError({{file, 0, 0}, message}); }

// Reads `length` bytes at `offset` of an external-data file that must lie inside the
// model's folder (resolved through links) and be a regular file. The tensor's `needed`
// bytes are known before anything is read: a length (given, or the rest of the file)
// other than that is refused without reading (a sparse 10 GiB file for 4 elements).
std::string readExternalData(const onnx::TensorProto& t, const OnnxModel& model, const std::string& what, int64_t needed,
                             const std::string& elements) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& entry : t.external_data()) {
    auto number = [&](const std::string& text) {
      std::size_t used = 0;
      long long v = -1;
      try {
        v = std::stoll(text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != text.size() || v < 0) fail(model.path, what + ": external data " + entry.key() + " " + eindecomp::quoted(text) + " is not a byte count");
      return static_cast<int64_t>(v);
    };
    if (entry.key() == "location") location = entry.value();
    else if (entry.key() == "offset") offset = number(entry.value());
    else if (entry.key() == "length") length = number(entry.value());
  }
  if (location.empty()) fail(model.path, what + ": external data without a location");
  const fs::path rel(location);
  if (rel.is_absolute()) fail(model.path, what + ": external data " + eindecomp::quoted(location) + " is an absolute path; only files inside the model's folder are read");
  for (const auto& part : rel)
    if (part == "..") fail(model.path, what + ": external data " + eindecomp::quoted(location) + " leaves the model's folder");
  std::error_code ec;
  const fs::path folder = fs::weakly_canonical(model.folder.empty() ? fs::path(".") : fs::path(model.folder), ec);
  const fs::path file = fs::weakly_canonical(folder / rel, ec);
  const std::string f = file.string(), d = folder.string() + "/";
  if (ec || f.compare(0, d.size(), d) != 0)
    fail(model.path, what + ": external data " + eindecomp::quoted(location) + " leaves the model's folder");
  if (!fs::is_regular_file(file, ec)) fail(model.path, what + ": external data " + eindecomp::quoted(location) + " is not a regular file in the model's folder");
  const int64_t size = static_cast<int64_t>(fs::file_size(file, ec));
  if (ec) fail(model.path, what + ": cannot read external data " + eindecomp::quoted(location));
  if (length < 0) length = size - offset;
  if (offset > size || length > size - offset)
    fail(model.path, what + ": external data " + eindecomp::quoted(location) + " is " + std::to_string(size) + " bytes, shorter than offset " +
                         std::to_string(offset) + " + length " + std::to_string(length));
  if (length != needed) fail(model.path, what + " has " + std::to_string(length) + " bytes of data for " + elements);
  std::ifstream in(file, std::ios::binary);
  std::string bytes(static_cast<std::size_t>(length), '\0');
  in.seekg(offset);
  in.read(bytes.data(), length);
  if (!in) fail(model.path, what + ": cannot read external data " + eindecomp::quoted(location));
  return bytes;
}

template <class T>
void appendRaw(const std::string& raw, int64_t n, std::vector<double>& out) {
  for (int64_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
    out.push_back(static_cast<double>(v));
  }
}

std::size_t itemBytes(int type) {
  switch (type) {
    case onnx::TensorProto::FLOAT: case onnx::TensorProto::INT32: case onnx::TensorProto::UINT32: return 4;
    case onnx::TensorProto::DOUBLE: case onnx::TensorProto::INT64: case onnx::TensorProto::UINT64: return 8;
    case onnx::TensorProto::INT16: case onnx::TensorProto::UINT16: case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16: return 2;
    case onnx::TensorProto::INT8: case onnx::TensorProto::UINT8: case onnx::TensorProto::BOOL: return 1;
    default: return 0;
  }
}

}  // namespace

OnnxModel readOnnxModel(const std::string& path) {
  return parseOnnxModel(readInputFile(path, "ONNX model", kMaxModelBytes), path);
}

OnnxModel parseOnnxModel(const std::string& bytes, const std::string& path) {
  OnnxModel m;
  m.path = path;
  m.folder = fs::path(path).parent_path().string();
  if (static_cast<int64_t>(bytes.size()) > kMaxModelBytes) fail(path, "the model is larger than 2 GiB, protobuf's limit");
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(std::numeric_limits<int>::max());
  coded.SetRecursionLimit(64);
  if (!m.proto.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
    fail(path, "not an ONNX model: the protobuf does not parse (a truncated or damaged file, or another format)");
  if (!m.proto.has_graph() || m.proto.graph().output_size() == 0)
    fail(path, "not an ONNX model: it has no graph with outputs (an empty file, or another format)");
  bool found = false;
  for (const auto& op : m.proto.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") {
      m.opset = op.version();
      found = true;
    }
  if (!found) fail(path, "the model imports no opset of the default ONNX domain");
  if (m.opset < kMinOpset || m.opset > kMaxOpset)
    fail(path, "the model's opset is " + std::to_string(m.opset) + "; einplan import reads opsets " +
                   std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) +
                   " (re-export with torch.onnx.export(..., opset_version=17))");
  return m;
}

ElemKind elemKind(int t) {
  switch (t) {
    case onnx::TensorProto::FLOAT: return ElemKind::Float32;
    case onnx::TensorProto::DOUBLE: return ElemKind::Float64;
    case onnx::TensorProto::FLOAT16: return ElemKind::Float16;
    case onnx::TensorProto::BFLOAT16: return ElemKind::BFloat16;
    case onnx::TensorProto::INT8: case onnx::TensorProto::INT16: case onnx::TensorProto::INT32:
    case onnx::TensorProto::INT64: case onnx::TensorProto::UINT8: case onnx::TensorProto::UINT16:
    case onnx::TensorProto::UINT32: case onnx::TensorProto::UINT64: return ElemKind::Integer;
    case onnx::TensorProto::BOOL: return ElemKind::Bool;
    default: return ElemKind::Unsupported;
  }
}

const char* onnxTypeName(int t) {
  if (onnx::TensorProto::DataType_IsValid(t))
    return onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(t)).c_str();
  return "an unknown element type";
}

int64_t HostTensor::elements() const { return static_cast<int64_t>(values.size()); }

int64_t checkedElements(const std::vector<int64_t>& shape, const std::string& what, const std::string& file) {
  int64_t n = 1;
  for (const int64_t d : shape) {
    if (d < 0) fail(file, what + " has a negative dimension " + std::to_string(d));
    if (d > kMaxDimension) fail(file, what + " has a dimension of " + std::to_string(d) + "; at most 2^31 - 1 is supported");
    if (d != 0 && n > kMaxElements / d) fail(file, what + " has more than 2^40 elements");
    n *= d;
  }
  return n;
}

HostTensor decodeTensor(const onnx::TensorProto& t, const OnnxModel& model, const std::string& what) {
  HostTensor h;
  h.shape.assign(t.dims().begin(), t.dims().end());
  const int64_t n = checkedElements(h.shape, what, model.path);
  const int type = t.data_type();
  h.kind = elemKind(type);
  if (h.kind == ElemKind::Unsupported)
    fail(model.path, what + " holds " + onnxTypeName(type) + " elements; einplan import reads float32, float64, float16 "
                            "and bfloat16 tensors (and integer or bool constants)");
  // No allocation before the data is known to hold n elements: the dimensions alone may
  // claim 2^40 of them.
  const bool external = t.data_location() == onnx::TensorProto::EXTERNAL;
  if (external || t.has_raw_data()) {
    const std::size_t item = itemBytes(type);
    const std::string elements = std::to_string(n) + " elements of " + onnxTypeName(type);
    const std::string raw = external ? readExternalData(t, model, what, n * static_cast<int64_t>(item), elements) : t.raw_data();
    if (raw.size() != static_cast<std::size_t>(n) * item)
      fail(model.path, what + " has " + std::to_string(raw.size()) + " bytes of data for " + elements);
    h.values.reserve(static_cast<std::size_t>(n));
    switch (type) {
      case onnx::TensorProto::FLOAT: appendRaw<float>(raw, n, h.values); break;
      case onnx::TensorProto::DOUBLE: appendRaw<double>(raw, n, h.values); break;
      case onnx::TensorProto::INT64: appendRaw<int64_t>(raw, n, h.values); break;
      case onnx::TensorProto::UINT64: appendRaw<uint64_t>(raw, n, h.values); break;
      case onnx::TensorProto::INT32: appendRaw<int32_t>(raw, n, h.values); break;
      case onnx::TensorProto::UINT32: appendRaw<uint32_t>(raw, n, h.values); break;
      case onnx::TensorProto::INT16: appendRaw<int16_t>(raw, n, h.values); break;
      case onnx::TensorProto::UINT16: appendRaw<uint16_t>(raw, n, h.values); break;
      case onnx::TensorProto::INT8: appendRaw<int8_t>(raw, n, h.values); break;
      case onnx::TensorProto::UINT8: case onnx::TensorProto::BOOL: appendRaw<uint8_t>(raw, n, h.values); break;
      case onnx::TensorProto::FLOAT16: appendRaw<einrt::f16>(raw, n, h.values); break;
      case onnx::TensorProto::BFLOAT16: appendRaw<einrt::bf16>(raw, n, h.values); break;
      default: break;
    }
    return h;
  }
  auto take = [&](const auto& field) {
    if (static_cast<int64_t>(field.size()) != n)
      fail(model.path, what + " has " + std::to_string(field.size()) + " values for " + std::to_string(n) + " elements");
    h.values.reserve(static_cast<std::size_t>(n));
    for (const auto v : field) h.values.push_back(static_cast<double>(v));
  };
  switch (type) {
    case onnx::TensorProto::FLOAT: take(t.float_data()); break;
    case onnx::TensorProto::DOUBLE: take(t.double_data()); break;
    case onnx::TensorProto::INT64: take(t.int64_data()); break;
    case onnx::TensorProto::UINT32: case onnx::TensorProto::UINT64: take(t.uint64_data()); break;
    case onnx::TensorProto::FLOAT16: case onnx::TensorProto::BFLOAT16:  // bit patterns in int32_data
      take(t.int32_data());
      for (double& v : h.values) {
        const auto bits = static_cast<uint16_t>(v);
        v = type == onnx::TensorProto::FLOAT16 ? static_cast<double>(einrt::half_detail::f16Value(bits))
                                               : static_cast<double>(einrt::half_detail::bf16Value(bits));
      }
      break;
    default: take(t.int32_data()); break;
  }
  return h;
}

}  // namespace eindecomp::onnx_import
