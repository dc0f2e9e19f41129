// Where eincodegen writes a project (`-o DIR`), and the rules that keep it from harming a
// user's files. The project is written whole or not at all (cli/common/output_folder.h:
// staged, then renamed; a failure leaves DIR as it was). DIR may be missing, empty, or a
// project eincodegen wrote before — recognised by its `.eincodegen` file, which lists the
// files it wrote; anything else (a non-empty folder of the user's) is refused unless
// `--force`. Files of an earlier generation that this one no longer writes (say
// program_cuda.cu after `--backend both` became `cpu`) are removed; nothing else is.
#pragma once

#include <map>
#include <string>

namespace eindecomp::cli {

inline constexpr const char* kProjectMarker = ".eincodegen";

// `files`: name -> contents, the marker added here. `provenance`: a line for the marker.
void writeProject(const std::string& folder, const std::map<std::string, std::string>& files, const std::string& provenance,
                  bool force);

}  // namespace eindecomp::cli
