#include "cli/common/run_command.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
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
  } catch (const std::exception& e) {
    std::cerr << "error: " << boundedMessage(e.what()) << "\n";
    return kExitBadInput;
  }
}

void writeFileAtomically(const std::string& path, const std::string& contents) {
  if (path == "-") {
    std::cout << contents;
    std::cout.flush();
    return;
  }
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path tmp = target;
  tmp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) throw InputError({{path, 0, 0}, "cannot open for writing"});
    out << contents;
    out.close();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw InputError({{path, 0, 0}, "write failed"});
    }
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw InputError({{path, 0, 0}, "cannot write: " + ec.message()});
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

}  // namespace eindecomp::cli
