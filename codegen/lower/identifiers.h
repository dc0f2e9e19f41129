// Identifier hygiene for emitted source. Names and labels from a graph file reach the
// emitted program (as C++ identifiers, string literals, file names and comments), so the
// code generator re-checks every one of them with the SPEC 1 rule
// `[A-Za-z_][A-Za-z0-9_]*`, at most 64 characters, before anything is written — it does
// not trust that the loader ran. Internal names made by the path splitter (`NODE.1`,
// `NODE.1.2`) are accepted in the form "valid name followed by .DIGITS groups" and mapped
// to C++ identifiers deterministically by `cppIdentifier`.
#pragma once

#include <string>

#include "planner/graph/graph.h"

namespace eindecomp::codegen {

// True when `s` satisfies the SPEC 1 identifier rule.
bool isValidIdentifier(const std::string& s);

// True for a valid identifier or a splitter-made internal name such as `ABC.1.2`.
bool isValidInternalName(const std::string& s);

// Throws InputError (exit 2) naming the graph file, the place of the offending tensor,
// node or label, and the field, when any name in `g` would be unsafe in emitted source.
void validateGraphForCodegen(const Graph& g);

// A C++ identifier for the tensor or node at position `index` of the emitted tables:
// "t<index>_" followed by the name with every '.' replaced by '_'. The index prefix keeps
// identifiers unique even when two names differ only by '.' vs '_'.
std::string cppIdentifier(int index, const std::string& name);

// Text quoted into the emitted files, made safe for where it goes:
// a one-line comment (C++, CMake, Makefile): every byte outside printable ASCII, and
// every backslash (a line splice or a continued Makefile comment), becomes '?';
std::string commentSafe(const std::string& text);
// an HTML comment (the README's provenance): also no "--", which could end it;
std::string htmlCommentSafe(const std::string& text);
// a Markdown table cell: also '|' escaped;
std::string markdownCellSafe(const std::string& text);
// a CMake quoted string: '\', '"' and '$' escaped.
std::string cmakeStringSafe(const std::string& text);

// Names the emitted project's program must not have: its build targets and files
// (all, clean, install, test, build, Makefile, ...), compared without case.
bool isReservedProgramName(const std::string& name);

}  // namespace eindecomp::codegen
