#include "planner/graph/diagnostic.h"

#include "planner/graph/excerpt.h"

namespace eindecomp {

Diagnostic boundedDiagnostic(Diagnostic d) {
  d.loc.file = boundedMessage(d.loc.file);
  d.message = boundedMessage(d.message);
  return d;
}

std::string formatDiagnostic(const Diagnostic& original) {
  const Diagnostic d = boundedDiagnostic(original);
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
