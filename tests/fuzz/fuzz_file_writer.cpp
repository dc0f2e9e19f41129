// libFuzzer harness for the one file writer (einrt/file_output.h) with file names and
// contents from the input: inside a private folder (mkdtemp), writeFile(name, bytes) must
// leave exactly the file `name` holding the bytes, and publishFiles must either refuse a
// name that is not a plain file name (FileError) or leave exactly the named files with
// their bytes — never a temporary or staging entry, never a file outside the folder.
// The input is "name\0bytes\0name\0bytes...": the first pair goes to writeFile, all pairs
// to publishFiles (a name given twice is refused too). Anything else (a crash, a
// sanitizer report, a wrong file) is a bug.
#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <einrt/file_output.h>

namespace fs = std::filesystem;

namespace {

std::string readAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool plainName(const std::string& n) { return !n.empty() && n != "." && n != ".." && n.find('/') == std::string::npos && n.find('\0') == std::string::npos; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  std::vector<std::string> parts{""};
  for (std::size_t i = 0; i < size && parts.size() < 16; ++i) {
    if (data[i] == 0) parts.emplace_back();
    else parts.back() += static_cast<char>(data[i]);
  }
  std::vector<std::pair<std::string, std::string>> files;
  for (std::size_t i = 0; i + 1 < parts.size(); i += 2) files.emplace_back(parts[i], parts[i + 1]);
  if (files.empty()) return 0;

  char pattern[] = "/tmp/fuzz_file_writer_XXXXXX";
  if (!mkdtemp(pattern)) return 0;
  const fs::path dir(pattern);
  std::error_code ec;

  // One file: a plain name (the harness never lets the input choose a folder).
  const std::string& name = files[0].first;
  if (plainName(name) && name.size() < 200) {
    einrt::writeFile((dir / name).string(), files[0].second);
    if (readAll(dir / name) != files[0].second) __builtin_trap();
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().filename() != name) __builtin_trap();  // a temporary was left behind
    fs::remove(dir / name, ec);
  }

  // A set of files.
  bool allPlain = true;  // and distinct: a name given twice is refused
  std::map<std::string, std::string> expected;
  for (const auto& [n, bytes] : files) {
    allPlain = allPlain && plainName(n) && n.size() < 200 && !expected.count(n);
    expected[n] = bytes;
  }
  try {
    const einrt::FolderLock lock(dir.string());
    einrt::publishFiles(lock, files);
    if (!allPlain) __builtin_trap();  // a non-plain name was accepted
    std::size_t entries = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
      ++entries;
      const auto it = expected.find(e.path().filename().string());
      if (it == expected.end() || readAll(e.path()) != it->second) __builtin_trap();
    }
    if (entries != expected.size()) __builtin_trap();
  } catch (const einrt::FileError&) {
    if (allPlain) __builtin_trap();  // plain names in a private folder must be written
    if (!fs::is_empty(dir, ec)) __builtin_trap();  // a refusal writes nothing
  }
  fs::remove_all(dir, ec);
  return 0;
}
