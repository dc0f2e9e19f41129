// The one way every file of the toolchain is written (SPEC 10): einplan's and
// eincodegen's outputs, emitted programs' reports and .npy outputs, einrt-calibrate's
// machine files. Header-only (POSIX), so the planner's tools use it without linking MPI.
//
//   writeFile(path, bytes)  one file, whole or not at all. A regular file (or none) is
//     replaced atomically: the bytes go to a temporary that mkstemp creates (O_EXCL: it
//     never follows or reuses a planted name) beside the target, are flushed and synced,
//     and the temporary is renamed over the target (keeping an existing file's mode). A
//     symbolic link is written through: its final target is replaced as above, the link
//     stays. A FIFO or a character device (a pipe to a reader, /dev/null, a terminal) is
//     written in place, never replaced. A socket, a block device or a directory is refused.
//   FolderLock + publishFiles  a set of files (a program's --outputs, eincodegen's
//     project): the folder (made if missing) is locked with flock, so concurrent writers
//     take turns; the files are written into a private staging folder made by mkdtemp
//     inside it and renamed into place one by one; staging folders left by killed runs
//     are removed by the next writer that holds the lock.
//   prepareOutputFolder(folder)  makes the folder and checks, before any work, that a
//     file can be created there (with a mkstemp name, removed at once).
// Failures throw FileError naming the path and the reason; nothing half-written stays.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace einrt {

class FileError : public std::runtime_error {
 public:
  FileError(std::string path, const std::string& reason)
      : std::runtime_error(path + ": " + reason), path_(std::move(path)), reason_(reason) {}
  const std::string& path() const { return path_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string path_, reason_;
};

namespace file_detail {

inline std::string errnoText(int e) { return std::strerror(e ? e : EIO); }

// Writes all of `bytes` to `fd`; errno's text on failure, else "".
inline std::string writeAll(int fd, std::string_view bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errnoText(errno);
    }
    done += static_cast<std::size_t>(n);
  }
  return "";
}

inline std::string folderOf(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

// The temporary beside `target`: ".NAME.XXXXXX" made by mkstemp (0600). Returns the fd.
inline int makeTemporary(const std::string& target, std::string& name) {
  const std::filesystem::path t(target);
  std::string pattern = (t.parent_path() / ("." + t.filename().string() + ".XXXXXX")).string();
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  const int fd = ::mkstemp(buffer.data());
  if (fd >= 0) name.assign(buffer.data());
  return fd;
}

inline mode_t defaultMode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

// A regular file (or none) at `path`, replaced atomically.
inline void replaceRegular(const std::string& path, std::string_view bytes, std::optional<mode_t> mode) {
  std::string temporary;
  const int fd = makeTemporary(path, temporary);
  if (fd < 0) throw FileError(path, "cannot create a file in its folder: " + errnoText(errno));
  std::string problem = writeAll(fd, bytes);
  if (problem.empty() && ::fchmod(fd, mode ? *mode : defaultMode()) != 0) problem = errnoText(errno);
  if (problem.empty() && ::fsync(fd) != 0) problem = errnoText(errno);
  if (::close(fd) != 0 && problem.empty()) problem = errnoText(errno);
  if (problem.empty() && ::rename(temporary.c_str(), path.c_str()) != 0) problem = errnoText(errno);
  if (!problem.empty()) {
    ::unlink(temporary.c_str());
    throw FileError(path, "cannot write: " + problem + " (nothing was written)");
  }
}

// A FIFO or a character device: written in place (a reader gets the bytes).
inline void writeInPlace(const std::string& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw FileError(path, "cannot open for writing: " + errnoText(errno));
  std::string problem = writeAll(fd, bytes);
  if (::close(fd) != 0 && problem.empty()) problem = errnoText(errno);
  if (!problem.empty()) throw FileError(path, "cannot write: " + problem);
}

}  // namespace file_detail

namespace file_detail {

// The path a write goes to: `path`, or the final target where it is a symbolic link.
inline std::string linkTarget(const std::string& path, const char* consequence) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
  std::error_code ec;
  const std::filesystem::path resolved = std::filesystem::canonical(path, ec);
  if (ec) throw FileError(path, "a symbolic link whose target cannot be reached (" + ec.message() + ")" + consequence);
  return resolved.string();
}

}  // namespace file_detail

