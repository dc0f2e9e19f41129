// Reading and writing NumPy `.npy` files (format versions 1.0 and 2.0 written, 1.x, 2.x
// and 3.x read), C order, little-endian float32 (`<f4`) and float64 (`<f8`) only: the
// exchange format between `einplan eval`, the emitted programs (`--inputs`, `--outputs`)
// and the NumPy test oracles. Every problem — bad magic, unsupported version, another
// dtype, Fortran order, a shape other than the caller expects, a truncated or overlong
// file — is an NpyError whose message names the file. Writes go to a temporary file that
// is renamed into place, so a failed write leaves nothing half-written.
// Header-only, dependency-free C++17: emitted programs include it through einrt.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace einrt {

enum class NpyDType { F32, F64 };

class NpyError : public std::runtime_error {
 public:
  NpyError(const std::string& path, const std::string& problem)
      : std::runtime_error(path + ": " + problem), path_(path), problem_(problem) {}
  const std::string& path() const { return path_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string path_;
  std::string problem_;
};

inline const char* npyDescr(NpyDType t) { return t == NpyDType::F64 ? "<f8" : "<f4"; }
inline std::size_t npyItemSize(NpyDType t) { return t == NpyDType::F64 ? 8 : 4; }

template <class T>
inline constexpr NpyDType npyDTypeOf() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, ".npy I/O supports float and double");
  return std::is_same_v<T, double> ? NpyDType::F64 : NpyDType::F32;
}

// The parsed header of a .npy file.
struct NpyHeader {
  int majorVersion = 1;
  NpyDType dtype = NpyDType::F32;
  std::vector<int64_t> shape;
  std::size_t dataOffset = 0;  // bytes from the start of the file to the first element
};

// An array read from a file: its dtype, shape and the raw little-endian element bytes.
struct NpyArray {
  NpyDType dtype = NpyDType::F32;
  std::vector<int64_t> shape;
  std::string data;
};

inline std::string npyShapeText(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

namespace npy_detail {

inline bool hostIsLittleEndian() {
  const uint16_t one = 1;
  unsigned char first = 0;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

inline void requireLittleEndianHost(const std::string& path) {
  if (!hostIsLittleEndian()) throw NpyError(path, "big-endian hosts are not supported");
}

// A cursor over the header's Python dict literal, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
class HeaderDictParser {
 public:
  HeaderDictParser(const std::string& text, const std::string& path) : s_(text), path_(path) {}

  NpyHeader parse() {
    NpyHeader h;
    bool haveDescr = false, haveOrder = false, haveShape = false;
    skipSpace();
    expect('{');
    for (;;) {
      skipSpace();
      if (peek() == '}') { ++i_; break; }
      const std::string key = parseString();
      skipSpace();
      expect(':');
      skipSpace();
      if (key == "descr") {
        const std::string descr = parseString();
        if (descr == "<f4") h.dtype = NpyDType::F32;
        else if (descr == "<f8") h.dtype = NpyDType::F64;
        else fail("unsupported dtype '" + descr + "' (only '<f4' float32 and '<f8' float64 are supported)");
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (s_.compare(i_, 5, "False") == 0) { i_ += 5; }
        else if (s_.compare(i_, 4, "True") == 0) { fail("Fortran-order arrays are not supported (write the array in C order)"); }
        else fail("header field 'fortran_order' is neither True nor False");
        haveOrder = true;
      } else if (key == "shape") {
        h.shape = parseShape();
        haveShape = true;
      } else {
        fail("unexpected header field '" + key + "'");
      }
      skipSpace();
      if (peek() == ',') { ++i_; continue; }
      if (peek() == '}') { ++i_; break; }
      fail("malformed header (expected ',' or '}' at header offset " + std::to_string(i_) + ")");
    }
    for (; i_ < s_.size(); ++i_)
      if (s_[i_] != ' ' && s_[i_] != '\n' && s_[i_] != '\t' && s_[i_] != '\r' && s_[i_] != '\0')
        fail("malformed header (unexpected text after the dict)");
    if (!haveDescr) fail("header lacks the field 'descr'");
    if (!haveOrder) fail("header lacks the field 'fortran_order'");
    if (!haveShape) fail("header lacks the field 'shape'");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw NpyError(path_, what); }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skipSpace() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("malformed header (expected '") + c + "' at header offset " + std::to_string(i_) + ")");
    ++i_;
  }
  std::string parseString() {
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail("malformed header (expected a quoted string at header offset " + std::to_string(i_) + ")");
    const std::size_t end = s_.find(quote, i_ + 1);
    if (end == std::string::npos) fail("malformed header (unterminated string)");
    std::string out = s_.substr(i_ + 1, end - i_ - 1);
    i_ = end + 1;
    return out;
  }
  std::vector<int64_t> parseShape() {
    std::vector<int64_t> shape;
    expect('(');
    for (;;) {
      skipSpace();
      if (peek() == ')') { ++i_; return shape; }
      if (peek() < '0' || peek() > '9') fail("malformed header (bad extent in 'shape' at header offset " + std::to_string(i_) + ")");
      int64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (v > (INT64_MAX - 9) / 10) fail("extent in 'shape' is too large");
        v = v * 10 + (peek() - '0');
        ++i_;
      }
      if (peek() == 'L') ++i_;  // Python 2 long suffix, written by very old NumPy
      shape.push_back(v);
      skipSpace();
      if (peek() == ',') { ++i_; continue; }
      if (peek() == ')') { ++i_; return shape; }
      fail("malformed header (expected ',' or ')' in 'shape')");
    }
  }

  const std::string& s_;
  const std::string& path_;
  std::size_t i_ = 0;
};

