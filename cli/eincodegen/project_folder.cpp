#include "cli/eincodegen/project_folder.h"

#include <filesystem>
#include <string_view>

#include "cli/common/owned_folder.h"
#include "planner/graph/diagnostic.h"

namespace eindecomp::cli {

namespace fs = std::filesystem;

void writeProject(const std::string& folder, const std::map<std::string, std::string>& files, const std::string& provenance,
                  bool force) {
  std::error_code ec;
  const fs::path dir(folder);
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
  writeOwnedFolder(folder, files, provenance, {"-o", "the project", "eincodegen", kProjectMarker, true}, force);
}

}  // namespace eindecomp::cli
