#include "planner/graph/diagnostic.h"

namespace eindecomp {

std::string formatDiagnostic(const Diagnostic& d) {
  std::string out;
  if (!d.loc.file.empty()) {
    out += d.loc.file;
    if (d.loc.line > 0) {
      out += ":" + std::to_string(d.loc.line);
      if (d.loc.col > 0) out += ":" + std::to_string(d.loc.col);
    }
    out += ": ";
  }
  out += "error: " + d.message;
  return out;
}

}  // namespace eindecomp