inline uint64_t elementCountChecked(const std::vector<int64_t>& shape, const std::string& path) {
  uint64_t n = 1;
  for (int64_t e : shape) {
    if (e != 0 && n > UINT64_MAX / 16 / static_cast<uint64_t>(e)) throw NpyError(path, "element count overflows");
    n *= static_cast<uint64_t>(e);
  }
  return n;
}

inline std::string readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NpyError(path, "cannot open for reading");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw NpyError(path, "read failed");
  return bytes;
}

}  // namespace npy_detail

// Parses the magic, version and header dict at the start of `bytes` (the file's
// contents; `path` is only used in messages).
inline NpyHeader parseNpyHeader(const std::string& bytes, const std::string& path) {
  static const char kMagic[] = "\x93NUMPY";
  if (bytes.size() < 6 || bytes.compare(0, 6, kMagic, 6) != 0)
    throw NpyError(path, "not a .npy file (bad magic: expected \\x93NUMPY)");
  if (bytes.size() < 10) throw NpyError(path, "truncated .npy header");
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  std::size_t headerLen = 0, headerStart = 0;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(bytes[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw NpyError(path, "truncated .npy header");
    for (std::size_t b = 4; b-- > 0;) headerLen = (headerLen << 8) | static_cast<unsigned char>(bytes[8 + b]);
    headerStart = 12;
  } else {
    throw NpyError(path, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor));
  }
  if (bytes.size() - headerStart < headerLen) throw NpyError(path, "truncated .npy header");
  const std::string dict = bytes.substr(headerStart, headerLen);
  NpyHeader h = npy_detail::HeaderDictParser(dict, path).parse();
  h.majorVersion = major;
  h.dataOffset = headerStart + headerLen;
  return h;
}

