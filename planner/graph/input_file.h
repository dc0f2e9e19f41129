// Reading the text files the tools take (graphs, plans, machine files, baselines): "-" is
// standard input; anything else must be a regular file. A directory, FIFO, device or
// socket is refused before it is opened (opening a FIFO without a writer would block,
// /dev/zero never ends), and no file may exceed kMaxInputFileBytes: reading stops one
// byte past the limit. Problems are InputErrors (exit 2) naming the file.
#pragma once

#include <cstdint>
#include <string>

namespace eindecomp {

// 256 MiB: a 100,000-node graph file is about 10 MB.
inline constexpr int64_t kMaxInputFileBytes = int64_t{256} << 20;

// `what` names the kind of file in messages ("graph file", "plan file", ...).
std::string readInputFile(const std::string& path, const std::string& what, int64_t limit = kMaxInputFileBytes);

}  // namespace eindecomp
