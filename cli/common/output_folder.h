// Writing a set of files into a folder all or nothing (`einplan eval --outputs DIR`,
// eincodegen's project) through einrt's one file writer (einrt/file_output.h): the folder
// is locked (concurrent runs take turns), the files are staged in a private folder inside
// it and renamed into place; a failure on the way — a full disk, a file-size limit, a
// permission — leaves no file of the failed run behind (nor the folders it created), and
// files of an earlier run keep their contents. Errors are InputErrors (exit 2) naming the
// file and the reason.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <einrt/file_output.h>

namespace eindecomp::cli {

struct FolderWrite {
  std::string option;          // names the folder in messages ("--outputs")
  std::string what;            // what the folder is for, in messages ("one NAME.npy per output")
  bool keepUnchanged = false;  // a file already holding exactly its new contents is left alone
                               // (its timestamp kept, so `make` rebuilds only what changed)
};

// Locks `folder` (made if missing) for a writer that looks at it before writing;
// InputError naming the option when it cannot.
einrt::FolderLock lockOutputFolder(const std::string& folder, const FolderWrite& how);

// `files`: (name inside the locked folder, contents).
void writeFilesIntoFolder(const einrt::FolderLock& lock, const std::vector<std::pair<std::string, std::string>>& files,
                          const FolderWrite& how);

// The same, locking `folder` for the write.
void writeFilesIntoFolder(const std::string& folder, const std::vector<std::pair<std::string, std::string>>& files,
                          const FolderWrite& how);

}  // namespace eindecomp::cli
