// SHA-256 (FIPS 180-4) of a byte string, as 64 lowercase hex digits. Plan files and
// reports record the hash of the graph file they were made from (provenance, SPEC 5),
// so a plan can be matched with its graph; emitted programs stamp the same hash. OpenSSL's
// EVP digest (a well-kept library rather than our own), checked against the NIST vectors.
#pragma once

#include <string>

namespace eindecomp {

std::string sha256Hex(const std::string& bytes);

}  // namespace eindecomp
