// Diagnostics: every problem with user input is described by a Diagnostic carrying its
// place (file, line, column) and thrown as an InputError where it is found. The CLI
// catches it once, prints `FILE:LINE:COL: error: WHAT` and exits with the error's code
// (2 for bad input, 3 when no plan satisfies the constraints). Line and column are
// 1-based; 0 means "unknown" and is left out of the printed form. The file name and the
// message are bounded and made valid UTF-8 (planner/graph/excerpt.h) when the error is
// made, so no diagnostic echoes more than a bounded excerpt of its input.
#pragma once

#include <stdexcept>
#include <new>
#include <string>
#include <utility>

namespace eindecomp {

struct SourceLoc {
  std::string file;
  int line = 0;
  int col = 0;
};

struct Diagnostic {
  SourceLoc loc;
  std::string message;
};

// Exit codes shared by every command (SPEC 5).
enum ExitCode : int {
  kExitOk = 0,
  kExitFailedCheck = 1,
  kExitOutOfMemory = 1,  // an allocation refused (docs/hardening.md): nothing was written
  kExitBadInput = 2,
  kExitNoPlan = 3,
};

// Runs `body`, turning std::bad_alloc into "FILE: error: out of memory while PHASE"
// (exit 1): an allocation failure names what the command was doing and with which file.
template <class Body>
auto whileDoing(const std::string& phase, const std::string& file, Body body) -> decltype(body());

// Formats `FILE:LINE:COL: error: WHAT`, dropping the parts that are unknown; file name
// and message bounded and valid UTF-8.
std::string formatDiagnostic(const Diagnostic& d);

// `d` with its file name and message bounded and valid UTF-8.
Diagnostic boundedDiagnostic(Diagnostic d);

class InputError : public std::runtime_error {
 public:
  InputError(Diagnostic d, int exitCode = kExitBadInput)
      : std::runtime_error(formatDiagnostic(d)), diag_(boundedDiagnostic(std::move(d))), exitCode_(exitCode) {}
  const Diagnostic& diagnostic() const { return diag_; }
  int exitCode() const { return exitCode_; }

 private:
  Diagnostic diag_;
  int exitCode_;
};

template <class Body>
auto whileDoing(const std::string& phase, const std::string& file, Body body) -> decltype(body()) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    throw InputError({{file, 0, 0}, "out of memory while " + phase + " (an allocation was refused: the machine's memory "
                                    "or an address-space limit); nothing was written"},
                     kExitOutOfMemory);
  }
}

}  // namespace eindecomp
