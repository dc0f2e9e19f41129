// Provenance stamped at the top of every emitted file (SPEC 5): the tool version, the
// command line that produced the file (made comment-safe), and the SHA-256 of the graph
// file's bytes (planner/report/sha256.h), so a program can always be traced back to its inputs.
#pragma once

#include <string>

namespace eindecomp::codegen {

struct Provenance {
  std::string toolVersion;
  std::string commandLine;  // already comment-safe (identifiers.h: commentSafe)
  std::string graphSha256;  // lowercase hex
};

}  // namespace eindecomp::codegen