inline void writeFile(const std::string& path, std::string_view bytes) {
  if (path.empty()) throw FileError(path, "no file name");
  const std::string target = file_detail::linkTarget(path, "; nothing was written");
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) {
    if (errno != ENOENT) throw FileError(path, "cannot write: " + file_detail::errnoText(errno));
    return file_detail::replaceRegular(target, bytes, std::nullopt);
  }
  if (S_ISREG(st.st_mode)) return file_detail::replaceRegular(target, bytes, st.st_mode & 07777);
  if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) return file_detail::writeInPlace(target, bytes);
  if (S_ISDIR(st.st_mode)) throw FileError(path, "is a folder, not a file");
  throw FileError(path, "is a socket or a block device; refusing to write there");
}

// Checks, before any work, that writeFile(path, ...) can succeed: a new or regular file in
// a folder where a file can be created, a link whose target can be reached, a character
// device other than /dev/full, a FIFO (held open where a reader is there already, so the
// reader waits for the output). Returns a warning for a FIFO no process reads yet (the
// write will wait for one), else "". Throws FileError otherwise.
inline std::string checkWritable(const std::string& path) {
  if (path.empty()) throw FileError(path, "no file name");
  const std::string target = file_detail::linkTarget(path, "");
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw FileError(path, "is a folder, not a file");
    if (S_ISCHR(st.st_mode)) {
      if (major(st.st_rdev) == 1 && minor(st.st_rdev) == 7) throw FileError(path, "is /dev/full: every write there fails");
      return "";
    }
    if (S_ISFIFO(st.st_mode)) {
      // A reader is there: the descriptor stays open until the process ends, since closing
      // it would hand the reader an end of file before the output is written.
      const int fd = ::open(target.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (fd >= 0) {
        static std::vector<int> held;
        held.push_back(fd);
        return "";
      }
      if (errno == ENXIO) return "no process reads this FIFO yet; the output waits for a reader when it is written";
      throw FileError(path, "cannot open for writing: " + file_detail::errnoText(errno));
    }
    if (!S_ISREG(st.st_mode)) throw FileError(path, "is a socket or a block device; refusing to write there");
  } else if (errno != ENOENT) {
    throw FileError(path, "cannot write: " + file_detail::errnoText(errno));
  }
  const std::string folder = file_detail::folderOf(target);
  if (!std::filesystem::is_directory(folder)) throw FileError(path, "its folder " + folder + " does not exist");
  std::string probe;
  const int fd = file_detail::makeTemporary(target, probe);
  if (fd < 0) throw FileError(path, "cannot write in its folder: " + file_detail::errnoText(errno));
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

inline void prepareOutputFolder(const std::string& folder) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec || !std::filesystem::is_directory(folder))
    throw FileError(folder, "cannot create the folder" + (ec ? ": " + ec.message() : std::string()));
  std::string probe;
  const int fd = file_detail::makeTemporary((std::filesystem::path(folder) / "probe").string(), probe);
  if (fd < 0) throw FileError(folder, "cannot write there: " + file_detail::errnoText(errno));
  ::close(fd);
  ::unlink(probe.c_str());
}

// The prefix of staging folders; a writer holding the lock removes every such folder.
inline constexpr const char* kStagingPrefix = ".einrt-staging-";

