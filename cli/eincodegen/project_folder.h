// Where eincodegen writes a project (`-o DIR`): a folder eincodegen owns, by the rules of
// cli/common/owned_folder.h (whole or nothing; a non-empty folder it did not write is
// refused without `--force`; files of an earlier generation it no longer writes, say
// program_cuda.cu after `--backend both` became `cpu`, are removed), and a path CMake can
// build in.
#pragma once

#include <map>
#include <string>

namespace eindecomp::cli {

inline constexpr const char* kProjectMarker = ".eincodegen";

// `files`: name -> contents, the marker added here. `provenance`: a line for the marker.
void writeProject(const std::string& folder, const std::map<std::string, std::string>& files, const std::string& provenance,
                  bool force);

}  // namespace eindecomp::cli
