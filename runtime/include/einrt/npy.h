// Reading and writing NumPy `.npy` files (format versions 1.0 and 2.0 written, 1.x, 2.x
// and 3.x read), little-endian float16 (`<f2`), float32 (`<f4`) and float64 (`<f8`): the
// exchange format between `einplan eval`, the emitted programs (`--inputs`, `--outputs`)
// and the NumPy test oracles. Files are written in C order. Reading accepts what NumPy
// writes by default: Fortran-order arrays are transposed into C order, and `readNpy<T>`
// converts another float type to T with a note on stderr (float64 data for a float32
// graph), and integers that T holds exactly (an int64 attention mask for a float input). NumPy has no bfloat16 (SPEC 8): bf16 tensors are written as float32 (exact) and
// read from any float file, rounded to bf16, with a note.
// Reading is bounded: only regular files are opened (a directory, FIFO or device is
// refused without blocking), the magic and the header (at most kMaxNpyHeaderBytes) are
// checked before anything else is read, and the data must be exactly what the header
// and the file size promise — so /dev/zero or an endless file is refused at once. Every
// problem — bad magic, unsupported version or dtype, a shape other than the caller
// expects, a truncated or overlong file — is an NpyError whose message names the file.
// Writes go to a temporary file that is renamed into place, so a failed write leaves
// nothing half-written.
// Header-only, dependency-free C++17 on POSIX: emitted programs include it through einrt.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "einrt/file_output.h"
#include "einrt/half.h"

namespace einrt {

enum class NpyDType { F32, F64, F16, I32, I64 };

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

inline const char* npyDescr(NpyDType t) {
  switch (t) {
    case NpyDType::F64: return "<f8";
    case NpyDType::F16: return "<f2";
    case NpyDType::I32: return "<i4";
    case NpyDType::I64: return "<i8";
    case NpyDType::F32: break;
  }
  return "<f4";
}
inline const char* npyTypeName(NpyDType t) {
  switch (t) {
    case NpyDType::F64: return "float64";
    case NpyDType::F16: return "float16";
    case NpyDType::I32: return "int32";
    case NpyDType::I64: return "int64";
    case NpyDType::F32: break;
  }
  return "float32";
}
inline std::size_t npyItemSize(NpyDType t) {
  return t == NpyDType::F64 || t == NpyDType::I64 ? 8 : t == NpyDType::F16 ? 2 : 4;
}
inline bool npyIsInteger(NpyDType t) { return t == NpyDType::I32 || t == NpyDType::I64; }

// The file type of an element type: bf16 is kept in float32 files (NumPy has no bf16).
template <class T>
inline constexpr NpyDType npyDTypeOf() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, bf16> ||
                    std::is_same_v<T, f16> || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>,
                ".npy I/O supports float, double, bf16, f16, int32 and int64");
  if constexpr (std::is_same_v<T, int32_t>) return NpyDType::I32;
  else if constexpr (std::is_same_v<T, int64_t>) return NpyDType::I64;
  else return std::is_same_v<T, double> ? NpyDType::F64 : std::is_same_v<T, f16> ? NpyDType::F16 : NpyDType::F32;
}

// The longest header read: NumPy writes a few hundred bytes for any float array (and
// itself refuses headers over 10,000 bytes by default).
inline constexpr std::size_t kMaxNpyHeaderBytes = std::size_t{1} << 20;

// The parsed header of a .npy file.
struct NpyHeader {
  int majorVersion = 1;
  NpyDType dtype = NpyDType::F32;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  std::size_t dataOffset = 0;  // bytes from the start of the file to the first element
};

// An array read from a file: its dtype, shape and the raw little-endian element bytes,
// in C order (a Fortran-order file is transposed on reading).
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

