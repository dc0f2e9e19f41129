#include "cli/common/owned_folder.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <utility>
#include <vector>

#include "cli/common/output_folder.h"
#include "planner/graph/diagnostic.h"

namespace eindecomp::cli {

namespace fs = std::filesystem;

namespace {

// The file names an earlier write's marker lists (plain names only: the marker is a file
// in the user's folder, so nothing it says may point elsewhere).
std::set<std::string> earlierFiles(const fs::path& marker) {
  std::set<std::string> names;
  std::ifstream in(marker);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line == "." || line == ".." || line.find('/') != std::string::npos) continue;
    names.insert(line);
  }
  return names;
}

}  // namespace

void writeOwnedFolder(const std::string& folder, const std::map<std::string, std::string>& files,
                      const std::string& provenance, const OwnedFolder& how, bool force) {
  std::error_code ec;
  const fs::path dir(folder);
  const fs::path marker = dir / how.marker;
  // Everything below happens under the folder's lock: a second writer into the same folder
  // waits, then finds this one's files (and replaces them) — never a mix of the two.
  const FolderWrite write{how.option, how.what, how.keepUnchanged};
  const einrt::FolderLock lock = lockOutputFolder(folder, write);
  const bool ours = fs::is_regular_file(marker, ec) && !fs::is_symlink(marker, ec);
  bool empty = true;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    // Staging folders of earlier versions' killed runs are nobody's files.
    if (entry.path().filename().string().rfind(".einplan-partial-", 0) == 0) {
      fs::remove_all(entry.path(), ec);
      continue;
    }
    empty = false;
  }
  if (!ours && !force && !empty)
    throw InputError({{folder, 0, 0}, how.option + ": the folder is not empty and holds nothing " + how.tool +
                                          " wrote (no " + how.marker + " file); choose an empty or new folder, or pass "
                                          "--force to write " + how.what + " into it"});
  const std::set<std::string> before = ours ? earlierFiles(marker) : std::set<std::string>{};
  if (ours && !force)
    for (const auto& entry : files) {
      const fs::path path = dir / entry.first;
      if (!before.count(entry.first) && fs::symlink_status(path, ec).type() != fs::file_type::not_found)
        throw InputError({{path.string(), 0, 0}, how.option + ": this file is not one " + how.tool +
                                                     " wrote here, and writing " + how.what + " would replace it; move it "
                                                     "away, or pass --force to replace it"});
    }

  std::string listing = "# " + provenance + "\n# the files " + how.tool + " wrote here; it rewrites them without --force\n";
  std::vector<std::pair<std::string, std::string>> all;
  for (const auto& [name, contents] : files) {
    listing += name + "\n";
    all.emplace_back(name, contents);
  }
  all.emplace_back(how.marker, listing);
  writeFilesIntoFolder(lock, all, write);
  for (const std::string& old : before)
    if (!files.count(old) && fs::is_regular_file(dir / old, ec) && !fs::is_symlink(dir / old, ec)) fs::remove(dir / old, ec);
}

}  // namespace eindecomp::cli