// Reads a .npy file of any supported dtype and shape.
inline NpyArray readNpyFile(const std::string& path) {
  npy_detail::requireLittleEndianHost(path);
  std::string bytes = npy_detail::readWholeFile(path);
  const NpyHeader h = parseNpyHeader(bytes, path);
  const uint64_t want = npy_detail::elementCountChecked(h.shape, path) * npyItemSize(h.dtype);
  const uint64_t have = bytes.size() - h.dataOffset;
  if (have < want)
    throw NpyError(path, "truncated: shape " + npyShapeText(h.shape) + " needs " + std::to_string(want) +
                             " bytes of data, the file holds " + std::to_string(have));
  if (have > want)
    throw NpyError(path, "corrupt: " + std::to_string(have - want) + " bytes after the data of shape " +
                             npyShapeText(h.shape));
  NpyArray a;
  a.dtype = h.dtype;
  a.shape = h.shape;
  a.data = bytes.substr(h.dataOffset);
  return a;
}

// Reads a .npy file that must hold exactly dtype T and shape `expectedShape`.
template <class T>
inline std::vector<T> readNpy(const std::string& path, const std::vector<int64_t>& expectedShape) {
  const NpyArray a = readNpyFile(path);
  if (a.dtype != npyDTypeOf<T>())
    throw NpyError(path, std::string("dtype '") + npyDescr(a.dtype) + "' where '" + npyDescr(npyDTypeOf<T>()) +
                             "' (" + (npyDTypeOf<T>() == NpyDType::F64 ? "float64" : "float32") + ") was expected");
  if (a.shape != expectedShape)
    throw NpyError(path, "shape " + npyShapeText(a.shape) + " where " + npyShapeText(expectedShape) + " was expected");
  std::vector<T> values(a.data.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), a.data.data(), a.data.size());
  return values;
}

// The complete contents of a .npy file (version 1.0, or 2.0 when the header needs it)
// holding `shape` elements of `dtype` from `data` (C order, host = little-endian layout).
inline std::string encodeNpy(NpyDType dtype, const std::vector<int64_t>& shape, const void* data) {
  npy_detail::requireLittleEndianHost("<memory>");
  std::string dict = std::string("{'descr': '") + npyDescr(dtype) + "', 'fortran_order': False, 'shape': " +
                     npyShapeText(shape) + ", }";
  // NumPy pads the header with spaces and a final newline so the data starts at a
  // multiple of 64 bytes.
  auto padded = [&](std::size_t preamble) {
    std::string h = dict;
    const std::size_t total = preamble + h.size() + 1;
    h.append((64 - total % 64) % 64, ' ');
    h += '\n';
    return h;
  };
  std::string header = padded(10);
  std::string out("\x93NUMPY", 6);
  if (header.size() <= 0xffff) {
    out += '\x01';
    out += '\x00';
    out += static_cast<char>(header.size() & 0xff);
    out += static_cast<char>((header.size() >> 8) & 0xff);
  } else {
    header = padded(12);
    out += '\x02';
    out += '\x00';
    for (int b = 0; b < 4; ++b) out += static_cast<char>((header.size() >> (8 * b)) & 0xff);
  }
  out += header;
  const uint64_t bytes = npy_detail::elementCountChecked(shape, "<memory>") * npyItemSize(dtype);
  out.append(static_cast<const char*>(data), static_cast<std::size_t>(bytes));
  return out;
}

template <class T>
inline std::string encodeNpy(const std::vector<int64_t>& shape, const T* data) {
  return encodeNpy(npyDTypeOf<T>(), shape, data);
}

// Writes `shape` elements of T from `data` to `path` as .npy: the bytes go to
// "PATH.partial" first, which is renamed to PATH only once complete.
template <class T>
inline void writeNpy(const std::string& path, const std::vector<int64_t>& shape, const T* data) {
  const std::string contents = encodeNpy<T>(shape, data);
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (!out) throw NpyError(path, "cannot open for writing");
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.close();
    if (!out) {
      std::remove(partial.c_str());
      throw NpyError(path, "write failed");
    }
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    std::remove(partial.c_str());
    throw NpyError(path, "cannot rename the finished file into place");
  }
}

}  // namespace einrt