// An exclusive lock on a folder (made if missing, parents too) for as long as it lives.
class FolderLock {
 public:
  explicit FolderLock(const std::string& folder) : folder_(folder) {
    // Made here, parents first; a folder counts as this lock's only where its own mkdir
    // made it (another writer's, made a moment earlier, is never removed by this one).
    std::error_code ec;
    std::vector<std::filesystem::path> missing;
    for (std::filesystem::path p = std::filesystem::absolute(folder, ec); !p.empty() && !std::filesystem::exists(p, ec);
         p = p.parent_path()) {
      missing.push_back(p);
      if (p == p.parent_path()) break;
    }
    for (auto it = missing.rbegin(); it != missing.rend(); ++it)
      if (::mkdir(it->c_str(), 0777) == 0) created_.insert(created_.begin(), *it);
    fd_ = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0) throw FileError(folder, "cannot create or open the folder: " + file_detail::errnoText(errno));
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd_);
      throw FileError(folder, "cannot lock the folder: " + file_detail::errnoText(e));
    }
    removeStaleStaging();
  }
  ~FolderLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

  const std::string& folder() const { return folder_; }
  // Folders this lock made (deepest first): removed again by a writer that fails.
  const std::vector<std::filesystem::path>& created() const { return created_; }

 private:
  void removeStaleStaging() {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(folder_, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind(kStagingPrefix, 0) == 0 && entry.is_directory(ec) && !entry.is_symlink(ec))
        std::filesystem::remove_all(entry.path(), ec);
    }
  }
  std::string folder_;
  std::vector<std::filesystem::path> created_;
  int fd_ = -1;
};

struct PublishOptions {
  bool keepUnchanged = false;  // a file already holding exactly its new bytes is left alone (its date too)
};

// `files`: (plain name inside the folder, bytes). Each lands whole; on a failure before
// the renames nothing changes in the folder (and folders the lock made are removed).
inline void publishFiles(const FolderLock& lock, const std::vector<std::pair<std::string, std::string>>& files,
                         const PublishOptions& options = {}) {
  namespace fs = std::filesystem;
  const fs::path folder(lock.folder());
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string& name = files[i].first;
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos || name.find('\0') != std::string::npos)
      throw FileError((folder / name).string(), "not a plain file name");
    for (std::size_t j = 0; j < i; ++j)
      if (files[j].first == name) throw FileError((folder / name).string(), "named twice in one set of files");
  }
  std::string pattern = (folder / (std::string(kStagingPrefix) + "XXXXXX")).string();
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (!::mkdtemp(buffer.data())) throw FileError(lock.folder(), "cannot write into the folder: " + file_detail::errnoText(errno));
  const fs::path staging(buffer.data());
  struct Cleanup {
    const FolderLock& lock;
    fs::path staging;
    bool done = false;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(staging, ec);
      if (done) return;
      for (const fs::path& p : lock.created())
        if (fs::is_empty(p, ec)) fs::remove(p, ec);
    }
  } cleanup{lock, staging};
  std::vector<bool> unchanged(files.size(), false);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& [name, bytes] = files[i];
    const fs::path target = folder / name;
    if (options.keepUnchanged) {
      std::error_code ec;
      if (fs::is_regular_file(target, ec) && !fs::is_symlink(target, ec) && fs::file_size(target, ec) == bytes.size()) {
        std::string old(bytes.size(), '\0');
        const int fd = ::open(target.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd >= 0) {
          std::size_t got = 0;
          while (got < old.size()) {
            const ssize_t n = ::read(fd, old.data() + got, old.size() - got);
            if (n <= 0) break;
            got += static_cast<std::size_t>(n);
          }
          ::close(fd);
          unchanged[i] = got == old.size() && old == bytes;
        }
      }
      if (unchanged[i]) continue;
    }
    const int fd = ::open((staging / name).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, file_detail::defaultMode());
    if (fd < 0) throw FileError(target.string(), "cannot write: " + file_detail::errnoText(errno) + "; no file of this run was written");
    std::string problem = file_detail::writeAll(fd, bytes);
    if (problem.empty() && ::fsync(fd) != 0) problem = file_detail::errnoText(errno);
    if (::close(fd) != 0 && problem.empty()) problem = file_detail::errnoText(errno);
    if (!problem.empty()) throw FileError(target.string(), "cannot write: " + problem + "; no file of this run was written");
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (unchanged[i]) continue;
    const fs::path target = folder / files[i].first;
    struct stat st {};
    if (::lstat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
      // A link, FIFO or device planted where an output goes: written through, never replaced.
      writeFile(target.string(), files[i].second);
      continue;
    }
    if (::rename((staging / files[i].first).c_str(), target.c_str()) != 0)
      throw FileError(target.string(), "cannot write: " + file_detail::errnoText(errno));
  }
  cleanup.done = true;
}

}  // namespace einrt
