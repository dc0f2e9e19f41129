// Where an eincodegen finds what belongs to it: the templates it renders and the einrt
// package config recorded in emitted build files. An installed eincodegen
// (PREFIX/bin/eincodegen) uses PREFIX/share/eindecomp/templates and
// PREFIX/lib/cmake/einrt; one run from the build tree uses the source tree's templates/
// and the build tree's runtime/ (both fixed when eincodegen was configured).
#pragma once

#include <string>

namespace eindecomp::codegen {

struct ToolLocations {
  std::string templateDir;
  std::string einrtDir;
};

// Resolves the locations relative to the running executable (/proc/self/exe).
ToolLocations locateToolFiles();

}  // namespace eindecomp::codegen