// Text from a file's header for a message: printable ASCII only, at most 40 characters.
inline std::string shown(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < 40; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return text.size() > 40 ? out + "..." : out;
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
        else if (descr == "<f2") h.dtype = NpyDType::F16;
        else if (descr == "<i4") h.dtype = NpyDType::I32;
        else if (descr == "<i8") h.dtype = NpyDType::I64;
        else fail("unsupported dtype '" + shown(descr) + "' (only '<f2' float16, '<f4' float32, '<f8' float64, and for ids "
                  "'<i4' int32 and '<i8' int64 are supported)");
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (s_.compare(i_, 5, "False") == 0) { i_ += 5; }
        else if (s_.compare(i_, 4, "True") == 0) { i_ += 4; h.fortranOrder = true; }
        else fail("header field 'fortran_order' is neither True nor False");
        haveOrder = true;
      } else if (key == "shape") {
        h.shape = parseShape();
        haveShape = true;
      } else {
        fail("unexpected header field '" + shown(key) + "'");
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

inline const char* fileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// A .npy file opened for reading: a regular file (anything else is refused before a
// byte is read; O_NONBLOCK keeps opening a FIFO from waiting for a writer), its size,
// and reads of exact byte counts.
class InputFile {
 public:
  explicit InputFile(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) throw NpyError(path, std::string("cannot open for reading: ") + std::strerror(errno));
    struct stat st {};
    std::string problem;
    if (::fstat(fd_, &st) != 0) problem = std::string("cannot open for reading: ") + std::strerror(errno);
    else if (!S_ISREG(st.st_mode)) problem = std::string("is ") + fileKind(st.st_mode) + ", not a .npy file";
    if (!problem.empty()) {
      ::close(fd_);
      throw NpyError(path, problem);
    }
    size_ = static_cast<uint64_t>(st.st_size);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile() { ::close(fd_); }

  uint64_t size() const { return size_; }

  // Appends exactly `n` bytes to `out`; `what` names them if the file ends first.
  void read(std::string& out, std::size_t n, const char* what) {
    const std::size_t start = out.size();
    out.resize(start + n);
    std::size_t done = 0;
    while (done < n) {
      const ssize_t got = ::read(fd_, &out[start + done], n - done);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) fail(std::string("read failed: ") + std::strerror(errno));
      if (got == 0) fail(std::string("truncated ") + what);
      done += static_cast<std::size_t>(got);
    }
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const { throw NpyError(path_, problem); }

  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// C-order bytes from Fortran-order `data` of `shape`, elements of `itemSize` bytes: the
// C-order walk (last index fastest) computes each element's Fortran offset incrementally.
inline std::string fortranToC(const std::string& data, const std::vector<int64_t>& shape, std::size_t itemSize) {
  const std::size_t rank = shape.size();
  const uint64_t count = data.size() / itemSize;
  if (rank < 2 || count == 0) return data;  // one dimension: both orders agree
  std::string out(data.size(), '\0');
  std::vector<uint64_t> stride(rank, 1);  // Fortran strides, in elements
  for (std::size_t k = 1; k < rank; ++k) stride[k] = stride[k - 1] * static_cast<uint64_t>(shape[k - 1]);
  std::vector<int64_t> index(rank, 0);
  uint64_t offset = 0;
  for (uint64_t c = 0; c < count; ++c) {
    std::memcpy(&out[c * itemSize], &data[offset * itemSize], itemSize);
    for (std::size_t k = rank; k-- > 0;) {
      if (++index[k] < shape[k]) {
        offset += stride[k];
        break;
      }
      offset -= stride[k] * static_cast<uint64_t>(shape[k] - 1);
      index[k] = 0;
    }
  }
  return out;
}

// Reads the data that `h` promises from `file`, in C order, after checking that the file
// holds exactly that many bytes.
inline std::string readData(InputFile& file, const NpyHeader& h, const std::string& path) {
  const uint64_t want = elementCountChecked(h.shape, path) * npyItemSize(h.dtype);
  const uint64_t have = file.size() - h.dataOffset;
  if (have < want)
    throw NpyError(path, "truncated: shape " + npyShapeText(h.shape) + " needs " + std::to_string(want) +
                             " bytes of data, the file holds " + std::to_string(have));
  if (have > want)
    throw NpyError(path, "corrupt: " + std::to_string(have - want) + " bytes after the data of shape " +
                             npyShapeText(h.shape));
  std::string data;
  file.read(data, static_cast<std::size_t>(want), "data");
  return h.fortranOrder ? fortranToC(data, h.shape, npyItemSize(h.dtype)) : data;
}

}  // namespace npy_detail

namespace npy_detail {

// The fixed start of a .npy file: magic, version, header length.
struct Preamble {
  int major = 1;
  std::size_t headerStart = 10;
  std::size_t headerLen = 0;
};

// Checks the magic and version at the start of `bytes` and reads the header length,
// refusing a length above kMaxNpyHeaderBytes.
inline Preamble parsePreamble(const std::string& bytes, const std::string& path) {
  static const char kMagic[] = "\x93NUMPY";
  if (bytes.size() < 6 || bytes.compare(0, 6, kMagic, 6) != 0)
    throw NpyError(path, "not a .npy file (bad magic: expected \\x93NUMPY)");
  if (bytes.size() < 10) throw NpyError(path, "truncated .npy header");
  Preamble p;
  p.major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  if (p.major == 1) {
    p.headerLen = static_cast<unsigned char>(bytes[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8);
  } else if (p.major == 2 || p.major == 3) {
    if (bytes.size() < 12) throw NpyError(path, "truncated .npy header");
    for (std::size_t b = 4; b-- > 0;) p.headerLen = (p.headerLen << 8) | static_cast<unsigned char>(bytes[8 + b]);
    p.headerStart = 12;
  } else {
    throw NpyError(path, "unsupported .npy format version " + std::to_string(p.major) + "." + std::to_string(minor));
  }
  if (p.headerLen > kMaxNpyHeaderBytes)
    throw NpyError(path, "the .npy header claims " + std::to_string(p.headerLen) + " bytes, more than the " +
                             std::to_string(kMaxNpyHeaderBytes) + " this reader accepts");
  return p;
}

}  // namespace npy_detail

// Parses the magic, version and header dict at the start of `bytes` (the file's
// contents, or at least its header; `path` is only used in messages).
inline NpyHeader parseNpyHeader(const std::string& bytes, const std::string& path) {
  const npy_detail::Preamble p = npy_detail::parsePreamble(bytes, path);
  if (bytes.size() - p.headerStart < p.headerLen) throw NpyError(path, "truncated .npy header");
  NpyHeader h = npy_detail::HeaderDictParser(bytes.substr(p.headerStart, p.headerLen), path).parse();
  h.majorVersion = p.major;
  h.dataOffset = p.headerStart + p.headerLen;
  return h;
}

namespace npy_detail {

// Reads the header of `file` piece by piece, each checked before the next is read: the
// magic and version (a file that is not .npy is refused after 10 bytes, whatever its
// size), then exactly the header length they give. Leaves the file at the data.
inline NpyHeader readHeader(InputFile& file, const std::string& path) {
  std::string bytes;
  file.read(bytes, static_cast<std::size_t>(std::min<uint64_t>(file.size(), 10)), ".npy header");
  if (bytes.size() == 10 && (bytes[6] == 2 || bytes[6] == 3) && file.size() >= 12) file.read(bytes, 2, ".npy header");
  const Preamble p = parsePreamble(bytes, path);
  if (p.headerStart + p.headerLen > file.size()) throw NpyError(path, "truncated .npy header");
  file.read(bytes, p.headerLen, ".npy header");
  return parseNpyHeader(bytes, path);
}

}  // namespace npy_detail

// Reads a .npy file of any supported dtype and shape, in C order.
inline NpyArray readNpyFile(const std::string& path) {
  npy_detail::requireLittleEndianHost(path);
  npy_detail::InputFile file(path);
  const NpyHeader h = npy_detail::readHeader(file, path);
  NpyArray a;
  a.dtype = h.dtype;
  a.shape = h.shape;
  a.data = npy_detail::readData(file, h, path);
  return a;
}

namespace npy_detail {

// Integer data for a float tensor (an attention mask of 0s and 1s that a model casts to
// float): each value converted when T holds it exactly (up to 2^24 for float32, 2^53 for
// float64, 2^11 for float16, 2^8 for bfloat16), said in a note; a value T cannot hold is
// an error naming it, never a rounded mask.
template <class T>
std::vector<T> integersAsFloats(const std::string& data, NpyDType dtype, const std::string& path, std::string* note) {
  const std::size_t item = npyItemSize(dtype), n = data.size() / item;
  std::vector<T> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    int64_t v;
    if (dtype == NpyDType::I32) {
      int32_t x;
      std::memcpy(&x, data.data() + i * 4, 4);
      v = x;
    } else {
      std::memcpy(&v, data.data() + i * 8, 8);
    }
    values[i] = static_cast<T>(static_cast<double>(v));
    const double back = static_cast<double>(static_cast<Compute<T>>(values[i]));
    if (back != static_cast<double>(v) || v > (int64_t{1} << 53) || v < -(int64_t{1} << 53))
      throw NpyError(path, std::string("holds ") + npyTypeName(dtype) + " integers where a float tensor was expected, and " +
                               std::to_string(v) + " (element " + std::to_string(i) + ") has no exact " +
                               (std::is_same_v<T, bf16> ? "bfloat16" : npyTypeName(npyDTypeOf<T>())) + " value");
  }
  const std::string text = path + ": " + npyTypeName(dtype) + " data converted to " +
                           (std::is_same_v<T, bf16> ? "bfloat16" : npyTypeName(npyDTypeOf<T>())) + " (every value exact)";
  if (note) *note = text;
  else std::cerr << "note: " << text << "\n";
  return values;
}

}  // namespace npy_detail

// Reads a .npy file that must hold shape `expectedShape` as elements of T. A file of the
// other float type is converted to T, and integers are where T holds each exactly (else an
// error); the note saying so goes to `note` when given, else to std::cerr ("note: PATH:
// float64 data converted to float32"). The shape is checked before the data is read.
template <class T>
inline std::vector<T> readNpy(const std::string& path, const std::vector<int64_t>& expectedShape,
                              std::string* note = nullptr) {
  npy_detail::requireLittleEndianHost(path);
  npy_detail::InputFile file(path);
  const NpyHeader h = npy_detail::readHeader(file, path);
  if (h.shape != expectedShape)
    throw NpyError(path, "shape " + npyShapeText(h.shape) + " where " + npyShapeText(expectedShape) + " was expected");
  const std::string data = npy_detail::readData(file, h, path);
  if (npyIsInteger(h.dtype)) return npy_detail::integersAsFloats<T>(data, h.dtype, path, note);
  std::vector<T> values(data.size() / npyItemSize(h.dtype));
  if (h.dtype == npyDTypeOf<T>() && !std::is_same_v<T, bf16>) {
    if (!values.empty()) std::memcpy(values.data(), data.data(), data.size());
    return values;
  }
  // Another float type (or float32 for bf16): each value converted once; values that
  // overflow to infinity or change are counted and said.
  std::size_t overflowed = 0, changed = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    double v;
    if (h.dtype == NpyDType::F64) {
      std::memcpy(&v, data.data() + i * 8, 8);
    } else if (h.dtype == NpyDType::F16) {
      f16 x;
      std::memcpy(&x.bits, data.data() + i * 2, 2);
      v = static_cast<float>(x);
    } else {
      float x;
      std::memcpy(&x, data.data() + i * 4, 4);
      v = x;
    }
    values[i] = static_cast<T>(v);
    const double back = static_cast<double>(static_cast<Compute<T>>(values[i]));
    if (std::isfinite(v) && !std::isfinite(back)) ++overflowed;
    else if (back != v && !std::isnan(v)) ++changed;
  }
  const char* target = std::is_same_v<T, bf16> ? "bfloat16" : npyTypeName(npyDTypeOf<T>());
  std::string text = path + ": " + npyTypeName(h.dtype) + " data " + (kIsTwoByte<T> && changed ? "rounded" : "converted") +
                     " to " + target;
  if (kIsTwoByte<T> && changed) text += " (" + std::to_string(changed) + " of " + std::to_string(values.size()) + " values changed)";
  if (overflowed)
    text += " (" + std::to_string(overflowed) + " values beyond " + target + "'s range became infinite)";
  if (note) *note = text;
  else std::cerr << "note: " << text << "\n";
  return values;
}

