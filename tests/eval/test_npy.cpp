// .npy reading and writing (einrt/npy.h and the Tensor wrappers): round trips, the
// header layout the NumPy format specification gives, versions 1-3, and every error,
// each with the file's name in its message. NumPy itself reads and writes these files
// in numpy_crosscheck.py.
#include <doctest/doctest.h>
#include <unistd.h>

#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "einrt/npy.h"
#include "frontends/eval/tensor_npy.h"

namespace fs = std::filesystem;

namespace {

// A fresh directory under the system temp dir, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("eval_npy_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

void writeBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// A .npy file assembled by hand: magic, version, little-endian header length, the
// header text as given (unpadded), then the data bytes.
std::string rawNpy(int major, const std::string& dict, const std::string& data) {
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  const std::size_t n = dict.size();
  const int lengthBytes = major == 1 ? 2 : 4;
  for (int b = 0; b < lengthBytes; ++b) out += static_cast<char>((n >> (8 * b)) & 0xff);
  return out + dict + data;
}

template <class T>
std::string bytesOf(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

}  // namespace

TEST_CASE("npy round trips, f32 and f64, every rank") {
  TempDir dir;
  const std::vector<std::vector<int64_t>> shapes = {{}, {1}, {5}, {2, 3}, {2, 3, 4}, {1, 2, 1, 3}};
  for (const auto& shape : shapes) {
    CAPTURE(einrt::npyShapeText(shape));
    std::size_t count = 1;
    for (int64_t e : shape) count *= static_cast<std::size_t>(e);
    std::vector<double> d(count);
    std::vector<float> f(count);
    for (std::size_t i = 0; i < count; ++i) {
      d[i] = 0.1 * static_cast<double>(i) - 1.0 / 3.0;
      f[i] = static_cast<float>(d[i]);
    }
    einrt::writeNpy<double>(dir.file("d.npy"), shape, d.data());
    einrt::writeNpy<float>(dir.file("f.npy"), shape, f.data());
    CHECK(einrt::readNpy<double>(dir.file("d.npy"), shape) == d);
    CHECK(einrt::readNpy<float>(dir.file("f.npy"), shape) == f);
    CHECK_FALSE(fs::exists(dir.file("d.npy.partial")));
  }
}

TEST_CASE("the written header follows the format specification") {
  const std::vector<double> v{1.5, -2.0};
  const std::string bytes = einrt::encodeNpy<double>({2}, v.data());
  CHECK(bytes.compare(0, 8, std::string("\x93NUMPY\x01\x00", 8)) == 0);
  const std::size_t headerLen = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  CHECK((10 + headerLen) % 64 == 0);  // data aligned to 64 bytes
  const std::string header = bytes.substr(10, headerLen);
  CHECK(header.rfind("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", 0) == 0);
  CHECK(header.back() == '\n');
  CHECK(bytes.size() == 10 + headerLen + 16);
  double back[2];
  std::memcpy(back, bytes.data() + 10 + headerLen, 16);
  CHECK(back[0] == 1.5);
  CHECK(back[1] == -2.0);
  const std::vector<float> s{3.0f};
  const std::string scalar = einrt::encodeNpy<float>({}, s.data());
  CHECK(scalar.find("'descr': '<f4'") != std::string::npos);
  CHECK(scalar.find("'shape': ()") != std::string::npos);
}

TEST_CASE("npy versions 1, 2 and 3 and NumPy's header variants are read") {
  TempDir dir;
  const std::vector<float> v{1, 2, 3, 4, 5, 6};
  struct Row {
    const char* what;
    int major;
    std::string dict;
  };
  const Row rows[] = {
      {"version 1", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n"},
      {"version 2", 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }      \n"},
      {"version 3", 3, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n"},
      {"keys in another order, no trailing comma", 1, "{'shape': (2,3), 'fortran_order': False, 'descr': '<f4'}"},
      {"double quotes", 1, "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2, 3)}\n"},
      {"Python 2 long extents", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }\n"},
  };
  for (const auto& r : rows) {
    CAPTURE(r.what);
    writeBytes(dir.file("a.npy"), rawNpy(r.major, r.dict, bytesOf(v)));
    CHECK(einrt::readNpy<float>(dir.file("a.npy"), {2, 3}) == v);
    const einrt::NpyArray a = einrt::readNpyFile(dir.file("a.npy"));
    CHECK(a.dtype == einrt::NpyDType::F32);
    CHECK(a.shape == std::vector<int64_t>{2, 3});
  }
}

TEST_CASE("npy errors name the file and the problem") {
  TempDir dir;
  const std::string path = dir.file("bad.npy");
  const std::vector<float> six(6, 1.0f);
  const std::vector<double> six64(6, 1.0);
  const std::vector<int32_t> beyond24(6, (1 << 24) + 1);  // the first integer float32 lacks
  const std::string ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n";
  struct Row {
    const char* what;
    std::string bytes;
    const char* words;
  };
  const Row rows[] = {
      {"bad magic", "PK\x03\x04 this is a zip file", "bad magic"},
      {"empty file", "", "bad magic"},
      {"truncated preamble", std::string("\x93NUMPY\x01", 7), "truncated .npy header"},
      {"truncated header", rawNpy(1, ok, "").substr(0, 30), "truncated .npy header"},
      {"unsupported version", rawNpy(4, ok, bytesOf(six)), "unsupported .npy format version 4.0"},
      {"int32 float32 cannot hold", rawNpy(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", bytesOf(beyond24)),
       "holds int32 integers where a float tensor was expected, and 16777217 (element 0) has no exact float32 value"},
      {"uint32 dtype", rawNpy(1, "{'descr': '<u4', 'fortran_order': False, 'shape': (2, 3), }", bytesOf(six)),
       "unsupported dtype '<u4'"},
      {"big-endian float", rawNpy(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", bytesOf(six)),
       "unsupported dtype '>f4'"},
      {"big-endian float16", rawNpy(1, "{'descr': '>f2', 'fortran_order': False, 'shape': (2, 3), }", bytesOf(six)),
       "unsupported dtype '>f2'"},
      {"float16 with float32's bytes", rawNpy(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }", bytesOf(six)),
       "12 bytes after the data of shape (2, 3)"},
      {"header length above the limit", rawNpy(2, ok, "").substr(0, 8) + std::string("\x00\x00\x00\x40", 4),
       "the .npy header claims 1073741824 bytes, more than the 1048576"},
      {"header length past the end of the file", rawNpy(1, ok, "").substr(0, 8) + std::string("\xff\x7f", 2) + "{",
       "truncated .npy header"},
      {"truncated data", rawNpy(1, ok, bytesOf(six).substr(0, 20)), "truncated: shape (2, 3) needs 24 bytes"},
      {"trailing bytes", rawNpy(1, ok, bytesOf(six) + "xx"), "2 bytes after the data"},
      {"missing shape", rawNpy(1, "{'descr': '<f4', 'fortran_order': False}", bytesOf(six)),
       "header lacks the field 'shape'"},
      {"missing descr", rawNpy(1, "{'fortran_order': False, 'shape': (2, 3)}", bytesOf(six)),
       "header lacks the field 'descr'"},
      {"extra key", rawNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}", bytesOf(six)),
       "unexpected header field 'x'"},
      {"negative extent", rawNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 3), }", bytesOf(six)),
       "bad extent in 'shape'"},
      {"not a dict", rawNpy(1, "['descr']", bytesOf(six)), "malformed header"},
      {"garbage after the dict", rawNpy(1, ok + "junk", bytesOf(six)), "unexpected text after the dict"},
      {"structured dtype", rawNpy(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (6,), }",
                                  bytesOf(six)),
       "expected a quoted string"},
  };
  for (const auto& r : rows) {
    CAPTURE(r.what);
    writeBytes(path, r.bytes);
    try {
      einrt::readNpy<float>(path, {2, 3});
      FAIL("no exception");
    } catch (const einrt::NpyError& e) {
      const std::string what = e.what();
      CAPTURE(what);
      CHECK(what.rfind(path + ": ", 0) == 0);
      CHECK(what.find(r.words) != std::string::npos);
      CHECK(e.path() == path);
    }
  }
}

TEST_CASE("npy dtype and shape must be the ones the caller expects") {
  TempDir dir;
  const std::string path = dir.file("x.npy");
  const std::vector<double> six(6, 1.0);
  einrt::writeNpy<double>(path, {2, 3}, six.data());
  struct Row {
    const char* what;
    std::function<void()> read;
    const char* words;
  };
  const Row rows[] = {
      {"transposed shape", [&] { einrt::readNpy<double>(path, {3, 2}); }, "shape (2, 3) where (3, 2) was expected"},
      {"flattened shape", [&] { einrt::readNpy<double>(path, {6}); }, "shape (2, 3) where (6,) was expected"},
      {"tensor wrapper, wrong shape", [&] { eindecomp::readTensorNpy(path, eindecomp::DType::F32, {3, 2}); },
       "shape (2, 3) where (3, 2) was expected"},
      {"missing file", [&] { einrt::readNpy<double>(dir.file("absent.npy"), {2, 3}); }, "cannot open for reading"},
      {"unwritable path", [&] { einrt::writeNpy<double>(dir.file("no/such/dir/x.npy"), {2, 3}, six.data()); },
       "cannot create a file in its folder"},
  };
  for (const auto& r : rows) {
    CAPTURE(r.what);
    try {
      r.read();
      FAIL("no exception");
    } catch (const einrt::NpyError& e) {
      CAPTURE(e.what());
      CHECK(std::string(e.what()).find(r.words) != std::string::npos);
      CHECK(std::string(e.what()).find(dir.path.string()) == 0);
    }
  }
}

TEST_CASE("tensors round trip through .npy exactly") {
  TempDir dir;
  for (eindecomp::DType dtype : {eindecomp::DType::F32, eindecomp::DType::F64}) {
    CAPTURE(eindecomp::dtypeName(dtype));
    eindecomp::Tensor t{dtype, {2, 2}, {0.5, -1.25, static_cast<double>(0.1f), 3}};
    const std::string path = dir.file("t.npy");
    writeBytes(path, eindecomp::encodeTensorNpy(t));
    const eindecomp::Tensor back = eindecomp::readTensorNpy(path, dtype, {2, 2});
    CHECK(back.dtype == dtype);
    CHECK(back.shape == t.shape);
    CHECK(back.values == t.values);
  }
}

TEST_CASE("npy: Fortran-order arrays are read in C order, every rank") {
  TempDir dir;
  const std::vector<std::vector<int64_t>> shapes = {{6}, {2, 3}, {3, 1, 2}, {2, 3, 4}, {1, 5}, {2, 2, 2, 3}};
  for (const auto& shape : shapes) {
    CAPTURE(einrt::npyShapeText(shape));
    // Element (i0, i1, ...) holds its C-order position; the file stores it in Fortran order.
    std::size_t count = 1;
    for (int64_t e : shape) count *= static_cast<std::size_t>(e);
    std::vector<double> c(count), f(count);
    for (std::size_t k = 0; k < count; ++k) c[k] = static_cast<double>(k);
    for (std::size_t k = 0; k < count; ++k) {
      std::size_t rest = k, offset = 0, stride = 1;
      std::vector<std::size_t> index(shape.size());
      for (std::size_t d = shape.size(); d-- > 0;) {
        index[d] = rest % static_cast<std::size_t>(shape[d]);
        rest /= static_cast<std::size_t>(shape[d]);
      }
      for (std::size_t d = 0; d < shape.size(); ++d) {
        offset += index[d] * stride;
        stride *= static_cast<std::size_t>(shape[d]);
      }
      f[offset] = c[k];
    }
    const std::string dict = "{'descr': '<f8', 'fortran_order': True, 'shape': " + einrt::npyShapeText(shape) + ", }";
    writeBytes(dir.file("f.npy"), rawNpy(1, dict, bytesOf(f)));
    CHECK(einrt::readNpy<double>(dir.file("f.npy"), shape) == c);
    CHECK(einrt::readNpyFile(dir.file("f.npy")).data == bytesOf(c));
  }
}

TEST_CASE("npy: the other float type is converted, with a note") {
  TempDir dir;
  const std::vector<double> d{0.5, -1.25, 1e300, 3};
  einrt::writeNpy<double>(dir.file("d.npy"), {2, 2}, d.data());
  std::string note;
  const std::vector<float> f = einrt::readNpy<float>(dir.file("d.npy"), {2, 2}, &note);
  CHECK(f[0] == 0.5f);
  CHECK(f[1] == -1.25f);
  CHECK(std::isinf(f[2]));
  CHECK(note == dir.file("d.npy") + ": float64 data converted to float32 (1 values beyond float32's range became infinite)");

  const std::vector<float> small{0.1f, 2.0f};
  einrt::writeNpy<float>(dir.file("f.npy"), {2}, small.data());
  note.clear();
  CHECK(einrt::readNpy<double>(dir.file("f.npy"), {2}, &note) == std::vector<double>{0.1f, 2.0f});
  CHECK(note == dir.file("f.npy") + ": float32 data converted to float64");
  note.clear();
  einrt::readNpy<float>(dir.file("f.npy"), {2}, &note);
  CHECK(note.empty());
}

TEST_CASE("npy: integers are read as floats where every value is exact, with a note") {
  TempDir dir;
  const std::vector<int64_t> mask{1, 1, 0, -7, 16777216, 0};
  writeBytes(dir.file("m.npy"), rawNpy(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }", bytesOf(mask)));
  std::string note;
  CHECK(einrt::readNpy<float>(dir.file("m.npy"), {2, 3}, &note) == std::vector<float>{1, 1, 0, -7, 16777216, 0});
  CHECK(note == dir.file("m.npy") + ": int64 data converted to float32 (every value exact)");
  CHECK(einrt::readNpy<double>(dir.file("m.npy"), {2, 3}, &note) == std::vector<double>{1, 1, 0, -7, 16777216, 0});
  // 257 has no bfloat16 (8 bits of mantissa): refused, never rounded.
  const std::vector<int32_t> wide{1, 257};
  writeBytes(dir.file("w.npy"), rawNpy(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", bytesOf(wide)));
  CHECK_THROWS_WITH_AS(einrt::readNpy<einrt::bf16>(dir.file("w.npy"), {2}, &note),
                       doctest::Contains("257 (element 1) has no exact bfloat16 value"), einrt::NpyError);
}

TEST_CASE("npy: only regular files are read; others are refused without blocking") {
  TempDir dir;
  fs::create_directory(dir.file("dir.npy"));
  REQUIRE(::mkfifo(dir.file("fifo.npy").c_str(), 0600) == 0);
  struct Row {
    const char* what;
    std::string path;
    const char* words;
  };
  const Row rows[] = {
      {"a directory", dir.file("dir.npy"), "is a directory, not a .npy file"},
      {"a FIFO without a writer", dir.file("fifo.npy"), "is a FIFO, not a .npy file"},
      {"an endless device", "/dev/zero", "is a character device, not a .npy file"},
  };
  for (const auto& r : rows) {
    CAPTURE(r.what);
    try {
      einrt::readNpy<float>(r.path, {2, 3});
      FAIL("no exception");
    } catch (const einrt::NpyError& e) {
      CHECK(std::string(e.what()) == r.path + ": " + r.words);
    }
    CHECK_THROWS_AS(einrt::readNpyFile(r.path), einrt::NpyError);
  }
}
