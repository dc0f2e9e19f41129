#include "cli/eincodegen/project_folder.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
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
  const bool exists = fs::exists(dir, ec);
  if (exists && !fs::is_directory(dir, ec)) throw InputError({{folder, 0, 0}, "-o: not a folder"});
  const bool ours = exists && fs::is_regular_file(marker, ec);
  if (exists && !ours && !force && !fs::is_empty(dir, ec))
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
  writeFilesIntoFolder(folder, all, {"-o", "the project", true});
  for (const std::string& old : before)
    if (!files.count(old) && fs::is_regular_file(dir / old, ec)) fs::remove(dir / old, ec);
}

}  // namespace eindecomp::cli