// Reads a .npy file of ids (int32 or int64) that must hold shape `expectedShape`; float
// files are refused (an id is never rounded from a float).
inline std::vector<int64_t> readNpyIndices(const std::string& path, const std::vector<int64_t>& expectedShape) {
  npy_detail::requireLittleEndianHost(path);
  npy_detail::InputFile file(path);
  const NpyHeader h = npy_detail::readHeader(file, path);
  if (h.shape != expectedShape)
    throw NpyError(path, "shape " + npyShapeText(h.shape) + " where " + npyShapeText(expectedShape) + " was expected");
  if (!npyIsInteger(h.dtype))
    throw NpyError(path, std::string("holds ") + npyTypeName(h.dtype) + " values where ids (int32 or int64) were expected");
  const std::string data = npy_detail::readData(file, h, path);
  std::vector<int64_t> ids(data.size() / npyItemSize(h.dtype));
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (h.dtype == NpyDType::I64) {
      std::memcpy(&ids[i], data.data() + i * 8, 8);
    } else {
      int32_t v;
      std::memcpy(&v, data.data() + i * 4, 4);
      ids[i] = v;
    }
  }
  return ids;
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
  if constexpr (std::is_same_v<T, bf16>) {
    // Written as float32: every bf16 value is one exactly.
    const std::size_t n = static_cast<std::size_t>(npy_detail::elementCountChecked(shape, "<memory>"));
    std::vector<float> wide(n);
    for (std::size_t i = 0; i < n; ++i) wide[i] = static_cast<float>(data[i]);
    return encodeNpy(NpyDType::F32, shape, wide.data());
  } else {
    return encodeNpy(npyDTypeOf<T>(), shape, data);
  }
}

// Writes `shape` elements of T from `data` to `path` as .npy, whole or not at all
// (einrt/file_output.h: a mkstemp temporary renamed into place).
template <class T>
inline void writeNpy(const std::string& path, const std::vector<int64_t>& shape, const T* data) {
  try {
    writeFile(path, encodeNpy<T>(shape, data));
  } catch (const FileError& e) {
    throw NpyError(path, e.reason());
  }
}

}  // namespace einrt
