#include "cli/common/output_folder.h"

#include <filesystem>

#include "planner/graph/diagnostic.h"

namespace eindecomp::cli {

einrt::FolderLock lockOutputFolder(const std::string& folder, const FolderWrite& how) {
  if (folder == "-") throw InputError({{}, how.option + ": '-' is not a folder; give the folder to write " + how.what + " into"});
  std::error_code ec;
  if (std::filesystem::exists(folder, ec) && !std::filesystem::is_directory(folder, ec))
    throw InputError({{folder, 0, 0}, how.option + ": not a folder"});
  try {
    return einrt::FolderLock(folder);
  } catch (const einrt::FileError& e) {
    throw InputError({{e.path(), 0, 0}, how.option + ": " + e.reason()});
  }
}

void writeFilesIntoFolder(const einrt::FolderLock& lock, const std::vector<std::pair<std::string, std::string>>& files,
                          const FolderWrite& how) {
  try {
    einrt::publishFiles(lock, files, {how.keepUnchanged});
  } catch (const einrt::FileError& e) {
    throw InputError({{e.path(), 0, 0}, e.reason()});
  }
}

void writeFilesIntoFolder(const std::string& folder, const std::vector<std::pair<std::string, std::string>>& files,
                          const FolderWrite& how) {
  const einrt::FolderLock lock = lockOutputFolder(folder, how);
  writeFilesIntoFolder(lock, files, how);
}

}  // namespace eindecomp::cli
