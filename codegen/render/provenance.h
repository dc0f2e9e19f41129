// Provenance stamped at the top of every emitted file (SPEC 5): the tool version, the
// command line that produced the file (made comment-safe), and the SHA-256 of the graph
// file's bytes, so a program can always be traced back to its inputs.
#pragma once

#include <string>

namespace eindecomp::codegen {

struct Provenance {
  std::string toolVersion;
  std::string commandLine;  // already comment-safe (identifiers.h: commentSafe)
  std::string graphSha256;  // lowercase hex
};

// Lowercase hex SHA-256 of `bytes` (OpenSSL EVP).
std::string sha256Hex(const std::string& bytes);

}  // namespace eindecomp::codegen
