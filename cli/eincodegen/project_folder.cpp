#include "cli/eincodegen/project_folder.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/common/output_folder.h"
#include "planner/graph/diagnostic.h"

namespace eindecomp::cli {

namespace fs = std::filesystem;

namespace {

// The file names an earlier generation's marker lists (plain names only: the marker is
// a file in the user's folder, so nothing it says may point elsewhere).
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

void writeProject(const std::string& folder, const std::map<std::string, std::string>& files, const std::string& provenance,
                  bool force) {
  std::error_code ec;
  const fs::path dir(folder);
  const fs::path marker = dir / kProjectMarker;
  // The emitted Makefile single-quotes every path for the shell, so a folder named
  // 'q $(touch X)' runs nothing; but CMake, which builds the project, fails on some bytes
  // in its own paths ($ % " ; \ ? | : break its MPI probe, its generated Makefiles or the
  // link line; docs/hardening.md) and a control character would end a Makefile line.
  // Such a folder is refused now (exit 2) rather than failing at make time.
  const std::string absolute = fs::absolute(dir, ec).string();
  for (const unsigned char c : absolute) {
    if (c < 0x20 || c == 0x7f)
      throw InputError({{folder, 0, 0}, "-o: the folder's path holds a control character, which the emitted Makefile "
                                        "cannot quote; choose a folder name without one"});
    if (std::string_view("$%\";\\?|:").find(static_cast<char>(c)) != std::string_view::npos)
      throw InputError({{folder, 0, 0}, std::string("-o: the folder's path holds '") + static_cast<char>(c) +
                                            "', which CMake cannot build in (it fails on $ % \" ; \\ ? | : in its paths); "
                                            "spaces, quotes ', backticks, # and brackets are fine"});
  }
  // Everything below happens under the folder's lock: a second eincodegen into the same
  // folder waits, then finds this project (and replaces it) — never a mix of the two.
  const FolderWrite how{"-o", "the project", true};
  const einrt::FolderLock lock = lockOutputFolder(folder, how);
  const bool ours = fs::is_regular_file(marker, ec) && !fs::is_symlink(marker, ec);
  bool empty = true;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    // Staging folders of earlier versions' killed runs are no project of anyone's.
    if (entry.path().filename().string().rfind(".einplan-partial-", 0) == 0) {
      fs::remove_all(entry.path(), ec);
      continue;
    }
    empty = false;
  }
  if (!ours && !force && !empty)
    throw InputError({{folder, 0, 0},
                      "-o: the folder is not empty and holds no project eincodegen wrote (no " + std::string(kProjectMarker) +
                          " file); choose an empty or new folder, or pass --force to write the project into it"});
  const std::set<std::string> before = ours ? earlierFiles(marker) : std::set<std::string>{};

  std::string listing = "# " + provenance + "\n# the files eincodegen wrote here; it rewrites this folder without --force\n";
  std::vector<std::pair<std::string, std::string>> all;
  for (const auto& [name, contents] : files) {
    listing += name + "\n";
    all.emplace_back(name, contents);
  }
  all.emplace_back(kProjectMarker, listing);
  writeFilesIntoFolder(lock, all, how);
  for (const std::string& old : before)
    if (!files.count(old) && fs::is_regular_file(dir / old, ec) && !fs::is_symlink(dir / old, ec)) fs::remove(dir / old, ec);
}

}  // namespace eindecomp::cli
