// Writing a set of files into a folder all or nothing (`einplan eval --outputs DIR`): the
// files are first written into a staging folder inside DIR (same file system), and only
// when every one is complete are they renamed to their names. A failure on the way — a
// full disk, a file-size limit, a permission — removes the staging folder (and DIR and
// its parents where this call created them), so no NAME.npy of a failed run is left behind
// and files of an earlier run keep their contents. Errors are InputErrors (exit 2)
// naming the file and the reason.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace eindecomp::cli {

struct FolderWrite {
  std::string option;          // names the folder in messages ("--outputs")
  std::string what;            // what the folder is for, in messages ("one NAME.npy per output")
  bool keepUnchanged = false;  // a file already holding exactly its new contents is left alone
                               // (its timestamp kept, so `make` rebuilds only what changed)
};

// `files`: (name inside `folder`, contents).
void writeFilesIntoFolder(const std::string& folder, const std::vector<std::pair<std::string, std::string>>& files,
                          const FolderWrite& how);

}  // namespace eindecomp::cli
