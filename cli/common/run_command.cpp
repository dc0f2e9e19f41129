#include "cli/common/run_command.h"

#include <einrt/file_output.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <malloc.h>
#include <system_error>
#include <unistd.h>

#include "planner/graph/diagnostic.h"
#include "planner/graph/excerpt.h"

namespace eindecomp::cli {

int runCommand(const std::function<int()>& body) {
  try {
    return body();
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return e.exitCode();
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory (an allocation was refused: the machine's memory or an address-space limit); "
                 "nothing was written\n";
    return kExitOutOfMemory;
  } catch (const std::exception& e) {
    std::cerr << "error: " << boundedMessage(e.what()) << "\n";
    return kExitBadInput;
  }
}

void checkOutputFile(const std::string& path, const std::string& option) {
  if (path == "-" || path.empty()) return;
  try {
    const std::string warning = einrt::checkWritable(path);
    if (!warning.empty()) std::cerr << "warning: " << option << " " << boundedMessage(path) << ": " << warning << "\n";
  } catch (const einrt::FileError& e) {
    throw InputError({{e.path(), 0, 0}, option + ": " + e.reason()});
  }
}

void writeFileAtomically(const std::string& path, const std::string& contents) {
  if (path == "-") {
    std::cout << contents;
    std::cout.flush();
    return;
  }
  try {
    einrt::writeFile(path, contents);
  } catch (const einrt::FileError& e) {
    throw InputError({{e.path(), 0, 0}, e.reason()});
  }
}

static std::string& storedCommandLine() {
  static std::string line;
  return line;
}

std::string shellWord(const std::string& arg) {
  const bool plain = !arg.empty() && arg.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                           "0123456789_-+=/.,:@%") == std::string::npos;
  if (plain) return arg;
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void setCommandLine(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    if (i) line += ' ';
    line += shellWord(argv[i]);
  }
  storedCommandLine() = line;
}

const std::string& commandLine() { return storedCommandLine(); }

void tuneAllocatorForLargeGraphs() { mallopt(M_MXFAST, 0); }

}  // namespace eindecomp::cli
