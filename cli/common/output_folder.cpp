#include "cli/common/output_folder.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <memory>
#include <system_error>
#include <vector>

#include "planner/graph/diagnostic.h"

namespace eindecomp::cli {

namespace fs = std::filesystem;

namespace {

// Writes `contents` to `path`; the reason (strerror) when it could not, else "".
std::string writeWhole(const fs::path& path, const std::string& contents) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return std::strerror(errno);
  errno = 0;
  const std::size_t written = std::fwrite(contents.data(), 1, contents.size(), f);
  const int writeErrno = errno;
  const bool closed = std::fclose(f) == 0;
  if (written != contents.size()) return std::strerror(writeErrno ? writeErrno : EIO);
  if (!closed) return std::strerror(errno ? errno : EIO);
  return "";
}

// The whole contents of a regular file, or nothing.
std::optional<std::string> readWholeFile(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The folders create_directories(folder) will make: `folder` and its missing parents,
// deepest first.
std::vector<fs::path> missingFolders(const fs::path& folder) {
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path p = fs::absolute(folder, ec); !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  return missing;
}

// Removes the staging folder, and on failure the folders this run created if they are
// empty, whatever happens in between.
class Cleanup {
 public:
  Cleanup(fs::path staging, std::vector<fs::path> created) : staging_(std::move(staging)), created_(std::move(created)) {}
  ~Cleanup() {
    std::error_code ec;
    fs::remove_all(staging_, ec);
    if (done_) return;
    for (const fs::path& p : created_)
      if (fs::is_empty(p, ec)) fs::remove(p, ec);
  }
  void succeeded() { done_ = true; }

 private:
  fs::path staging_;
  std::vector<fs::path> created_;
  bool done_ = false;
};

}  // namespace

void writeFilesIntoFolder(const std::string& folder, const std::vector<std::pair<std::string, std::string>>& files,
                          const FolderWrite& how) {
  const std::string& option = how.option;
  if (folder == "-") throw InputError({{}, option + ": '-' is not a folder; give the folder to write " + how.what + " into"});
  std::error_code ec;
  const std::vector<fs::path> created = missingFolders(folder);
  fs::create_directories(folder, ec);
  if (ec || !fs::is_directory(folder))
    throw InputError({{folder, 0, 0}, "cannot create the " + option + " directory" + (ec ? ": " + ec.message() : "")});
  const fs::path staging = fs::path(folder) / (".einplan-partial-" + std::to_string(::getpid()));
  fs::remove_all(staging, ec);
  if (!fs::create_directory(staging, ec))
    throw InputError({{folder, 0, 0}, "cannot write into the " + option + " directory" + (ec ? ": " + ec.message() : "")});
  Cleanup cleanup(staging, created);
  std::vector<bool> unchanged(files.size(), false);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& [name, contents] = files[i];
    if (how.keepUnchanged) {
      unchanged[i] = readWholeFile(fs::path(folder) / name) == contents;
      if (unchanged[i]) continue;
    }
    const std::string problem = writeWhole(staging / name, contents);
    if (!problem.empty())
      throw InputError({{(fs::path(folder) / name).string(), 0, 0},
                        "cannot write: " + problem + "; no output file of this run was written"});
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (unchanged[i]) continue;
    const std::string& name = files[i].first;
    fs::rename(staging / name, fs::path(folder) / name, ec);
    if (ec) throw InputError({{(fs::path(folder) / name).string(), 0, 0}, "cannot write: " + ec.message()});
  }
  cleanup.succeeded();
}

}  // namespace eindecomp::cli
