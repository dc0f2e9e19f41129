#include "planner/graph/input_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "planner/graph/diagnostic.h"

namespace eindecomp {

namespace {

const char* kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string readLimited(std::FILE* f, const std::string& path, const std::string& what, int64_t limit) {
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const std::size_t n = std::fread(buffer, 1, sizeof buffer, f);
    text.append(buffer, n);
    if (static_cast<int64_t>(text.size()) > limit)
      throw InputError({{path, 0, 0}, "the " + what + " is larger than the limit of " + std::to_string(limit >> 20) +
                                          " MiB (docs/hardening.md)"});
    if (n < sizeof buffer) break;
  }
  if (std::ferror(f)) throw InputError({{path, 0, 0}, "cannot read the " + what + ": " + std::strerror(errno)});
  return text;
}

}  // namespace

std::string readInputFile(const std::string& path, const std::string& what, int64_t limit) {
  if (path == "-") return readLimited(stdin, "-", what, limit);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw InputError({{path, 0, 0}, "cannot open the " + what + ": " + std::strerror(errno)});
  if (!S_ISREG(st.st_mode))
    throw InputError({{path, 0, 0}, "is " + std::string(kindOf(st.st_mode)) + ", not a " + what +
                                        " (give a regular file, or - for standard input)"});
  if (static_cast<int64_t>(st.st_size) > limit)
    throw InputError({{path, 0, 0}, "the " + what + " is larger than the limit of " + std::to_string(limit >> 20) +
                                        " MiB (docs/hardening.md)"});
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw InputError({{path, 0, 0}, "cannot open the " + what + ": " + std::strerror(errno)});
  return readLimited(f.get(), path, what, limit);
}

}  // namespace eindecomp
